// A suite's lowering (its tests as C syntax trees), saved so that checking a
// suite need not load TypeScript: ts-morph and the compiler take longer to
// load than the NFS suite takes to check. Only the lowering is kept, never a
// verdict. A saved lowering is used only when its stamp matches: a hash of
// every file the reader read for it, of litmus/kernel.d.ts, of the reader's
// own code and of the package version; so an edited suite is read again.
//
// Bundled suites are lowered when the package is built
// (scripts/lower-suites.ts, into dist/lowered/); other suites are saved in a
// cache folder on first use (LITMUS_CACHE_DIR, else $XDG_CACHE_HOME/litmus or
// ~/.cache/litmus; LITMUS_CACHE_DIR=off turns it off), silently skipped when
// it cannot be written.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readInputBytes } from '../limits.js';
import type { Pos } from '../parse/ast.js';
import type { Suite, SuiteTest } from './read.js';
import { outputFolder, writeFileAtomic } from '../write-file.cjs';

const FORMAT = 2;
const FILE_KEY = '@file';

interface Saved {
  format: number;
  stamp: string;
  /** The files read, relative to the entry's folder. */
  sources: string[];
  /** The suite, its paths relative to the entry's folder and its positions tagged with their file. */
  suite: Omit<Suite, 'file' | 'tests' | 'sources'> & { tests: Omit<SuiteTest, 'files'>[] };
  files: string[];
}

/** The package's root folder (with package.json and litmus/). */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'litmus'))) return dir;
    dir = dirname(dir);
  }
  return undefined;
}

/**
 * The code that turns TypeScript into C, as built into dist/ (also when the
 * tests run the sources: they build dist/ first): a change to it makes every
 * saved lowering stale.
 */
function readerCode(root: string): string[] {
  const dist = join(root, 'dist', 'src');
  return [
    ...['read', 'lower', 'modules', 'kernel-decl'].map((f) => join(dist, 'suite', `${f}.js`)),
    join(dist, 'events', 'primitives.js'),
    join(dist, 'parse', 'ast.js'),
    join(dist, 'limits.js'),
  ];
}

/** The stamp of a lowering read from `sources` (absolute paths); undefined if one cannot be read. */
export function stamp(sources: string[]): string | undefined {
  const root = packageRoot();
  if (!root) return undefined;
  const h = createHash('sha256');
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
    h.update(`format ${FORMAT}\nversion ${pkg.version}\n`);
    for (const f of [join(root, 'litmus', 'kernel.d.ts'), ...readerCode(root)]) h.update(`${relative(root, f)}\n`).update(readFileSync(f)).update('\n');
    const entryDir = sources.length ? dirname(sources[0]) : '';
    for (const f of sources) h.update(`${relative(entryDir, f)}\n`).update(readInputBytes(f)).update('\n');
  } catch {
    return undefined;
  }
  return h.digest('hex');
}

/** Where the build puts a bundled suite's lowering; undefined for a suite outside litmus/. */
export function bundledProduct(entry: string): string | undefined {
  const root = packageRoot();
  if (!root) return undefined;
  const rel = relative(join(root, 'litmus'), resolve(entry));
  if (rel.startsWith('..') || rel.startsWith(sep)) return undefined;
  return join(root, 'dist', 'lowered', rel.split(sep).join('__') + '.json');
}

/** The cache file for any suite entry (by its absolute path), or undefined when caching is off. */
function cacheFile(entry: string): string | undefined {
  const env = process.env.LITMUS_CACHE_DIR;
  if (env === 'off') return undefined;
  const base = env || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'litmus');
  const key = createHash('sha256').update(resolve(entry)).digest('hex').slice(0, 32);
  return join(base, 'lowered', `${key}.json`);
}

