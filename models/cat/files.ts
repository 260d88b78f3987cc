// Where a model's files are found, and herd's configuration files (.cfg:
// `key value` lines naming the model, bell, macros and variants, plus keys
// that only style pictures).
//
// herd7 looks for a file named on its command line or in a .cfg in the
// current folder, then in each -I folder, then in its own library (litmus's
// own library files, models/cat/library.ts); never beside the .cfg itself.
// litmus's own commands (`check --conf FILE`, `--model FILE.cat`) look
// beside the file named first, then the same way.

import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { CatPos } from './ast.js';
import { ModelError } from './lexer.js';
import { LIMITS, readInputFile } from '../../src/limits.js';
import type { ModelSource } from './compile.js';

/** A model given as files: what `--model`, `--conf` and herd7's options name. */
export interface ModelFiles {
  /** The .cat file (absolute path). */
  cat: string;
  bell?: string;
  /** The .def file of macros (read by the program layer, see src/events). */
  macros?: string;
  variants: string[];
  /** Folders searched for included files, in order (after the including file's own folder for litmus's commands). */
  searchDirs: string[];
  /** Checks not enforced (herd's -skipchecks). */
  skipChecks: string[];
  /**
   * herd7's own library folders (-set-libdir), searched after searchDirs. herd's library files there
   * (stdlib.cat, cross.cat, cos.cat, cos-opt.cat) are litmus's own (models/cat/library.ts): herd
   * writes some of its primitives in cat, litmus computes them natively.
   */
  libraryDirs?: string[];
  /** Whether an included file is looked for beside the file that includes it first (litmus's commands; not herd7). */
  besideIncluder?: boolean;
  /** Run the compiled files even when they are the kernel's (for comparisons: bench/cat.ts). */
  compiled?: boolean;
}

/** Keys of a .cfg that litmus follows; any other key is herd's picture styling or search tuning. */
export interface ConfSettings {
  model?: string;
  bell?: string;
  macros?: string;
  variants: string[];
  /** Every line, in the file's order, with where its key is (the caller judges the keys other than these: unroll, speedcheck, graph options, ...). */
  entries: [string, string, CatPos][];
  /** Where the model, bell and macros lines are. */
  at: { model?: CatPos; bell?: CatPos; macros?: CatPos };
}

/** Reads a .cfg file. */
export function readConf(path: string): ConfSettings {
  const text = readModelText(path);
  const out: ConfSettings = { variants: [], entries: [], at: {} };
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    const m = /^(\S+)\s*(.*)$/.exec(line)!;
    const [key, value] = [m[1].replace(/^-/, ''), m[2].trim()];
    const pos = { file: path, line: i + 1, col: raw.indexOf(m[1]) + 1 };
    // herd7 reads `key value` lines only: a key alone is an error there too.
    if (!value) throw new ModelError(`"${key}" without a value (a configuration line is "key value")`, pos);
    out.entries.push([key, value, pos]);
    if (key === 'model' || key === 'cat') [out.model, out.at.model] = [value, pos];
    else if (key === 'bell') [out.bell, out.at.bell] = [value, pos];
    else if (key === 'macros') [out.macros, out.at.macros] = [value, pos];
    else if (key === 'variant') out.variants.push(...value.split(',').map((v) => v.trim()).filter(Boolean));
  });
  return out;
}

/**
 * The `unroll` line of a .cfg, as herd7 reads it: an integer (OCaml's, so
 * `-1`, `0x10`, `1_000` too; a negative bound cuts every loop at once, as
 * 0 does), or herd7 stops ("integer parameter expected"); undefined where
 * there is none (the last one counts, as herd7 applies each in turn).
 */
export function unrollOfConf(settings: ConfSettings): number | undefined {
  let out: number | undefined;
  for (const [key, value, pos] of settings.entries) {
    if (key !== 'unroll') continue;
    const n = herdUnroll(value);
    if (n === undefined) throw new ModelError(`integer parameter expected after "unroll" (herd7 stops here: "integer parameter expected")`, { ...pos, col: pos.col + key.length + 1 });
    out = n;
  }
  return out;
}

