import { describe, expect, it } from 'vitest';
import { checkSource, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { sc } from '../models/sc.js';
import { x86tso } from '../models/x86tso.js';
import { getModel, MODELS } from '../models/index.js';
import { LimitError } from '../src/parse/errors.js';
import { litmus, stateSet } from './util.js';

import { SHAPES, W, R, regs, lines, type Shape } from './shapes.js';

function run(shape: Shape, model = lkmm): CheckResult {
  return checkSource(litmus(shape.name.split(' ')[0], shape.procs, shape.cond), { model });
}

describe('classic shapes under the LKMM (herd7 verdicts)', () => {
  for (const s of SHAPES) {
    it(s.name, () => {
      const r = run(s);
      if (typeof s.lkmm === 'string') expect(r.observation).toBe(s.lkmm);
      else expect([r.observation, r.positive, r.negative]).toEqual(s.lkmm);
      expect(r.flags).toEqual([]);
      expect(r.model).toBe('lkmm');
    });
  }
});

describe('classic shapes under SC', () => {
  for (const s of SHAPES) {
    it(s.name, () => expect(run(s, sc).observation).toBe(s.sc));
  }
});

// x86-TSO verdicts of the same shapes are in models-tso.test.ts.

describe('several models in one process', () => {
  // Event structures are cached per exploration; models must not see one
  // another's leftovers (a regression: lazily computed fence sets once read
  // the explorer's live event array).
  const sb = SHAPES.find((s) => s.name === 'SB+poonceonces')!;

  it('SB: the LKMM allows the three SC states and the fourth', () => {
    const l = stateSet(run(sb, lkmm));
    const s = stateSet(run(sb, sc));
    expect([...s].sort()).toEqual(['0:r0=0; 1:r0=1;', '0:r0=1; 1:r0=0;', '0:r0=1; 1:r0=1;']);
    expect(l.size).toBe(4);
    for (const st of s) expect(l.has(st)).toBe(true);
  });

  it('x86-TSO after the LKMM on the same test', () => {
    expect(run(sb, lkmm).observation).toBe('Sometimes');
    expect(run(sb, x86tso).observation).toBe('Sometimes');
  });

  it('the LKMM after SC on the same test', () => {
    // A shape no other test of this file uses, so that SC is the first to see it.
    const mp = litmus('MP-sc-first', [lines(W('x', 1), W('y', 1), W('x', 2)), lines(regs('r0', 'r1'), R('r0', 'y'), R('r1', 'x'))], 'exists (1:r0=1 /\\ 1:r1=0)', { params: ['int *x, int *y', 'int *x, int *y'] });
    expect(checkSource(mp, { model: sc }).observation).toBe('Never');
    expect(checkSource(mp, { model: lkmm }).observation).toBe('Sometimes');
  });
});

describe('locks', () => {
  const mp = (p0: string, p1: string) =>
    litmus('MP+locks', [p0, p1], 'exists (1:r0=1 /\\ 1:r1=0)', { params: ['int *x, int *y, spinlock_t *l', 'int *x, int *y, spinlock_t *l'] });

  it('MP+polocks is Never (0 3)', () => {
    const r = checkSource(
      mp(lines(W('x', 1), '\tspin_lock(l);', W('y', 1), '\tspin_unlock(l);'), lines(regs('r0', 'r1'), '\tspin_lock(l);', R('r0', 'y'), '\tspin_unlock(l);', R('r1', 'x'))),
      { model: lkmm },
    );
    expect([r.observation, r.positive, r.negative]).toEqual(['Never', 0, 3]);
  });

  it('MP+porevlocks is Never (0 3)', () => {
    const r = checkSource(
      mp(lines('\tspin_lock(l);', W('x', 1), '\tspin_unlock(l);', W('y', 1)), lines(regs('r0', 'r1'), R('r0', 'y'), '\tspin_lock(l);', R('r1', 'x'), '\tspin_unlock(l);')),
      { model: lkmm },
    );
    expect([r.observation, r.positive, r.negative]).toEqual(['Never', 0, 3]);
  });

  it('two critical sections never overlap: counter increments are not lost', () => {
    const inc = lines(regs('r0'), '\tspin_lock(l);', R('r0', 'x'), W('x', 'r0 + 1'), '\tspin_unlock(l);');
    const text = litmus('lock-counter', [inc, inc], 'exists (x=1)', { params: ['int *x, spinlock_t *l', 'int *x, spinlock_t *l'] });
    const r = checkSource(text, { model: lkmm });
    expect(r.observation).toBe('Never');
    expect(stateSet(r)).toEqual(new Set(['[x]=2;']));
    // Without the lock the increment can be lost.
    const racy = lines(regs('r0'), R('r0', 'x'), W('x', 'r0 + 1'));
    expect(checkSource(litmus('nolock-counter', [racy, racy], 'exists (x=1)'), { model: lkmm }).observation).toBe('Sometimes');
  });

  it('spin_trylock fails while another CPU holds the lock', () => {
    const text = litmus(
      'trylock',
      [lines(regs('r0'), '\tspin_lock(l);', '\tr0 = spin_trylock(l);')],
      'exists (0:r0=0)',
      { params: ['spinlock_t *l'] },
    );
    expect(checkSource(text, { model: lkmm }).observation).toBe('Always');
  });
});

describe('RCU', () => {
  const reader = lines(regs('r0', 'r1'), '\trcu_read_lock();', R('r0', 'x'), R('r1', 'y'), '\trcu_read_unlock();');

  it('RCU+sync+read: a reader that sees the post-grace-period store sees the pre-grace-period one', () => {
    const text = litmus('RCU+sync+read', [reader, lines(W('y', 1), '\tsynchronize_rcu();', W('x', 1))], 'exists (0:r0=1 /\\ 0:r1=0)');
    const r = checkSource(text, { model: lkmm });
    expect(r.observation).toBe('Never');
    expect(r.negative).toBe(3);
  });

  it('without synchronize_rcu() the outcome is possible', () => {
    const text = litmus('RCU+nosync+read', [reader, lines(W('y', 1), W('x', 1))], 'exists (0:r0=1 /\\ 0:r1=0)');
    expect(checkSource(text, { model: lkmm }).observation).toBe('Sometimes');
  });

  it('MP+onceassign+derefonce (rcu_assign_pointer / rcu_dereference) is Never (0 2)', () => {
    const text = `C MP+onceassign+derefonce
{
  y=z;
  z=0;
}
P0(int *x, int **y)
{
\tWRITE_ONCE(*x, 1);
\trcu_assign_pointer(*y, x);
}
P1(int *x, int **y)
{
\tint *r0;
\tint r1;
\trcu_read_lock();
\tr0 = rcu_dereference(*y);
\tr1 = READ_ONCE(*r0);
\trcu_read_unlock();
}
exists (1:r0=x /\\ 1:r1=0)
`;
    const r = checkSource(text, { model: lkmm });
    expect([r.observation, r.positive, r.negative]).toEqual(['Never', 0, 2]);
  });
});

describe('atomic RMWs', () => {
  it('two atomic_inc() never lose an update', () => {
    const text = litmus('atomic-inc', ['\tatomic_inc(x);', '\tatomic_inc(x);'], 'exists (x=1)', { params: ['atomic_t *x', 'atomic_t *x'] });
    const r = checkSource(text, { model: lkmm });
    expect([r.observation, r.positive]).toEqual(['Never', 0]);
    expect(stateSet(r)).toEqual(new Set(['[x]=2;']));
  });

  it('two atomic_fetch_add() never read the same old value', () => {
    const p = lines(regs('r0'), '\tr0 = atomic_fetch_add(1, x);');
    const text = litmus('fetch-add', [p, p], 'exists (0:r0=0 /\\ 1:r0=0)', { params: ['atomic_t *x', 'atomic_t *x'] });
    const r = checkSource(text, { model: lkmm });
    expect(r.observation).toBe('Never');
    expect(stateSet(r)).toEqual(new Set(['0:r0=0; 1:r0=1;', '0:r0=1; 1:r0=0;']));
  });

  it('xchg returns the old value and writes the new one', () => {
    const text = litmus('xchg', [lines(regs('r0'), '\tr0 = xchg(x, 5);')], 'exists (0:r0=3 /\\ x=5)', { init: 'x=3;', params: ['int *x'] });
    expect(checkSource(text, { model: lkmm }).observation).toBe('Always');
  });

  it('a failing cmpxchg returns the current value and writes nothing', () => {
    const text = litmus('cmpxchg-fail', [lines(regs('r0'), '\tr0 = cmpxchg(x, 0, 2);')], 'exists (0:r0=1 /\\ x=1)', { init: 'x=1;', params: ['int *x'] });
    const r = checkSource(text, { model: lkmm });
    expect([r.observation, r.positive, r.negative]).toEqual(['Always', 1, 0]);
  });

  it('a succeeding cmpxchg writes the new value', () => {
    const text = litmus('cmpxchg-ok', [lines(regs('r0'), '\tr0 = cmpxchg(x, 1, 2);')], 'exists (0:r0=1 /\\ x=2)', { init: 'x=1;', params: ['int *x'] });
    expect(checkSource(text, { model: lkmm }).observation).toBe('Always');
  });

  it('only one of two racing cmpxchg(x, 0, id) wins', () => {
    const p = (id: number) => lines(regs('r0'), `\tr0 = cmpxchg(x, 0, ${id});`);
    const text = litmus('cmpxchg-race', [p(1), p(2)], 'exists (0:r0=0 /\\ 1:r0=0)', { params: ['int *x', 'int *x'] });
    const r = checkSource(text, { model: lkmm });
    expect(r.observation).toBe('Never');
    expect(stateSet(r)).toEqual(new Set(['0:r0=0; 1:r0=1;', '0:r0=2; 1:r0=0;']));
  });

  it('atomic_add_unless does not add at the limit', () => {
    const text = litmus('add-unless', [lines(regs('r0'), '\tr0 = atomic_add_unless(x, 1, 5);')], 'exists (0:r0=0 /\\ x=5)', { init: 'atomic_t x = ATOMIC_INIT(5);', params: ['atomic_t *x'] });
    expect(checkSource(text, { model: lkmm }).observation).toBe('Always');
  });
});

describe('data races', () => {
  it('racing plain accesses raise the data-race flag', () => {
    const text = litmus('plain-race', [lines('\t*x = 1;'), lines(regs('r0'), '\tr0 = *x;')], 'exists (1:r0=1)');
    const r = checkSource(text, { model: lkmm });
    expect(r.flags).toContain('data-race');
  });

  it('plain accesses ordered by release/acquire do not race', () => {
    const text = litmus(
      'plain-mp',
      [lines('\t*x = 1;', '\tsmp_store_release(y, 1);'), lines(regs('r0', 'r1'), '\tr0 = smp_load_acquire(y);', '\tif (r0 == 1)', '\t\tr1 = *x;')],
      'exists (1:r0=1 /\\ 1:r1=0)',
    );
    const r = checkSource(text, { model: lkmm });
    expect(r.flags).not.toContain('data-race');
    expect(r.observation).toBe('Never');
  });

  it('marked accesses do not race', () => {
    const text = litmus('once-race', [W('x', 1), lines(regs('r0'), R('r0', 'x'))], 'exists (1:r0=1)');
    expect(checkSource(text, { model: lkmm }).flags).toEqual([]);
  });

  it('plain accesses inside the same lock do not race', () => {
    const text = litmus(
      'plain-locked',
      [lines('\tspin_lock(l);', '\t*x = 1;', '\tspin_unlock(l);'), lines(regs('r0'), '\tspin_lock(l);', '\tr0 = *x;', '\tspin_unlock(l);')],
      'exists (1:r0=1)',
      { params: ['int *x, spinlock_t *l', 'int *x, spinlock_t *l'] },
    );
    expect(checkSource(text, { model: lkmm }).flags).not.toContain('data-race');
  });

  it('the SC model raises no flags', () => {
    const text = litmus('plain-race', [lines('\t*x = 1;'), lines(regs('r0'), '\tr0 = *x;')], 'exists (1:r0=1)');
    expect(checkSource(text, { model: lkmm }).flags).toEqual(['data-race']);
    expect(checkSource(text, { model: sc }).flags).toEqual([]);
  });
});

// Loops as herd7 reads them (unrolled, paths past the bound cut); how check reads waits exactly is test/liveness.test.ts.
describe('loops (herd7\'s reading)', () => {
  const spin = lines(regs('r0'), '\tr0 = 0;', '\twhile (r0 == 0) {', `\t${R('r0', 'x')}`, '\t}');

  it('a spin loop is unrolled and its too-long paths are cut', () => {
    const text = litmus('spin', [W('x', 1), spin], 'exists (1:r0=1)');
    const r = checkSource(text, { model: lkmm, waits: 'unrolled' });
    expect(r.stats.cutPaths).toBeGreaterThan(0);
    // Every execution that finished saw the store.
    expect([r.observation, r.negative]).toEqual(['Always', 0]);
    expect(stateSet(r)).toEqual(new Set(['1:r0=1;']));
  });

  it('a larger --unroll bound still cuts paths and keeps the verdict', () => {
    const text = litmus('spin', [W('x', 1), spin], 'exists (1:r0=1)');
    const r2 = checkSource(text, { model: lkmm, unroll: 2, waits: 'unrolled' });
    const r4 = checkSource(text, { model: lkmm, unroll: 4, waits: 'unrolled' });
    expect(r4.stats.cutPaths).toBeGreaterThan(0);
    expect(r4.observation).toBe(r2.observation);
  });

  it('a loop that ends within the bound cuts nothing', () => {
    const text = litmus('once', [lines(regs('r0'), '\tr0 = 0;', '\twhile (r0 == 0)', '\t\tr0 = 1;', W('x', 'r0'))], 'exists (x=1)', { params: ['int *x'] });
    const r = checkSource(text, { model: lkmm, waits: 'unrolled' });
    expect(r.stats.cutPaths).toBe(0);
    expect([r.observation, r.positive, r.negative]).toEqual(['Always', 1, 0]);
  });

  // The value analysis must respect the unrolling bound (herd7, unroll 2: x=1 always).
  it('a counting loop that ends within the bound runs', () => {
    const text = litmus('count', [lines(regs('r0'), '\tr0 = 0;', '\twhile (r0 < 1)', '\t\tr0 = r0 + 1;', W('x', 'r0'))], 'exists (x=1)', { params: ['int *x'] });
    const r = checkSource(text, { model: lkmm, waits: 'unrolled' });
    expect(r.stats.cutPaths).toBe(0);
    expect(r.observation).toBe('Always');
  });

  it('a loop that never ends cuts every path: no execution at all', () => {
    const text = litmus('forever', [lines(regs('r0'), '\tr0 = 0;', '\twhile (r0 == 0)', `\t${R('r0', 'x')}`)], 'exists (0:r0=0)', { params: ['int *x'] });
    const r = checkSource(text, { model: lkmm, waits: 'unrolled' });
    expect(r.stats.cutPaths).toBeGreaterThan(0);
    expect(r.positive + r.negative).toBe(0);
  });
});

describe('quantifiers and Result: judgement', () => {
  const sbText = (q: string, result?: string) =>
    litmus('SB', [lines(regs('r0'), W('x', 1), R('r0', 'y')), lines(regs('r0'), W('y', 1), R('r0', 'x'))], `${q} (0:r0=0 /\\ 1:r0=0)`, { result });

  it('exists / ~exists / forall set Ok as herd does', () => {
    expect(checkSource(sbText('exists'), { model: lkmm }).ok).toBe(true);
    expect(checkSource(sbText('~exists'), { model: lkmm }).ok).toBe(false);
    expect(checkSource(sbText('~exists'), { model: sc }).ok).toBe(true);
    expect(checkSource(sbText('forall'), { model: lkmm }).ok).toBe(false);
    expect(checkSource(sbText('~exists'), { model: lkmm }).quantifier).toBe('~exists');
  });

  it('matches compares Result: with the observation', () => {
    expect(checkSource(sbText('exists', 'Sometimes'), { model: lkmm }).matches).toBe(true);
    expect(checkSource(sbText('exists', 'Never'), { model: lkmm }).matches).toBe(false);
    expect(checkSource(sbText('exists', 'Never'), { model: sc }).matches).toBe(true);
    expect(checkSource(sbText('exists'), { model: lkmm }).matches).toBeUndefined();
  });
});

describe('limits and model registry', () => {
  it('maxExecutions stops the exploration with a LimitError', () => {
    const s = SHAPES.find((x) => x.name === 'IRIW+poonceonces+OnceOnce')!;
    expect(() => checkSource(litmus('IRIW', s.procs, s.cond), { model: lkmm, maxExecutions: 1 })).toThrow(LimitError);
  });

  it('knows lkmm, sc and x86-tso, with aliases', () => {
    expect(Object.keys(MODELS).sort()).toEqual(['lkmm', 'sc', 'x86-tso']);
    // Each the built-in model's judgement, explained from its text (models/text/, models/cat/explain.ts).
    for (const [name, model] of [['tso', x86tso], ['x86', x86tso], ['lkmm', lkmm], ['linux-kernel', lkmm]] as const) {
      expect(getModel(name)?.name).toBe(model.name);
      expect(getModel(name)?.check).toBe(model.check);
    }
    expect(getModel('nope')).toBeUndefined();
  });
});
