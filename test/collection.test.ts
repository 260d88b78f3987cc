// `npm run corpus`: the tally of a run over a collection, and its skip when
// the collection is absent.

import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './util.js';
import { formatTally, reasonOf, tally } from '../scripts/tally.js';
import type { FileReport, JsonResult } from '../src/cli/run-one.js';

const judged = (file: string, expected: string | undefined, matches: boolean | undefined): FileReport => ({
  file,
  status: matches === false ? 1 : 0,
  human: `${file}: Never (0 of 4 executions) under lkmm`,
  json: { file, observation: 'Never', expected, matches } as JsonResult,
});

describe('the corpus tally', () => {
  it('sorts errors into refusals (positioned), limits and internal errors', () => {
    expect(reasonOf('a.litmus:3:1: unknown primitive "smp_memb"', 'a.litmus')).toEqual({ kind: 'refused', reason: 'unknown primitive "…"' });
    expect(reasonOf('a.litmus: exploration stopped after 3000 ms (--timeout)', 'a.litmus')).toEqual({ kind: 'limited', reason: 'exploration stopped after N ms (--timeout)' });
    expect(reasonOf('a.litmus: internal error: boom (please report it)', 'a.litmus').kind).toBe('internal');
  });

  it('counts judged tests, agreement with Result: (Maybe and none make no claim), refusals by reason', () => {
    const t = tally([
      judged('a', 'Never', true),
      judged('b', 'Sometimes', false),
      judged('c', 'Maybe', false),
      judged('d', undefined, undefined),
      { file: 'e', status: 2, error: 'e:1:1: only C litmus tests are supported (this one is "LISA")' },
      { file: 'f', status: 2, error: 'f:1:1: only C litmus tests are supported (this one is "PPC")' },
      { file: 'g', status: 2, error: 'g: exploration stopped after 10000 ms (--timeout)' },
    ]);
    expect([t.total, t.judged, t.agree, t.disagree.length, t.noClaim, t.internal.length]).toEqual([7, 4, 1, 1, 2, 0]);
    expect([...t.refused.entries()]).toEqual([['only C litmus tests are supported (this one is "…")', ['e', 'f']]]);
    const text = formatTally(t, 12);
    expect(text).toContain('judged: 4 (agree with their Result: 1; disagree: 1; no claim (none or Maybe): 2)');
    expect(text).toContain('refused: 2');
    expect(text).toContain('stopped by a limit: 1');
    expect(text).toContain('  b: b: Never (0 of 4 executions) under lkmm');
  });

  it('npm run corpus skips with a message when the collection is absent', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'scripts', 'collection.js'), join(ROOT, 'no-such-folder')], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^corpus: skipped \(no collection at .*no-such-folder/);
  });
});
