// `litmus export` (herd7-readable C) and `litmus check --herd-compatible`
// (src/export/). An exported test must be lint clean and judged exactly as
// the original: same verdict, counts and states.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSource, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { parseLitmus } from '../src/parse/parser.js';
import { exportLitmus, exportTest } from '../src/export/export.js';
import { printLitmus } from '../src/parse/printer.js';
import { readSuite } from '../src/suite/read.js';
import { herdFindings } from '../src/export/lint.js';
import { LitmusError } from '../src/parse/errors.js';
import { CLI, NFS_DIR, ROOT, litmus, stateSet } from './util.js';

const run = (text: string) => checkSource(text, { model: lkmm });
const findings = (text: string) => herdFindings(parseLitmus(text), text).map((f) => `${f.pos.line}:${f.pos.col} ${f.message}`);
const summary = (r: CheckResult) => ({ observation: r.observation, positive: r.positive, negative: r.negative, states: stateSet(r) });

/** A test with comments everywhere: the header, the initial state, process headers and bodies, between processes, around the final clause. */
const COMMENTED = `C commented
(* Result: Sometimes *)
{
	int x = 0; (* the flag word *)
	(* the last item's comment *)
}

P0(int *x, int *lock) // the setter
{
	set_bit(1, x); // publish
	/* tell the waiter: a flag exists */
	WRITE_ONCE(*lock, 1);
	/* the end of P0 */
}

(* between processes *)

P1(int *x, int *lock)
{
	int r0;
	int r1;

	r0 = READ_ONCE(*lock);
	(* a herd comment, in C *)
	r1 = test_bit(1, x);
}

// before the condition
exists (1:r0=1 /\\ 1:r1=0) (* Bad outcome. *)
(* after it *)
`;

/** Exports, checks that the output is lint clean, and that both are judged alike. */
function roundTrip(text: string): string {
  const out = exportLitmus(text);
  expect(findings(out)).toEqual([]);
  expect(summary(run(out))).toEqual(summary(run(text)));
  return out;
}

/** Runs the CLI without blocking the test worker (a loaded machine makes the runner's messages time out otherwise). */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, LITMUS_DEBUG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** Lets the test worker answer the runner between long synchronous steps (a loaded machine times it out otherwise). */
const breather = () => new Promise((done) => setImmediate(done));

function litmusFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.litmus')).map((f) => join(dir, f));
}

const SUITES = ['clear_invalid_mapping', 'nfsd_io_stats', 'sb_iostats'];

describe('the shipped suites', () => {
  it('every .litmus file under litmus/ is herd7-readable (lint clean)', async () => {
    for (const f of litmusFiles(join(ROOT, 'litmus'))) {
      expect(findings(readFileSync(f, 'utf8')), f).toEqual([]);
      await breather();
    }
  });

  it('every test of the bundled TypeScript suites exports lint clean and is judged as the original', async () => {
    for (const name of SUITES) {
      const suite = await readSuite(join(ROOT, 'litmus', name, 'suite.ts'));
      expect(suite.tests.length, name).toBeGreaterThan(0);
      for (const t of suite.tests) expect(findings(exportTest(t.test)), t.test.name).toEqual([]);
    }
    // Judged alike: a few of them (all of them run in the suites' own tests).
    const nfs = await readSuite(join(NFS_DIR, 'suite.ts'));
    for (const name of ['s1-publish-v1', 's2-twosetters-v1']) roundTrip(printLitmus(nfs.tests.find((t) => t.test.name === name)!.test));
  }, 120_000);
});

