#!/usr/bin/env node
// The CLI runs from the compiled output; `npm run build` (or `npm start`) produces it.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/channels/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('storefront: not built yet. Run `npm run build` from the repository root first.');
  process.exit(1);
}
await import(entry.href);
