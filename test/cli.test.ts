import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CLI, ROOT, runNode } from './util.js';
import { MP_REL_ACQ } from './shapes.js';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;

/** The CLI, run without blocking the test worker (a loaded machine makes the runner's messages time out otherwise). */
function litmus(...args: string[]): Promise<Run> {
  return runNode([CLI, ...args], dir);
}

const SB = `C SB+poonceonces

(*
 * Result: Sometimes
 *
 * Can the two reads both see the initial values?
 *)

{}

P0(int *x0, int *x1)
{
	int r0;

	WRITE_ONCE(*x0, 1);
	r0 = READ_ONCE(*x1);
}

P1(int *x0, int *x1)
{
	int r0;

	WRITE_ONCE(*x1, 1);
	r0 = READ_ONCE(*x0);
}

exists (0:r0=0 /\\ 1:r0=0)
`;

const LB = `C LB+poonceonces
(* Result: Sometimes *)
{}
P0(int *x, int *y)
{
	int r0;
	r0 = READ_ONCE(*x);
	WRITE_ONCE(*y, 1);
}
P1(int *x, int *y)
{
	int r0;
	r0 = READ_ONCE(*y);
	WRITE_ONCE(*x, 1);
}
exists (0:r0=1 /\\ 1:r0=1)
`;

const CORR = `C CoRR
(* Result: Never *)
{}
P0(int *x)
{
	WRITE_ONCE(*x, 1);
}
P1(int *x)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*x);
	r1 = READ_ONCE(*x);
}
exists (1:r0=1 /\\ 1:r1=0)
`;

const SYNTAX = `C bad
{}
P0(int *x)
{
	WRITE_ONCE(*x, 1)
}
exists (x=1)
`;

