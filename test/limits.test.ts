// What a check bounds (src/limits.ts) and what the command line does with
// inputs that would otherwise be lost or silently skipped: tests too large
// for memory or stack refused with a positioned limit, files that are not
// regular files or are too large refused before reading, numbers on the
// command line within their ranges, a folder's bad entries reported while the
// rest is checked, shards, --json in input order, and export never
// overwriting an input nor writing two inputs to one path.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { Deadline, LIMITS, OPTION_RULES, readInputFile, wholeNumberIn } from '../src/limits.js';
import { LimitError } from '../src/parse/errors.js';
import { analyseValues } from '../src/explore/domain.js';
import { buildProgram } from '../src/program/program.js';
import { parseLitmus } from '../src/parse/parser.js';
import { parseHerdArgs } from '../src/cli/herd7-args.js';
import { runSuite } from '../src/suite/run.js';
import { reasonOf } from '../scripts/tally.js';
import { CLI, makeFifo, ROOT, runNode } from './util.js';

let dir: string;
const litmus = (...args: string[]) => runNode([CLI, ...args], dir);

const MP = `C MP
(* a comment export drops *)
{}
P0(int *x, int *y)
{
\tWRITE_ONCE(*x, 1);
\tWRITE_ONCE(*y, 1);
}
P1(int *x, int *y)
{
\tint r0;
\tint r1;
\tr0 = READ_ONCE(*y);
\tr1 = READ_ONCE(*x);
}
exists (1:r0=1 /\\ 1:r1=0)
`;

/** MP with `n` more shared locations in the initial state (each an initial write of every execution). */
function manyLocations(n: number): string {
  const init = Array.from({ length: n }, (_, i) => `z${i}=0;`).join(' ');
  return MP.replace('{}', `{ ${init} }`);
}

/** One thread making `n` writes, to 100 locations in turn. */
function manyWrites(n: number): string {
  const locs = Array.from({ length: Math.min(n, 100) }, (_, i) => `x${i}`);
  const body = Array.from({ length: n }, (_, i) => `\tWRITE_ONCE(*x${i % 100}, 1);`).join('\n');
  return `C writes\n{}\nP0(${locs.map((l) => `int *${l}`).join(', ')})\n{\n${body}\n}\nP1(int *x0)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x0);\n}\nexists (1:r0=1)\n`;
}

/** `n` registers, each copied from the last: register-only work, one read. */
function manyRegisters(n: number): string {
  const regs = Array.from({ length: n }, (_, i) => `r${i}`);
  const body = regs.slice(1).map((r, i) => `\t${r} = r${i};`).join('\n');
  return `C regs\n{}\nP0(int *x)\n{\n\tint ${regs.join(', ')};\n\tr0 = READ_ONCE(*x);\n${body}\n}\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (0:r${n - 1}=1)\n`;
}

