// Pins the verdicts of the bundled suite litmus/clear_invalid_mapping (the
// NFS nfs_clear_invalid_mapping() patch review): every test's Result: line,
// the suite table, and the trace of one reachable bad outcome. Each test file
// is checked once (the s6 tests are the slow ones).

import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { checkSource, type CheckResult } from '../src/check.js';
import { headerResult } from '../src/parse/parser.js';
import { suiteConfig, suiteMeta, suiteTable, type SuiteRow } from '../src/report/suite.js';
import { traceReport } from '../src/report/trace.js';
import { lkmm } from '../models/lkmm.js';
import { NFS_DIR } from './util.js';

const files = readdirSync(NFS_DIR)
  .filter((f) => f.endsWith('.litmus'))
  .sort()
  .map((f) => join(NFS_DIR, f));

const results = new Map<string, CheckResult>();
function result(file: string): CheckResult {
  let r = results.get(file);
  if (!r) {
    r = checkSource(readFileSync(file, 'utf8'), { model: lkmm });
    results.set(file, r);
  }
  return r;
}

const FIX_WEAKENINGS = ['fix-noacqbit', 'fix-noacqcv', 'fix-noacqslow', 'fix-noor', 'fix-norel', 'fix-normb', 'fix-nowmb'];
const VERSIONS = ['fix', ...FIX_WEAKENINGS, 'noacq', 'norel', 'normb', 'nowmb', 'patch', 'pre', 'v2'].sort();
const SCENARIOS = ['s1-publish', 's2-twosetters', 's3-inflight', 's4-tworeaders', 's5-emptied', 's6-rerequest'];

describe('the suite folder', () => {
  it('holds 90 tests: 6 scenarios x 15 versions, named cim-<scenario>-<version>', () => {
    expect(files).toHaveLength(90);
    const names = files.map((f) => basename(f, '.litmus'));
    expect([...names].sort()).toEqual(SCENARIOS.flatMap((s) => VERSIONS.map((v) => `cim-${s}-${v}`)).sort());
  });

  it('every test has Result:, Version: and Scenario: headers and its file name as C name', () => {
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const name = basename(f, '.litmus');
      expect(text.startsWith(`C ${name}\n`), name).toBe(true);
      expect(['Never', 'Sometimes', 'Always'], name).toContain(headerResult(text));
      const meta = suiteMeta(text);
      expect(meta?.version, name).toBe(name.split('-').slice(3).join('-'));
      expect(meta?.scenario?.split(':')[0], name).toBe(name.split('-').slice(1, 3).join(' '));
    }
  });
});

describe('verdicts (each Result: line)', () => {
  for (const f of files) {
    const name = basename(f, '.litmus');
    it(name, () => {
      const expected = headerResult(readFileSync(f, 'utf8'));
      const r = result(f);
      expect(r.name).toBe(name);
      expect(r.expected).toBe(expected);
      expect(r.observation).toBe(expected);
      expect(r.matches).toBe(true);
      expect(r.flags).toEqual([]);
      expect(r.positive + r.negative).toBeGreaterThan(0);
    });
  }

  it('all 90 match', () => {
    const mismatches = files.filter((f) => result(f).matches !== true).map((f) => basename(f));
    expect(mismatches).toEqual([]);
    expect(files.filter((f) => result(f).matches === true)).toHaveLength(90);
  });

  it('the versions under review: what the patch breaks and what the fixes repair', () => {
    const verdict = (s: string, v: string) => result(join(NFS_DIR, `cim-${s}-${v}.litmus`)).observation;
    // The patch as posted: the bad outcome is reachable in s2..s5.
    expect(SCENARIOS.map((s) => verdict(s, 'patch'))).toEqual(['Never', 'Sometimes', 'Sometimes', 'Sometimes', 'Sometimes', 'Never']);
    // Before the patch only s5 (a bare page-cache lookup) shows it.
    expect(SCENARIOS.map((s) => verdict(s, 'pre'))).toEqual(['Never', 'Never', 'Never', 'Never', 'Sometimes', 'Never']);
    // The proposed correction is safe in every scenario.
    expect(SCENARIOS.map((s) => verdict(s, 'fix'))).toEqual(SCENARIOS.map(() => 'Never'));
    // Which of its parts are needed: the scenarios each weakening breaks.
    const broken = (v: string) => SCENARIOS.filter((s) => verdict(s, v) !== 'Never').map((s) => s.split('-')[0]);
    expect(Object.fromEntries(FIX_WEAKENINGS.map((v) => [v, broken(v)]))).toEqual({
      'fix-noacqbit': ['s5'],
      'fix-noacqcv': ['s3', 's4'],
      'fix-noacqslow': ['s5'],
      'fix-noor': ['s2'],
      'fix-norel': [],
      'fix-normb': ['s1', 's6'],
      'fix-nowmb': ['s3', 's4'],
    });
  });
});

