#!/usr/bin/env node
// The `litmus` command: runs the command line (main.ts) from the one-file
// bundle the build makes (dist/litmus.cjs, scripts/bundle.ts) with V8's code
// cache beside it, so that a run neither resolves and compiles ~80 ES modules
// nor compiles again the functions a check runs. Without a usable bundle it
// imports main.js as it is.
//
// The cache is V8's, made by the build after a warm-up run: V8 takes it only
// when its version and flags are the ones it was made under (a different
// Node: `cachedDataRejected`, and the bundle is compiled from its text, as
// without a cache). Its file is named after a hash of the bundle's text,
// which the bundle's last line names, so a cache is never used with another
// bundle. In a checkout (src/ beside dist/), the bundle is used only while it
// is at least as new as dist/src/cli/main.js: a tsc run since the bundle was
// made means main.js is the code to run. An installed package has no src/,
// and its files' times are those of the install.
//
// This file is CommonJS: for an ES module as the entry point, Node starts its
// ES module loader (with fs/promises, readline and streams), ~18 ms of CPU
// before anything of ours runs.
//
// LITMUS_CODE_CACHE=write (the build's warm-up) writes the cache at exit;
// LITMUS_CODE_CACHE=report says on stderr what was loaded and whether V8
// took the cache.

import './v8-flags.cjs';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

const here = __dirname;
const bundle = join(here, '..', '..', 'litmus.cjs');

/** The bundle's text, when it exists and (in a checkout) is not older than the compiled sources. */
function bundleText(): string | undefined {
  try {
    const checkout = existsSync(join(here, '..', '..', '..', 'src', 'cli', 'main.ts'));
    if (checkout && statSync(bundle).mtimeMs < statSync(join(here, 'main.js')).mtimeMs) return undefined;
    return readFileSync(bundle, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The code cache the bundle's last line names (`//# litmus-code-cache=FILE`),
 * if it is there; `litmus herd7` (and litmus-herd7) has its own beside it
 * (FILE with `.herd7.cache`), made by a warm-up of that command: a cache
 * holds the functions its warm-up ran, and herd7's path runs others.
 */
function cacheFor(text: string): { file: string; data?: Buffer } | undefined {
  const m = /\/\/# litmus-code-cache=([\w.-]+)\s*$/.exec(text.slice(-200));
  if (!m) return undefined;
  const name = process.argv[2] === 'herd7' ? m[1].replace(/\.cache$/, '.herd7.cache') : m[1];
  const file = join(dirname(bundle), name);
  try {
    return { file, data: readFileSync(file) };
  } catch {
    return { file };
  }
}

const mode = process.env.LITMUS_CODE_CACHE;

/** Runs the bundle as CommonJS, with its code cache unless the cache is being written. */
function runBundle(text: string): void {
  const writing = mode === 'write';
  const cache = cacheFor(text);
  const cachedData = writing ? undefined : cache?.data;
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${text}\n})`, { filename: bundle, cachedData });
  if (mode === 'report') {
    const what = !cachedData ? 'no code cache' : script.cachedDataRejected ? 'code cache rejected by V8' : 'code cache used';
    process.stderr.write(`litmus: ${bundle}, ${what}\n`);
  }
  const module = { exports: {} };
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  // Loaded only when writing (the build's warm-up): whole or not at all, as every file litmus writes.
  if (writing && cache) process.on('exit', () => (require('../write-file.cjs') as typeof import('../write-file.cjs')).writeFileAtomic(cache.file, script.createCachedData()));
  fn.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

const text = bundleText();
if (text !== undefined) runBundle(text);
else {
  if (mode === 'report') process.stderr.write('litmus: no bundle (or one older than main.js), the modules as they are\n');
  void import('./main.js');
}
