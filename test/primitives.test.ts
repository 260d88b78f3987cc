// The primitive table's Effects: what each primitive reads, writes and
// returns, as every layer (explorer, value domain, models, type checks)
// reads them. End-to-end verdicts are in verdicts.test.ts; these pin the
// table itself, one primitive family at a time.
import { describe, expect, it } from 'vitest';
import { effectOf, lookupPrimitive, primitiveNames, type Effect } from '../src/events/primitives.js';

function effect(name: string): Effect {
  const info = lookupPrimitive(name);
  if (!info || !('prim' in info)) throw new Error(`${name} is not a .def primitive`);
  return effectOf(info.prim);
}

const X = 1000; // an address argument's value: unused by every value function

describe('primitive effects', () => {
  it('loads read and return the value read; stores write their value argument', () => {
    const load = effect('smp_load_acquire');
    expect([load.reads, load.writes, load.rmw, load.annot]).toEqual([true, false, false, 'ACQUIRE']);
    expect(load.write(7, [X])).toBeUndefined();
    expect(load.result(7, undefined, [X])).toBe(7);
    const store = effect('WRITE_ONCE');
    expect([store.reads, store.writes, store.write(0, [X, 5]), store.dataArgs]).toEqual([false, true, 5, [1]]);
    expect(effect('smp_store_mb').fence).toBe('MB');
  });

  it('atomic operations compute from the value read and return old, new or a test of new', () => {
    expect(effect('atomic_fetch_add').write(3, [4, X])).toBe(7);
    expect(effect('atomic_fetch_add').result(3, 7, [4, X])).toBe(3);
    expect(effect('atomic_add_return').result(3, 7, [4, X])).toBe(7);
    expect(effect('atomic_fetch_andnot').write(7, [2, X])).toBe(5);
    expect(effect('atomic_dec_and_test').write(1, [X])).toBe(0);
    expect(effect('atomic_dec_and_test').result(1, 0, [X])).toBe(1);
    expect(effect('atomic_add_negative').result(1, -1, [-2, X])).toBe(1);
    expect(effect('atomic_inc').dataArgs).toEqual([]);
    expect(effect('atomic_long_fetch_or').write(1, [4, X])).toBe(5);
  });

  it('cmpxchg and add_unless may fail: no write, and what they return then', () => {
    const cas = effect('cmpxchg');
    expect([cas.rmw, cas.mayFail, cas.dataArgs, cas.computesWith]).toEqual([true, true, [2], [1]]);
    expect(cas.write(1, [X, 1, 2])).toBe(2);
    expect(cas.write(0, [X, 1, 2])).toBeUndefined();
    expect(cas.result(0, undefined, [X, 1, 2])).toBe(0);
    const unless = effect('atomic_add_unless');
    expect(unless.write(3, [X, 2, 5])).toBe(5);
    expect(unless.result(3, 5, [X, 2, 5])).toBe(1);
    expect(unless.write(5, [X, 2, 5])).toBeUndefined();
    expect(unless.result(5, undefined, [X, 2, 5])).toBe(0);
    expect(effect('xchg_relaxed').dataFromRead).toBe(false);
  });

  it('lock, SRCU and fence primitives name their objects and event shapes', () => {
    expect(['spin_lock', 'spin_unlock', 'spin_trylock', 'spin_is_locked'].map((n) => [effect(n).object, effect(n).shape])).toEqual([
      ['spinlock', 'lock'], ['spinlock', 'unlock'], ['spinlock', 'trylock'], ['spinlock', 'is-locked'],
    ]);
    expect([effect('srcu_read_lock').srcu, effect('srcu_read_unlock').srcu, effect('synchronize_srcu').srcu]).toEqual(['srcu-lock', 'srcu-unlock', 'sync-srcu']);
    expect([effect('synchronize_srcu').object, effect('synchronize_srcu').shape]).toEqual(['srcu', 'fence']);
    expect([effect('smp_mb').object, effect('smp_mb').shape, effect('smp_mb').fence]).toEqual(['none', 'fence', 'MB']);
  });

  it('every entry is consistent: only writers write, only failing ones fail, data arguments are value arguments', () => {
    for (const name of primitiveNames()) {
      const info = lookupPrimitive(name);
      if (!info || !('prim' in info)) continue;
      const e = effectOf(info.prim);
      const args = Array.from({ length: info.arity }, (_, i) => i + 1);
      if (!e.writes) expect(e.write(1, args), name).toBeUndefined();
      else if (!e.mayFail) expect(e.write(1, args), name).toBeTypeOf('number');
      for (const i of [...e.dataArgs, ...e.computesWith]) expect(e.valueArgs, name).toContain(i);
      for (const i of e.valueArgs) expect(i, name).toBeLessThan(info.arity);
      expect(e.rmw, name).toBe(e.reads && e.writes && e.object === 'memory');
      expect(e.params, name).toHaveLength(info.arity);
      if (e.rmw) expect(e.computes, name).toMatch(/atomically/);
      else expect(e.computes, name).toBeUndefined();
      if (e.addr === 'lvalue') expect(e.object, name).toBe('memory');
    }
  });
});
