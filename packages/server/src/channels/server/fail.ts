/** Ends a command or a start that cannot go on: one line on stderr, exit status 1. */
export function fail(message: string): never {
  console.error(`storefront: ${message}`);
  process.exit(1);
}
