import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { isPostgres } from './sql-dialect.js';
import type { DialectHandle } from './sql-dialect.js';

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
function foldedSql(expression: string, postgres: boolean): string {
  if (postgres) return `lower(translate(${expression}, ${quoted(ACCENTED)}, ${quoted(BARE)}))`;
  let folded = expression;
  for (const [letter, bare] of FOLDS) folded = `replace(${folded}, ${quoted(letter)}, ${quoted(bare)})`;
  return `lower(${folded})`;
}

/** `%`, `_` and the escape character itself stand for themselves in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Bare letters an accented one folds to: in the cheap pre-check, any one character may stand there. */
const FOLD_TARGETS = new Set(BARE);

/**
 * Whether `expression` (SQL text, a column or a JSON field) holds `needle` once both are folded, any
 * case, any accent. SQLite pays one `replace` a letter for the fold (about 15 times a plain `lower`
 * over the same rows), so it first runs a cheap necessary check with native LIKE: the needle's other
 * characters as they are (LIKE ignores A–Z case), any one character where an accented letter could
 * stand. Only a row that passes is folded. PostgreSQL's `translate` is cheap and needs no pre-check.
 */
export function foldedContains(db: DialectHandle, expression: string, needle: string): RawBuilder<boolean> {
  const folded = foldText(needle);
  const pattern = `%${likeLiteral(folded)}%`;
  if (isPostgres(db))
    return sql<boolean>`${sql.raw(foldedSql(expression, true))} like ${pattern} escape '\\'`;
  const loose = `%${[...folded].map((c) => (FOLD_TARGETS.has(c) ? '_' : likeLiteral(c))).join('')}%`;
  return sql<boolean>`(${sql.raw(expression)} like ${loose} escape '\\' and ${sql.raw(foldedSql(expression, false))} like ${pattern} escape '\\')`;
}