const IRIW = `C IRIW
{}
P0(int *x) { WRITE_ONCE(*x, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*x); r1 = READ_ONCE(*y); }
P2(int *y) { WRITE_ONCE(*y, 1); }
P3(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*y); r1 = READ_ONCE(*x); }
exists (1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-cli-'));
  writeFileSync(join(dir, 'sb.litmus'), SB);
  writeFileSync(join(dir, 'wrong.litmus'), SB.replace('Result: Sometimes', 'Result: Never').replace('C SB+poonceonces', 'C SB+wrong'));
  writeFileSync(join(dir, 'bad.litmus'), SYNTAX);
  writeFileSync(join(dir, 'iriw.litmus'), IRIW);
  mkdirSync(join(dir, 'suite'));
  writeFileSync(join(dir, 'suite', 'sb.litmus'), SB);
  writeFileSync(join(dir, 'suite', 'mp.litmus'), MP_REL_ACQ);
  writeFileSync(join(dir, 'suite', 'lb.litmus'), LB);
  mkdirSync(join(dir, 'suite', 'sub'));
  writeFileSync(join(dir, 'suite', 'sub', 'corr.litmus'), CORR);
  writeFileSync(join(dir, 'suite', 'notes.txt'), 'not a litmus test');
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('litmus check: output', () => {
  it('prints the herd block and the human line', async () => {
    const r = await litmus('check', 'sb.litmus');
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 13)).toEqual([
      'Test SB+poonceonces Allowed',
      'States 4',
      '0:r0=0; 1:r0=0;',
      '0:r0=0; 1:r0=1;',
      '0:r0=1; 1:r0=0;',
      '0:r0=1; 1:r0=1;',
      'Ok',
      'Witnesses',
      'Positive: 1 Negative: 3',
      'Condition exists (0:r0=0 /\\ 1:r0=0)',
      'Observation SB+poonceonces Sometimes 1 3',
      'SB+poonceonces: Sometimes (1 of 4 executions) under lkmm; Result: Sometimes matches',
      '',
    ]);
  });

  it('prints No and Never for a forbidden outcome', async () => {
    writeFileSync(join(dir, 'mp.litmus'), MP_REL_ACQ);
    const r = await litmus('check', 'mp.litmus');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Test MP+pooncerelease+poacquireonce Allowed\nStates 3\n');
    expect(r.stdout).toContain('\nNo\nWitnesses\nPositive: 0 Negative: 3\n');
    expect(r.stdout).toContain('Observation MP+pooncerelease+poacquireonce Never 0 3');
    expect(r.stdout).toContain('MP+pooncerelease+poacquireonce: Never (0 of 3 executions) under lkmm; Result: Never matches');
  });

  it('-q prints only the human line', async () => {
    const r = await litmus('check', '-q', 'sb.litmus');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('SB+poonceonces: Sometimes (1 of 4 executions) under lkmm; Result: Sometimes matches');
  });

  it('--json prints parseable results', async () => {
    const r = await litmus('check', '--json', 'sb.litmus');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { status: number; summary: unknown; results: Record<string, unknown>[] };
    expect(report.status).toBe(0);
    expect(report.summary).toEqual({ inputs: 1, ok: 1, mismatches: 0, errors: 0 });
    const data = report.results;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      file: 'sb.litmus',
      name: 'SB+poonceonces',
      model: 'lkmm',
      condition: 'exists (0:r0=0 /\\ 1:r0=0)',
      observation: 'Sometimes',
      positive: 1,
      negative: 3,
      flags: [],
      ok: true,
      expected: 'Sometimes',
      matches: true,
      status: 'ok',
    });
    expect(data[0].states).toContainEqual({ bindings: { '0:r0': '0', '1:r0': '0' }, count: 1, positive: true });
  });

  it('--model sc changes the verdict (and the Result: no longer matches)', async () => {
    const r = await litmus('check', '--model', 'sc', 'sb.litmus');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('States 3\n');
    expect(r.stdout).toContain('Observation SB+poonceonces Never 0 3');
    expect(r.stdout).toContain('SB+poonceonces: Never (0 of 3 executions) under sc; Result: Sometimes MISMATCH');
  });

  it('--model x86-tso allows store buffering', async () => {
    const r = await litmus('check', '-q', '-m', 'x86-tso', 'sb.litmus');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('SB+poonceonces: Sometimes (1 of 4 executions) under x86-tso; Result: Sometimes matches');
  });

  it('--trace shows a witness', async () => {
    const r = await litmus('check', '-q', '--trace', 'sb.litmus');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Witness for 0:r0=0; 1:r0=0; (satisfies the condition)');
    expect(r.stdout).toContain('Not sequentially consistent');
    expect(r.stdout).toMatch(/^\s+1\. WRITE_ONCE +W x0=1 +\(line 15\)$/m);
    expect(r.stdout).toMatch(/^\s+2\. READ_ONCE +R x1=0 \(initial value\) +\(line 16\)$/m);
    // Each store-to-load step is reordered; a full barrier after each CPU's store forbids it, in the kernel's words.
    const mb = String.raw`WRITE_ONCE → smp_store_mb at P\d\.1 \(line \d+\), i\.e\. smp_mb\(\) between P\d\.1 \(line \d+\) and P\d\.2 \(line \d+\)`;
    expect(r.stdout).toMatch(new RegExp(`^ {2}1\\. ${mb}; and ${mb}$`, 'm'));
  });

  it('--trace on a Never shows a forbidden candidate and the cycle the axiom rules out', async () => {
    const r = await litmus('check', '-q', '--trace', join('suite', 'mp.litmus'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Candidate reaching 1:r0=1; 1:r1=0; is forbidden by the "happens-before" axiom:');
    // The stale read of buf is overwritten by the write that the release
    // orders before flag=1, which the acquire reads: a cycle in hb, the check named as the model names it, each step by its definition.
    expect(r.stdout).toContain('the happens-before cycle: P1.2 -fr-> P0.1 -po-rel-> P0.2 -rfe-> P1.1 -acq-po-> P1.2');
  });

  it('--trace names the cycle under SC and x86-TSO too', async () => {
    const sc = await litmus('check', '-q', '--trace', '-m', 'sc', 'sb.litmus');
    expect(sc.stdout).toContain('the sc cycle: P1.2 -fr-> P0.1 -po-> P0.2 -fr-> P1.1 -po-> P1.2');
    const tso = await litmus('check', '-q', '--trace', '-m', 'x86-tso', join('suite', 'mp.litmus'));
    expect(tso.stdout).toContain('the tso cycle: P1.2 -fr-> P0.1 -ppo-> P0.2 -rfe-> P1.1 -ppo-> P1.2');
  });

  it('--trace says when no candidate at all reaches the condition', async () => {
    writeFileSync(join(dir, 'two.litmus'), 'C Two\n{}\nP0(int *x)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (0:r0=2)\n');
    const r = await litmus('check', '-q', '--trace', 'two.litmus');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Not even an inconsistent candidate execution reaches it');
  });

  it('--dot into something that is not a folder is bad input, not a crash', async () => {
    const r = await litmus('check', '-q', '--dot', 'sb.litmus', 'sb.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('litmus: cannot create the --dot folder sb.litmus: not a folder');
  });

  it('--dot writes a Graphviz picture per test and says where', async () => {
    const r = await litmus('check', '-q', '--dot', 'pictures', 'sb.litmus', join('suite', 'lb.litmus'), join('suite', 'mp.litmus'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`picture: ${join('pictures', 'sb.dot')}`);
    const sb = readFileSync(join(dir, 'pictures', 'sb.dot'), 'utf8');
    expect(sb).toMatch(/^digraph "SB\+poonceonces" \{/);
    expect(sb).toContain('P0 [label="P0", shape=plaintext');
    expect(sb).toMatch(/e\d+ \[label="P1\.2 READ_ONCE \(line \d+\)\\nR x0=0 \(initial value\)", pos="4\.00,-3\.00!"\]/);
    expect(sb).toMatch(/-> e\d+ \[label="fr"/);
    // A Never draws the forbidden candidate with its hb cycle.
    const mp = readFileSync(join(dir, 'pictures', 'mp.dot'), 'utf8');
    expect(mp).toContain('forbidden by \\"happens-before\\"');
    for (const step of ['fr', 'po-rel', 'rfe', 'acq-po']) expect(mp).toContain(`label="happens-before: ${step}"`);
  });

  it('--svg writes an SVG picture per test without Graphviz, and says where', async () => {
    const r = await litmus('check', '-q', '--svg', 'svgs', 'sb.litmus', join('suite', 'mp.litmus'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`picture: ${join('svgs', 'sb.svg')}`);
    const sb = readFileSync(join(dir, 'svgs', 'sb.svg'), 'utf8');
    expect(sb).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="\d+" height="\d+"/);
    expect(sb).toMatch(/>P1\.2 READ_ONCE \(line \d+\)<\/text>/);
    const mp = readFileSync(join(dir, 'svgs', 'mp.svg'), 'utf8');
    expect(mp).toContain('forbidden by &quot;happens-before&quot;');
    expect(mp.match(/<path class="cycle"/g)?.length).toBe(4);
  });
});

describe('litmus check: exit codes and errors', () => {
  it('0 when every Result: matches', async () => {
    expect((await litmus('check', '-q', 'sb.litmus')).status).toBe(0);
  });

  it('1 when a Result: does not match', async () => {
    const r = await litmus('check', 'wrong.litmus');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('SB+wrong: Sometimes (1 of 4 executions) under lkmm; Result: Never MISMATCH');
  });

  it('1 when one of several files mismatches', async () => {
    const r = await litmus('check', '-q', 'sb.litmus', 'wrong.litmus');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('Result: Sometimes matches');
    expect(r.stdout).toContain('Result: Never MISMATCH');
  });

  it('2 on a syntax error, with one file:line:col line on stderr and no stack trace', async () => {
    const r = await litmus('check', 'bad.litmus');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual(['bad.litmus:6:1: expected ";" after the statement, found "}"']);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('2 for a file that does not exist', async () => {
    const r = await litmus('check', 'nope.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('nope.litmus: no such file, folder or bundled test');
  });

  it('2 for an unknown model', async () => {
    const r = await litmus('check', '--model', 'arm', 'sb.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown model "arm"');
  });

  it('2 when --max-executions is reached, with a clear message', async () => {
    const r = await litmus('check', '--max-executions', '1', 'iriw.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('iriw.litmus: more than 1 candidate executions (--max-executions)');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('2 for a bad --shard', async () => {
    const r = await litmus('check', '--shard', '3/2', 'sb.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('litmus: --shard 3/2: K must be between 1 and N');
  });

  it('2 for a bad number option', async () => {
    const r = await litmus('check', '--unroll', 'two', 'sb.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--unroll takes a whole number');
  });

  it('2 wins over 1: an error and a mismatch together exit 2', async () => {
    const r = await litmus('check', '-q', 'wrong.litmus', 'bad.litmus');
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('MISMATCH');
    expect(r.stderr).toContain('bad.litmus:6:1:');
  });
});

describe('litmus check: several inputs', () => {
  it('a folder checks every .litmus file below it', async () => {
    const r = await litmus('check', '-q', 'suite');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => l.split(':')[0]).sort()).toEqual(['CoRR', 'LB+poonceonces', 'MP+pooncerelease+poacquireonce', 'SB+poonceonces']);
    expect(r.stdout).toContain('CoRR: Never (0 of 3 executions) under lkmm; Result: Never matches');
    expect(r.stdout).toContain('LB+poonceonces: Sometimes (1 of 4 executions) under lkmm; Result: Sometimes matches');
  });

  it('-j 1 gives the same results as the worker pool', async () => {
    const a = await litmus('check', '-q', '-j', '1', 'suite');
    const b = await litmus('check', '-q', '-j', '2', 'suite');
    expect(a.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });

  it('--shard 1/2 and 2/2 cover the inputs exactly once', async () => {
    const results = (out: string) => (JSON.parse(out) as { results: { file: string }[] }).results;
    const all = results((await litmus('check', '--json', 'suite')).stdout);
    const s1 = results((await litmus('check', '--json', '--shard', '1/2', 'suite')).stdout);
    const s2 = results((await litmus('check', '--json', '--shard', '2/2', 'suite')).stdout);
    expect(all).toHaveLength(4);
    expect(s1.length).toBeGreaterThan(0);
    expect(s2.length).toBeGreaterThan(0);
    const f1 = s1.map((r) => r.file);
    const f2 = s2.map((r) => r.file);
    expect(f1.filter((f) => f2.includes(f))).toEqual([]);
    expect([...f1, ...f2].sort()).toEqual(all.map((r) => r.file).sort());
  });

  it('merge joins --json outputs, sorted by file, and reports mismatches', async () => {
    const s1 = await litmus('check', '--json', '--shard', '1/2', 'suite');
    const s2 = await litmus('check', '--json', '--shard', '2/2', 'suite');
    writeFileSync(join(dir, 'part1.json'), s1.stdout);
    writeFileSync(join(dir, 'part2.json'), s2.stdout);
    const m = await litmus('merge', 'part1.json', 'part2.json');
    expect(m.status).toBe(0);
    const merged = (JSON.parse(m.stdout) as { results: { file: string; observation: string }[] }).results;
    const files = merged.map((r) => r.file);
    expect(files).toHaveLength(4);
    expect(files).toEqual([...files].sort());
    expect(m.stderr.trim()).toBe('merged 4 results from 2 files; 0 mismatches');

    writeFileSync(join(dir, 'part3.json'), (await litmus('check', '--json', 'wrong.litmus')).stdout);
    const m2 = await litmus('merge', 'part1.json', 'part2.json', 'part3.json');
    expect(m2.status).toBe(1);
    expect(m2.stderr.trim()).toMatch(/; 1 mismatch$/);
  });

  it('merge rejects a file that is not JSON results', async () => {
    writeFileSync(join(dir, 'junk.json'), '{"a": 1}');
    const m = await litmus('merge', 'junk.json');
    expect(m.status).toBe(2);
    expect(m.stderr).toContain('junk.json: cannot read results');
  });
});

describe('litmus check: bundled suite', () => {
  it('a bundled TypeScript suite resolves by name, from any directory: verdict line first, then the grid (-q: no traces)', async () => {
    const r = await runNode([CLI, 'check', '-q', 'clear_invalid_mapping'], tmpdir());
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^Version "v1" \(under review\): skipping \(or losing\) a required invalidation CAN happen, in 4 of 7 scenarios: /);
    expect(r.stdout).toContain('nfs_clear_invalid_mapping: can the lockless fast path skip a required invalidation?');
    expect(r.stdout).toMatch(/^s3-inflight +Never +Sometimes +Sometimes +Never$/m);
    expect(r.stdout).not.toContain('how the bad outcome happens');
    expect(r.stdout).not.toContain('Observation');
  });
});

describe('litmus audit', () => {
  it('weakens each device of a Never; a syntax error and a limit are exit 2, the rest still audited', async () => {
    const ok = await litmus('audit', join('suite', 'mp.litmus'));
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^ {2}P0: smp_store_release\(flag, 1\); +\d+ +WRITE_ONCE +Sometimes +yes$/m);
    const bad = await litmus('audit', 'bad.litmus', join('suite', 'mp.litmus'));
    expect(bad.status).toBe(2);
    expect(bad.stderr.trimEnd().split('\n')).toEqual(['bad.litmus:6:1: expected ";" after the statement, found "}"']);
    expect(bad.stdout).toContain('P1: r0 = smp_load_acquire(flag);');
    const limited = await litmus('audit', '--max-executions', '1', join('suite', 'mp.litmus'));
    expect(limited.status).toBe(2);
    expect(limited.stderr).toContain('more than 1 candidate executions (--max-executions)');
    const json = JSON.parse((await litmus('audit', '--json', join('suite', 'mp.litmus'))).stdout);
    expect(json.tests[0].rows.map((r: { loadBearing: boolean }) => r.loadBearing)).toEqual([true, true]);
  });
  it('a TypeScript suite folder with --suite-version: its table once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-audit-ts-'));
    const kernel = join(ROOT, 'litmus', 'kernel.js');
    writeFileSync(join(dir, 'v.ts'), `import { smp_load_acquire, smp_store_release, type Ref } from '${kernel}';
