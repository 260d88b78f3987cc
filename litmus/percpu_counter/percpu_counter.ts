// struct percpu_counter (lib/percpu_counter.c, include/linux/percpu_counter.h)
// on two CPUs: the global count under the counter's lock, a per-CPU delta
// for each CPU, updates that fold the delta into the count once it reaches
// the batch, and _sum() that adds everything up under the lock.
//
// A CPU's delta is written only by that CPU (and only with interrupts off
// or by one irq-safe instruction), so a per-CPU update is its own CPU's
// read then write; other CPUs only read it. The model uses READ_ONCE and
// WRITE_ONCE for these accesses, as an irq-safe this_cpu op or a plain
// access the compiler does not tear would behave; the raw spinlock is a
// spinlock.

import { READ_ONCE, WRITE_ONCE, spin_lock, spin_unlock, type int, type Ref, type spinlock_t } from '../kernel.js';

export interface PercpuCounter {
  lock: spinlock_t;
  /** fbc->count: the folded total. */
  count: Ref;
  /** *per_cpu_ptr(fbc->counters, cpu) for CPU 0 and CPU 1: a tuple, so the C array int counters[2]. */
  counters: [Ref, Ref];
}

/** percpu_counter_batch: max(32, 2 * nr_cpu_ids). */
export const percpu_counter_batch = 32;
export const INT_MAX = 2147483647;

/**
 * percpu_counter_add_batch() on CPU `cpu`: local_irq_save() keeps interrupts
 * off throughout, so nothing else runs on this CPU in between.
 */
export function percpu_counter_add_batch(fbc: PercpuCounter, cpu: int, amount: int, batch: int): void {
  const delta = READ_ONCE(fbc.counters[cpu]); // __this_cpu_read(*fbc->counters)
  const count = delta + amount;
  if (count >= batch || -count >= batch) {
    spin_lock(fbc.lock);
    WRITE_ONCE(fbc.count, READ_ONCE(fbc.count) + count); // fbc->count += count
    // __this_cpu_sub(*fbc->counters, count - amount) leaves delta - delta = 0:
    // interrupts are off and no other CPU writes this delta, so it still
    // holds what was read. Written as 0 so that litmus's value analysis,
    // which does not relate delta and count, stays small.
    WRITE_ONCE(fbc.counters[cpu], 0);
    spin_unlock(fbc.lock);
  } else {
    WRITE_ONCE(fbc.counters[cpu], count); // this_cpu_add(*fbc->counters, amount)
  }
}

/** percpu_counter_add(): the default batch. */
export function percpu_counter_add(fbc: PercpuCounter, cpu: int, amount: int): void {
  percpu_counter_add_batch(fbc, cpu, amount, percpu_counter_batch);
}

/** percpu_counter_add_local(): batch INT_MAX, so the update stays on this CPU. */
export function percpu_counter_add_local(fbc: PercpuCounter, cpu: int, amount: int): void {
  percpu_counter_add_batch(fbc, cpu, amount, INT_MAX);
}

/** __percpu_counter_sum(): the count plus every CPU's delta, under the lock. */
export function percpu_counter_sum(fbc: PercpuCounter): int {
  spin_lock(fbc.lock);
  let ret = READ_ONCE(fbc.count);
  ret += READ_ONCE(fbc.counters[0]);
  ret += READ_ONCE(fbc.counters[1]);
  spin_unlock(fbc.lock);
  return ret;
}

export function percpu_counter_sum_positive(fbc: PercpuCounter): int {
  const ret = percpu_counter_sum(fbc);
  return ret < 0 ? 0 : ret;
}

/** percpu_counter_read(): the folded count alone, no lock. */
export function percpu_counter_read(fbc: PercpuCounter): int {
  return READ_ONCE(fbc.count);
}
