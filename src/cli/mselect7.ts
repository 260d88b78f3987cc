// `litmus mselect7 ARGS...` and the `litmus-mselect7` command: herdtools7's
// mselect7, as far as the kernel's tools/memory-model scripts use it
// (`find litmus -name '*.litmus' -print | mselect7 -arch C` in
// newlitmushist.sh and checkghlitmus.sh): the names of the tests that are of
// the architectures asked for (and, with -threads, have that many
// processes), printed one per line in the order read. Test names come from
// the arguments, or from standard input without any, one per line (empty
// lines and lines starting with # skipped); a name starting with @ is a file
// listing more names, relative to its folder, as herd's tools read them. A
// test that cannot be read, or whose C does not parse, gets a warning on
// stderr and is not printed, as mselect7 warns of a test it cannot parse.
// Options of mselect7 that litmus does not follow are refused (exit 2),
// never ignored.

import { readFileSync } from 'node:fs';
import { dirname, join, isAbsolute } from 'node:path';
import { readInputBytes } from '../limits.js';
import { firstLine } from '../parse/header.js';
import { parseLitmus } from '../parse/parser.js';
import { LitmusError, printable } from '../parse/errors.js';

const USAGE = `usage: litmus-mselect7 [options] [test...]   (or: litmus mselect7 [options] [test...])
herdtools7's mselect7, as the kernel's scripts use it: print the names of the tests that pass.
  -arch NAME      keep tests of this architecture (the first word of the test: C, AArch64, ...); may be repeated
  -threads INTER  keep tests with that many processes: N, [N..M], [N..M[, ]N..M], [N..[
  -q              print nothing; exit 0 if the first test read passes, 1 if not
  -v              accepted (more messages in mselect7)
Without tests, their names are read from standard input, one per line; @FILE names a file of names.
Options litmus does not follow (-ins, -names, -excl, -oknames, -nonames, -rename) are refused.`;

/** An interval of herd's tools: bounds closed or open, the upper one possibly infinite. */
export interface Interval {
  low: { n: number; closed: boolean };
  high: { n: number; closed: boolean } | 'infinity';
}

export class MselectUsageError extends Error {}

/** herd's interval syntax (herdtools7 lexInterval): `N`, or `[N..M]` with `[`/`]` for closed/open bounds, `[N..[` unbounded. */
export function parseInterval(s: string): Interval {
  const single = /^[ \t]*(\d+)[ \t]*$/.exec(s);
  if (single) {
    const n = Number(single[1]);
    return { low: { n, closed: true }, high: { n, closed: true } };
  }
  const m = /^[ \t]*([[\]])(\d+)[ \t]*\.\.\.*[ \t]*(?:(\d+)([[\]])|(\[))$/.exec(s);
  if (!m) throw new MselectUsageError(`'${s}' is not an interval specification`);
  const low = { n: Number(m[2]), closed: m[1] === '[' };
  const high = m[5] !== undefined ? ('infinity' as const) : { n: Number(m[3]), closed: m[4] === ']' };
  return { low, high };
}

export function inInterval(i: Interval, n: number): boolean {
  const aboveLow = i.low.closed ? n >= i.low.n : n > i.low.n;
  const belowHigh = i.high === 'infinity' || (i.high.closed ? n <= i.high.n : n < i.high.n);
  return aboveLow && belowHigh;
}

export interface MselectOptions {
  archs: string[];
  threads?: Interval;
  quiet: boolean;
  tests: string[];
}

const REFUSED = new Set(['ins', 'names', 'excl', 'oknames', 'nonames', 'rename']);

export function parseMselectArgs(argv: string[]): MselectOptions | 'help' {
  const o: MselectOptions = { archs: [], quiet: false, tests: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-') || a === '-') {
      o.tests.push(a);
      continue;
    }
    const key = a.replace(/^--?/, '');
    const value = () => {
      if (i + 1 >= argv.length) throw new MselectUsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (key === 'help' || key === 'h') return 'help';
    else if (key === 'arch') o.archs.push(value());
    else if (key === 'threads') o.threads = parseInterval(value());
    else if (key === 'q') o.quiet = true;
    else if (key === 'v') continue;
    else if (REFUSED.has(key)) throw new MselectUsageError(`${a}: an option of mselect7 that litmus does not follow`);
    else throw new MselectUsageError(`unknown option ${a}`);
  }
  return o;
}

/** Where the output goes (tests pass their own). */
export interface MselectIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Standard input's text, read when no test is named. */
  stdin: () => string;
}

