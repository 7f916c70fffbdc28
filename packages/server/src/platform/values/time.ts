/** Timestamps are ISO 8601 UTC with milliseconds everywhere, stored as text so both databases sort them alike. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoAfter(ms: number, from: Date = new Date()): string {
  return new Date(from.getTime() + ms).toISOString();
}
