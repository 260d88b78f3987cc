// SC ⊆ x86-TSO ⊆ LKMM on every test of the shared corpus (skipped where it
// is absent; `npm run inclusion` also runs paulmckrcu-litmus/manual), and
// the RCU/SRCU guarantee under SC and x86-TSO.

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import { sc } from '../models/sc.js';
import { x86tso } from '../models/x86tso.js';
import { lkmm } from '../models/lkmm.js';
import { corpusDir } from '../scripts/corpus.js';
import { inclusionGaps, litmusFiles } from '../scripts/inclusion.js';

const dir = corpusDir();

describe('SC ⊆ x86-TSO ⊆ LKMM on the corpus', () => {
  if (!dir) {
    console.log('inclusion.test.ts: no corpus at ../shared/corpus (set LITMUS_CORPUS); skipping');
    it.skip('corpus absent', () => {});
    return;
  }
  const files = [...litmusFiles(join(dir, 'herd-linux')), ...litmusFiles(join(dir, 'kernel'))];
  it(`holds on all ${files.length} tests`, async () => {
    expect(files.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const f of files) {
      // Let the runner's messages through between tests (a loaded machine).
      await new Promise((resolve) => setImmediate(resolve));
      const gaps = inclusionGaps(readFileSync(f, 'utf8'));
      if (typeof gaps === 'string') failures.push(`${f}: ${gaps}`);
      else if (gaps.length > 0) failures.push(`${f}: ${gaps.join('; ')}`);
    }
    expect(failures).toEqual([]);
  });
});

const rcuReader = (lock: string, unlock: string, sync: string, param = '') => `C rcu-reader
{}
P0(int *x, int *y${param})
{
	WRITE_ONCE(*x, 1);
	${sync};
	WRITE_ONCE(*y, 1);
}
P1(int *x, int *y${param})
{
	int r0;
	int r1;
	int c;
	${lock};
	r0 = READ_ONCE(*x);
	r1 = READ_ONCE(*y);
	${unlock};
}
exists (1:r0=0 /\\ 1:r1=1)
`;

describe('grace periods under SC and x86-TSO', () => {
  // The reader saw y=1, written after the grace period, so its critical
  // section did not end before the grace period began: it must see x=1.
  const cases = [
    ['RCU', rcuReader('rcu_read_lock()', 'rcu_read_unlock()', 'synchronize_rcu()')],
    ['SRCU', rcuReader('c = srcu_read_lock(s)', 'srcu_read_unlock(s, c)', 'synchronize_srcu(s)', ', struct srcu_struct *s')],
  ];
  for (const [name, text] of cases) {
    it(`${name}: a critical section does not straddle a grace period (Never under sc, x86-tso and lkmm)`, () => {
      for (const model of [sc, x86tso, lkmm]) expect(checkSource(text, { model }).observation, model.name).toBe('Never');
    });
  }

  it('without the critical section the outcome is an ordinary SC interleaving', () => {
    const text = rcuReader('', '', 'synchronize_rcu()');
    expect(checkSource(text, { model: sc }).observation).toBe('Sometimes');
  });

  it('another srcu_struct\'s grace period does not wait for the reader', () => {
    const text = rcuReader('c = srcu_read_lock(s)', 'srcu_read_unlock(s, c)', 'synchronize_srcu(t)', ', struct srcu_struct *s, struct srcu_struct *t');
    for (const model of [sc, x86tso, lkmm]) expect(checkSource(text, { model }).observation, model.name).toBe('Sometimes');
  });
});