function limitOf(f: () => unknown): LimitError {
  try {
    f();
  } catch (e) {
    if (e instanceof LimitError) return e;
    throw e;
  }
  throw new Error('no limit reached');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-limits-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('memory and stack: a limit with a position, never a crash', () => {
  it(`more than ${LIMITS.locations} locations is refused at the first one past the bound`, () => {
    const e = limitOf(() => checkSource(manyLocations(20_000), { model: lkmm, timeoutMs: 5000 }));
    expect(e.message).toBe(`limit: more than ${LIMITS.locations} shared locations (each is an event of every execution)`);
    expect(e.pos?.line).toBe(3);
    // The location named there is the first one past the bound (MP's own x and y come later).
    const text = manyLocations(20_000).split('\n')[2];
    expect(text.slice(e.pos!.col - 1)).toMatch(new RegExp(`^z${LIMITS.locations}=0;`));
    // At the bound itself, the test is checked.
    expect(checkSource(manyLocations(LIMITS.locations - 2), { model: lkmm }).observation).toBe('Sometimes');
  });

  it(`more than ${LIMITS.primitives} primitive calls is refused at the one past the bound, before the value analysis`, () => {
    const e = limitOf(() => checkSource(manyWrites(20_000), { model: lkmm, timeoutMs: 5000 }));
    expect(e.message).toMatch(/^limit: more than 1000 primitive calls in the test/);
    expect(e.pos).toEqual({ line: 4 + LIMITS.primitives + 1, col: 2 });
  });

  it('an execution too deep for the search is a limit at the instruction it reached', () => {
    // Below the primitive bound, yet past what the stack holds (about 500 events).
    const e = limitOf(() => checkSource(manyWrites(990), { model: lkmm }));
    expect(e.message).toBe('limit: the search ran out of stack (an execution of about five hundred events or more)');
    expect(e.pos?.line).toBeGreaterThan(4);
  });

  it('20,000 registers: --speedcheck decides as the exhaustive count (it tracks only the condition\'s registers)', () => {
    const text = manyRegisters(20_000);
    const full = checkSource(text, { model: lkmm });
    const fast = checkSource(text, { model: lkmm, speedcheck: 'decide' });
    expect(full.observation).toBe('Sometimes');
    expect(fast.observation).toBe('Sometimes');
  });

  it('the same on the command line: exit 2, `file:line:col: limit: ...`, and --json carries the position', async () => {
    writeFileSync(join(dir, 'locs.litmus'), manyLocations(20_000));
    const r = await litmus('check', '--timeout', '5000', 'locs.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^locs\.litmus:3:\d+: limit: more than 4096 shared locations/);
    const j = await litmus('check', '--json', 'locs.litmus');
    const entry = (JSON.parse(j.stdout) as { results: { errors: { line?: number; col?: number; message: string }[] }[] }).results[0];
    expect(entry.errors[0].line).toBe(3);
    expect(entry.errors[0].message).toMatch(/^limit: /);
  });

  it('a loop that runs long without touching memory stops at a limit (the timeout or the analysis bound), never out of memory', async () => {
    const body = Array.from({ length: 300 }, () => '\t\tr1 = r1 + 1;').join('\n');
    writeFileSync(join(dir, 'spin.litmus'), `C spin\n{ x=0; }\nP0(int *x)\n{\n\tint r1;\n\tWRITE_ONCE(*x, 1);\n\twhile (1) {\n${body}\n\t}\n}\nexists (x=1)\n`);
    const r = await litmus('check', '-q', '--unroll', '10000', '--timeout', '1000', 'spin.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^spin\.litmus: limit: (the value analysis stopped after 1000 ms \(--timeout\)|the values this test can compute are unbounded)/);
  });

  it('every stage reads the deadline: an expired one stops the value analysis, naming it', async () => {
    const d = Deadline.after(1);
    while (Date.now() <= d.at) await new Promise((r) => setTimeout(r, 1));
    const prog = buildProgram(parseLitmus(MP));
    expect(() => analyseValues(prog, d)).toThrow('limit: the value analysis stopped after 1 ms (--timeout)');
    expect(() => d.check('reading the test')).toThrow('limit: reading the test stopped after 1 ms (--timeout)');
    expect(() => Deadline.none.check('anything')).not.toThrow();
  });
});

describe('TypeScript suites: inlining is bounded', () => {
  const KERNEL = join(ROOT, 'litmus', 'kernel.js');
  /** A thread calling f_k, each f_i calling f_(i-1) twice: 2^k writes once inlined. */
  function doubling(k: number): string {
    const fs = [`export function f0(s: S): void { WRITE_ONCE(s.x, 1); }`];
    for (let i = 1; i <= k; i++) fs.push(`export function f${i}(s: S): void { f${i - 1}(s); f${i - 1}(s); }`);
    return `import { READ_ONCE, WRITE_ONCE, scenario, type Ref } from '${KERNEL}';
interface S { x: Ref; y: Ref }
${fs.join('\n')}
export default scenario({ name: 'big', says: 'many writes', threads: [(s: S) => f${k}(s), (s: S) => ({ got: READ_ONCE(s.x) })], exists: ([, p1]) => p1.got === 0 });
`;
  }

  it('2^10 accesses: a positioned limit in the suite\'s source, not a stack overflow', async () => {
    const file = join(dir, 'ten.ts');
    writeFileSync(file, doubling(10));
    const run = await runSuite(file, { model: 'lkmm', explain: false });
    expect(run.status).toBe(2);
    expect(run.errors).toEqual([`${file}:3:34: limit: more than 1000 primitive calls in the test (each is an event of the search, which recurses once per event) (big in ten)`]);
  });

  it('2^20 accesses: the inlining stops at its own bound, at the call', async () => {
    const file = join(dir, 'twenty.ts');
    writeFileSync(file, doubling(20));
    const run = await runSuite(file, { model: 'lkmm', explain: false });
    expect(run.status).toBe(2);
    expect(run.errors[0]).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}:\\d+:\\d+: limit: more than ${LIMITS.inlinedCalls} calls inlined into one thread`));
  });
});

describe('files that are not tests', () => {
  it('a symbolic link to /dev/zero, a FIFO and a file past the size bound are refused before reading; the rest is checked', async () => {
    const d = join(dir, 'odd');
    mkdirSync(d);
    writeFileSync(join(d, 'ok.litmus'), MP);
    if (existsSync('/dev/zero')) symlinkSync('/dev/zero', join(d, 'zero.litmus'));
    const fifo = makeFifo(join(d, 'fifo.litmus'));
    writeFileSync(join(d, 'huge.litmus'), ' '.repeat(LIMITS.fileBytes + 1));
    const r = await litmus('check', '-q', 'odd');
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('MP: Sometimes');
    expect(r.stderr).toContain(`odd/huge.litmus: limit: ${LIMITS.fileBytes + 1} bytes, more than the ${LIMITS.fileBytes} bytes this checker reads`);
    if (existsSync('/dev/zero')) expect(r.stderr).toContain('odd/zero.litmus: cannot read: not a regular file (a device, a FIFO or a socket): not read');
    if (fifo) expect(r.stderr).toContain('odd/fifo.litmus: cannot read: not a regular file');
    else console.warn('no mkfifo here: the FIFO case is not checked');
  });

  it('litmus history reads tests and saved histories as check does: a FIFO or /dev/zero is reported, never waited on or read without end', async () => {
    const d = join(dir, 'hist');
    mkdirSync(d);
    writeFileSync(join(d, 'ok.litmus'), MP);
    const fifo = makeFifo(join(d, 'fifo.litmus')) && makeFifo(join(dir, 'fifo.hist'));
    if (existsSync('/dev/zero')) symlinkSync('/dev/zero', join(d, 'zero.litmus'));
    // --procs reads each test before checking it (the scripts' filter): a FIFO there used to hang the run.
    const r = await litmus('history', 'record', '--procs', '2', '--out', 'h.hist', 'hist');
    expect(r.stdout).toContain('recorded');
    const saved = readFileSync(join(dir, 'h.hist'), 'utf8');
    expect(saved).toContain('Observation MP Sometimes 1 3');
    if (fifo) expect(saved).toMatch(/fifo\.litmus[^]*not a regular file/);
    if (existsSync('/dev/zero')) expect(saved).toMatch(/zero\.litmus[^]*not a regular file/);
    if (fifo) {
      const c = await litmus('history', 'compare', 'fifo.hist', 'hist');
      expect(c.status).toBe(2);
      expect(c.stderr).toContain('fifo.hist: not a regular file (a device, a FIFO or a socket): not read');
    } else console.warn('no mkfifo here: the FIFO cases are not checked');
  });

  it('litmus serve reads a test through the same reader: a FIFO, a link to /dev/zero and a file past the bound are not read', async () => {
    const { readTest } = await import('../src/serve/paths.js');
    const d = mkdtempSync(join(tmpdir(), 'litmus-serve-read-'));
    writeFileSync(join(d, 'ok.litmus'), MP);
    writeFileSync(join(d, 'huge.litmus'), ' '.repeat(LIMITS.fileBytes + 1));
    if (existsSync('/dev/zero')) symlinkSync('/dev/zero', join(d, 'zero.litmus'));
    const fifo = makeFifo(join(d, 'fifo.litmus'));
    expect(readTest(d, 'ok.litmus')).toEqual({ text: MP });
    expect(readTest(d, 'huge.litmus')).toEqual({ tooBig: true });
    expect(readTest(d, 'zero.litmus')).toBeUndefined();
    if (fifo) expect(readTest(d, 'fifo.litmus')).toBeUndefined();
    rmSync(d, { recursive: true, force: true });
  });

  it('readInputFile reads a file at the bound and refuses a folder', () => {
    const f = join(dir, 'edge.litmus');
    writeFileSync(f, 'x'.repeat(LIMITS.fileBytes));
    expect(readInputFile(f)).toHaveLength(LIMITS.fileBytes);
    expect(() => readInputFile(dir)).toThrow('is a folder, not a file');
  });
});

describe('numbers on the command line', () => {
  it('a whole number is accepted exactly when it is decimal digits within the range (property)', () => {
    const rule = { min: 1, max: 2 ** 31 - 1 };
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String), fc.constantFrom('1e3', 'Infinity', 'NaN', '0x10', ' 5', '5 ', '1.0', '-0', '+1', '')), (text) => {
        const n = wholeNumberIn(text, rule);
        const expected = /^\d+$/.test(text) && BigInt(text) >= 1n && BigInt(text) <= BigInt(rule.max) ? Number(text) : undefined;
        expect(n).toBe(expected);
      }),
    );
  });

  it.each([
    ['--timeout', '0'], ['--timeout', '1e-9'], ['--timeout', 'Infinity'], ['--timeout', '1e300'], ['--timeout', '2147483648'], ['--timeout', ''],
    ['--max-executions', '0'], ['--max-executions', '99999999999999999999'], ['--max-executions', '1.5'],
    ['--unroll', '99999999999999999999'], ['--unroll', '-1'], ['--unroll', `${LIMITS.unroll + 1}`],
  ])('check %s %s is a usage error (exit 2) that states the range', async (flag, value) => {
    writeFileSync(join(dir, 'mp.litmus'), MP);
    const r = await litmus('check', flag, value, 'mp.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${flag} takes a whole number( of milliseconds)? from \\d+ to \\d+, not "${value.replace(/[.+]/g, '\\$&')}"`));
    expect(r.stdout).toBe('');
  });

  it.each([
    ['audit', '--timeout', '0'], ['audit', '--max-executions', '0'], ['audit', '--timeout', '2147483648'],
    ['serve', '--timeout', '0'], ['serve', '--max-executions', '0'], ['serve', '--unroll', '-1'],
  ])('%s %s %s: the same rule as check (one list of limit options), a usage error stating the range', async (command, flag, value) => {
    writeFileSync(join(dir, 'mp.litmus'), MP);
    const r = await litmus(command, flag, value, ...(command === 'serve' ? ['--port', '0', '.'] : ['mp.litmus']));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${flag} takes a whole number( of milliseconds)? from \\d+ to \\d+, not "${value}"`));
  });

  it('herd7\'s -timeout (seconds) and -unroll: what is not a sensible finite number is refused', () => {
    for (const v of ['1e-9', 'Infinity', '1e300', '0', '-1', 'NaN', '0.0001', '2147484']) {
      expect(() => parseHerdArgs(['-timeout', v, 'x.litmus'])).toThrow(`-timeout takes a number of seconds from 0.001 to 2147483.647, not "${v}"`);
    }
    expect(parseHerdArgs(['-timeout', '0.001', 'x.litmus']).opts.timeoutMs).toBe(1);
    expect(parseHerdArgs(['-timeout', '2.5', 'x.litmus']).opts.timeoutMs).toBe(2500);
    // herd7 reads an OCaml int: past it, no integer; a negative bound is 0's (every loop cut at once).
    expect(() => parseHerdArgs(['-unroll', '99999999999999999999', 'x.litmus'])).toThrow("wrong argument '99999999999999999999'; option '-unroll' expects an integer.");
    expect(() => parseHerdArgs(['-unroll', '99999', 'x.litmus'])).toThrow(`-unroll takes a whole number from 0 to ${OPTION_RULES.unroll.max}`);
    expect(parseHerdArgs(['-unroll', '-1', 'x.litmus']).opts.unroll).toBe(0);
    expect(parseHerdArgs(['-unroll', '0', 'x.litmus']).opts.unroll).toBe(0);
  });
});

describe('folders, shards and --json', () => {
  it('a dangling symbolic link and a symbolic link loop are reported, the rest of the folder is checked, exit 2', async () => {
    const d = join(dir, 'links');
    mkdirSync(join(d, 'sub'), { recursive: true });
    writeFileSync(join(d, 'a.litmus'), MP);
    writeFileSync(join(d, 'sub', 'b.litmus'), MP.replace('C MP', 'C MP2'));
    symlinkSync('nowhere', join(d, 'dangling'));
    symlinkSync('..', join(d, 'sub', 'up'));
    symlinkSync('self', join(d, 'self'));
    const r = await litmus('check', '-q', 'links');
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('MP: Sometimes');
    expect(r.stdout).toContain('MP2: Sometimes');
    expect(r.stderr).toContain('links/dangling: a symbolic link to nothing (dangling): not read');
    expect(r.stderr).toContain('links/self: a symbolic link loop: not read');
    expect(r.stderr).toContain('links/sub/up: a symbolic link to a folder already being read (a loop): not followed');
  });

  it('--shard "" is refused; a shard with no input passes with a note; shards cover .litmus files and suites', async () => {
    const d = join(dir, 'shards');
    mkdirSync(d);
    writeFileSync(join(d, 'a.litmus'), MP);
    const empty = await litmus('check', '--shard', '', 'shards');
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('--shard takes K/N (e.g. 2/4), not ""');
    const none = await litmus('check', '-q', '--shard', '3/4', 'shards');
    expect(none.status).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('litmus: shard 3/4 holds none of the 1 inputs: nothing to check');
    const one = await litmus('check', '-q', '--shard', '1/4', 'shards');
    expect([one.status, one.stdout.trim()]).toEqual([0, 'MP: Sometimes (1 of 4 executions) under lkmm']);
    // The inputs as a whole must still name a test.
    mkdirSync(join(dir, 'nothing'));
    expect((await litmus('check', '--shard', '1/2', 'nothing')).status).toBe(2);
  });

  it('--json lists results in input order, errors included', async () => {
    writeFileSync(join(dir, 'z.litmus'), MP.replace('C MP', 'C Z'));
    writeFileSync(join(dir, 'a.litmus'), MP.replace('C MP', 'C A'));
    const r = await litmus('check', '--json', 'z.litmus', 'missing.litmus', 'a.litmus');
    const files = (JSON.parse(r.stdout) as { results: { file: string }[] }).results.map((x) => x.file);
    expect(files).toEqual(['z.litmus', 'missing.litmus', 'a.litmus']);
  });

  it('a positioned limit is tallied as a limit, not as a refusal', () => {
    expect(reasonOf('a.litmus:3:5: limit: more than 4096 shared locations (each is an event of every execution)', 'a.litmus').kind).toBe('limited');
  });
});

describe('litmus export: nothing lost', () => {
  it('--out . next to the input does not overwrite it', async () => {
    const d = join(dir, 'inplace');
    mkdirSync(d);
    writeFileSync(join(d, 'X.litmus'), MP);
    const r = await runNode([CLI, 'export', 'X.litmus', '--out', '.'], d);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('X.litmus: not exported: X.litmus is an input of this run (X.litmus); choose another --out folder');
    expect(r.stdout.trim()).toBe('exported 0 of 1 test to .');
    expect(readFileSync(join(d, 'X.litmus'), 'utf8')).toBe(MP);
  });

  it('two inputs of the same name: one written, the other refused, and the count says so', async () => {
    const d = join(dir, 'twins');
    mkdirSync(join(d, 'a'), { recursive: true });
    mkdirSync(join(d, 'b'));
    writeFileSync(join(d, 'a', 'X.litmus'), MP);
    writeFileSync(join(d, 'b', 'X.litmus'), MP.replace('C MP', 'C MPb'));
    const r = await runNode([CLI, 'export', 'a/X.litmus', 'b/X.litmus', '--out', 'out'], d);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('b/X.litmus: not exported: out/X.litmus is already the export of a/X.litmus (the same name)');
    expect(r.stdout.trim()).toBe('exported 1 of 2 tests to out');
    expect(readdirSync(join(d, 'out'))).toEqual(['X.litmus']);
    expect(readFileSync(join(d, 'out', 'X.litmus'), 'utf8')).toMatch(/^C MP\n/);
    // Their folder named: its layout is kept, both are written.
    const both = await runNode([CLI, 'export', '.', '--out', '../twins-out'], d);
    expect(both.stdout.trim()).toBe('exported 3 of 3 tests to ../twins-out');
    expect(both.status).toBe(0);
  });
});
