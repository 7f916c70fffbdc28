/*
 * One CSV field, safe to open in a spreadsheet whichever separator it reads the file with. Excel in
 * Brazil splits on `;`, elsewhere on `,`; read with the "wrong" one, a quote inside a field is a plain
 * character, so quoting protects nothing there: any `,` or `;` a customer typed may start a cell. So
 * every place a cell can start in either reading (the field's start, after a `,`, a `;` or a line
 * break) that would run as a formula gets an apostrophe, and quoting is only what RFC 4180 asks.
 */

/**
 * A cell starting with `=`, `+`, `-` or `@`, after any quotes or blanks a reader may drop, is a
 * formula; so is one starting with a tab or a carriage return (Excel trims them and reads what
 * follows). The apostrophe goes right after the separator, so the cell starts with it in every reading.
 */
const FORMULA_START = /(?<=^|[,;\r\n])(?=[\s"]*[=+\-@]|[\t\r])/g;

/** The text with an apostrophe wherever a cell starting there would be a formula. */
export const neutraliseFormulas = (text: string): string => text.replace(FORMULA_START, "'");

/**
 * The field as written: neutralised, then quoted (quotes doubled) when it holds either separator, a
 * quote or a line break, so each export parses into the same cells with `,` or with `;`.
 */
export function csvField(value: string | null | undefined): string {
  const text = neutraliseFormulas(value ?? '');
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
