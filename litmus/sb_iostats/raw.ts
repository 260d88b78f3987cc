// Not a posted version: a "relaxed" update that is NOT irq-safe, as
// __this_cpu_add()/raw_cpu_add() are on architectures without a single
// add-to-memory instruction: a load, an add and a store, with interrupts
// enabled in between. It shows what the irq-safety of the helper is for.

export * from './v3.js';
import { READ_ONCE, WRITE_ONCE, irq_window, type int } from '../kernel.js';
import type { IoStats } from '../percpu_counter/io.js';

export function account_io(stats: IoStats, cpu: int, amount: int): void {
  const delta = READ_ONCE(stats.bytes.counters[cpu]);
  irq_window(); // an interrupt may run here, on this CPU
  WRITE_ONCE(stats.bytes.counters[cpu], delta + amount);
}
