// Reads a V8 .cpuprofile (node --cpu-prof) and prints the functions with the most self time,
// and the same grouped by package or source file: `node bench/profile-top.mjs <file> [count]`.
import { readFileSync } from 'node:fs';

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-top.mjs <file.cpuprofile> [count]');
  process.exit(1);
}
const count = Number(countArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Self time of a node = its share of samples, each sample weighted by the time delta after it.
const selfUs = new Map();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
// Shares are of busy time: idle (waiting for I/O, or the baseline's turn) is left out.
const IDLE = new Set(['(idle)', '(program)']);
const nodesById = new Map(profile.nodes.map((n) => [n.id, n]));
for (const [id] of selfUs) if (IDLE.has(nodesById.get(id).callFrame.functionName)) selfUs.delete(id);
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

function where(frame) {
  const url = frame.url.replace(/^file:\/\//, '');
  const nm = url.lastIndexOf('node_modules/');
  const short =
    nm >= 0 ? url.slice(nm + 'node_modules/'.length) : url.replace(/^.*\/packages\//, 'packages/');
  return short ? `${short}:${frame.lineNumber + 1}` : '(native)';
}

function owner(frame) {
  const url = frame.url;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return 'node core';
  if (url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native/V8)';
  return url.replace(/^.*\/packages\//, 'packages/');
}

const byFunction = new Map();
const byOwner = new Map();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (us === 0) continue;
  const frame = node.callFrame;
  const key = `${frame.functionName || '(anonymous)'}  ${where(frame)}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byOwner.set(owner(frame), (byOwner.get(owner(frame)) ?? 0) + us);
}

// Inclusive time: a node's self time counts for every distinct function on its stack.
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const seen = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const frame = nodesById.get(at).callFrame;
    const key = `${frame.functionName || '(anonymous)'}  ${where(frame)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}

const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const top = (map, n) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);

console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s of busy samples (idle left out)\n\nself time by function:`,
);
for (const [key, us] of top(byFunction, count)) console.log(`${pct(us)}  ${key}`);
console.log('\ntotal (inclusive) time by function:');
for (const [key, us] of top(inclusive, count)) console.log(`${pct(us)}  ${key}`);
console.log('\nself time by package or file:');
for (const [key, us] of top(byOwner, count)) console.log(`${pct(us)}  ${key}`);
