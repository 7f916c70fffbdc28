// `npm run deps`: the module graph of packages/server/src and its cycles (`--edges` lists every edge;
// a path argument reads another tree's src, e.g. an older checkout's). A module is a folder that holds
// source files itself; an import between files of two folders is an edge between their modules.
// Exits 1 when modules import each other in a cycle: `npm run lint` runs it beside the layer rules of
// .dependency-cruiser.cjs, which say which way an import may go.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC =
  process.argv.slice(2).find((arg) => !arg.startsWith('--')) ??
  fileURLToPath(new URL('../packages/server/src/', import.meta.url));

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
  return { files, modules, edges, cycles: cycles(edges) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = moduleGraph();
  const largest = Math.max(0, ...graph.cycles.map((group) => group.length));
  console.log(
    `${graph.modules.length} modules, ${graph.files.length} files, ${graph.edges.length} edges, ` +
      `${graph.cycles.length} cycles (largest: ${largest} modules)`,
  );
  if (process.argv.includes('--edges')) for (const [a, b] of graph.edges) console.log(`  ${a} -> ${b}`);
  for (const group of graph.cycles) console.log(`  cycle of ${group.length}: ${group.join(' ')}`);
  if (graph.cycles.length > 0) process.exitCode = 1;
}
