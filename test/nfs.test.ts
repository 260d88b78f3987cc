// Pins the verdicts of the bundled TypeScript suite litmus/clear_invalid_mapping
// (the review of the NFS nfs_clear_invalid_mapping() patch): every version x
// scenario verdict with its execution counts, the verdict line, the grid, and
// one explained trace per failing cell of the version under review. The suite
// is read and checked once.

import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runSuite, type SuiteRun } from '../src/suite/run.js';
import { suiteTable, type SuiteRow } from '../src/report/suite.js';
import { NFS_DIR } from './util.js';

const SUITE = join(NFS_DIR, 'suite.ts');
const VERSIONS = ['pre', 'v1', 'v2', 'fix'];
const SCENARIOS = ['s1-publish', 's2-twosetters', 's3-inflight', 's4-tworeaders', 's5-emptied', 's6-rerequest', 's7-wakeup'];

// scenario -> version -> [verdict, positive, negative]. The counts are those
// of the hand-written .litmus files this suite replaced (checked equal before
// they were deleted: pre, patch = v1, v2 and fix), with one change since the
// INVALIDATING bit became a real bit of nfsi->flags (set_bit(),
// clear_bit_unlock(), test_bit()): s5's condition can no longer ask for a
// ghost "cleared again" value, so in v1 and v2 it also counts the one
// execution (of the same 17) where the reader's fast-path test_bit() reads
// the bit before the invalidator sets it (s3's window): 4 positive, 13
// negative (were 3 and 14). Every verdict and every other count is unchanged.
const EXPECTED: Record<string, Record<string, [string, number, number]>> = {
  's1-publish': { pre: ['Never', 0, 3], v1: ['Never', 0, 3], v2: ['Never', 0, 3], fix: ['Never', 0, 3] },
  's2-twosetters': { pre: ['Never', 0, 6], v1: ['Sometimes', 6, 1], v2: ['Never', 0, 7], fix: ['Never', 0, 7] },
  's3-inflight': { pre: ['Never', 0, 8], v1: ['Sometimes', 1, 13], v2: ['Sometimes', 1, 13], fix: ['Never', 0, 11] },
  's4-tworeaders': { pre: ['Never', 0, 12], v1: ['Sometimes', 2, 22], v2: ['Sometimes', 2, 22], fix: ['Never', 0, 18] },
  's5-emptied': { pre: ['Sometimes', 1, 8], v1: ['Sometimes', 4, 13], v2: ['Sometimes', 4, 13], fix: ['Never', 0, 11] },
  's6-rerequest': { pre: ['Never', 0, 27], v1: ['Never', 0, 48], v2: ['Never', 0, 48], fix: ['Never', 0, 39] },
  // The reader sleeps in wait_on_bit() and is woken by the invalidator's wake_up_bit() (which s1-s6's
  // invalidators also call, finding no sleeper: their counts are unchanged). Every wait terminates.
  's7-wakeup': { pre: ['Never', 0, 17], v1: ['Never', 0, 25], v2: ['Never', 0, 25], fix: ['Never', 0, 19] },
};

let run: SuiteRun;
beforeAll(async () => {
  run = await runSuite(SUITE, { model: 'lkmm' });
}, 120_000);