/** The saved lowering of `entry`, if one is there and its stamp is current. */
export function loadLowered(entry: string): Suite | undefined {
  for (const f of [bundledProduct(entry), cacheFile(entry)]) {
    if (!f || !existsSync(f)) continue;
    const s = loadFile(f, entry);
    if (s) return s;
  }
  return undefined;
}

function loadFile(path: string, entry: string): Suite | undefined {
  let saved: Saved;
  try {
    saved = JSON.parse(readFileSync(path, 'utf8')) as Saved;
  } catch {
    return undefined;
  }
  if (saved.format !== FORMAT || !Array.isArray(saved.sources)) return undefined;
  const dir = dirname(resolve(entry));
  const sources = saved.sources.map((s) => resolve(dir, s));
  if (sources[0] !== resolve(entry) || stamp(sources) !== saved.stamp) return undefined;
  return revive(saved, entry, sources);
}

/** The saved form of a suite freshly read (its `sources` say what it was read from). */
export function toSaved(suite: Suite): string | undefined {
  // Problems are read again each time (their messages name files where they are).
  if (suite.unread.length > 0) return undefined;
  const st = stamp(suite.sources);
  if (!st) return undefined;
  const dir = dirname(resolve(suite.file));
  const files: string[] = [];
  const index = (f: string) => {
    const r = relative(dir, f);
    const i = files.indexOf(r);
    return i >= 0 ? i : files.push(r) - 1;
  };
  const tests = suite.tests.map(({ files: posFiles, ...t }) => JSON.parse(withFiles(t, posFiles, index)) as Omit<SuiteTest, 'files'>);
  const { file: _file, tests: _tests, sources, ...rest } = suite;
  const saved: Saved = { format: FORMAT, stamp: st, sources: sources.map((s) => relative(dir, s)), suite: { ...rest, tests }, files };
  return JSON.stringify(saved);
}

/** JSON of `x` with each position that `files` knows tagged with its file (as `name` gives it). */
export function withFiles(x: unknown, files: Map<Pos, string>, name: (file: string) => number | string): string {
  return JSON.stringify(x, (_k, v: unknown) => {
    const f = v !== null && typeof v === 'object' ? files.get(v as Pos) : undefined;
    return f === undefined ? v : { ...(v as Pos), [FILE_KEY]: name(f) };
  });
}

function revive(saved: Saved, entry: string, sources: string[]): Suite {
  const dir = dirname(resolve(entry));
  const files = saved.files.map((f) => resolve(dir, f));
  const tests: SuiteTest[] = saved.suite.tests.map((t) => {
    const posFiles = new Map<Pos, string>();
    const walk = (v: unknown): void => {
      if (v === null || typeof v !== 'object') return;
      if (Array.isArray(v)) {
        v.forEach(walk);
        return;
      }
      const o = v as Record<string, unknown>;
      if (typeof o[FILE_KEY] === 'number') {
        posFiles.set(o as unknown as Pos, files[o[FILE_KEY] as number]);
        delete o[FILE_KEY];
      }
      for (const x of Object.values(o)) walk(x);
    };
    walk(t.test);
    return { ...t, files: posFiles };
  });
  return { ...saved.suite, file: entry, sources, tests };
}

/** Saves a lowering in the cache folder; any failure is ignored (the cache is an optimisation). */
export function saveLowered(suite: Suite): void {
  const f = cacheFile(suite.file);
  if (f) writeAtomically(f, suite);
}

/** Writes a bundled suite's lowering where the build puts it. */
export function saveBundled(suite: Suite): string | undefined {
  const f = bundledProduct(suite.file);
  return f && writeAtomically(f, suite) ? f : undefined;
}

/** Writes a saved lowering whole or not at all (src/write-file.cts; a cache: not synced to the disk, never cut). */
function writeAtomically(path: string, suite: Suite): boolean {
  try {
    const text = toSaved(suite);
    if (!text) return false;
    outputFolder(dirname(path));
    writeFileAtomic(path, text, { noSync: true });
    return true;
  } catch {
    return false;
  }
}
