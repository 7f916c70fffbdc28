import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const MAP = fileURLToPath(new URL('../../../../docs/architecture.md', import.meta.url));

/** Every folder of src that holds source files itself: a module of the graph `npm run deps` draws. */
function modules(dir = SRC): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const own = entries.some((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    ? [relative(SRC, dir)]
    : [];
  return [
    ...own,
    ...entries.filter((entry) => entry.isDirectory()).flatMap((entry) => modules(join(dir, entry.name))),
  ];
}

/** The folders the map's module table names, each written `` `layer/…/` `` in a row's first cell. */
function mappedFolders(): Set<string> {
  const text = readFileSync(MAP, 'utf8');
  const table = text.slice(text.indexOf('## Modules'));
  const rows = table.split('\n').filter((line) => line.startsWith('|'));
  const folders = rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([a-z0-9/-]+)\/`/g)]);
  return new Set(folders.map((match) => match[1]!));
}

describe('docs/architecture.md', () => {
  it('has a row for every module of packages/server/src, and none for a folder that is gone', () => {
    const actual = modules().filter((module) => module !== '');
    const mapped = mappedFolders();
    expect(actual.filter((module) => !mapped.has(module))).toEqual([]);
    expect([...mapped].filter((folder) => !actual.includes(folder))).toEqual([]);
  });
});
