/**
 * Folds free text to the character set a BR Code may carry: printable ASCII (0x20..0x7E).
 * Accents are stripped (NFD, then combining marks removed: "São José" -> "Sao Jose"); any other
 * character outside printable ASCII (emoji, "ß", control characters, tabs, newlines) is dropped.
 * Runs of spaces are collapsed and the ends trimmed.
 *
 * Folding happens before lengths are measured, so the length prefix of a field always matches its
 * bytes and the CRC is computed over exactly what a reader sees.
 */
export function foldToAscii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** Folds, then truncates to `maxLength` characters (trimming a space left at the cut). */
export function foldAndTruncate(text: string, maxLength: number): string {
  return foldToAscii(text).slice(0, maxLength).trimEnd();
}
