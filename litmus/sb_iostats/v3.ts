// Generic per-sb I/O stats, v3: the counters are updated with
// percpu_counter_add() (the default batch).

import type { int } from '../kernel.js';
import type { IoStats } from '../percpu_counter/io.js';
import { percpu_counter_add } from '../percpu_counter/percpu_counter.js';

export function account_io(stats: IoStats, cpu: int, amount: int): void {
  percpu_counter_add(stats.bytes, cpu, amount);
}