const STDIO: MselectIo = {
  out: (s) => void process.stdout.write(s),
  err: (s) => void process.stderr.write(printable(s)),
  stdin: () => readFileSync(0, 'utf8'),
};

/** The names a list of lines gives (herd's input_lines): blank and # lines skipped, @lists expanded, relative to `dir`. */
function namesOf(lines: string[], dir: string, depth: number, warn: (s: string) => void): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' || line.startsWith('#')) continue;
    out.push(...expand(dir === '.' || isAbsolute(line) ? line : join(dir, line), depth, warn));
  }
  return out;
}

/** A name, or the names an @file lists. */
function expand(name: string, depth: number, warn: (s: string) => void): string[] {
  const base = name.split('/').pop() ?? name;
  if (!base.startsWith('@')) return [name];
  if (depth > 16) {
    warn(`Warning: ${name}: index files name each other in a loop\n`);
    return [];
  }
  let text: string;
  try {
    text = readInputBytes(name).toString('utf8');
  } catch (e) {
    warn(`Warning: ${name}: ${(e as Error).message}\n`);
    return [];
  }
  return namesOf(text.split('\n').map((l) => l.replace(/\r$/, '')), dirname(name), depth + 1, warn);
}

/** Whether a test passes the options; undefined (and a reason on stderr) when it cannot be read. */
function passes(file: string, o: MselectOptions, warn: (s: string) => void): boolean | undefined {
  let text: string;
  try {
    text = readInputBytes(file).toString('utf8');
  } catch (e) {
    warn(`Warning: File "${file}": ${(e as Error).message}\n`);
    return undefined;
  }
  const head = firstLine(text);
  if (!head) {
    warn(`Warning: File "${file}": not a litmus test (its first line is not ARCH NAME)\n`);
    return undefined;
  }
  if (o.archs.length > 0 && !o.archs.includes(head.arch)) return false;
  // litmus reads C tests; a test of another architecture passes when no thread count is asked for.
  if (head.arch !== 'C') {
    if (o.threads === undefined) return true;
    warn(`Warning: File "${file}": a ${head.arch} test: litmus counts the processes of C tests only\n`);
    return undefined;
  }
  let processes: number;
  try {
    processes = parseLitmus(text).processes.length;
  } catch (e) {
    if (!(e instanceof LitmusError)) throw e;
    warn(`Warning: File "${file}", line ${e.pos.line}, character ${e.pos.col - 1}: ${e.message}\n`);
    return undefined;
  }
  return o.threads === undefined || inInterval(o.threads, processes);
}

export function mselect7Main(argv: string[], io: MselectIo = STDIO): number {
  let o: MselectOptions | 'help';
  try {
    o = parseMselectArgs(argv);
  } catch (e) {
    if (!(e instanceof MselectUsageError)) throw e;
    io.err(`litmus-mselect7: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (o === 'help') {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const names = o.tests.length > 0 ? o.tests.flatMap((t) => expand(t, 0, io.err)) : namesOf(io.stdin().split('\n').map((l) => l.replace(/\r$/, '')), '.', 0, io.err);
  for (const name of names) {
    const ok = passes(name, o, io.err);
    // -q: the status of the first test read, as mselect7 exits there.
    if (o.quiet && ok !== undefined) return ok ? 0 : 1;
    if (ok) io.out(`${name}\n`);
  }
  return 0;
}
