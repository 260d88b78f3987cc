// Which files a command line names: files, folders (every .litmus below),
// or bare names looked up in the project's litmus/ folder.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's bundled litmus/ folder (next to dist/ or src/). */
export function bundledDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const cand = join(dir, 'litmus');
    if (existsSync(cand) && existsSync(join(dir, 'package.json'))) return cand;
    dir = dirname(dir);
  }
  return resolve('litmus');
}

/** A folder with a suite.ts is a TypeScript suite: that file is its entry. */
function suiteFile(dir: string): string | undefined {
  const p = join(dir, 'suite.ts');
  return existsSync(p) ? p : undefined;
}

function walk(dir: string, out: string[], suites: string[]): void {
  const entry = suiteFile(dir);
  if (entry) suites.push(entry);
  // The entries' types come with the listing (a stat only for a symbolic link).
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.isDirectory() || (e.isSymbolicLink() && statSync(join(dir, e.name)).isDirectory())) walk(join(dir, e.name), out, suites);
    else if (e.name.endsWith('.litmus')) out.push(join(dir, e.name));
  }
}

export interface Resolved {
  files: string[];
  /** Folders named (for suite tables). */
  folders: string[];
  /** TypeScript inputs: suite entries (suite.ts) and single .ts tests. */
  suites: string[];
  missing: string[];
  /** Folders named that hold no .litmus file and no TypeScript suite. */
  empty: string[];
}

export function resolveInputs(args: string[]): Resolved {
  const files: string[] = [];
  const folders: string[] = [];
  const missing: string[] = [];
  const empty: string[] = [];
  const suites: string[] = [];
  for (const a of args) {
    let p: string | undefined;
    if (existsSync(a)) p = a;
    else if (!a.includes('/')) {
      const base = bundledDir();
      for (const cand of [join(base, a), join(base, `${a}.litmus`), join(base, `${a}.ts`)]) {
        if (existsSync(cand)) {
          p = cand;
          break;
        }
      }
      if (!p && existsSync(base)) {
        const all: string[] = [];
        walk(base, all, []);
        p = all.find((f) => f.endsWith(`/${a}.litmus`) || f.endsWith(`/${a}`));
      }
    }
    if (!p) {
      missing.push(a);
      continue;
    }
    if (statSync(p).isDirectory()) {
      folders.push(p);
      const before = files.length + suites.length;
      walk(p, files, suites);
      if (files.length + suites.length === before) empty.push(a);
    } else if (p.endsWith('.ts')) suites.push(p);
    else files.push(p);
  }
  return { files, folders, missing, empty, suites };
}

/** A deterministic 1/N share of the inputs: `--shard K/N` keeps index % N == K-1. */
export function shard(files: string[], spec: string): string[] {
  const m = /^(\d+)\/(\d+)$/.exec(spec);
  if (!m) throw new Error(`--shard takes K/N (e.g. 2/4), not "${spec}"`);
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || k < 1 || k > n) throw new Error(`--shard ${spec}: K must be between 1 and N`);
  return [...files].sort().filter((_, i) => i % n === k - 1);
}
