// Type clashes between primitives and the declared type of what they use.
import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram } from '../src/program/program.js';
import { LitmusError } from '../src/parse/errors.js';
import { herdFindings, refusals } from '../src/export/lint.js';

function error(text: string): string {
  try {
    buildProgram(parseLitmus(text));
  } catch (e) {
    if (e instanceof LitmusError) return e.format('t.litmus');
    throw e;
  }
  return 'no error';
}

const notes = (text: string) => herdFindings(parseLitmus(text), text).filter((f) => f.note).map((f) => `${f.pos.line}:${f.pos.col} ${f.message}`);

describe('type clashes', () => {
  it('a lock primitive on an int: herd7 types no C and answers, so litmus checks it and notes the clash (--herd-compatible)', () => {
    const text = 'C t\n{}\nP0(int *x)\n{\n\tspin_lock(x);\n}\nexists (x=0)\n';
    expect(error(text)).toBe('no error');
    expect(notes(text)).toEqual(['5:12 type clash: spin_lock needs a spinlock_t *, but "x" is int * (herd7 checks no types: checked as a lock)']);
    expect(refusals(herdFindings(parseLitmus(text), text))).toEqual([]);
  });

  it('other primitives may use a spinlock_t word (herd does not type it): lock emulations', () => {
    expect(error('C t\n{}\nP0(spinlock_t *l)\n{\n\tint r0;\n\tr0 = xchg_acquire(l, 1);\n}\nexists (0:r0=0)\n')).toBe('no error');
  });

  it('locks and atomics used as declared are fine', () => {
    expect(error('C t\n{}\nP0(spinlock_t *l, atomic_t *v)\n{\n\tspin_lock(l);\n\tatomic_inc(v);\n\tspin_unlock(l);\n}\nexists (v=1)\n')).toBe('no error');
  });
});

describe('process parameters', () => {
  it('must be pointers: the initial state gives shared variables by address', () => {
    expect(error('C t\n{}\nP0(int x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n')).toBe(
      't.litmus:3:4: parameter "x" must be a pointer (e.g. "int *x"): processes take shared variables by address',
    );
  });
});
