// A test history: what each test of a collection printed under one model,
// as the kernel's tools/memory-model/scripts keep it (initlitmushist.sh
// writes herd7's output for FILE.litmus into FILE.litmus.out, and
// cmplitmushist.sh sorts each re-run against it into five categories). This
// module is the data and its two layouts, with no checking in it:
//
// - one history file, made to be read and diffed: a header of `#` lines,
//   then per test a line `=== KEY` and the test's .litmus.out text;
// - the scripts' own layout, a .litmus.out file per test under a folder
//   (DESTDIR/PATH.out for the test PATH, PATH as named from the folder the
//   scripts run in; beside each test when DESTDIR is `.`).

import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { LIMITS, readInputFile } from '../limits.js';
import { dirname, join, relative, resolve } from 'node:path';
import { outputFolder, writeFileAtomic } from '../write-file.cjs';

/** A test's saved output: what its .litmus.out holds (herd7's stdout and stderr). */
export interface HistoryEntry {
  /** The test's name in the history: its path below the folder it was found in. */
  key: string;
  out: string;
}

export interface History {
  /** The header's lines, without their `# `. */
  header: string[];
  /** What the history was made with (`# options: {...}`), when it says. */
  options?: Record<string, unknown>;
  entries: Map<string, HistoryEntry>;
}

const ENTRY = '=== ';

/**
 * What a timeout leaves in a .litmus.out: runlitmushist.sh runs herd7
 * under `/usr/bin/time timeout T`, and time reports timeout's exit status
 * (judgelitmus.sh reads this line as a timeout).
 */
export const TIMED_OUT_LINE = 'Command exited with non-zero status 124';

export function timedOut(out: string): boolean {
  return out.split('\n').includes(TIMED_OUT_LINE);
}

/**
 * The header line that says how many entries the file holds, and the last
 * line of the file, which says it again: a file cut short (a full disk, a
 * copy stopped, a `kill -9` of a writer that did not write atomically) lacks
 * it and is refused (parseHistory). A line of an entry's output that starts
 * with `===` is escaped, so END can only be the writer's.
 */
const COUNT = 'entries: ';
const END = '==== end: ';

/**
 * The history file's text in pieces, in order: the header, then each entry
 * (sorted by key), then the END line. A whole collection's history can be
 * larger than one JavaScript string may be, so it is written piece by piece
 * (writeHistory).
 */
