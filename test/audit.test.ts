// litmus audit: weakening each ordering device alone, and the NFS suite's
// table of which barrier each scenario needs, without its weakened copies.

import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { lkmm } from '../models/lkmm.js';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram } from '../src/program/program.js';
import { auditProgram, weakenings } from '../src/report/audit.js';
import { MP_REL_ACQ } from './shapes.js';
import { NFS_DIR } from './util.js';
import { readSuite } from '../src/suite/read.js';
import { printLitmus } from '../src/parse/printer.js';

const program = (text: string) => buildProgram(parseLitmus(text));

describe('audit of one test', () => {
  it('MP with release and acquire: both are load-bearing', () => {
    const a = auditProgram(program(MP_REL_ACQ), lkmm, {}, MP_REL_ACQ.split('\n'));
    expect(a.verdict).toBe('Never');
    expect(a.rows.map((r) => [r.device.name, r.to, r.verdict, r.loadBearing])).toEqual([
      ['smp_store_release', 'WRITE_ONCE', 'Sometimes', true],
      ['smp_load_acquire', 'READ_ONCE', 'Sometimes', true],
    ]);
  });

  it('smp_mb() is dropped or weakened to smp_rmb()/smp_wmb(); a relaxed access is no device', () => {
    const sb = `C SB+mbs
{}
P0(int *x, int *y)
{
	int r0;
	WRITE_ONCE(*x, 1);
	smp_mb();
	r0 = READ_ONCE(*y);
}
P1(int *x, int *y)
{
	int r0;
	WRITE_ONCE(*y, 1);
	smp_mb();
	r0 = READ_ONCE(*x);
}
exists (0:r0=0 /\\ 1:r0=0)
`;
    expect(weakenings(program(sb)).map((w) => `P${w.device.thread} ${w.device.name} -> ${w.to}`)).toEqual([
      'P0 smp_mb -> (removed)', 'P0 smp_mb -> smp_rmb', 'P0 smp_mb -> smp_wmb',
      'P1 smp_mb -> (removed)', 'P1 smp_mb -> smp_rmb', 'P1 smp_mb -> smp_wmb',
    ]);
    const a = auditProgram(program(sb), lkmm, {});
    expect(a.rows.every((r) => r.loadBearing)).toBe(true);
  });

  it('says when there is nothing to audit', () => {
    const mp = MP_REL_ACQ.replace('smp_store_release(flag, 1)', 'WRITE_ONCE(*flag, 1)');
    const a = auditProgram(program(mp), lkmm, {});
    expect(a.rows).toEqual([]);
    expect(a.note).toContain('reachable (Sometimes)');
  });
});

describe('the NFS correction (version fix), each device weakened alone', () => {
  // The README's table: which part of the correction each scenario needs,
  // from the TypeScript suite's fix tests as the C they are inlined into.
  const needs = new Map<string, string[]>();
  beforeAll(async () => {
    const suite = await readSuite(join(NFS_DIR, 'suite.ts'));
    for (const t of suite.tests.filter((x) => x.version === 'fix')) {
      // One test at a time, letting the runner's messages through between them.
      await new Promise((resolve) => setImmediate(resolve));
      const text = printLitmus(t.test);
      const a = auditProgram(program(text), lkmm, {}, text.split('\n'));
      needs.set(t.scenario.split('-')[0], a.rows.filter((r) => r.loadBearing).map((r) => r.device.source));
    }
  }, 120_000);
  const needing = (device: RegExp) => [...needs.entries()].filter(([, d]) => d.some((s) => device.test(s))).map(([s]) => s).sort();

  it('covers the seven scenarios', () => expect([...needs.keys()].sort()).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7']));
  // s7 is weighed by its waits: a thread waits forever once smp_mb__after_atomic() before wake_up_bit() or the sleeper's smp_mb() goes.
  it('smp_mb__after_atomic() and the sleeper\'s smp_mb() are needed in s7 (liveness), and only there', () => {
    expect(needing(/^smp_mb__after_atomic\(\)/)).toEqual(['s7']);
    expect(needing(/^smp_mb\(\)/)).toEqual(['s7']);
  });
  it('smp_rmb() is needed in s1 and s6', () => expect(needing(/^smp_rmb\(\)/)).toEqual(['s1', 's6']));
  // s5 asks only "returned valid, then read stale pages": without the ghost
  // "cleared again" value it also contains s3's window (the bit read before
  // the invalidator sets it), which these two close.
  it('the acquire on cache_validity and smp_wmb() are needed in s3, s4 and s5', () => {
    expect(needing(/smp_load_acquire\(cache_validity\)/)).toEqual(['s3', 's4', 's5']);
    expect(needing(/^smp_wmb\(\)/)).toEqual(['s3', 's4', 's5']);
  });
  it("clear_bit_unlock()'s release is needed where a reader goes on after seeing the bit cleared (s3, s4, s5)", () => {
    expect(needing(/^clear_bit_unlock\(/)).toEqual(['s3', 's4', 's5']);
  });
  it('the two tests of INVALIDATING that can lead to "valid" (test_bit_acquire(): r2 on the fast path, r3 under i_lock) are each needed in s5 only', () => {
    expect(needing(/^r2 = test_bit_acquire\(3, flags\);/)).toEqual(['s5']);
    expect(needing(/^r3 = test_bit_acquire\(3, flags\);/)).toEqual(['s5']);
    // smp_mb__after_atomic() before wake_up_bit() is needed for liveness only (s7: the woken reader).
    expect(needing(/smp_mb__after_atomic/)).toEqual(['s7']);
  });
  it("the setter's release is needed in no scenario", () => expect(needing(/smp_store_release\(cache_validity,/)).toEqual([]));
});

