// The claims of the per-CPU counter patches, as scenarios. `exists` is the
// bad outcome, so Never means the claim holds in that scenario.

import { READ_ONCE, interrupted, scenario, smp_load_acquire, smp_store_release } from '../kernel.js';
import { account_io, type IoStats } from './io.js';
import { percpu_counter_batch, percpu_counter_read, percpu_counter_sum, percpu_counter_sum_positive } from './percpu_counter.js';

/** A 4 KB WRITE: above percpu_counter_batch, so the default batch folds it at once. */
const IO = 4096;

/** An I/O on CPU `cpu`: account its bytes, then complete it. */
function io(stats: IoStats, cpu: number): void {
  account_io(stats, cpu, IO);
  smp_store_release(stats.done[cpu], 1);
}

export const sum_after_io = scenario({
  name: 'sum-after-io',
  says: 'A reader that has seen an I/O complete (acquire) and then calls percpu_counter_sum_positive() counts its bytes.',
  threads: [
    (s: IoStats) => io(s, 0),
    (s: IoStats) => {
      const done = smp_load_acquire(s.done[0]);
      const sum = percpu_counter_sum_positive(s.bytes);
      return { done, sum };
    },
  ],
  exists: ([, p1]) => p1.done === 1 && p1.sum !== IO,
});

export const sum_after_two = scenario({
  name: 'sum-after-two',
  says: 'I/Os on two CPUs, a third reader that has seen both complete: the sum counts both.',
  threads: [
    (s: IoStats) => io(s, 0),
    (s: IoStats) => io(s, 1),
    (s: IoStats) => {
      const done0 = smp_load_acquire(s.done[0]);
      const done1 = smp_load_acquire(s.done[1]);
      const sum = percpu_counter_sum(s.bytes);
      return { done0, done1, sum };
    },
  ],
  exists: ([, , p2]) => p2.done0 === 1 && p2.done1 === 1 && p2.sum !== 2 * IO,
});

export const sum_unordered = scenario({
  name: 'sum-unordered',
  says: 'A reader that learned of the completion with a plain READ_ONCE() (no acquire): does the sum\'s lock still make it count the bytes?',
  threads: [
    (s: IoStats) => io(s, 0),
    (s: IoStats) => {
      const done = READ_ONCE(s.done[0]);
      const sum = percpu_counter_sum(s.bytes);
      return { done, sum };
    },
  ],
  exists: ([, p1]) => p1.done === 1 && p1.sum !== IO,
});

export const read_error = scenario({
  name: 'read-error',
  says: 'percpu_counter_read() after the I/O completed is off by less than percpu_counter_batch per CPU (the bound its users assume).',
  threads: [
    (s: IoStats) => io(s, 0),
    (s: IoStats) => {
      const done = smp_load_acquire(s.done[0]);
      const read = percpu_counter_read(s.bytes);
      // Off by more than (batch - 1) on each of the two CPUs?
      return { done, beyond: IO - read > 2 * (percpu_counter_batch - 1) ? 1 : 0 };
    },
  ],
  exists: ([, p1]) => p1.done === 1 && p1.beyond === 1,
});

export const irq_same_cpu = scenario({
  name: 'irq-same-cpu',
  says: 'An update interrupted on its own CPU by another update of the same counter (a softirq completing I/O): no count is lost.',
  threads: [
    (s: IoStats) => {
      interrupted(() => account_io(s, 0, IO), () => account_io(s, 0, IO));
      return { total: percpu_counter_sum(s.bytes) };
    },
  ],
  exists: ([p0]) => p0.total !== 2 * IO,
});
