// Before the patch: nfsd_stats_io_write_add() (and _read_add) use
// percpu_counter_add(), the default batch: a 4 KB update exceeds it and
// takes the counter's lock.

import type { int } from '../kernel.js';
import type { IoStats } from '../percpu_counter/io.js';
import { percpu_counter_add } from '../percpu_counter/percpu_counter.js';

export function account_io(stats: IoStats, cpu: int, amount: int): void {
  percpu_counter_add(stats.bytes, cpu, amount); // nfsd_stats_io_write_add()
}
