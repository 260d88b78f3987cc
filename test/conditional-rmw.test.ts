// The kernel's primitives that the LKMM's linux-kernel.def lacks
// (tools/memory-model/Documentation/litmus-tests.txt, LIMITATIONS): the
// conditional RMWs, given the meaning Documentation/atomic_t.txt gives them
// (one atomic RMW, fully ordered when it adds, a relaxed read when it does
// not, as the .def's atomic_add_unless), and those the LKMM gives no
// meaning (call_rcu(), rcu_barrier(), reader-writer locks, try_cmpxchg()),
// refused with the reason. herd7 7.58 + LKMM answers the atomic_add_unless
// forms below as these tests expect (checked by hand: SB with a succeeding
// one Never 0 3, with a failing one Sometimes 1 3) and refuses every other
// name here ("Unknown macro"), as `litmus herd7` does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { effectOf, lookupPrimitive, BUILTIN_PRIMITIVES, type Effect } from '../src/events/primitives.js';
import { LitmusError, UnknownPrimitiveError } from '../src/parse/errors.js';
import { parseLitmus } from '../src/parse/parser.js';
import { herdFindings } from '../src/export/lint.js';
import { exportLitmus } from '../src/export/export.js';
import { herd7Main } from '../src/cli/herd7.js';
import { litmus } from './util.js';

const run = (text: string) => checkSource(text, { model: lkmm });
const counts = (text: string) => {
  const r = run(text);
  return `${r.observation} ${r.positive} ${r.negative}`;
};

function effect(name: string): Effect {
  const info = lookupPrimitive(name);
  if (!info || !('prim' in info)) throw new Error(`${name} is not a primitive of the table`);
  return effectOf(info.prim);
}

/** Store buffering with a conditional RMW on a private atomic_t (initially `init`) between each store and load. */
const sb = (call: string, init: number) =>
  litmus(
    `SB+${call.replace(/\W+/g, '_')}`,
    [
      `\tint r0;\n\tint r1;\n\tWRITE_ONCE(*x, 1);\n\tr0 = ${call.replace('Z', 'z0')};\n\tr1 = READ_ONCE(*y);`,
      `\tint r0;\n\tint r1;\n\tWRITE_ONCE(*y, 1);\n\tr0 = ${call.replace('Z', 'z1')};\n\tr1 = READ_ONCE(*x);`,
    ],
    'exists (0:r1=0 /\\ 1:r1=0)',
    { init: `atomic_t z0 = ATOMIC_INIT(${init});\natomic_t z1 = ATOMIC_INIT(${init});`, params: ['int *x, int *y, atomic_t *z0', 'int *x, int *y, atomic_t *z1'] },
  );

/** One call on an atomic_t v holding `init`; the final condition over r0 and v. */
const one = (call: string, init: number, cond: string) =>
  litmus('one', [`\tint r0;\n\tr0 = ${call};`], cond, { init: `atomic_t v = ATOMIC_INIT(${init});`, params: ['atomic_t *v'] });

