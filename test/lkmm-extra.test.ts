// LKMM terms the public corpus does not exercise: smp_mb__after_unlock_lock,
// smp_mb__after_srcu_read_unlock, SRCU grace periods per srcu_struct.
import { describe, expect, it } from 'vitest';
import { checkSource } from '../src/check.js';
import { builtinModel } from '../models/index.js';

/** The built-in LKMM, explained from its definitions (models/text/lkmm.cat, models/cat/explain.ts). */
const lkmm = builtinModel('lkmm')!;
import fc from 'fast-check';
import { forbiddenCandidate } from '../src/explore/forbidden.js';
import { traceReport } from '../src/report/trace.js';
import { Relation } from '../src/relation/relation.js';

const verdict = (text: string) => checkSource(text, { model: lkmm }).observation;

const Z6 = (fence: string) => `C Z6.0+pooncelock+poonce${fence ? 'AUL' : ''}+pombonce

{}

P0(int *x, int *y, spinlock_t *mylock)
{
	spin_lock(mylock);
	WRITE_ONCE(*x, 1);
	WRITE_ONCE(*y, 1);
	spin_unlock(mylock);
}

P1(int *y, int *z, spinlock_t *mylock)
{
	int r0;

	spin_lock(mylock);
	${fence}
	r0 = READ_ONCE(*y);
	WRITE_ONCE(*z, 1);
	spin_unlock(mylock);
}

P2(int *x, int *z)
{
	int r1;

	WRITE_ONCE(*z, 2);
	smp_mb();
	r1 = READ_ONCE(*x);
}

exists (1:r0=1 /\\ z=2 /\\ 2:r1=0)
`;

const SB_SRCU = (fence: boolean) => `C SB+srcu-unlock${fence ? '-mb' : ''}+mb

{}

P0(int *x, int *y, struct srcu_struct *s)
{
	int r0;
	int r1;

	r0 = srcu_read_lock(s);
	WRITE_ONCE(*x, 1);
	srcu_read_unlock(s, r0);
	${fence ? 'smp_mb__after_srcu_read_unlock();' : ''}
	r1 = READ_ONCE(*y);
}

P1(int *x, int *y)
{
	int r2;

	WRITE_ONCE(*y, 1);
	smp_mb();
	r2 = READ_ONCE(*x);
}

exists (0:r1=0 /\\ 1:r2=0)
`;

const SRCU_MP = (sync: string) => `C SRCU-MP

{}

P0(int *x, int *y, struct srcu_struct *s)
{
	int r0;
	int r1;
	int r2;

	r0 = srcu_read_lock(s);
	r1 = READ_ONCE(*x);
	r2 = READ_ONCE(*y);
	srcu_read_unlock(s, r0);
}

P1(int *x, int *y, struct srcu_struct *${sync})
{
	WRITE_ONCE(*y, 1);
	synchronize_srcu(${sync});
	WRITE_ONCE(*x, 1);
}

exists (0:r1=1 /\\ 0:r2=0)
`;

describe('LKMM terms beyond the corpus', () => {
  it('smp_mb__after_unlock_lock makes an unlock+lock a full barrier (Z6.0)', () => {
    expect(verdict(Z6('smp_mb__after_unlock_lock();'))).toBe('Never');
    expect(verdict(Z6(''))).toBe('Sometimes');
  });

  it('smp_mb__after_srcu_read_unlock orders across srcu_read_unlock (SB)', () => {
    expect(verdict(SB_SRCU(true))).toBe('Never');
    expect(verdict(SB_SRCU(false))).toBe('Sometimes');
  });

  it('synchronize_srcu waits only for readers of the same srcu_struct', () => {
    expect(verdict(SRCU_MP('s'))).toBe('Never');
    expect(verdict(SRCU_MP('t'))).toBe('Sometimes');
  });
});