describe('litmus export', () => {
  it('writes bit operations with linux-kernel.def primitives, judged alike', () => {
    const text = litmus(
      'bits',
      [
        '\tWRITE_ONCE(*y, 1);\n\tclear_bit_unlock(0, x);\n\tset_bit(2, x);',
        '\tint r0;\n\tint r1;\n\tint r2;\n\tr0 = test_bit_acquire(0, x);\n\tr1 = test_and_set_bit(2, x);\n\tr2 = READ_ONCE(*y);',
      ],
      'exists (1:r0=0 /\\ 1:r2=0)',
      { init: 'int x = 1;', params: ['int *x, int *y', 'int *x, int *y'] },
    );
    const out = roundTrip(text);
    expect(out).toContain('(void)atomic_fetch_andnot_release(1, x);');
    expect(out).toContain('atomic_or(4, x);');
    expect(out).toContain('r0 = (smp_load_acquire(x) & 1) != 0;');
    expect(out).toContain('r1 = (atomic_fetch_or(4, x) & 4) != 0;');
  });

  it('renames identifiers herd7 reserves, without clashing with existing names', () => {
    const text = litmus(
      'reserved',
      ['\tspin_lock(lock);\n\tWRITE_ONCE(*lock_, 1);\n\tspin_unlock(lock);', '\tint r0;\n\tspin_lock(lock);\n\tr0 = READ_ONCE(*lock_);\n\tspin_unlock(lock);'],
      'exists (1:r0=0 /\\ lock_=1)',
      { params: ['spinlock_t *lock, int *lock_', 'spinlock_t *lock, int *lock_'] },
    );
    expect(findings(text).some((f) => f.includes('"lock" is a keyword'))).toBe(true);
    const out = roundTrip(text);
    expect(out).toContain('spin_lock(lock_2);');
    expect(out).toContain('READ_ONCE(*lock_)');
    expect(out).toContain('renamed for herd7\'s lexer: lock -> lock_2');
  });

  it('writes atomic_long_X as atomic_X, (void) before a value dropped, &x as x, herd7 types for kernel types', () => {
    const text = litmus(
      'misc',
      ['\tatomic_long_add(2, x);\n\txchg(y, 1);\n\tset_bit(3, &y);', '\tint r0;\n\tunsigned long r1;\n\tr0 = atomic_long_read(x);\n\tr1 = READ_ONCE(*y);'],
      'exists (1:r0=2 /\\ 1:r1=0)',
      { params: ['atomic_long_t *x, unsigned long *y', 'atomic_long_t *x, unsigned long *y'] },
    );
    const out = roundTrip(text);
    expect(out).toContain('atomic_add(2, x);');
    expect(out).toContain('(void)xchg(y, 1);');
    expect(out).toContain('atomic_or(8, y);');
    expect(out).toContain('P0(atomic_t *x, long *y)');
  });

  it('keeps the header comment, so the Result: line still judges the export', () => {
    const out = roundTrip(litmus('hdr', ['\tset_bit(0, x);'], 'exists (x=1)', { result: 'Always', params: ['int *x'] }));
    expect(run(out).matches).toBe(true);
  });

  it("keeps the code's comments where they stand, written as herd7 reads them", () => {
    const out = roundTrip(COMMENTED);
    expect(out).toBe(`C commented

(* Result: Sometimes *)

(* litmus export: renamed for herd7's lexer: lock -> lock_ *)

{
	int x = 0; (* the flag word *)
	(* the last item's comment *)
}

P0(int *x, int *lock_) // the setter
{
	atomic_or(2, x); // publish
	/* tell the waiter: a flag EXISTS */
	WRITE_ONCE(*lock_, 1);
	/* the end of P0 */
}

/* between processes */

P1(int *x, int *lock_)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*lock_);
	/* a herd comment, in C */
	r1 = (READ_ONCE(*x) & 2) != 0;
}

// before the condition
exists ((1:r0=1 /\\ 1:r1=0)) (* Bad outcome. *)
(* after it *)
`);
  });

  it("places a helper function's comments with the first copy of its code, and drops an uncalled helper's", () => {
    const text = `C helper
{}

static void put(int *x, int v)
{
	/* stores v */
	WRITE_ONCE(*x, v); // the store
}

static void unused(int *x)
{
	/* never inlined */
	WRITE_ONCE(*x, 9);
}

P0(int *x)
{
	put(x, 1);
	put(x, 2);
}

exists (x=2)
`;
    const out = roundTrip(text);
    expect(out).toContain('\t/* stores v */\n\tWRITE_ONCE(*x, 1); // the store\n\tWRITE_ONCE(*x, 2);\n');
    expect(out).not.toContain('never inlined');
  });

  it("the kernel corpus's exports keep every comment's words and stay lint clean", () => {
    const dir = join(ROOT, '..', 'shared', 'corpus', 'kernel');
    if (!existsSync(dir)) return void console.warn('skipped: no ../shared/corpus/kernel');
    const words = (s: string) => s.replace(/\(\*|\*\)|\/\*|\*\/|\/\//g, ' ').split(/\s+/).filter((w) => /[A-Za-z]/.test(w));
    let kept = 0;
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.litmus'))) {
      const text = readFileSync(join(dir, name), 'utf8');
      const out = exportLitmus(text);
      expect(findings(out), name).toEqual([]);
      const body = (s: string) => s.slice(s.indexOf('{'));
      const source = [...body(text).matchAll(/\(\*[\s\S]*?\*\)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g)].flatMap((m) => words(m[0]));
      for (const w of source) expect(out.toLowerCase(), `${name}: ${w}`).toContain(w.toLowerCase());
      kept += source.length;
    }
    expect(kept).toBeGreaterThan(100);
  });

  it('refuses what herd7 cannot express, at its position', () => {
    const text = litmus('shift', ['\tint r0 = 1;\n\tset_bit(r0, x);'], 'exists (x=2)', { params: ['int *x'] });
    expect(run(text).observation).toBe('Always');
    try {
      exportLitmus(text);
      expect.unreachable('export should refuse a computed bit number');
    } catch (e) {
      expect(e).toBeInstanceOf(LitmusError);
      expect((e as LitmusError).format('t')).toMatch(/^t:\d+:\d+: cannot export for herd7: herd7's C has no "<<"/);
    }
  });

  it('refuses a call no table knows, as check does', () => {
    const text = litmus('unknown', ['\tsmp_memb();'], 'exists (x=0)', { params: ['int *x'] });
    expect(() => exportLitmus(text)).toThrowError(/unknown primitive "smp_memb"/);
  });

  it('random programs of bit operations: the export is lint clean and judged alike', async () => {
    const op = fc.constantFrom(
      'set_bit', 'clear_bit', 'change_bit', 'test_bit', 'test_bit_acquire', 'test_and_set_bit', 'test_and_clear_bit',
      'test_and_change_bit', 'test_and_set_bit_lock', 'clear_bit_unlock', '__clear_bit_unlock', '__set_bit', '__clear_bit',
      'READ_ONCE', 'WRITE_ONCE', 'smp_mb',
    );
    const ins = fc.record({ op, loc: fc.constantFrom('x', 'y'), bit: fc.integer({ min: 0, max: 2 }) });
    const prog = fc.array(fc.array(ins, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 2 });
    await fc.assert(
      fc.asyncProperty(prog, fc.integer({ min: 0, max: 7 }), async (threads, v) => {
        await breather();
        const procs = threads.map((th) => {
          const decls = th.map((_, k) => `\tint r${k};`);
          const body = th.map((i, k) => {
            if (i.op === 'READ_ONCE') return `\tr${k} = READ_ONCE(*${i.loc});`;
            if (i.op === 'WRITE_ONCE') return `\tWRITE_ONCE(*${i.loc}, ${i.bit});`;
            if (i.op === 'smp_mb') return '\tsmp_mb();';
            return i.op.startsWith('test_') ? `\tr${k} = ${i.op}(${i.bit}, ${i.loc});` : `\t${i.op}(${i.bit}, ${i.loc});`;
          });
          return [...decls, ...body].join('\n');
        });
        roundTrip(litmus('gen', procs, `exists (0:r0=1 /\\ x=${v})`, { init: 'int x = 1; int y = 2;', params: ['int *x, int *y', 'int *x, int *y'] }));
      }),
      { numRuns: 25 },
    );
  });
});

describe('litmus check --herd-compatible', () => {
  it('names each construct herd7 would refuse, file:line:col', () => {
    const text = `C lintme

{
}

P0(int *x, unsigned long *lock)
{
	int r0, r1;
	r0 = READ_ONCE(*x); /* if it exists */
	r0 += 1;
	r1 = r0 << 1;
	xchg(x, 2);
	set_bit(1, lock);
}

exists (0:r0=0)
`;
    expect(findings(text)).toEqual([
      '6:12 "lock" is a keyword to herd7\'s C lexer: rename it',
      '6:12 herd7 does not know the type "unsigned long *" of parameter "lock"',
      '8:2 herd7 takes one name per declaration: split it',
      '9:31 "exists" here ends herd7\'s process section early (herd7 finds it even in a comment): reword it',
      '10:5 herd7\'s C has no "+=": write "x = x + ..."',
      '11:10 herd7\'s C has no "<<"',
      '12:2 herd7 refuses xchg() as a statement ("Unknown macro"): assign its value or write (void)xchg(...)',
      '13:2 set_bit is not in herd7\'s linux-kernel.def (litmus export writes it with .def primitives)',
      '13:13 "lock" is a keyword to herd7\'s C lexer: rename it',
    ]);
  });

  it('"x -1" is a syntax error to herd7 (it lexes "-1" as a number); "(*" inside a C comment is fine', () => {
    const text = litmus('minus', ['\tint r0 = 1;\n\tint r1;\n\tr1 = r0 -1; /* (* not code *) */\n\tr1 = r0 - -1;\n\tr1 = (-1);'], 'exists (0:r1=0)', { params: ['int *x'] });
    expect(findings(text)).toEqual([expect.stringMatching(/^\d+:10 herd7 reads "-1" as a negative number, not a subtraction/)]);
    expect(exportLitmus(text)).toContain('r1 = r0 - 1;');
  });

  it('warns on stderr and leaves verdicts and the exit status alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-lint-'));
    try {
      const file = join(dir, 't.litmus');
      const text = litmus('t', ['\tset_bit(0, x);'], 'exists (x=1)', { result: 'Always', params: ['int *x'] });
      writeFileSync(file, text);
      const plain = await cli(['check', file, '-q']);
      const lint = await cli(['check', file, '-q', '--herd-compatible']);
      expect(lint.status).toBe(plain.status);
      expect(lint.stdout).toBe(plain.stdout);
      expect(lint.stderr).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}:\\d+:\\d+: herd7: set_bit is not in herd7's linux-kernel.def`));
      // Without --herd-compatible: one line, how many, the first, and that export writes a copy herd7 reads.
      expect(plain.stderr).toBe(
        `${file}: herd7 would refuse this test: one construct it does not read, the first at 11:2 (set_bit is not in herd7's linux-kernel.def (litmus export writes it with .def primitives)); --herd-compatible lists them; litmus export writes a copy it reads\n`,
      );
      // A test herd7 reads as it is gets no line.
      const clean = join(dir, 'clean.litmus');
      writeFileSync(clean, litmus('clean', ['\tWRITE_ONCE(*x, 1);'], 'exists (x=1)', { result: 'Always', params: ['int *x'] }));
      const quiet = await cli(['check', clean, '-q']);
      expect(quiet.stderr).toBe('');
      expect(quiet.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('litmus export (command line)', () => {
  it('exports a bundled suite into --out, keeping file names', async () => {
    const out = mkdtempSync(join(tmpdir(), 'litmus-export-'));
    try {
      const r = await cli(['export', 'clear_invalid_mapping', '--out', out]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      // A TypeScript suite: one file per scenario and version, named so, with the checker's verdict as Result:.
      const written = litmusFiles(out).map((f) => f.slice(out.length + 1)).sort();
      const scenarios = ['s1-publish', 's2-twosetters', 's3-inflight', 's4-tworeaders', 's5-emptied', 's6-rerequest', 's7-wakeup'];
      expect(written).toEqual(scenarios.flatMap((s) => ['pre', 'v1', 'v2', 'fix'].map((v) => `${s}-${v}.litmus`)).sort());
      for (const f of litmusFiles(out)) expect(findings(readFileSync(f, 'utf8')), f).toEqual([]);
      expect(readFileSync(join(out, 's3-inflight-v1.litmus'), 'utf8')).toMatch(/^C s3-inflight-v1\n\n\(\*\n \* Result: Sometimes\n \*\n \* Version: v1\n \* Scenario: s3-inflight: /);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('an input it cannot export is file:line:col on stderr, exit 2, the others still written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-export-bad-'));
    try {
      const bad = join(dir, 'bad.litmus');
      const good = join(dir, 'good.litmus');
      writeFileSync(bad, litmus('bad', ['\tint r0 = 1;\n\tset_bit(r0, x);'], 'exists (x=2)', { params: ['int *x'] }));
      writeFileSync(good, litmus('good', ['\tset_bit(1, x);'], 'exists (x=2)', { params: ['int *x'] }));
      const out = join(dir, 'out');
      const r = await cli(['export', bad, good, '--out', out]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/bad\.litmus:\d+:\d+: cannot export for herd7/);
      expect(readdirSync(out)).toEqual(['good.litmus']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