describe('conditional RMWs beyond the .def (Documentation/atomic_t.txt, scripts/atomic/atomics.tbl)', () => {
  it('each computes what atomics.tbl says it returns, and writes only when it adds', () => {
    const X = 1000;
    const fau = effect('atomic_fetch_add_unless');
    expect([fau.write(3, [X, 2, 5]), fau.result(3, 5, [X, 2, 5]), fau.write(5, [X, 2, 5]), fau.result(5, undefined, [X, 2, 5])]).toEqual([5, 3, undefined, 5]);
    const iun = effect('atomic_inc_unless_negative');
    expect([iun.write(0, [X]), iun.result(0, 1, [X]), iun.write(-1, [X]), iun.result(-1, undefined, [X])]).toEqual([1, 1, undefined, 0]);
    const dup = effect('atomic_dec_unless_positive');
    expect([dup.write(0, [X]), dup.result(0, -1, [X]), dup.write(1, [X]), dup.result(1, undefined, [X])]).toEqual([-1, 1, undefined, 0]);
    const dip = effect('atomic_dec_if_positive');
    expect([dip.write(1, [X]), dip.result(1, 0, [X]), dip.write(0, [X]), dip.result(0, undefined, [X])]).toEqual([0, 0, undefined, -1]);
    for (const e of [fau, iun, dup, dip]) expect([e.rmw, e.mayFail, e.annot]).toEqual([true, true, 'MB']);
  });

  it('each says where its meaning comes from', () => {
    for (const n of ['atomic_fetch_add_unless', 'atomic_inc_unless_negative', 'atomic_dec_unless_positive', 'atomic_dec_if_positive']) {
      expect(BUILTIN_PRIMITIVES.sourceOf(n), n).toMatch(/Documentation\/atomic_t\.txt/);
      expect(BUILTIN_PRIMITIVES.isExtension(n), n).toBe(true);
    }
    expect(BUILTIN_PRIMITIVES.sourceOf('atomic_inc_not_zero')).toMatch(/atomic_add_unless\(v, 1, 0\)/);
    expect(BUILTIN_PRIMITIVES.sourceOf('set_bit')).toMatch(/atomic_bitops\.txt/);
    expect(BUILTIN_PRIMITIVES.sourceOf('xchg')).toMatch(/linux-kernel\.def/);
    expect(BUILTIN_PRIMITIVES.isExtension('atomic_add_unless')).toBe(false);
  });

  it('fully ordered when it adds, unordered when it does not (store buffering)', () => {
    // The .def's atomic_add_unless, as herd7 answers it.
    expect(counts(sb('atomic_add_unless(Z, 1, 5)', 0))).toBe('Never 0 3');
    expect(counts(sb('atomic_add_unless(Z, 1, 5)', 5))).toBe('Sometimes 1 3');
    const cases: [string, number, number][] = [
      ['atomic_inc_not_zero(Z)', 1, 0],
      ['atomic_fetch_add_unless(Z, 1, 5)', 0, 5],
      ['atomic_inc_unless_negative(Z)', 0, -1],
      ['atomic_dec_unless_positive(Z)', 0, 1],
      ['atomic_dec_if_positive(Z)', 1, 0],
      ['atomic_long_inc_unless_negative(Z)', 0, -1],
    ];
    for (const [call, adds, fails] of cases) {
      expect(counts(sb(call, adds)), `${call} adding`).toBe('Never 0 3');
      expect(counts(sb(call, fails)), `${call} failing`).toBe('Sometimes 1 3');
    }
  });

  it('values: the condition is tested on the value read, sums wrap at 32 bits', () => {
    expect(counts(one('atomic_dec_if_positive(v)', 0, 'exists (0:r0=-1 /\\ v=0)'))).toBe('Always 1 0');
    expect(counts(one('atomic_dec_if_positive(v)', 3, 'exists (0:r0=2 /\\ v=2)'))).toBe('Always 1 0');
    // INT_MIN - 1 wraps to INT_MAX, which is not negative: it is written (the kernel's -fwrapv).
    expect(counts(one('atomic_dec_if_positive(v)', -2147483648, 'exists (0:r0=2147483647 /\\ v=2147483647)'))).toBe('Always 1 0');
    expect(counts(one('atomic_inc_unless_negative(v)', 2147483647, 'exists (0:r0=1 /\\ v=-2147483648)'))).toBe('Always 1 0');
    expect(counts(one('atomic_fetch_add_unless(v, 2, 7)', 7, 'exists (0:r0=7 /\\ v=7)'))).toBe('Always 1 0');
    expect(counts(one('atomic_fetch_add_unless(v, 2, 7)', 1, 'exists (0:r0=1 /\\ v=3)'))).toBe('Always 1 0');
    expect(counts(one('atomic_dec_unless_positive(v)', 0, 'exists (0:r0=1 /\\ v=-1)'))).toBe('Always 1 0');
    expect(counts(one('atomic_inc_not_zero(v)', 0, 'exists (0:r0=0 /\\ v=0)'))).toBe('Always 1 0');
  });

  it('atomic: a competing atomic_set() is never lost (atomic_t.txt\'s atomic-set test, with each)', () => {
    for (const call of ['atomic_add_unless(v, 1, 0)', 'atomic_inc_not_zero(v)', 'atomic_inc_unless_negative(v)', 'atomic_fetch_add_unless(v, 1, 0)']) {
      const t = litmus('atomic-set', [`\tint r0;\n\tr0 = ${call};`, '\tatomic_set(v, 0);'], 'exists (v=2)', {
        init: 'atomic_t v = ATOMIC_INIT(1);', params: ['atomic_t *v', 'atomic_t *v'],
      });
      expect(run(t).observation, call).toBe('Never');
    }
  });

  it('atomic_inc_not_zero is atomic_add_unless(v, 1, 0): same states and counts, and exported as that', () => {
    const mp = (call: string) =>
      litmus('MP', ['\tWRITE_ONCE(*x, 1);\n\tatomic_set_release(v, 1);', `\tint r0;\n\tint r1;\n\tr0 = ${call};\n\tr1 = READ_ONCE(*x);`], 'exists (1:r0=1 /\\ 1:r1=0)', {
        params: ['int *x, atomic_t *v', 'int *x, atomic_t *v'],
      });
    expect(counts(mp('atomic_inc_not_zero(v)'))).toBe(counts(mp('atomic_add_unless(v, 1, 0)')));
    expect(exportLitmus(mp('atomic_inc_not_zero(v)'))).toContain('r0 = atomic_add_unless(v, 1, 0);');
  });

  it('herd7 lacks the others: --herd-compatible says so, export refuses them by position', () => {
    const t = sb('atomic_dec_if_positive(Z)', 1);
    const findings = herdFindings(parseLitmus(t), t);
    expect(findings.map((f) => f.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^atomic_dec_if_positive is not in herd7's linux-kernel\.def \(litmus gives it the meaning of Documentation\/atomic_t\.txt/)]));
    let err: unknown;
    try {
      exportLitmus(t);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LitmusError);
    expect((err as LitmusError).message).toMatch(/^cannot export for herd7: atomic_dec_if_positive is not in herd7's linux-kernel\.def/);
    expect((err as LitmusError).pos.line).toBeGreaterThan(0);
  });
});

describe('primitives the LKMM gives no meaning: refused with the reason (litmus-tests.txt, LIMITATIONS)', () => {
  const refused = (name: string, args: string) => {
    const t = litmus('refused', [`\t${name}(${args});`], 'exists (x=0)', { params: ['int *x, spinlock_t *l'] });
    let err: unknown;
    try {
      run(t);
    } catch (e) {
      err = e;
    }
    expect(err, name).toBeInstanceOf(LitmusError);
    const e = err as LitmusError;
    expect(e.pos, name).toEqual({ line: 9, col: 2 });
    expect(e instanceof UnknownPrimitiveError && e.primitive, name).toBe(name);
    return e.message;
  };
  it('call_rcu() and rcu_barrier(): callbacks run asynchronously, in no process', () => {
    expect(refused('call_rcu', 'x, 0')).toMatch(/^call_rcu\(\) has no meaning in the LKMM: its callback runs later, .*synchronize_rcu\(\).*\(tools\/memory-model\/Documentation\/litmus-tests\.txt, LIMITATIONS\)$/);
    expect(refused('rcu_barrier', '')).toMatch(/^rcu_barrier\(\) has no meaning in the LKMM: it waits for the callbacks of earlier call_rcu\(\)s/);
    expect(refused('kfree_rcu', 'x')).toMatch(/callback runs later/);
  });
  it('reader-writer locks: lock.cat models only exclusive locks', () => {
    for (const n of ['read_lock', 'read_unlock', 'write_lock', 'write_unlock', 'read_lock_bh', 'write_unlock_irq']) {
      expect(refused(n, 'l')).toMatch(/^\w+\(\) has no meaning in the LKMM: the LKMM models only exclusive locks \(lock\.cat/);
    }
  });
  it('try_cmpxchg(): it needs the address of a register', () => {
    expect(refused('atomic_try_cmpxchg', 'x, 0, 1')).toMatch(/a register has no address.*atomic_cmpxchg/);
  });
  it('smp_acquire__after_ctrl_dep(): not in linux-kernel.def; the message says what the kernel defines it as and what to write', () => {
    expect(refused('smp_acquire__after_ctrl_dep', '')).toMatch(
      /^smp_acquire__after_ctrl_dep\(\) has no meaning in the LKMM: linux-kernel\.def does not define it; the kernel defines it as smp_rmb\(\), .* write smp_rmb\(\) in its place, or that read as smp_load_acquire\(\) .*\(include\/asm-generic\/barrier\.h\)$/,
    );
  });
  it('data_race(): the kernel marks an intended race with it, for KCSAN; the message says what to write instead', () => {
    // herd7 7.58: Warning: File "...": Unknown macro data_race (User error).
    expect(refused('data_race', '*x')).toMatch(
      /^data_race\(\) has no meaning in the LKMM: it marks an access whose data race is intended, for KCSAN, .*write the access plain .*READ_ONCE\(\)\/WRITE_ONCE\(\) .*\(tools\/memory-model\/Documentation\/access-marking\.txt\)$/,
    );
  });
  it('a name the kernel does not have stays an unknown primitive, with the closest name', () => {
    const t = one('atomic_add_unless_relaxed(v, 1, 0)', 0, 'exists (v=0)');
    expect(() => run(t)).toThrow(/^unknown primitive "atomic_add_unless_relaxed"/);
  });
});

describe('litmus herd7 refuses what herd7 refuses: "Unknown macro"', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'litmus-cond-rmw-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const herd7 = async (name: string, text: string) => {
    const file = join(dir, `${name}.litmus`);
    writeFileSync(file, text);
    let stdout = '';
    let stderr = '';
    // The built-in model: these cases test neither -conf nor the kernel's files.
    const status = await herd7Main(['-model', 'lkmm', file], { out: (t) => (stdout += t), err: (t) => (stderr += t) });
    return { status, stdout, stderr };
  };
  for (const [name, call] of [
    ['inc_not_zero', 'r0 = atomic_inc_not_zero(v);'],
    ['dec_if_positive', 'r0 = atomic_dec_if_positive(v);'],
    ['call_rcu', 'call_rcu(v, 0);'],
    ['read_lock', 'read_lock(v);'],
    ['smp_acquire__after_ctrl_dep', 'smp_acquire__after_ctrl_dep();'],
    ['data_race', 'r0 = data_race(*v);'],
  ] as const) {
    it(name, async () => {
      const r = await herd7(name, litmus(name, [`\tint r0;\n\t${call}`], 'exists (v=0)', { params: ['atomic_t *v'] }));
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`Warning: File ".*${name}\\.litmus": Unknown macro ${call.replace(/^r0 = /, '').replace(/\(.*/, '')} \\(User error\\)`));
    });
  }
  it('atomic_add_unless, which herd7 has, is answered', async () => {
    const r = await herd7('add_unless', one('atomic_add_unless(v, 1, 0)', 1, 'exists (0:r0=1 /\\ v=2)'));
    expect(r.stdout).toMatch(/Observation one Always 1 0/);
  });
});