export interface S { data: Ref; flag: Ref }
export function publish(s: S): void { smp_store_release(s.data, 1); smp_store_release(s.flag, 1); }
export function consume(s: S): number { return smp_load_acquire(s.flag) === 1 ? smp_load_acquire(s.data) : 1; }
`);
    writeFileSync(join(dir, 'suite.ts'), `import { scenario, suite } from '${kernel}';
import * as v from './v.js';
import { consume, publish, type S } from './v.js';
const mp = scenario({ name: 'mp', says: 'message passing', threads: [(s: S) => publish(s), (s: S) => ({ got: consume(s) })], exists: ([, p1]) => p1.got === 0 });
export default suite({ title: 'MP', versions: { v }, scenarios: [mp] });
`);
    const r = await runNode([CLI, 'audit', '--suite-version', 'v', dir], tmpdir());
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.match(/^Version "v": which ordering devices/gm)).toHaveLength(1);
    expect(r.stdout).not.toContain('No test of version');
  });
});

describe('other commands', () => {
  it('models lists the three built-in models, each with its text, then how to name a model by its files', async () => {
    const r = await litmus('models');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines.filter((l) => !l.startsWith(' ')).slice(0, 3).map((l) => l.split(/\s+/)[0])).toEqual(['lkmm', 'sc', 'x86-tso']);
    expect(lines.filter((l) => l.trim().startsWith('as cat text: --conf '))).toHaveLength(3);
    expect(lines[6]).toMatch(/^FILE\.cat, FILE\.cfg or a folder/);
  });

  it('primitives lists the kernel primitives', async () => {
    const r = await litmus('primitives');
    expect(r.status).toBe(0);
    const names = r.stdout.split('\n').map((l) => l.split('(')[0]);
    for (const p of ['READ_ONCE', 'WRITE_ONCE', 'smp_mb', 'smp_load_acquire', 'spin_lock', 'synchronize_rcu', 'cmpxchg']) {
      expect(names).toContain(p);
    }
  });

  it('--version and an unknown command', async () => {
    expect((await litmus('--version')).stdout.trim()).toBe('0.1.0');
    expect((await litmus('frobnicate')).status).toBe(2);
  });

});
