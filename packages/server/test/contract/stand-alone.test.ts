import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** A clone of this repository is all a user has: nothing may point at files outside it. */

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && existsSync(join(ROOT, file)) && !/\.(png|lock)$|package-lock\.json$/.test(file));

// Spelled in pieces so that this file does not match itself.
const OUTSIDE = new RegExp(
  ['\\.\\./' + 'shared/(spec|DESI' + 'GN)', 'shared' + '/spec', 'DESI' + 'GN ?§', 'DESI' + 'GN\\.md'].join(
    '|',
  ),
);

describe('the repository stands alone', () => {
  it('no file cites the design notes or the spec kept outside the repository', () => {
    const offending = tracked.filter((file) => OUTSIDE.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(offending).toEqual([]);
  });

  it('every relative link in the README and docs/ leads to a file inside the repository', () => {
    const pages = tracked.filter((file) => file.endsWith('.md'));
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const file = join(ROOT, dirname(page), target!.split('#')[0]!);
        if (relative(ROOT, file).startsWith('..') || !existsSync(file)) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the API reference is in docs/, generated from the OpenAPI document', () => {
    const reference = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const document = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8'));
    for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
      for (const method of Object.keys(item))
        expect(reference).toContain(`### ${method.toUpperCase()} ${path}`);
    }
    for (const name of Object.keys(document.components.schemas))
      expect(reference).toContain(`### ${name} object`);
  });
});
