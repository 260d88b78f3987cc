// Which files a command line names: files, folders (every .litmus below),
// or bare names looked up in the project's litmus/ folder.

import { existsSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
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

/** An entry of a folder that could not be followed (a dangling symbolic link, a loop, an unreadable folder). */
export interface Unreadable {
  path: string;
  message: string;
}

/**
 * Every .litmus file and suite below `dir`, in name order. An entry that
 * cannot be followed is recorded in `bad` and the walk goes on; a folder
 * reached again through a symbolic link (a loop) is walked once.
 */
function walk(dir: string, out: string[], suites: string[], bad: Unreadable[] = [], seen = new Set<string>()): void {
  let real: string;
  let entries: Dirent[];
  try {
    real = realpathSync(dir);
    if (seen.has(real)) {
      bad.push({ path: dir, message: 'a symbolic link to a folder already being read (a loop): not followed' });
      return;
    }
    // The entries' types come with the listing (a stat only for a symbolic link).
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    bad.push({ path: dir, message: `cannot read this folder: ${(e as Error).message}` });
    return;
  }
  seen.add(real);
  const entry = suiteFile(dir);
  if (entry) suites.push(entry);
  for (const e of entries) {
    const path = join(dir, e.name);
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        isDir = statSync(path).isDirectory();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? 'a symbolic link to nothing (dangling)' : code === 'ELOOP' ? 'a symbolic link loop' : (err as Error).message;
        bad.push({ path, message: `${why}: not read` });
        continue;
      }
    }
    if (isDir) walk(path, out, suites, bad, seen);
    else if (e.name.endsWith('.litmus')) out.push(path);
  }
  seen.delete(real);
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
  /** Entries below the folders named that could not be followed. */
  unreadable: Unreadable[];
  /**
   * Every path above (files, suites, missing and empty inputs, unreadable
   * entries) in the order the command line and the walks name them: the
   * order of --json's results.
   */
  order: string[];
}

export function resolveInputs(args: string[]): Resolved {
  const files: string[] = [];
  const folders: string[] = [];
  const missing: string[] = [];
  const empty: string[] = [];
  const suites: string[] = [];
  const unreadable: Unreadable[] = [];
  const order: string[] = [];
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
      order.push(a);
      continue;
    }
    if (statSync(p).isDirectory()) {
      folders.push(p);
      const found: string[] = [];
      const foundSuites: string[] = [];
      const bad: Unreadable[] = [];
      walk(p, found, foundSuites, bad);
      files.push(...found);
      suites.push(...foundSuites);
      unreadable.push(...bad);
      order.push(...found, ...bad.map((b) => b.path), ...foundSuites);
      if (found.length + foundSuites.length === 0 && bad.length === 0) {
        empty.push(a);
        order.push(a);
      }
    } else if (p.endsWith('.ts')) {
      suites.push(p);
      order.push(p);
    } else {
      files.push(p);
      order.push(p);
    }
  }
  return { files, folders, missing, empty, suites, unreadable, order };
}

/**
 * A deterministic 1/N share of the inputs: `--shard K/N` keeps the inputs
 * whose index in sorted order is K-1 modulo N (so the shards do not depend
 * on the order of the command line), in their own order.
 */
export function shard(files: string[], spec: string): string[] {
  const m = /^(\d{1,9})\/(\d{1,9})$/.exec(spec);
  if (!m) throw new Error(`--shard takes K/N (e.g. 2/4), not "${spec}"`);
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || k < 1 || k > n) throw new Error(`--shard ${spec}: K must be between 1 and N`);
  const mine = new Set([...files].sort().filter((_, i) => i % n === k - 1));
  return files.filter((f) => mine.has(f));
}
