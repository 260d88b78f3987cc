// litmus's cache folder, one rule for everything kept there (compiled
// models, the litmus-herd7 start-up snapshot): LITMUS_CACHE_DIR, else
// $XDG_CACHE_HOME/litmus, else ~/.cache/litmus; LITMUS_CACHE_DIR=off keeps
// nothing. Everything in it can be lost (`rm -rf` is fine) and is written
// whole or not at all (src/write-file.cts); it is made 0700, for this user
// only.
//
// CommonJS, like v8-flags.cts: the litmus-herd7 start (herd7-start.cts)
// uses it as well as the ES modules.

import { lstatSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The cache folder (or `sub` below it), or undefined when caching is off or there is no home to keep it in. */
export function cacheDir(sub: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.LITMUS_CACHE_DIR;
  if (dir === 'off') return undefined;
  let base = dir;
  if (!base) {
    let home: string | undefined;
    try {
      home = homedir() || undefined;
    } catch {
      home = undefined;
    }
    if (!env.XDG_CACHE_HOME && !home) return undefined;
    base = join(env.XDG_CACHE_HOME || join(home!, '.cache'), 'litmus');
  }
  return join(base, sub);
}

/** Makes a folder of the cache (0700, with its missing parents); throws if a link or a file is in its place. */
export function makeCacheFolder(dir: string): void {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st?.isDirectory()) return;
  if (st) throw new Error(`${dir} is not a folder`);
  const parent = dirname(dir);
  if (parent !== dir && !lstatSync(parent, { throwIfNoEntry: false })) mkdirSync(parent, { recursive: true, mode: 0o700 });
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    // Another process made it first.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatSync(dir).isDirectory()) throw e;
  }
}
