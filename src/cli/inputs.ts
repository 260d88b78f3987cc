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

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.litmus')) out.push(p);
  }
}

export interface Resolved {
  files: string[];
  /** Folders named (for suite tables). */
  folders: string[];
  missing: string[];
  /** Folders named that hold no .litmus file. */
  empty: string[];
}

export function resolveInputs(args: string[]): Resolved {
  const files: string[] = [];
  const folders: string[] = [];
  const missing: string[] = [];
  const empty: string[] = [];
  for (const a of args) {
    let p: string | undefined;
    if (existsSync(a)) p = a;
    else if (!a.includes('/')) {
      const base = bundledDir();
      for (const cand of [join(base, a), join(base, `${a}.litmus`)]) {
        if (existsSync(cand)) {
          p = cand;
          break;
        }
      }
      if (!p && existsSync(base)) {
        const all: string[] = [];
        walk(base, all);
        p = all.find((f) => f.endsWith(`/${a}.litmus`) || f.endsWith(`/${a}`));
      }
    }
    if (!p) {
      missing.push(a);
      continue;
    }
    if (statSync(p).isDirectory()) {
      folders.push(p);
      const before = files.length;
      walk(p, files);
      if (files.length === before) empty.push(a);
    } else files.push(p);
  }
  return { files, folders, missing, empty };
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
