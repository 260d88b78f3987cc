// The command line's handling of its inputs: empty folders, --json carrying
// every input (errors included) and the suite verdict, --jobs bounds, the
// primitives listing, and every unknown primitive of a file reported.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookupPrimitive, primitiveNames } from '../src/events/primitives.js';
import { CLI, runNode } from './util.js';
import { MP_REL_ACQ, sbTest } from './shapes.js';

let dir: string;

const litmus = (...args: string[]) => runNode([CLI, ...args], dir);

const SB = sbTest(`(*
 * Result: Sometimes
 * Version: v1
 * Scenario: s1 both reads see 0
 *)
`);

const TYPOS = `C typos
{}
P0(int *x, int *y)
{
\tint r0;
\tWRITE_ONCEE(*x, 1);
\tr0 = read_once(*y);
\tsmp_mbb();
\tfrobnicate();
}
exists (0:r0=0)
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-inputs-'));
  mkdirSync(join(dir, 'empty'));
  mkdirSync(join(dir, 'review'));
  writeFileSync(join(dir, 'review', 'sb-v1.litmus'), SB);
  writeFileSync(join(dir, 'review', 'mp-v2.litmus'), MP_REL_ACQ.replace(' * Result: Never', ' * Result: Never\n * Version: v2\n * Scenario: s1 both reads see 0'));
  writeFileSync(join(dir, 'review', 'suite.json'), JSON.stringify({ underReview: 'v1', badOutcome: 'the stale read' }));
  writeFileSync(join(dir, 'typos.litmus'), TYPOS);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('inputs', () => {
  it('a folder without tests is bad input (exit 2, a message), so a run of zero tests cannot pass', async () => {
    const r = await litmus('check', 'empty');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('empty: no .litmus tests in this folder');
  });

  it('reports every unknown primitive of a file, each with the closest known name', async () => {
    const r = await litmus('check', 'typos.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'typos.litmus:6:2: unknown primitive "WRITE_ONCEE" (did you mean "WRITE_ONCE"?)',
      'typos.litmus:7:7: unknown primitive "read_once" (did you mean "READ_ONCE"?)',
      'typos.litmus:8:2: unknown primitive "smp_mbb" (did you mean "smp_mb"?)',
      'typos.litmus:9:2: unknown primitive "frobnicate"',
    ]);
  });

  it('--json carries every input, errors as file/line/col/message objects, and the suite verdict', async () => {
    const r = await litmus('check', '--json', '-j', '1', 'review', 'typos.litmus', 'empty', 'nothere.litmus');
    expect(r.status).toBe(2);
    const report = JSON.parse(r.stdout) as {
      status: number;
      summary: Record<string, number>;
      results: { file: string; status: string; errors?: { file: string; line?: number; col?: number; message: string }[] }[];
      suites: { folder: string; verdict: string | null; rows: unknown[] }[];
    };
    expect(report.status).toBe(2);
    expect(report.summary).toEqual({ inputs: 5, ok: 2, mismatches: 0, errors: 3 });
    // In the order the command line names them (a folder's tests in name order).
    expect(report.results.map((x) => [x.file, x.status])).toEqual([
      [join('review', 'mp-v2.litmus'), 'ok'],
      [join('review', 'sb-v1.litmus'), 'ok'],
      ['typos.litmus', 'error'],
      ['empty', 'error'],
      ['nothere.litmus', 'error'],
    ]);
    const typos = report.results.find((x) => x.file === 'typos.litmus')!;
    expect(typos.errors).toHaveLength(4);
    expect(typos.errors![0]).toEqual({ file: 'typos.litmus', line: 6, col: 2, message: 'unknown primitive "WRITE_ONCEE" (did you mean "WRITE_ONCE"?)' });
    expect(report.results[4].errors).toEqual([{ file: 'nothere.litmus', message: 'no such file, folder or bundled test' }]);
    expect(report.suites).toHaveLength(1);
    expect(report.suites[0].rows).toHaveLength(2);
    expect(report.suites[0].verdict).toBe('Version "v1" (under review): the stale read CAN happen, in 1 of 1 scenarios: s1 both reads see 0.');
  });

  it("a suite folder whose version under review reaches the bad outcome exits 0 (every Result: matches); --fail-on-bad-outcome makes it 1", async () => {
    const plain = await litmus('check', '-q', 'review');
    expect(plain.status).toBe(0);
    expect(plain.stdout).toMatch(/v1.*(can|CAN)/);
    const strict = await litmus('check', '-q', '--fail-on-bad-outcome', 'review');
    expect(strict.status).toBe(1);
    // Only the version under review counts: naming v2 (which never reaches it) keeps 0.
    writeFileSync(join(dir, 'review', 'suite.json'), JSON.stringify({ underReview: 'v2', badOutcome: 'the stale read' }));
    try {
      expect((await litmus('check', '-q', '--fail-on-bad-outcome', 'review')).status).toBe(0);
    } finally {
      writeFileSync(join(dir, 'review', 'suite.json'), JSON.stringify({ underReview: 'v1', badOutcome: 'the stale read' }));
    }
  });

  it('--jobs must be at least 1', async () => {
    const r = await litmus('check', '--jobs', '0', 'review');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--jobs takes a whole number from 1 to 1024, not "0"');
  });
});

describe('primitives', () => {
  it('lists every name a test may call, atomic_long_* included, each with what it does and how it orders', async () => {
    const r = await litmus('primitives');
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    const names = lines.map((l) => l.split('(')[0]);
    expect(names).toEqual(primitiveNames());
    expect(names.length).toBeGreaterThan(150);
    for (const n of names) expect(lookupPrimitive(n), n).toBeDefined();
    for (const n of ['atomic_long_add_return_relaxed', 'atomic_long_cmpxchg', 'atomic_long_read', 'set_bit']) expect(names).toContain(n);
    const line = (n: string) => lines.find((l) => l.startsWith(`${n}(`))!;
    expect(line('smp_load_acquire')).toMatch(/^smp_load_acquire\(x\) +reads x; acquire: later accesses stay after it$/);
    expect(line('WRITE_ONCE')).toMatch(/^WRITE_ONCE\(\*x, v\) +writes v to x; relaxed: orders nothing by itself$/);
    expect(line('smp_wmb')).toMatch(/write barrier: earlier writes are ordered before later writes$/);
    expect(line('atomic_long_fetch_add_release')).toMatch(/adds i to v atomically, returns the old value; release: earlier accesses stay before it$/);
    expect(line('xchg')).toMatch(/fully ordered/);
    expect(line('set_bit')).toMatch(/is atomic_or\(1 << nr, x\); relaxed/);
    expect(line('atomic_add_unless')).toMatch(/^atomic_add_unless\(v, a, u\) +adds a to v unless v is u, .*; fully ordered: .* \(a failed one is a relaxed read\)$/);
    expect(line('smp_store_mb')).toMatch(/^smp_store_mb\(\*x, v\) +writes v to x; relaxed: .*; then a full barrier: /);
    expect(line('srcu_read_unlock')).toMatch(/^srcu_read_unlock\(s, idx\) +ends the SRCU read-side critical section of s that returned idx$/);
    expect(line('spin_trylock')).toMatch(/^spin_trylock\(l\) +takes the lock if it is free/);
  });
});
