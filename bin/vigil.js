#!/usr/bin/env node
// The `vigil` command (package.json's bin). In a checkout it runs the TypeScript sources beside it (Node strips
// their types); in the installed package, where Node strips no types (under node_modules) and no sources ship, it
// runs the bundle `npm pack` built (dist/vigil.js, made at prepack from these same sources).
import { existsSync } from 'node:fs';

const sources = new URL('./vigil.ts', import.meta.url);
const { run } = await import(existsSync(sources) ? sources.href : new URL('../dist/vigil.js', import.meta.url).href);
await run(process.argv);
