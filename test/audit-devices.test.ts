// A complete audit: control dependencies are devices (cut: the same values
// and paths, no dependency for the model), a fence that needs a device
// beside it is shown with it, and each row is a re-run. The verdicts quoted
// are herd7's (7.58, the kernel's LKMM: /root/herd/bin/lkmm-herd) on the
// same tests, the dependency removed by hand.

import { describe, expect, it } from 'vitest';
import { builtinModel } from '../models/index.js';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram } from '../src/program/program.js';
import { auditProgram, auditTable } from '../src/report/audit.js';
import { checkSource } from '../src/check.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT, runNode } from './util.js';

const lkmm = builtinModel('lkmm')!;
const program = (text: string) => buildProgram(parseLitmus(text));

/** The perf ring buffer's A and D: the kernel writes data only once it sees the tail move (A, a control dependency); the user reads the data, smp_mb() (D), moves the tail. */
const PERF_AD = `C perf-AD
{}
P0(int *tail, int *data)
{
	int r0;

	r0 = READ_ONCE(*tail);
	if (r0)
		WRITE_ONCE(*data, 1);
}
P1(int *tail, int *data)
{
	int r1;

	r1 = READ_ONCE(*data);
	smp_mb();
	WRITE_ONCE(*tail, 1);
}
exists (0:r0=1 /\\ 1:r1=1)
`;

describe('dependencies in the audit', () => {
  it("perf-AD: the kernel side's control dependency (A) is load-bearing, as smp_mb() (D) is", () => {
    // herd7: Never 0 2; with the if removed (r0 = READ_ONCE(*tail); WRITE_ONCE(*data, 1);): Sometimes 1 3.
    const a = auditProgram(program(PERF_AD), lkmm, {}, PERF_AD.split('\n'));
    expect(a.verdict).toBe('Never');
    expect(a.rows.map((r) => [r.device.thread, r.device.source, r.to, r.verdict, r.loadBearing])).toEqual([
      [0, 'control dependency: READ_ONCE(*tail) → WRITE_ONCE(*data, 1)', '(dependency cut)', 'Sometimes', true],
      [1, 'smp_mb();', '(removed)', 'Sometimes', true],
      [1, 'smp_mb();', 'smp_rmb', 'Sometimes', true],
      [1, 'smp_mb();', 'smp_wmb', 'Sometimes', true],
    ]);
    // The cut is what removing the dependency by hand gives.
    const byHand = PERF_AD.replace('\tif (r0)\n\t\tWRITE_ONCE', '\tWRITE_ONCE');
    expect(checkSource(byHand, { model: lkmm }).observation).toBe('Sometimes');
    expect(auditTable(a, lkmm)).toContain('P0: control dependency: READ_ONCE(*tail) → WRITE_ONCE(*data, 1)  9     (dependency cut)');
  });

  it('a dependency no cycle needs is not load-bearing', () => {
    const both = PERF_AD.replace('\tr1 = READ_ONCE(*data);', '\tr1 = READ_ONCE(*data);\n\tif (r1)\n\t\tWRITE_ONCE(*tail, 2);');
    const a = auditProgram(program(both), lkmm, {}, both.split('\n'));
    const rows = a.rows.filter((r) => r.device.name === 'ctrl');
    expect(rows.map((r) => [r.device.thread, r.loadBearing])).toEqual([[0, true], [1, false]]);
  });
});

describe('a device that needs another is shown with it', () => {
  it('smp_mb__after_atomic() with the RMW before it', () => {
    const t = `C after-atomic
{}
P0(int *x, int *y)
{
	int r0;

	WRITE_ONCE(*x, 1);
	atomic_inc(y);
	smp_mb__after_atomic();
	r0 = READ_ONCE(*x);
}
P1(int *x, int *y)
{
	WRITE_ONCE(*x, 2);
}
exists (0:r0=0)
`;
    const a = auditProgram(program(t), lkmm, {}, t.split('\n'));
    const row = a.rows.find((r) => r.device.name === 'smp_mb__after_atomic')!;
    expect(row.device.with).toBe('atomic_inc(y); (line 8)');
    expect(auditTable(a, lkmm)).toContain('P0: smp_mb__after_atomic(); (with atomic_inc(y); (line 8))');
  });
});

describe("a suite's audit names places as its traces do", () => {
  it('file.ts:line of the suite, the call at that place, and the call a helper was inlined at', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-audit-places-'));
    try {
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
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^ {2}P0: smp_store_release\(s\.flag, 1\); +v\.ts:3 \(called at suite\.ts:4\) +WRITE_ONCE +Sometimes +yes$/m);
      expect(r.stdout).toMatch(/^ {2}smp_store_release\(s\.flag, 1\); +v\.ts:3 \(called at suite\.ts:4\) +WRITE_ONCE +yes$/m);
      expect(r.stdout).not.toMatch(/\bline \d+/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