function* historyPieces(h: { header: string[]; options?: Record<string, unknown>; entries: Iterable<HistoryEntry> }): Generator<string> {
  const sorted = [...h.entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const lines = h.header.map((l) => `# ${l}`);
  if (h.options) lines.push(`# options: ${JSON.stringify(h.options)}`);
  lines.push(`# ${COUNT}${sorted.length}`);
  yield `${lines.join('\n')}\n`;
  for (const e of sorted) {
    const body = e.out.endsWith('\n') ? e.out.slice(0, -1) : e.out;
    // A line that would read as an entry's start (or as an escape) is kept behind a backslash.
    const text = body !== '' || e.out !== '' ? `${body.replace(/^(===|\\)/gm, '\\$1')}\n` : '';
    yield `${ENTRY}${e.key}\n${text}`;
  }
  yield `${END}${sorted.length} entries\n`;
}

/** The history file's text: header, then the entries sorted by key. */
export function formatHistory(h: { header: string[]; options?: Record<string, unknown>; entries: Iterable<HistoryEntry> }): string {
  return [...historyPieces(h)].join('');
}

/**
 * Writes a history file piece by piece (its text may exceed a string's
 * length), whole or not at all (src/write-file.cts: a full disk leaves the
 * history that was there). Throws WriteError.
 */
export function writeHistory(path: string, h: { header: string[]; options?: Record<string, unknown>; entries: Iterable<HistoryEntry> }): void {
  writeFileAtomic(path, historyPieces(h));
}

export class HistoryError extends Error {}

const NEWLINE = 0x0a;

/**
 * Reads a history file's text (or bytes). An entry's output is decoded only
 * when asked for: the file's bytes stay outside the JavaScript heap, and a
 * whole collection's history (hundreds of megabytes) is read without
 * building one string of it. openHistory reads one from its file, holding
 * only where each entry is.
 */
export function parseHistory(input: string | Buffer, file: string): History {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const scan = new HistoryScan(file);
  for (let at = 0; at < buf.length; ) {
    const nl = buf.indexOf(NEWLINE, at);
    const end = nl < 0 ? buf.length : nl;
    const next = nl < 0 ? buf.length : nl + 1;
    scan.line(buf.subarray(at, end), at, next);
    at = next;
  }
  const found = scan.finish(buf.length);
  const entries = new Map<string, HistoryEntry>();
  for (const [key, [start, end]] of found.where) entries.set(key, lazyEntry(key, buf.subarray(start, end)));
  return { header: found.header, options: found.options, entries };
}

/** What a history file holds, as its lines are read one by one: the header, and where each entry's output lies (byte offsets). */
class HistoryScan {
  readonly header: string[] = [];
  options: Record<string, unknown> | undefined;
  readonly where = new Map<string, [number, number]>();
  private current: { key: string; start: number } | undefined;
  private declared: number | undefined;
  private ended: { count: string; line: number } | undefined;
  private n = 0;

  constructor(private readonly file: string) {}

  private close(end: number): void {
    if (this.current) this.where.set(this.current.key, [this.current.start, end]);
  }

  /** One line (without its newline) that starts at byte `at`; the next starts at `next`. */
  line(l: Buffer, at: number, next: number): void {
    const n = ++this.n;
    const file = this.file;
    if (this.ended) {
      if (l.toString('utf8').trim() !== '') throw new HistoryError(`${file}:${n}: text after the history's last line (line ${this.ended.line}, "${END.trim()} ...")`);
    } else if (l[0] === 0x3d && l.toString('latin1', 0, END.length) === END) {
      this.close(at);
      this.current = undefined;
      this.ended = { count: l.toString('utf8', END.length), line: n };
    } else if (l[0] === 0x3d && l[1] === 0x3d && l[2] === 0x3d && l[3] === 0x20) {
      this.close(at);
      const key = l.toString('utf8', ENTRY.length);
      if (this.where.has(key)) throw new HistoryError(`${file}:${n}: the test ${key} is in the history twice`);
      this.current = { key, start: next };
    } else if (!this.current) {
      const text = l.toString('utf8');
      if (text.startsWith('# options: ')) {
        try {
          this.options = JSON.parse(text.slice('# options: '.length)) as Record<string, unknown>;
        } catch {
          throw new HistoryError(`${file}:${n}: the options line is not JSON`);
        }
      } else if (text.startsWith(`# ${COUNT}`) && /^\d+$/.test(text.slice(COUNT.length + 2))) this.declared = Number(text.slice(COUNT.length + 2));
      else if (text.startsWith('#')) this.header.push(text.replace(/^# ?/, ''));
      else if (text.trim() !== '') throw new HistoryError(`${file}:${n}: not a litmus history (a test's entry starts with "${ENTRY}PATH")`);
    }
  }

  /** The end of the file (`size` bytes): the last entry closed, and the file checked whole. */
  finish(size: number): this {
    this.close(size);
    this.current = undefined;
    checkWhole(this.file, this.declared, this.ended, this.where.size, this.header);
    return this;
  }
}

/** Bytes read at a time by openHistory. */
const CHUNK = 4 << 20;

/**
 * A history read from its file as parseHistory reads it, holding only where
 * each entry is: an entry's output is read from the file when asked for
 * (each time), so that a whole collection's history costs a few hundred
 * bytes per test of memory, not its size. The file must be a regular file
 * (a FIFO or a device is refused); `close` when done.
 */
export function openHistory(path: string): History & { close: () => void } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new HistoryError(`${path}: ${(e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new HistoryError(`${path}: not a regular file (a device, a FIFO or a socket): not read`);
    if (st.size > LIMITS.historyBytes) throw new HistoryError(`${path}: larger than ${LIMITS.historyBytes} bytes`);
    const scan = new HistoryScan(path);
    const chunk = Buffer.allocUnsafe(CHUNK);
    let carry = Buffer.alloc(0);
    let carryAt = 0;
    let pos = 0;
    for (;;) {
      const got = readSync(fd, chunk, 0, CHUNK, pos);
      if (got === 0) break;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, got)]) : chunk.subarray(0, got);
      const base = carry.length ? carryAt : pos;
      pos += got;
      let at = 0;
      for (;;) {
        const nl = data.indexOf(NEWLINE, at);
        if (nl < 0) break;
        scan.line(data.subarray(at, nl), base + at, base + nl + 1);
        at = nl + 1;
      }
      carry = Buffer.from(data.subarray(at));
      carryAt = base + at;
    }
    if (carry.length) scan.line(carry, carryAt, carryAt + carry.length);
    scan.finish(pos);
    const entries = new Map<string, HistoryEntry>();
    for (const [key, [start, end]] of scan.where) {
      entries.set(key, {
        key,
        get out(): string {
          const bytes = Buffer.allocUnsafe(end - start);
          for (let got = 0; got < bytes.length; ) {
            const n = readSync(fd, bytes, got, bytes.length - got, start + got);
            if (n === 0) throw new HistoryError(`${path}: changed while it was read`);
            got += n;
          }
          return entryText(bytes);
        },
      });
    }
    return { header: scan.header, options: scan.options, entries, close: () => closeSync(fd) };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * Whether a history holds what its header says: the entries counted in its
 * `# entries: N` line and an END line that says N again (a file cut short
 * has none); a history without that line (an older one) is held to the
 * number of tests its first line names, when it names one.
 */
function checkWhole(file: string, declared: number | undefined, ended: { count: string; line: number } | undefined, found: number, header: string[]): void {
  const cut = (what: string) =>
    new HistoryError(`${file}: cut short: ${what}: the file was not written whole (a full disk, or a copy or a run stopped); make it again with litmus history record`);
  if (declared !== undefined) {
    if (!ended) throw cut(`its header says ${declared} entries and its last line ("${END}${declared} entries") is missing, after ${found} entr${found === 1 ? 'y' : 'ies'}`);
    if (ended.count !== `${declared} entries` || found !== declared) {
      throw cut(`its header says ${declared} entries, its last line "${END}${ended.count}", and it holds ${found}`);
    }
    return;
  }
  if (ended) {
    const m = /^(\d+) entries$/.exec(ended.count);
    if (!m || Number(m[1]) !== found) throw cut(`its last line says "${END}${ended.count}" and it holds ${found} entr${found === 1 ? 'y' : 'ies'}`);
    return;
  }
  // An older history: its first line says how many tests it holds.
  if (found === 0 && header.length === 0) throw cut('it is empty');
  const said = /^litmus history: (\d+) tests? under /.exec(header[0] ?? '');
  if (!said && header[0]?.startsWith('litmus history:')) throw cut('its first line ends early');
  if (said && Number(said[1]) !== found) throw cut(`its header says ${said[1]} tests and it holds ${found}`);
}

/** An entry's output from its lines in the file: unescaped. */
function entryText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text === '' ? '' : `${(text.endsWith('\n') ? text.slice(0, -1) : text).replace(/^\\/gm, '')}\n`;
}

/** An entry whose output is its lines in the file, unescaped, decoded when first read. */
function lazyEntry(key: string, bytes: Buffer): HistoryEntry {
  let out: string | undefined;
  return {
    key,
    get out(): string {
      return (out ??= entryText(bytes));
    },
  };
}

/**
 * Where the scripts keep a test's output: `$LKMM_DESTDIR/PATH.out`, PATH
 * the test's path from the folder they run in (here: the current folder).
 */
export function litmusOutPath(destdir: string, file: string, suffix = '.out'): string {
  return join(destdir, relative(process.cwd(), resolve(file))) + suffix;
}

/** A test's saved output, undefined when there is none; one that cannot be read (a FIFO, a device, too large) is a HistoryError naming it. */
export function readLitmusOut(destdir: string, file: string): string | undefined {
  const p = litmusOutPath(destdir, file);
  if (!existsSync(p)) return undefined;
  try {
    return readInputFile(p, { maxBytes: LIMITS.historyBytes });
  } catch (e) {
    throw new HistoryError(`${p}: ${(e as Error).message}`);
  }
}

/** Saves a test's output (whole or not at all; no folder below `destdir` is entered through a link). Throws WriteError. */
export function writeLitmusOut(destdir: string, file: string, out: string, suffix = '.out'): void {
  const p = litmusOutPath(destdir, file, suffix);
  outputFolder(dirname(p), destdir);
  writeFileAtomic(p, out);
}

/**
 * The tests the scripts would run with `--procs N` (initlitmushist.sh,
 * checklitmushist.sh): C tests (a line starting `C `) with no line starting
 * `P<N>`, that is, at most N processes P0..P(N-1). Without N, every test.
 */
export function passesProcs(text: string, procs: number | undefined): boolean {
  if (procs === undefined) return true;
  const lines = text.split('\n');
  return lines.some((l) => l.startsWith('C ')) && !lines.some((l) => l.startsWith(`P${procs}`));
}

/** cmplitmushist.sh's categories, in its order, with its words. */
export const CATEGORIES = [
  ['exact', 'Exact output match'],
  ['sameCounts', 'Matching Observation result and counts'],
  ['noObservation', 'Missing Observation line (e.g., herd7 timeout)'],
  ['sameVerdict', 'Matching Observation Always/Sometimes/Never result'],
  ['changed', '!!! Result changed'],
] as const;

export type Category = (typeof CATEGORIES)[number][0];

/**
 * The lines a comparison ignores: herd7's `Time` line and the two lines
 * /usr/bin/time adds (user/system/elapsed ... maxresident, and inputs/
 * outputs ... pagefaults). cmplitmushist.sh means to drop both time lines;
 * its pattern for the second (`miyesr)pagefaults`) matches nothing, so
 * there two herd7 runs never match exactly; here they can.
 */
function compared(out: string): string[] {
  return out.split('\n').filter((l) => !/maxresident\)k|minor\)pagefaults|^Time/.test(l));
}

