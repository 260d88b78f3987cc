// The kernel's bit operations (src/events/primitives.ts, `Lowered`): the
// ordering Documentation/atomic_bitops.txt gives each, and the values they
// compute. The Never/Sometimes answers below are also herd7's on the lowered
// forms (`litmus export`, checked by hand with herd7 + LKMM).
import { describe, expect, it } from 'vitest';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { LitmusError } from '../src/parse/errors.js';
import { litmus } from './util.js';

const run = (text: string) => checkSource(text, { model: lkmm });
const verdict = (text: string) => run(text).observation;

/** Message passing through bit 0 of `flags` (initially set): P0 clears it, P1 sees it cleared. */
const mp = (clear: string, test: string) =>
  litmus(
    `MP+${clear}+${test}`,
    [`\tWRITE_ONCE(*buf, 1);\n\t${clear}(0, flags);`, `\tint r0;\n\tint r1;\n\tr0 = ${test}(0, flags);\n\tr1 = READ_ONCE(*buf);`],
    'exists (1:r0=0 /\\ 1:r1=0)',
    { init: 'int flags = 1;', params: ['int *buf, int *flags', 'int *buf, int *flags'] },
  );

/** Store buffering with a bit operation on a private word between the store and the load. */
const sb = (op: string, init = 0) =>
  litmus(
    `SB+${op}`,
    [
      `\tint r0;\n\tint r9;\n\tWRITE_ONCE(*x, 1);\n\t${op.startsWith('test_') ? 'r9 = ' : ''}${op}(0, z);\n\tr0 = READ_ONCE(*y);`,
      `\tint r0;\n\tint r9;\n\tWRITE_ONCE(*y, 1);\n\t${op.startsWith('test_') ? 'r9 = ' : ''}${op}(1, z);\n\tr0 = READ_ONCE(*x);`,
    ],
    'exists (0:r0=0 /\\ 1:r0=0)',
    { init: `int z = ${init};` },
  );

describe('bit operations: ordering (Documentation/atomic_bitops.txt)', () => {
  it('clear_bit_unlock is a release and test_bit_acquire an acquire: message passing holds', () => {
    expect(verdict(mp('clear_bit_unlock', 'test_bit_acquire'))).toBe('Never');
  });
  it('clear_bit and test_bit are unordered', () => {
    expect(verdict(mp('clear_bit', 'test_bit'))).toBe('Sometimes');
    expect(verdict(mp('clear_bit_unlock', 'test_bit'))).toBe('Sometimes');
    expect(verdict(mp('clear_bit', 'test_bit_acquire'))).toBe('Sometimes');
  });
  it('__clear_bit_unlock is a release store', () => {
    expect(verdict(mp('__clear_bit_unlock', 'test_bit_acquire'))).toBe('Never');
    expect(verdict(mp('__clear_bit', 'test_bit_acquire'))).toBe('Sometimes');
  });
  it('test_and_set_bit_lock is an acquire', () => {
    expect(verdict(mp('clear_bit_unlock', 'test_and_set_bit_lock'))).toBe('Never');
  });
  it('test_and_{set,clear,change}_bit are fully ordered; set/clear/change_bit and the lock form are not', () => {
    for (const op of ['test_and_set_bit', 'test_and_clear_bit', 'test_and_change_bit']) expect(verdict(sb(op)), op).toBe('Never');
    for (const op of ['set_bit', 'clear_bit', 'change_bit', 'test_and_set_bit_lock', '__set_bit']) expect(verdict(sb(op)), op).toBe('Sometimes');
  });
  it('a test_and_set_bit that finds the bit set is still fully ordered (it is atomic_fetch_or)', () => {
    expect(verdict(sb('test_and_set_bit', 3))).toBe('Never');
  });
});

describe('bit operations: values', () => {
  const final = (body: string, init: string, cond: string) =>
    run(litmus('values', [body], cond, { init, params: ['int *x'] }));
  it('set, clear and change one bit of the word', () => {
    expect(final('\tset_bit(1, x);', 'int x = 1;', 'exists (x=3)').observation).toBe('Always');
    expect(final('\tclear_bit(0, x);', 'int x = 3;', 'exists (x=2)').observation).toBe('Always');
    expect(final('\tchange_bit(2, x);\n\tchange_bit(0, x);', 'int x = 1;', 'exists (x=4)').observation).toBe('Always');
    expect(final('\t__set_bit(3, x);\n\t__clear_bit(0, x);', 'int x = 1;', 'exists (x=8)').observation).toBe('Always');
    expect(final('\t__clear_bit_unlock(1, x);', 'int x = 7;', 'exists (x=5)').observation).toBe('Always');
  });
  it('test_and_* return the old bit; test_bit reads it', () => {
    const body = '\tint r0;\n\tint r1;\n\tint r2;\n\tint r3;\n\tr0 = test_and_set_bit(1, x);\n\tr1 = test_and_set_bit(1, x);\n\tr2 = test_and_clear_bit(0, x);\n\tr3 = test_bit(1, x);';
    const r = final(body, 'int x = 1;', 'exists (0:r0=0 /\\ 0:r1=1 /\\ 0:r2=1 /\\ 0:r3=1 /\\ x=2)');
    expect(r.observation).toBe('Always');
  });
  it('a bit number held in a register', () => {
    expect(final('\tint r1 = 2;\n\tset_bit(r1, x);', 'int x = 0;', 'exists (x=4)').observation).toBe('Always');
  });
  it('a bit number out of range is an error at its position', () => {
    const text = litmus('bad', ['\tset_bit(40, x);'], 'exists (x=0)', { params: ['int *x'] });
    expect(() => run(text)).toThrowError(LitmusError);
    try {
      run(text);
    } catch (e) {
      expect((e as LitmusError).format('t.litmus')).toMatch(/^t\.litmus:\d+:\d+: bit number 40 is out of range/);
    }
  });
  it('the instructions an operation compiles to carry its name (traces show it)', () => {
    const r = run(mp('clear_bit_unlock', 'test_bit_acquire'));
    const names = r.program.threads.flatMap((t) => t.code.flatMap((i) => (i.op === 'prim' ? [i.name] : [])));
    expect(names).toEqual(['WRITE_ONCE', 'clear_bit_unlock', 'test_bit_acquire', 'READ_ONCE']);
  });
});
