// "NFSD: Eliminate percpu counter contention in IO byte accounting":
// percpu_counter_add_local(), batch INT_MAX, so updates stay per-CPU.

export * from './pre.js';
import type { int } from '../kernel.js';
import type { IoStats } from '../percpu_counter/io.js';
import { percpu_counter_add_local } from '../percpu_counter/percpu_counter.js';

export function account_io(stats: IoStats, cpu: int, amount: int): void {
  percpu_counter_add_local(stats.bytes, cpu, amount); // nfsd_stats_io_write_add()
}
