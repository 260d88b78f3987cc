// What this checker bounds, in one place: the size of what it reads, the
// parts of a test whose cost grows faster than the test (locations, which
// become initial writes in every candidate and so rows of every relation;
// primitive calls, each an event of a recursive search), the time a check
// may take at every stage, and the ranges its command-line numbers take.
// Past a bound a check stops with a LimitError (exit 2, `file: limit: ...`),
// never runs out of memory or stack. README's "Limits" says the same.

import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Pos } from './parse/ast.js';
import { LimitError } from './parse/errors.js';

export const LIMITS = {
  /** Largest input file read, in bytes (herd7's tests are a few kilobytes; the largest of the corpora 21 KB); also a .def file. */
  fileBytes: 1 << 20,
  /** Largest model file read (.cat, .bell, .cfg), in bytes (the LKMM's are a few kilobytes each). */
  modelBytes: 4 << 20,
  /**
   * Largest saved history read (`litmus history`: a history file, a .litmus.out): every test's herd7
   * output; the whole paulmckrcu collection's is about 0.5 GB. Read as bytes, outside the JavaScript heap.
   */
  historyBytes: 2 ** 32 - 1,
  /** Largest `litmus check --json` output `litmus merge` reads (a whole collection's is tens of megabytes). */
  jsonBytes: 1 << 28,
  /**
   * Shared locations of a test. Each is an initial write in every candidate
   * execution, and a candidate's relations are bit matrices over its events:
   * 4,096 events make 2 MB per relation.
   */
  locations: 4096,
  /**
   * Primitive calls in a test's code (after lowering; a TypeScript suite's
   * after inlining). The search recurses once per event of an execution, and
   * about 500 events exhaust Node's stack; the value analysis keeps a set
   * per instruction.
   */
  primitives: 1000,
  /**
   * Register-only instructions run on one path of the search: each change
   * is kept to be undone when the search steps back (five numbers each).
   */
  localSteps: 2_000_000,
  /** --timeout, in milliseconds: at most setTimeout's largest delay (24.8 days). */
  timeoutMs: 2 ** 31 - 1,
  /** --max-executions. */
  maxExecutions: Number.MAX_SAFE_INTEGER,
  /** --unroll (herd7's -unroll). */
  unroll: 10_000,
  /** Function calls a TypeScript thread or a C process may inline, and statements it may lower (the inlining can grow exponentially). */
  inlinedCalls: 4096,
  loweredStatements: 100_000,
  /**
   * The heap of a checking thread (check's and history's workers, serve's),
   * in MB: a check that outgrows it ends its thread, and that file gets a
   * limit error (the run goes on).
   */
  workerHeapMb: heapMbFromEnv() ?? 2048,
} as const;

/** LITMUS_WORKER_HEAP_MB: another bound for the checking threads' heap (a machine with less memory), 16 MB to 1 TB. */
function heapMbFromEnv(): number | undefined {
  const v = process.env.LITMUS_WORKER_HEAP_MB;
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 16 && n <= 1 << 20 ? n : undefined;
}

/** A limit reached, with a position when there is one (timedOut: the --timeout). */
export function limit(what: string, pos?: Pos, timedOut = false): LimitError {
  return new LimitError(`limit: ${what}`, pos, timedOut);
}

/**
 * The moment a check must stop (its --timeout), read by every stage that
 * can take long: reading, building the program, the value analysis, the
 * search, the report. Infinity when there is no timeout.
 */
export class Deadline {
  private constructor(
    readonly timeoutMs: number | undefined,
    readonly at: number,
  ) {}

  static after(timeoutMs: number | undefined): Deadline {
    return new Deadline(timeoutMs, timeoutMs ? Date.now() + timeoutMs : Infinity);
  }

  static readonly none = new Deadline(undefined, Infinity);

  /** Throws the timeout's LimitError once the moment has passed. */
  check(stage: string): void {
    if (Date.now() > this.at) throw limit(`${stage} stopped after ${this.timeoutMs} ms (--timeout)`, undefined, true);
  }
}

/** How readInputFile reads (the defaults are check's). */
export interface ReadHow {
  /** The most bytes read (LIMITS.fileBytes: a test). */
  maxBytes?: number;
  /** Refuse a symbolic link in the last step of the path (serve, which has resolved the path itself). */
  noFollow?: boolean;
  /** Refuse a file with more than one name (serve: a hard link's other names may be anywhere). */
  singleName?: boolean;
}

/**
 * Reads an input file as text, refusing before reading what is not a
 * regular file (a FIFO would block, /dev/zero never ends) or is larger than
 * the bound (LIMITS.fileBytes unless `how` says). The file is opened without
 * blocking and checked again as opened, so a FIFO swapped in since does not
 * hang; a file that grows meanwhile past the bound is refused too. Throws an
 * Error (a LimitError for the size) whose message says why. check, audit,
 * export, herd7, history and serve read through it.
 */
export function readInputFile(file: string, how: ReadHow = {}): string {
  return readInputBytes(file, how).toString('utf8');
}

/** readInputFile's bytes (herd7's Hash= is computed from them). */
export function readInputBytes(file: string, how: ReadHow = {}): Buffer {
  const max = how.maxBytes ?? LIMITS.fileBytes;
  const st = statSync(file);
  if (st.isDirectory()) throw new Error('is a folder, not a file');
  if (!st.isFile()) throw new Error('not a regular file (a device, a FIFO or a socket): not read');
  if (st.size > max) throw limit(`${st.size} bytes, more than the ${max} bytes this checker reads`);
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (how.noFollow ? constants.O_NOFOLLOW : 0));
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new Error('not a regular file: not read');
    if (how.singleName && opened.nlink !== 1) throw new Error('a hard link (the file has other names): not read');
    // Up to one byte more than the bound, to see a file that grew past it; the buffer grows with a file that grows.
    let buf = Buffer.alloc(Math.min(max, Math.max(opened.size, st.size)) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      n += got;
      if (got === 0 || n > max) break;
      if (n === buf.length) buf = Buffer.concat([buf, Buffer.alloc(Math.min(buf.length, max + 1 - buf.length))]);
    }
    if (n > max) throw limit(`more than the ${max} bytes this checker reads`);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** The rule a command-line number follows: a decimal whole number in [min, max]. */
export interface NumberRule {
  min: number;
  max: number;
  /** What the number counts, for the message ("milliseconds"). */
  unit?: string;
}

export const OPTION_RULES = {
  timeoutMs: { min: 1, max: LIMITS.timeoutMs, unit: 'milliseconds' },
  maxExecutions: { min: 1, max: LIMITS.maxExecutions },
  unroll: { min: 0, max: LIMITS.unroll },
} satisfies Record<string, NumberRule>;

/**
 * A whole number as the command line writes it (decimal digits only: no
 * sign, exponent, fraction, hexadecimal, Infinity or NaN), within the rule's
 * range; else undefined.
 */
export function wholeNumberIn(text: string, rule: NumberRule): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= rule.min && n <= rule.max ? n : undefined;
}

/** The sentence that says what a rule accepts. */
export function ruleText(rule: NumberRule): string {
  return `a whole number${rule.unit ? ` of ${rule.unit}` : ''} from ${rule.min} to ${rule.max}`;
}
