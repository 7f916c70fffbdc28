/**
 * A CSV file as a spreadsheet reads it, with `separator` and with or without quote handling. With
 * `quotes`, a quote opens a quoted field only at the start of a cell (RFC 4180 and Excel: `""` inside
 * is one quote, and what follows the closing quote is kept as plain text up to the next separator);
 * without, every quote is a plain character, as a reader splitting on the "wrong" separator sees a
 * field quoted for the other one. Records end at CRLF, LF or a lone CR outside quotes.
 */
export function readCsv(text: string, separator: ',' | ';', quotes = true): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let atStart = true;
  let quoted = false;
  const endField = () => {
    record.push(field);
    field = '';
    atStart = true;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (quotes && atStart && c === '"') {
      quoted = true;
      atStart = false;
    } else if (c === separator) {
      endField();
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      endField();
      records.push(record);
      record = [];
    } else {
      field += c;
      atStart = false;
    }
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** Cells a spreadsheet would run as a formula: `=`, `+`, `-` or `@` first, after any blanks (tab, CR) or quotes it drops. */
export const isFormulaCell = (cell: string): boolean => /^[\s"]*[=+\-@]/.test(cell);

/** Every cell of the file read with `,` and with `;`, quotes honoured or not. */
export function cellsEveryWay(text: string): string[] {
  return ([',', ';'] as const).flatMap((separator) =>
    [true, false].flatMap((quotes) => readCsv(text, separator, quotes).flat()),
  );
}
