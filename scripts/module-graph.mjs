// `npm run deps`: the module graph of packages/server/src, its cycles, and imports against the layers.
// A module is a folder that holds source files itself; an import between two files of different
// folders is an edge between their modules. Exits 1 when there is a cycle or a layer violation, so it
// can stand in CI beside the lint rule that reports the same violations file by file.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../packages/server/src/', import.meta.url));
const LAYERS = ['platform', 'domain', 'flows', 'channels'];

export function sourceFiles(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [relative(SRC, path)] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Every relative import of every source file, resolved to the imported file. */
export function importsOf(files) {
  const known = new Set(files);
  return files.flatMap((file) => {
    const text = readFileSync(join(SRC, file), 'utf8');
    return [...text.matchAll(IMPORT)].flatMap((match) => {
      const base = normalize(join(dirname(file), match[1] ?? match[2])).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((c) => known.has(c));
      return target ? [{ from: file, to: target }] : [];
    });
  });
}

const moduleOf = (file) => dirname(file);
const layerOf = (file) => LAYERS.indexOf(file.split('/')[0]);
/** domain/<concept>/…: the concept a domain file belongs to (its sub-folders are part of it). */
const conceptOf = (file) => (file.startsWith('domain/') ? file.split('/')[1] : null);

/** Why an import breaks the layering, or null when it is allowed. */
export function violation({ from, to }) {
  const [a, b] = [layerOf(from), layerOf(to)];
  if (a === -1) return null; // src/index.ts, the package's entry, may import anything
  if (b === -1) return `${from} imports ${to}, which is outside the layers`;
  if (b > a) return `${from} (${LAYERS[a]}) imports ${to} (${LAYERS[b]}), a layer above it`;
  const [ca, cb] = [conceptOf(from), conceptOf(to)];
  if (a === 1 && b === 1 && ca !== cb && cb !== 'kernel')
    return `${from} (domain ${ca}) imports ${to} (domain ${cb}); domain modules share only the kernel`;
  return null;
}

/** Strongly connected groups of modules with more than one member (Tarjan). */
export function cycles(edges) {
  const next = new Map();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const nodes = [...new Set(edges.flat())];
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  let counter = 0;
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return groups;
}

export function moduleGraph() {
  const files = sourceFiles();
  const imports = importsOf(files);
  const modules = [...new Set(files.map(moduleOf))].sort();
  const edgeKeys = new Set(
    imports
      .filter((i) => moduleOf(i.from) !== moduleOf(i.to))
      .map((i) => `${moduleOf(i.from)}\0${moduleOf(i.to)}`),
  );
  const edges = [...edgeKeys].map((k) => k.split('\0')).sort();
  return { files, modules, edges, cycles: cycles(edges), violations: imports.map(violation).filter(Boolean) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = moduleGraph();
  const verbose = process.argv.includes('--edges');
  console.log(`${graph.modules.length} modules, ${graph.files.length} files, ${graph.edges.length} edges`);
  if (verbose) for (const [a, b] of graph.edges) console.log(`  ${a} -> ${b}`);
  console.log(`${graph.cycles.length} cycles`);
  for (const group of graph.cycles) console.log(`  cycle of ${group.length}: ${group.join(' ')}`);
  console.log(`${graph.violations.length} imports against the layers`);
  for (const v of graph.violations) console.log(`  ${v}`);
  if (graph.cycles.length > 0 || graph.violations.length > 0) process.exitCode = 1;
}
