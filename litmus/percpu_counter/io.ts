// What the per-CPU counter suites share: the state (one byte counter and the
// flags that say an I/O has completed) and the accounting call each version
// defines (calls resolve in the version being checked).

import type { Ref, int } from '../kernel.js';
import { percpu_counter_add, type PercpuCounter } from './percpu_counter.js';

export interface IoStats {
  /** The byte counter (e.g. nn->counter[NFSD_STATS_IO_WRITE], or a per-sb iostats counter). */
  bytes: PercpuCounter;
  /** done[cpu] = 1: the I/O accounted on that CPU has completed (e.g. the reply was sent). */
  done: [Ref, Ref];
}

/** Accounts `amount` bytes on CPU `cpu`. Each version of a suite redefines it. */
export function account_io(stats: IoStats, cpu: int, amount: int): void {
  percpu_counter_add(stats.bytes, cpu, amount);
}