/**
 * An unroll bound as herd7 reads it (OCaml's int_of_string: `3`, `-1`,
 * `0x10`, `1_000`), a negative one as 0 (herd7 cuts every loop at once
 * either way); undefined when it is no integer.
 */
export function herdUnroll(value: string): number | undefined {
  const m = /^(-?)(0x[0-9a-f][0-9a-f_]*|0o[0-7][0-7_]*|0b[01][01_]*|[0-9][0-9_]*)$/i.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[2].replace(/_/g, ''));
  if (!Number.isSafeInteger(n)) return undefined;
  return m[1] ? 0 : n;
}

/**
 * The files a .cfg names (its model, bell, macros and variants), each
 * looked for beside the .cfg, then in the current folder; `model`, `bell`
 * and `variants` stand for or add to the .cfg's (the command line's
 * --model, --bell, --variant). A file not found is an error at its line.
 */
export function filesOfConf(confPath: string, over: { model?: string; bell?: string; variants?: string[] } = {}): ModelFiles {
  const conf = resolve(confPath);
  const settings = readConf(conf);
  const dirs = besideFirst(conf);
  const top = { file: conf, line: 1, col: 1 };
  const find = (name: string, at: CatPos | undefined) => {
    const p = findIn(name, dirs);
    if (!p) throw new ModelError(`Cannot find file ${name}`, at ?? top);
    return p;
  };
  const catName = over.model ?? settings.model;
  if (catName === undefined) throw new ModelError('this configuration names no model (a "model FILE.cat" line)', top);
  const cat = find(catName, settings.at.model);
  const bellName = over.bell ?? settings.bell;
  const bell = bellName === undefined ? undefined : find(bellName, settings.at.bell);
  const macros = settings.macros === undefined ? undefined : find(settings.macros, settings.at.macros);
  return { cat, bell, macros, variants: [...settings.variants, ...(over.variants ?? [])], searchDirs: dirs, skipChecks: [], besideIncluder: true };
}

/** A model file's text; a folder, a missing or an unreadable file is a positioned error naming it. */
export function readModelText(path: string): string {
  const at = { file: path, line: 1, col: 1 };
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ModelError(`Cannot find file ${path}`, at);
  }
  if (st.isDirectory()) throw new ModelError('is not a file', at);
  // Every input through the one reader: a FIFO or a device is refused without blocking, and the size is bounded.
  try {
    return readInputFile(path, { maxBytes: LIMITS.modelBytes });
  } catch (e) {
    throw new ModelError((e as Error).message, at);
  }
}

/** The first folder of `dirs` holding `name` (a path with a folder part is taken as it is). */
export function findIn(name: string, dirs: readonly string[]): string | undefined {
  if (isAbsolute(name)) return existsSync(name) ? name : undefined;
  for (const d of dirs) {
    const p = resolve(d, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/**
 * The source of included files: the search folders, each file's own folder first when `besideIncluder`,
 * then herd's library folders but for the library files litmus has its own of (`ownLibrary`).
 */
export function fileSource(searchDirs: readonly string[], besideIncluder: boolean, libraryDirs: readonly string[] = [], ownLibrary: ReadonlySet<string> = new Set()): ModelSource {
  return {
    find(name: string, from: CatPos | undefined) {
      const dirs = besideIncluder && from && !from.file.startsWith('litmus:') ? [dirname(from.file), ...searchDirs] : [...searchDirs];
      if (!ownLibrary.has(name)) dirs.push(...libraryDirs);
      const path = findIn(name, dirs);
      return path ? { path, text: readModelText(path) } : undefined;
    },
  };
}

/** The search folders of litmus's own commands for a model named by `path`: its folder, then the current one. */
export function besideFirst(path: string): string[] {
  return [dirname(resolve(path)), process.cwd()];
}


