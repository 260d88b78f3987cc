// x86-TSO verdicts for the classic shapes (models.test.ts also checks that
// several models can run on one test in one process).

import { describe, expect, it } from 'vitest';
import { checkSource } from '../src/check.js';
import { x86tso } from '../models/x86tso.js';
import { SHAPES, W, R, regs, lines } from './shapes.js';
import { litmus, stateSet } from './util.js';

const tso = (text: string) => checkSource(text, { model: x86tso });

describe('classic shapes under x86-TSO', () => {
  for (const s of SHAPES) {
    it(s.name, () => {
      const r = tso(litmus(s.name.split(' ')[0], s.procs, s.cond));
      expect(r.observation).toBe(s.tso);
      expect(r.model).toBe('x86-tso');
    });
  }
});

describe('x86-TSO specifics', () => {
  it('SB: store buffering gives the fourth state', () => {
    const sb = SHAPES.find((s) => s.name === 'SB+poonceonces')!;
    const r = tso(litmus('SB', sb.procs, sb.cond));
    expect([r.observation, r.positive, r.negative]).toEqual(['Sometimes', 1, 3]);
    expect(stateSet(r)).toEqual(new Set(['0:r0=0; 1:r0=0;', '0:r0=0; 1:r0=1;', '0:r0=1; 1:r0=0;', '0:r0=1; 1:r0=1;']));
  });

  it('SB with smp_mb() on one side only is still Sometimes', () => {
    const r = tso(litmus('SB+mb+po', [lines(regs('r0'), W('x', 1), '\tsmp_mb();', R('r0', 'y')), lines(regs('r0'), W('y', 1), R('r0', 'x'))], 'exists (0:r0=0 /\\ 1:r0=0)'));
    expect(r.observation).toBe('Sometimes');
  });

  it('a locked RMW drains the store buffer (SB+xchg on both sides is Never)', () => {
    const r = tso(litmus('SB+xchg-relaxed', [lines(regs('r0', 'r1'), '\tr1 = xchg_relaxed(x, 1);', R('r0', 'y')), lines(regs('r0', 'r1'), '\tr1 = xchg_relaxed(y, 1);', R('r0', 'x'))], 'exists (0:r0=0 /\\ 1:r0=0)'));
    expect(r.observation).toBe('Never');
  });

  it('a store is forwarded to a later load of the same CPU', () => {
    const r = tso(litmus('SB+rfi', [lines(regs('r0', 'r1'), W('x', 1), R('r1', 'x'), R('r0', 'y')), lines(regs('r0', 'r1'), W('y', 1), R('r1', 'y'), R('r0', 'x'))], 'exists (0:r1=1 /\\ 0:r0=0 /\\ 1:r1=1 /\\ 1:r0=0)'));
    expect(r.observation).toBe('Sometimes');
  });

  it('atomic increments and lock-protected increments are not lost', () => {
    const inc = '\tatomic_inc(x);';
    expect(tso(litmus('atomic-inc', [inc, inc], 'exists (x=1)', { params: ['atomic_t *x', 'atomic_t *x'] })).observation).toBe('Never');
    const locked = lines(regs('r0'), '\tspin_lock(l);', R('r0', 'x'), W('x', 'r0 + 1'), '\tspin_unlock(l);');
    expect(tso(litmus('lock-counter', [locked, locked], 'exists (x=1)', { params: ['int *x, spinlock_t *l', 'int *x, spinlock_t *l'] })).observation).toBe('Never');
  });

  it('raises no data-race flag', () => {
    const r = tso(litmus('plain-race', [lines('\t*x = 1;'), lines(regs('r0'), '\tr0 = *x;')], 'exists (1:r0=1)'));
    expect(r.flags).toEqual([]);
  });
});
