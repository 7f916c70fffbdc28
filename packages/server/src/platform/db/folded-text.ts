/*
 * Text folded for an accent- and case-insensitive search ("joao" finds "João", "CONCEIÇÃO" finds
 * "conceicao"): the accented Latin letters of Portuguese (and their neighbours) become their bare
 * lower-case letter, then A–Z is lower-cased. Each engine writes the same mapping: PostgreSQL with
 * `translate`, SQLite (which has no `translate`) with one `replace` a letter. Both lower-case after
 * the mapping, so neither depends on the database's locale (SQLite's `lower` is ASCII-only, and
 * PostgreSQL's follows LC_CTYPE, which is `C` on many installs). `foldText` is the same in JS, for
 * the searched value.
 */

const ACCENTED = 'áàâãäåÁÀÂÃÄÅéèêëÉÈÊËíìîïÍÌÎÏóòôõöÓÒÔÕÖúùûüÚÙÛÜçÇñÑýÿÝ';
const BARE = 'aaaaaaaaaaaaeeeeeeeeiiiiiiiioooooooooouuuuuuuuccnnyyy';

const FOLDS = new Map([...ACCENTED].map((letter, i) => [letter, BARE[i]!]));

/** The JS twin of `foldedSql`. */
export function foldText(text: string): string {
  return [...text]
    .map((c) => FOLDS.get(c) ?? c)
    .join('')
    .replace(/[A-Z]/g, (c) => c.toLowerCase());
}

const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** `expression` folded, as SQL text for PostgreSQL or SQLite. */
export function foldedSql(expression: string, postgres: boolean): string {
  if (postgres) return `lower(translate(${expression}, ${quoted(ACCENTED)}, ${quoted(BARE)}))`;
  let folded = expression;
  for (const [letter, bare] of FOLDS) folded = `replace(${folded}, ${quoted(letter)}, ${quoted(bare)})`;
  return `lower(${folded})`;
}
