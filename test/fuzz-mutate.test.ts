// The differential fuzz's mutator (scripts/fuzz-mutate.ts): deterministic for
// a seed, each kind of edit applies where it should, and what it writes is
// read by litmus or refused with a position (never a crash). The fuzz itself
// needs herd7 and is run by hand (npm run fuzz:herd7); this needs neither.

import { describe, expect, it } from 'vitest';
import { layoutOf, MUTATIONS, mutate, Rng } from '../scripts/fuzz-mutate.js';
import { checkSource } from '../src/check.js';
import { LitmusError } from '../src/parse/errors.js';
import { lkmm } from '../models/lkmm.js';

const MP = `C MP
{
}

P0(int *buf, int *flag)
{
	WRITE_ONCE(*buf, 1);
	smp_wmb();
	WRITE_ONCE(*flag, 1);
}

P1(int *buf, int *flag)
{
	int r0;
	int r1;

	r0 = READ_ONCE(*flag);
	smp_rmb();
	r1 = READ_ONCE(*buf);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

describe('the fuzz mutator', () => {
  it('gives the same mutants for the same seed, and others for another', () => {
    const run = (seed: number) => {
      const rng = new Rng(seed);
      return Array.from({ length: 30 }, () => mutate(MP, rng)?.text);
    };
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  it('every kind of edit applies to MP and changes only its own part', () => {
    for (const [kind, m] of Object.entries(MUTATIONS)) {
      const rng = new Rng(1);
      let edit: ReturnType<typeof m>;
      for (let i = 0; i < 20 && !edit; i++) edit = m(MP, layoutOf(MP)!, rng);
      expect(edit, kind).toBeDefined();
      expect(edit!.text, kind).not.toBe(MP);
      if (kind === 'renameParam') expect(edit!.text.split('{').slice(2).join('{').replace(/P\d\([^)]*\)/g, '')).toBe(MP.split('{').slice(2).join('{').replace(/P\d\([^)]*\)/g, ''));
      if (kind.startsWith('condition')) expect(edit!.text.slice(0, MP.indexOf('exists'))).toBe(MP.slice(0, MP.indexOf('exists')));
    }
  });

  it('its mutants are answered or refused with a position, never a crash', () => {
    const rng = new Rng(3);
    let answered = 0;
    for (let i = 0; i < 200; i++) {
      const m = mutate(MP, rng);
      if (!m) continue;
      try {
        checkSource(m.text, { model: lkmm });
        answered++;
      } catch (e) {
        expect(e, m.details.join('; ')).toBeInstanceOf(LitmusError);
      }
    }
    expect(answered).toBeGreaterThan(50);
  });
});
