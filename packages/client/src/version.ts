// Kept in step with package.json by a test; importing package.json would differ between the two builds.
export const VERSION = '0.4.0';