describe('suite table', () => {
  function rows(): SuiteRow[] {
    return files.map((f) => {
      const text = readFileSync(f, 'utf8');
      const meta = suiteMeta(text)!;
      const r = result(f);
      return {
        test: basename(f, '.litmus'),
        version: meta.version ?? '',
        scenario: meta.scenario ?? '',
        verdict: r.observation,
        expected: r.expected ?? '',
        matches: r.matches,
      };
    });
  }

  it('lists every test with its verdict and the closing line for the version under review', () => {
    const cfg = suiteConfig(NFS_DIR);
    expect(cfg).toEqual({
      title: 'nfs_clear_invalid_mapping: can the lockless fast path skip a required invalidation?',
      underReview: 'patch',
      baseline: 'pre',
      badOutcome: 'skipping (or losing) a required invalidation',
    });
    const table = suiteTable(rows(), cfg).split('\n');
    // Columns are as wide as their longest cell; compare cells, not spaces.
    const cells = (l: string) => l.trim().split(/\s+/).join(' ');
    expect(cells(table[0])).toBe('test version scenario verdict expected');
    expect(table[1]).toMatch(/^-+( +-+){5}$/);
    const width = 'cim-s4-tworeaders-fix-noacqslow'.length;
    expect(table[2].indexOf('  ')).toBeLessThanOrEqual(width);
    expect(table.slice(2, 92)).toHaveLength(90);
    expect(table.map(cells)).toContain('cim-s1-publish-fix fix s1 publish Never Never ok');
    expect(table.map(cells)).toContain('cim-s3-inflight-patch patch s3 inflight Sometimes Sometimes ok');
    expect(table.map(cells)).toContain('cim-s5-emptied-pre pre s5 emptied Sometimes Sometimes ok');
    expect(table.map(cells)).toContain('cim-s6-rerequest-normb normb s6 rerequest Sometimes Sometimes ok');
    expect(table.map(cells)).toContain('cim-s3-inflight-fix-nowmb fix-nowmb s3 inflight Sometimes Sometimes ok');
    expect(table.slice(2, 92).every((l) => l.endsWith('  ok'))).toBe(true);
    expect(table[92]).toBe('');
    expect(table[93]).toBe(
      'Version "patch" (under review): skipping (or losing) a required invalidation CAN happen, in 4 of 6 scenarios: ' +
        's2 twosetters, s3 inflight, s4 tworeaders, s5 emptied (also possible in "pre").',
    );
    expect(table).toHaveLength(94);
  });

  it('marks a wrong prediction MISMATCH and says when the version is safe', () => {
    const rs = rows().map((r) => (r.test === 'cim-s1-publish-fix' ? { ...r, expected: 'Sometimes', matches: false } : r));
    const table = suiteTable(rs, { underReview: 'fix', badOutcome: 'the bad thing' }).split('\n');
    const cells = (l: string) => l.trim().split(/\s+/).join(' ');
    expect(table.map(cells)).toContain('cim-s1-publish-fix fix s1 publish Never Sometimes MISMATCH');
    // Under "fix" nothing bad is reachable.
    expect(table[table.length - 1]).toBe('Version "fix" (under review): the bad thing is impossible in all 6 scenarios checked.');
    // "pre" without s5 is safe everywhere; the default wording names the outcome.
    const safe = suiteTable(
      rs.filter((r) => r.version === 'pre' && !r.scenario.startsWith('s5')),
      { underReview: 'pre' },
    ).split('\n');
    expect(safe[safe.length - 1]).toBe('Version "pre" (under review): the bad outcome is impossible in all 5 scenarios checked.');
    const none = suiteTable(rs, { underReview: 'v9' }).split('\n');
    expect(none[none.length - 1]).toBe('No test of version "v9" in this run.');
  });
});

describe('trace of a reachable bad outcome', () => {
  it('cim-s3-inflight-patch: witness, steps per CPU, and why it is (not) SC', () => {
    const f = join(NFS_DIR, 'cim-s3-inflight-patch.litmus');
    const r = checkSource(readFileSync(f, 'utf8'), { model: lkmm, keepWitnesses: true });
    expect(r.observation).toBe('Sometimes');
    const trace = traceReport(r, lkmm, { tryFixes: true });
    expect(trace).toMatch(/^Witness for .*1:r8=0; 1:r9=1; \(satisfies the condition\)/m);
    expect(trace).toMatch(/^ {2}P0:$/m);
    expect(trace).toMatch(/^ {2}P1:$/m);
    expect(trace).toMatch(/^ +\d+\. smp_load_acquire +R flags=\d .*\(line \d+\)$/m);
    expect(trace).toMatch(/Not sequentially consistent|also possible under sequential consistency/);
    // The outcome is reachable even under SC: the trace says so and shows
    // the interleaving (the reader tests INVALIDATING before the invalidator
    // sets it, and loads cache_validity after the invalidator cleared it).
    expect(trace).toContain('This outcome is also possible under sequential consistency: no reordering is needed');
    const steps = trace.split('\n').filter((l) => /^ +\d+\. P\d\.\d+ /.test(l)).map((l) => l.trim().split(/\s+/)[1]);
    expect(steps.indexOf('P1.3')).toBeLessThan(steps.indexOf('P0.4'));
    expect(steps.indexOf('P0.6')).toBeLessThan(steps.indexOf('P1.4'));
    expect(steps.indexOf('P1.6')).toBeLessThan(steps.indexOf('P0.8'));
  });
});