describe('plain accesses', () => {
  const mp = (w: string, r: string, guard: boolean) => `C MP+plain

{}

P0(int *x, int *y)
{
	*x = 1;
	${w};
}

P1(int *x, int *y)
{
	int r0;
	int r1 = 1;

	r0 = ${r};
	${guard ? 'if (r0)' : ''}
		r1 = *x;
}

exists (1:r0=1 /\\ 1:r1=0)
`;
  it('racing plain accesses raise the data-race flag', () => {
    const r = checkSource(mp('WRITE_ONCE(*y, 1)', 'READ_ONCE(*y)', false), { model: lkmm });
    expect([r.observation, r.flags]).toEqual(['Sometimes', ['data-race']]);
  });

  it('release/acquire orders the plain accesses, but an unguarded read still races', () => {
    const r = checkSource(mp('smp_store_release(y, 1)', 'smp_load_acquire(y)', false), { model: lkmm });
    expect([r.observation, r.flags]).toEqual(['Never', ['data-race']]);
  });

  it('a read guarded by the acquire does not race', () => {
    const r = checkSource(mp('smp_store_release(y, 1)', 'smp_load_acquire(y)', true), { model: lkmm });
    expect([r.observation, r.flags]).toEqual(['Never', []]);
  });
});

describe('flags about RCU and lock usage', () => {
  it('an rcu_read_lock() never released is flagged unmatched-rcu-lock', () => {
    const r = checkSource('C t\n{}\nP0(int *x)\n{\n\tint r0;\n\trcu_read_lock();\n\tr0 = READ_ONCE(*x);\n}\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (0:r0=1)\n', { model: lkmm });
    expect(r.flags).toEqual(['unmatched-rcu-lock']);
  });

  it('synchronize_srcu() inside an RCU read-side critical section is flagged invalid-sleep', () => {
    const r = checkSource('C t\n{}\nP0(int *x, struct srcu_struct *s)\n{\n\trcu_read_lock();\n\tsynchronize_srcu(s);\n\trcu_read_unlock();\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n', { model: lkmm });
    expect(r.flags).toEqual(['invalid-sleep']);
  });

  it('a spin_unlock() with no lock taken is flagged unmatched-unlock', () => {
    const r = checkSource('C t\n{}\nP0(int *x, spinlock_t *l)\n{\n\tWRITE_ONCE(*x, 1);\n\tspin_unlock(l);\n}\nexists (x=1)\n', { model: lkmm });
    expect(r.flags).toEqual(['unmatched-unlock']);
  });

  const lockTest = (cond: string) =>
    `C t\n{}\nP0(int *x, spinlock_t *l)\n{\n\tspin_lock(l);\n\tWRITE_ONCE(*x, 1);\n\tspin_unlock(l);\n}\nexists (${cond})\n`;
  it('a condition on a spinlock\'s final value is flagged lock-final', () => {
    expect(checkSource(lockTest('l=0'), { model: lkmm }).flags).toEqual(['lock-final']);
  });

  it('a condition that leaves the spinlock alone is not', () => {
    expect(checkSource(lockTest('x=1'), { model: lkmm }).flags).toEqual([]);
  });
});

describe('control dependencies reach only the branches (litmus-tests.txt, LIMITATIONS 1)', () => {
  const lb = (p0: string) => `C LB+ctrl-scope

{}

P0(int *x, int *y)
{
	int r1;

	r1 = READ_ONCE(*x);
${p0}
}

P1(int *x, int *y)
{
	int r2;

	r2 = READ_ONCE(*y);
	smp_mb();
	WRITE_ONCE(*x, 1);
}

exists (0:r1=1 /\\ 1:r2=1)
`;
  it('a write inside the if depends on the condition', () => {
    expect(verdict(lb('\tif (r1 == 1)\n\t\tWRITE_ONCE(*y, 1);'))).toBe('Never');
  });

  it('a write after the if does not, even with smp_mb() in a branch', () => {
    expect(verdict(lb('\tif (r1 == 0)\n\t\tsmp_mb();\n\tWRITE_ONCE(*y, 1);'))).toBe('Sometimes');
  });
});

