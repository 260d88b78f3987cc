// v4: "relaxed" per-CPU counter helpers for the iostats counters. The seed
// is the cover letter only; the helper is modelled as the percpu_counter
// code it is built on: percpu_counter_add_batch() with a very large batch
// (updates stay per-CPU; interrupts off during the update).

export * from './v3.js';
import type { int } from '../kernel.js';
import type { IoStats } from '../percpu_counter/io.js';
import { INT_MAX, percpu_counter_add_batch } from '../percpu_counter/percpu_counter.js';

/** A batch so large that updates are never folded in practice. */
export const PERCPU_COUNTER_LARGE_BATCH = INT_MAX / 2;

export function account_io(stats: IoStats, cpu: int, amount: int): void {
  percpu_counter_add_batch(stats.bytes, cpu, amount, PERCPU_COUNTER_LARGE_BATCH); // percpu_counter_add_relaxed()
}
