// models/lkmm.ts against the current linux-kernel.cat, linux-kernel.bell and
// lock.cat, where an earlier reading differed. Each expected result below
// was checked by hand against herd7 7.58 running those files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSource } from '../src/check.js';
import { lkmm, lkmmRelations } from '../models/lkmm.js';
import { ROOT } from './util.js';

const check = (text: string) => checkSource(text, { model: lkmm, keepWitnesses: true });

/**
 * Every flag the current model files define, as they spell it (herd prints
 * these names). Read from herdtools7's catalogue/linux (the files
 * tools/memory-model ships): the `flag ~empty ... as NAME` lines of
 * bells/linux-kernel.bell, cats/linux-kernel.cat and cats/lock.cat.
 */
const BELL_FLAGS = [
  'unmatched-rcu-lock', 'unmatched-rcu-unlock', 'unmatched-srcu-lock', 'unmatched-srcu-unlock',
  'multiple-srcu-matches', 'invalid-sleep', 'srcu-bad-value-match',
  // Raised only without the lkmmv2 variant, which linux-kernel.cfg sets.
  'this-model-requires-variant-higher-than-lkmmv1',
];
const CAT_FLAGS = ['mixed-accesses', 'data-race'];
const LOCK_CAT_FLAGS = ['mixed-lock-accesses', 'unpaired-LKW', 'unpaired-LKR', 'lock-final', 'unmatched-unlock'];
const NEVER_RAISED = new Set(['this-model-requires-variant-higher-than-lkmmv1']);

describe('flag names', () => {
  const source = readFileSync(join(ROOT, 'models', 'lkmm.ts'), 'utf8');
  const raised = new Set([...source.matchAll(/[fF]lags\.push\('([^']+)'\)/g)].map((m) => m[1]));

  it('every flag models/lkmm.ts raises is spelled as the model files spell it', () => {
    const defined = new Set([...BELL_FLAGS, ...CAT_FLAGS, ...LOCK_CAT_FLAGS]);
    expect([...raised].filter((f) => !defined.has(f))).toEqual([]);
  });

  it('every flag the model files define is raised somewhere in models/lkmm.ts', () => {
    const missing = [...BELL_FLAGS, ...CAT_FLAGS, ...LOCK_CAT_FLAGS].filter((f) => !NEVER_RAISED.has(f) && !raised.has(f));
    expect(missing).toEqual([]);
  });

  it('SRCU nesting flags: an unlock whose value is not the lock\'s cookie matches nothing', () => {
    const r = check(`C srcu-unmatched
{}
P0(int *x, struct srcu_struct *s)
{
	int r0;

	r0 = srcu_read_lock(s);
	WRITE_ONCE(*x, 1);
	srcu_read_unlock(s, 1);
}
P1(int *x, struct srcu_struct *s)
{
	int r1;

	r1 = READ_ONCE(*s);
	synchronize_srcu(s);
}
exists (x=1)
`);
    // herd7: Always 2 0 with exactly these three flags (READ_ONCE of an
    // srcu_struct is an ordinary access to it: lock.cat's ALL-LOCKS has SRCU events).
    expect([r.observation, r.positive, r.negative, r.flags]).toEqual([
      'Always', 2, 0, ['mixed-lock-accesses', 'unmatched-srcu-lock', 'unmatched-srcu-unlock'],
    ]);
  });

  it('RCU nesting flags and lock-final on an SRCU structure', () => {
    const r = check(`C rcu-unmatched
{}
P0(int *x, struct srcu_struct *s)
{
	int r0;

	r0 = srcu_read_lock(s);
	WRITE_ONCE(*x, 1);
	rcu_read_unlock();
}
P1(int *x, struct srcu_struct *s)
{
	rcu_read_lock();
	srcu_read_unlock(s, 0);
}
exists (s=0)
`);
    expect(r.flags).toEqual(['lock-final', 'unmatched-rcu-lock', 'unmatched-rcu-unlock', 'unmatched-srcu-lock', 'unmatched-srcu-unlock']);
  });

  it('srcu-bad-value-match and multiple-srcu-matches', () => {
    const r = check(`C srcu-values
{}
P0(int *x, struct srcu_struct *s)
{
	int r0;

	r0 = srcu_read_lock(s);
	WRITE_ONCE(*x, r0);
	srcu_read_unlock(s, r0 + 1);
	srcu_read_unlock(s, r0);
}
exists (x=0)
`);
    expect([r.observation, r.flags]).toEqual(['Always', ['multiple-srcu-matches', 'srcu-bad-value-match']]);
  });
});

describe('wr-race excludes pairs ordered the other way (\\ rw-xbstar^-1)', () => {
  // P1's plain write of x is co-before its own WRITE_ONCE, which P0 reads;
  // P0's read is ordered before the plain write (mb, rfe, then the address
  // dependency). pre-race & (co? ; rf) holds for (plain write, P0's read),
  // but rw-xbstar^-1 too: no race. herd7: Sometimes 1 3, only mixed-accesses.
  const text = `C wr-race-rw-xbstar
{
int *y = &z;
}
P0(int *x, int **y)
{
	int r0;

	r0 = READ_ONCE(*x);
	smp_mb();
	WRITE_ONCE(*y, x);
}
P1(int *x, int **y)
{
	int *r1;

	r1 = READ_ONCE(*y);
	*r1 = 1;
	WRITE_ONCE(*x, 2);
}
exists (0:r0=2 /\\ 1:r1=x)
`;
  it('no data-race flag', () => {
    const r = check(text);
    expect([r.observation, r.positive, r.negative, r.flags]).toEqual(['Sometimes', 1, 3, ['mixed-accesses']]);
  });
});

describe('to-r = (addr ; [R]) | ...', () => {
  // An address dependency into synchronize_srcu() (an event that is neither
  // R nor W) is not in to-r. (ppo still orders the two, through gp: no
  // verdict depends on this term, but the definition is the cat's.)
  it('to-r has no edge from a read to the synchronize_srcu() its value names', () => {
    const r = check(`C to-r-sync
{
int *p = s;
}
P0(int **p, struct srcu_struct *s)
{
	int *r0;

	r0 = READ_ONCE(*p);
	synchronize_srcu(r0);
}
exists (0:r0=s)
`);
    const x = r.exploration.outcomes.find((o) => o.positive)!.witness!;
    const read = x.events.findIndex((e) => e.thread === 0 && e.kind === 'R');
    const sync = x.events.findIndex((e) => e.srcu === 'sync-srcu');
    const L = lkmmRelations(x);
    expect(x.rel.addr.has(read, sync)).toBe(true);
    expect(L.toR.has(read, sync)).toBe(false);
    expect(L.ppo.has(read, sync)).toBe(true);
  });
});