export function observationLines(out: string): string[] {
  return out.split('\n').filter((l) => l.startsWith('Observation'));
}

/** The third field of each Observation line: Always, Sometimes or Never. */
function verdicts(out: string): string[] {
  return observationLines(out).map((l) => l.trim().split(/\s+/)[2] ?? '');
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** cmplitmushist.sh's judgement of a re-run (`after`) against the saved output (`before`), test by test as it does. */
export function categorize(before: string, after: string): Category {
  const oldObs = observationLines(before);
  if (same(compared(before), compared(after)) && oldObs.length > 0) return 'exact';
  const newObs = observationLines(after);
  if (oldObs.length === 0 && newObs.length === 0) return 'noObservation';
  if (same(oldObs, newObs)) return 'sameCounts';
  // One side without an Observation (a timeout on one side only) falls through to here, as in the script.
  if (same(verdicts(before), verdicts(after))) return 'sameVerdict';
  return 'changed';
}

/** The final states a herd7 block lists (the lines after `States N`), as herd prints them. */
export function statesOf(out: string): string[] {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => /^States \d+$/.test(l));
  if (at < 0) return [];
  return lines.slice(at + 1, at + 1 + Number(lines[at].split(' ')[1])).map((l) => l.trim());
}

/** `10s`, `10m`, `2h`, `1d`, or seconds, as the scripts' --timeout (GNU timeout's units); in ms. */
export function parseDuration(spec: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(spec.trim());
  if (!m) throw new HistoryError(`--timeout takes a duration as the kernel's scripts write it (10s, 10m, 2h, 1d), not "${spec}"`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  const ms = Number(m[1]) * unit * 1000;
  if (!(ms > 0)) throw new HistoryError(`--timeout must be more than 0, not "${spec}"`);
  return ms;
}