describe('the NFS suite', () => {
  it('reads as four versions and seven scenarios, all checked without error', () => {
    expect(run.errors).toEqual([]);
    expect(run.status).toBe(0);
    expect(run.suite?.versions).toEqual(VERSIONS);
    expect(run.suite?.scenarios.map((s) => s.name)).toEqual(SCENARIOS);
    expect(run.suite?.underReview).toBe('v1');
    expect(run.cells).toHaveLength(28);
  });

  for (const s of SCENARIOS) {
    for (const v of VERSIONS) {
      it(`${s} in ${v}: ${EXPECTED[s][v][0]}`, () => {
        const c = run.cells.find((x) => x.scenario === s && x.version === v)!;
        const r = c.result!;
        expect([r.observation, r.positive, r.negative]).toEqual(EXPECTED[s][v]);
        expect(r.flags).toEqual([]);
        // No reader waits forever on INVALIDATING (nor at i_lock), in any version.
        expect(r.liveness?.verdict).toBe('terminates');
      });
    }
  }

  it('leads with the verdict on the version under review, then the grid', () => {
    const out = run.out.join('\n').split('\n');
    expect(out[0]).toBe(
      'Version "v1" (under review): skipping (or losing) a required invalidation CAN happen, in 4 of 7 scenarios: ' +
        's2-twosetters, s3-inflight, s4-tworeaders, s5-emptied (also possible in "pre").',
    );
    const at = out.indexOf('nfs_clear_invalid_mapping: can the lockless fast path skip a required invalidation?');
    expect(at).toBeGreaterThan(0);
    const cells = (l: string) => l.trim().split(/\s{2,}/);
    expect(cells(out[at + 2])).toEqual(['scenario', 'pre', 'v1 (under review)', 'v2', 'fix']);
    for (const [i, s] of SCENARIOS.entries()) {
      expect(cells(out[at + 4 + i])).toEqual([s, ...VERSIONS.map((v) => EXPECTED[s][v][0])]);
    }
    expect(out[at + 4 + SCENARIOS.length + 1]).toBe('Waits: every wait terminates in all 28 cells with waits (loops, spin_lock()).');
  });

  it('explains each failing cell of the version under review once, with the source places', () => {
    const text = run.out.join('\n');
    const heads = text.split('\n').filter((l) => l.endsWith('how the bad outcome happens'));
    expect(heads).toEqual(['s2-twosetters', 's3-inflight', 's4-tworeaders', 's5-emptied'].map((s) => `${s} in v1: how the bad outcome happens`));
    // The s3 window: the reader tests INVALIDATING (pre.ts, the helper v1
    // calls) before the invalidator sets it, then loads cache_validity
    // (v1.ts) after it was cleared: possible even under SC.
    const s3 = text.slice(text.indexOf('s3-inflight in v1:'), text.indexOf('s4-tworeaders in v1:'));
    expect(s3).toMatch(/test_bit +R flags=0 \(initial value\) +\(pre\.ts:\d+\)/);
    expect(s3).toMatch(/smp_load_acquire +R cache_validity=0 \[acquire\] \(from P0\.\d+\) +\(v1\.ts:\d+\)/);
    expect(s3).toContain('This outcome is also possible under sequential consistency');
  });
});

describe('the NFS suite, verdicts only (as check prints it without --herd or --json)', () => {
  it('gives the same output and verdicts, the traced (reachable) cells with their full counts', async () => {
    const fast = await runSuite(SUITE, { model: 'lkmm', verdictsOnly: true });
    expect(fast.out).toEqual(run.out);
    expect(fast.cells.map((c) => `${c.scenario} ${c.version} ${c.result!.observation}`)).toEqual(run.cells.map((c) => `${c.scenario} ${c.version} ${c.result!.observation}`));
    for (const c of fast.cells.filter((x) => x.version === 'v1' && x.result!.observation !== 'Never')) {
      expect([c.result!.positive, c.result!.negative]).toEqual(EXPECTED[c.scenario][c.version].slice(1));
    }
  }, 120_000);
});

describe('suite tables of .litmus folders (report/suite.ts)', () => {
  const row = (test: string, version: string, scenario: string, verdict: string, expected: string): SuiteRow =>
    ({ test, version, scenario, verdict, expected, matches: expected === '' ? undefined : verdict === expected });
  const rows = [
    row('a-s1-pre', 'pre', 's1 one', 'Never', 'Never'),
    row('a-s2-pre', 'pre', 's2 two', 'Sometimes', 'Sometimes'),
    row('a-s1-new', 'new', 's1 one', 'Sometimes', 'Never'),
    row('a-s2-new', 'new', 's2 two', 'Sometimes', 'Sometimes'),
  ];

  it('marks a wrong prediction MISMATCH and names old and new problems', () => {
    const table = suiteTable(rows, { underReview: 'new', baseline: 'pre', badOutcome: 'the bad thing' }).split('\n');
    const cells = (l: string) => l.trim().split(/\s+/).join(' ');
    expect(table.map(cells)).toContain('a-s1-new new s1 one Sometimes Never MISMATCH');
    expect(table[table.length - 1]).toBe('Version "new" (under review): the bad thing CAN happen, in 2 of 2 scenarios: s1 one, s2 two (also possible in "pre").');
    const safe = suiteTable(rows.filter((r) => r.test === 'a-s1-pre'), { underReview: 'pre' }).split('\n');
    expect(safe[safe.length - 1]).toBe('Version "pre" (under review): the bad outcome is impossible in the one scenario checked.');
    const none = suiteTable(rows, { underReview: 'v9' }).split('\n');
    expect(none[none.length - 1]).toBe('No test of version "v9" in this run.');
  });
});