describe('value cycles through plain accesses (out-of-thin-air shapes)', () => {
  // Each thread copies one plain location into the other under a control
  // dependency; smp_rmb() + smp_wmb() do not order the read of *x before
  // the write of *y, so both reads may see 1. The copies then justify each
  // other's values, which herd keeps (symbolically) rather than discarding.
  const copy = (fence: string) => `C LB+plain-copies

{}

P0(int *a, int *b, int *x, int *y)
{
	int r1;

	r1 = READ_ONCE(*x);
	${fence}
	if (r1 == 1) {
		*a = *b;
	}
	smp_wmb();
	WRITE_ONCE(*y, 1);
}

P1(int *a, int *b, int *x, int *y)
{
	int r1;

	r1 = READ_ONCE(*y);
	${fence}
	if (r1 == 1) {
		*b = *a;
	}
	smp_wmb();
	WRITE_ONCE(*x, 1);
}

exists (0:r1=1 /\\ 1:r1=1)
`;
  it('smp_rmb() + smp_wmb() leave the load-buffering outcome possible', () => {
    expect(verdict(copy('smp_rmb();'))).toBe('Sometimes');
  });

  it('smp_mb() forbids it', () => {
    expect(verdict(copy('smp_mb();'))).toBe('Never');
  });

  // herd7 7.58 with the kernel's files: Sometimes, both. A lock's write is
  // not ordered after the reads before the lock (its LKR acquires, for
  // what follows), so the cycle read -> lock, trylock or is_locked ->
  // release write -> read is allowed; the load-buffering shortcut once
  // counted the lock's write as ordered, and dropped it.
  const lockCycle = (lock: string, probe: string, cond: string) => `C LB+lock-after-read

{}

P0(int *x, spinlock_t *l)
{
	int r0;
	int r2;

	r0 = READ_ONCE(*x);
	${lock}
}

P1(int *x, spinlock_t *l)
{
	int r1;

	r1 = ${probe}(l);
	smp_store_release(x, 1);
}

exists (${cond})
`;
  it("a read before spin_lock() or spin_trylock() is not ordered before the lock's write", () => {
    expect(verdict(lockCycle('spin_lock(l);', 'spin_trylock', '0:r0=1 /\\ 1:r1=0'))).toBe('Sometimes');
    expect(verdict(lockCycle('r2 = spin_trylock(l);', 'spin_is_locked', '0:r0=1 /\\ 0:r2=1 /\\ 1:r1=1'))).toBe('Sometimes');
  });
});

describe('explaining a Never', () => {
  const lbRelAcq = `C LB+poacquireonce+pooncerelease

{}

P0(int *x, int *y)
{
	int r0;

	r0 = READ_ONCE(*x);
	smp_store_release(y, 1);
}

P1(int *x, int *y)
{
	int r0;

	r0 = smp_load_acquire(y);
	WRITE_ONCE(*x, 1);
}

exists (0:r0=1 /\\ 1:r0=1)
`;
  it('finds the load-buffering candidate the checking run never builds, and its hb cycle', () => {
    const r = checkSource(lbRelAcq, { model: lkmm });
    expect(r.observation).toBe('Never');
    const fw = forbiddenCandidate(r, lkmm).found;
    expect(fw?.axiom).toBe('happens-before');
    expect(fw?.values).toEqual([1, 1]);
    const why = lkmm.explain!(fw!.exec, fw!.axiom)!;
    expect(why.name).toBe('happens-before');
    // A closed walk: each edge starts where the previous one ended.
    why.edges.forEach(([a], i) => expect(why.edges[(i + why.edges.length - 1) % why.edges.length][1]).toBe(a));
  });

  it('the search gives up within its limits, and the trace says so', () => {
    const r = checkSource(lbRelAcq, { model: lkmm });
    expect(forbiddenCandidate(r, lkmm, { maxExecutions: 0 })).toEqual({ stopped: 'more than 0 candidate executions' });
    const again = checkSource(lbRelAcq, { model: lkmm });
    expect(traceReport(again, lkmm, { limits: { maxExecutions: 0 } })).toContain(
      '(No forbidden candidate to show: the search for one gave up: more than 0 candidate executions.)',
    );
  });

  it('Relation.cycle() returns a cycle exactly when the relation is cyclic', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(7), fc.nat(7)), { maxLength: 20 }), (pairs) => {
        const rel = Relation.fromPairs(8, pairs);
        const c = rel.cycle();
        expect(c === undefined).toBe(rel.acyclic());
        if (c) for (const [a, b] of c) expect(rel.has(a, b)).toBe(true);
      }),
    );
  });
});
