#!/usr/bin/env node
// `litmus herd7 ARGS...` and the `litmus-herd7` command: herd7's command line
// and output, so that the kernel's tools/memory-model scripts (runlitmus.sh,
// judgelitmus.sh, cmplitmushist.sh, ...) and reviewers' habits work with
// litmus in herd7's place. Per test: herd's block, `Time NAME S`, the
// `Hash=` line, a blank line. Like herd7, a test that cannot be checked gets
// a `Warning: File "..."` line on stderr and the run goes on with exit 0
// (unless -exit true); a bad command line exits 2.

import './v8-flags.cjs';
import { readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HerdUsageError, parseHerdArgs, type HerdOptions } from './herd7-args.js';
import { readInputFile } from '../limits.js';
import { outputFolder, WriteError } from '../write-file.cjs';
import { say } from './say.js';
import { printable } from '../parse/errors.js';

const USAGE = `usage: litmus-herd7 [options] FILE.litmus...   (or: litmus herd7 [options] FILE.litmus...)
herd7's command line for Linux-kernel C litmus tests, answered by litmus:
  -conf linux-kernel.cfg   the kernel's configuration (the LKMM); also -model linux-kernel.cat, sc.cat, x86tso.cat
  -unroll N                loop unrolling bound (default 2)
  -speedcheck false|true|fast   list only the states the condition looks for (true), stop at the first (fast)
  -o DIR                   write DIR/NAME.dot per test; with -show prop, a picture of one execution satisfying the proposition
  -show none|prop          which execution -o pictures (herd's default none writes an empty file)
  -timeout SECONDS         give up a test after this long (then no candidate cap; without it, no time limit and a 1,000,000-candidate cap)
  -exit true               stop at the first test that cannot be checked, exit 1
  -through none, -gv, -I DIR and herd's picture-styling options are accepted; -gv starts no viewer.
Without files, test file names are read from standard input, one per line.`;

/** Where the output goes (tests pass their own). */
export interface HerdIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

const STDIO: HerdIo = { out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(printable(s)) };

export async function herd7Main(argv: string[], io: HerdIo = STDIO): Promise<number> {
  let parsed: { opts: HerdOptions; files: string[] };
  try {
    parsed = parseHerdArgs(argv);
  } catch (e) {
    if (!(e instanceof HerdUsageError)) throw e;
    if (e.pos) io.err(`${e.pos.file}:${e.pos.line}:${e.pos.col}: ${e.message}\n`);
    else io.err(`litmus-herd7: ${e.message}\nTry "litmus-herd7 -help" for the options litmus understands.\n`);
    return 2;
  }
  const { opts } = parsed;
  if (opts.help) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  if (opts.version) {
    io.out(`litmus-herd7 ${packageVersion()} (herd7-compatible command line of litmus, LKMM checker)\n`);
    return 0;
  }
  let files = parsed.files;
  if (files.length === 0) {
    if (process.stdin.isTTY) {
      io.err(`${USAGE}\n`);
      return 2;
    }
    files = readFileSync(0, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  }
  files = files.flatMap(expandIndexFile);
  for (const n of opts.notes) io.err(`litmus-herd7: ${n}\n`);
  if (opts.outDir !== undefined) {
    try {
      outputFolder(opts.outDir);
    } catch (e) {
      io.err(`litmus-herd7: -o ${opts.outDir}: ${e instanceof WriteError && e.path === resolve(opts.outDir) ? e.reason : (e as Error).message}\n`);
      return 2;
    }
  }
  const { getModel } = await import('../../models/index.js');
  const { ModelError } = await import('../../models/cat/lexer.js');
  try {
    const model = getModel(opts.model)!;
    // The -macros file: a malformed one (or, under a built-in model, one with a tag it would ignore) stops the run.
    const { herdPrimitives } = await import('./herd7-test.js');
    const macros = herdPrimitives(opts, model);
    if (macros.error) {
      io.err(`${macros.error.format()}\n`);
      return 2;
    }
  } catch (e) {
    if (!(e instanceof ModelError)) throw e;
    io.err(`${e.format()}\n`);
    return 2;
  }
  const { checkOne } = await import('./herd7-test.js');
  const seen = new Map<string, { hash: string; file: string }>();
  for (const file of files) {
    const r = checkOne(file, opts, seen);
    if (r.output) io.out(r.output);
    for (const w of r.warnings) io.err(`Warning: ${w}\n`);
    if (r.failed && opts.exitIfFailed) return 1;
  }
  return 0;
}

/** `@FILE` names a file listing tests, one per line (herd's index files). */
function expandIndexFile(arg: string): string[] {
  if (!arg.startsWith('@')) return [arg];
  try {
    return readInputFile(arg.slice(1)).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  } catch {
    return [arg];
  }
}

export function packageVersion(): string {
  try {
    const pkg = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..', 'package.json');
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return '';
  }
}

// Run as a command (litmus-herd7, or a link to it named herd7), not when imported.
const invoked = process.argv[1] ? realpathOrSelf(process.argv[1]) : '';
if (invoked === fileURLToPath(import.meta.url)) {
  herd7Main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      say(`litmus-herd7: ${e instanceof Error ? e.message : String(e)}`);
      process.exitCode = 2;
    },
  );
}

function realpathOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
