// The Result: line judged the way the kernel's judgelitmus.sh judges it:
// DATARACE goes with a data-race flag, Maybe accepts anything, and a flagged
// data race forgives a different verdict.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSource, judge } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { CLI, litmus } from './util.js';

/** x written and read by plain accesses: Sometimes, with a data race. */
const racy = (result: string) =>
  litmus('plain-race', ['*x = 1;', 'int r0;\nr0 = *x;'], 'exists (1:r0=1)', { result });
/** The same with WRITE_ONCE/READ_ONCE: Sometimes, no race. */
const marked = (result: string) =>
  litmus('marked', ['WRITE_ONCE(*x, 1);', 'int r0;\nr0 = READ_ONCE(*x);'], 'exists (1:r0=1)', { result });

const judged = (text: string) => {
  const r = checkSource(text, { model: lkmm });
  return [r.matches, r.judgement];
};

describe('DATARACE in a Result: line', () => {
  it('a flagged race that the Result: line predicts matches', () => {
    expect(judged(racy('Sometimes DATARACE'))).toEqual([true, undefined]);
  });

  it('a flagged race that the Result: line does not predict is a mismatch, and says so', () => {
    expect(judged(racy('Sometimes'))).toEqual([false, 'a data race is flagged but Result: does not say DATARACE']);
  });

  it('a predicted race that is not flagged is a mismatch, and says so', () => {
    expect(judged(marked('Sometimes DATARACE'))).toEqual([false, 'Result: says DATARACE but no data race is flagged']);
  });

  it('with the race flagged and predicted, a different verdict is forgiven (as judgelitmus.sh does)', () => {
    expect(judged(racy('Never DATARACE'))).toEqual([true, 'Sometimes, forgiven because of the data race']);
  });

  it('Maybe accepts any verdict; a plain verdict must be the observation', () => {
    expect(judged(marked('Maybe'))).toEqual([true, undefined]);
    expect(judged(marked('Never'))).toEqual([false, undefined]);
  });

  it('DEADLOCK wants no completed execution, and only DEADLOCK accepts none', () => {
    const base = { expectsDataRace: false, observation: 'Never' as const, flags: [] };
    expect(judge({ ...base, expected: 'DEADLOCK', executions: 0 })).toEqual({ matches: true });
    expect(judge({ ...base, expected: 'DEADLOCK', executions: 2 })).toEqual({ matches: false, why: '2 executions complete' });
    expect(judge({ ...base, expected: 'Never', executions: 0 })).toEqual({ matches: false, why: 'no execution completes (a deadlock)' });
  });
});

describe('litmus check: DATARACE mismatches exit 1 with the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'litmus-judge-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (name: string, text: string) => {
    const file = join(dir, `${name}.litmus`);
    writeFileSync(file, text);
    return spawnSync(process.execPath, [CLI, 'check', '-q', file], { encoding: 'utf8' });
  };

  it('a race the Result: line does not predict', () => {
    const r = run('unpredicted', racy('Sometimes'));
    expect(r.status).toBe(1);
    expect(r.stdout.trim()).toBe(
      'plain-race: Sometimes (1 of 2 executions) under lkmm; Result: Sometimes MISMATCH (a data race is flagged but Result: does not say DATARACE); flags: data-race',
    );
  });

  it('a predicted race that does not happen', () => {
    const r = run('unflagged', marked('Sometimes DATARACE'));
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('Result: Sometimes DATARACE MISMATCH (Result: says DATARACE but no data race is flagged)');
  });

  it('a predicted race that happens', () => {
    const r = run('predicted', racy('Sometimes DATARACE'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Result: Sometimes DATARACE matches; flags: data-race');
  });
});
