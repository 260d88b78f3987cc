// The load-buffering shortcut (Model.mayCycleThrough) for a compiled
// model: a deadlock of waiting reads whose completion needs a cycle
// "waiting read, later write of its thread, read by another waiting read"
// is dropped when each waiting read is ordered before every write its
// thread may still do (models/lkmm-load-buffering.ts decides that from
// the LKMM's preserved program order). Taken, like the lock order, by a
// compiled model whose enforced checks include the kernel's
// `happens-before` and `coherence`, recognised by digest
// (models/cat/lock-order.ts, ordersCriticalSections); no other model
// declares it.
//
// The proof, for those two checks. Let r1 ->po w1 ->rf r2 ->po w2 ... ->rf
// r1 be the cycle, every ri and wi marked (a plain read is never taken as
// ordered, nor a read with a plain write after it), each ri ->po wi a pair the analysis keeps in order: ri is an
// acquire, a lock's read or a full-barrier RMW that cannot fail (acq-po or
// a strong fence: in ppo), or wi is a release (po-rel), follows a full
// fence (strong-fence), depends on ri by data or address (rwdep), all in
// ppo, or writes ri's location. In that last case wi is coherence-after
// the write ri reads (else wi ->co w ->rf ri ->po-loc wi is a coherence
// cycle), so ri ->fr wi, overwrite & int, in to-w and in ppo. Each
// wi ->rf ri+1 is between threads (ri+1 waits in another thread) and
// between marked accesses: rfe, in hb. So the cycle is a cycle of
// ppo | rfe, inside hb: `happens-before` or `coherence` rejects every
// completion.

import { mayCycleThrough as kernelMayCycleThrough } from '../lkmm-load-buffering.js';
import type { WaitingRead } from '../../src/model/model.js';
import type { CompiledCat } from './compile.js';
import { ordersCriticalSections } from './lock-order.js';

/** The model's Model.mayCycleThrough: the kernel's where its enforced checks include the kernel's hb and coherence. */
export function mayCycleThroughOf(cat: CompiledCat, skipChecks: ReadonlySet<string>): (reads: readonly WaitingRead[]) => boolean {
  return ordersCriticalSections(cat, skipChecks) ? kernelMayCycleThrough : anyCycle;
}

const anyCycle = (): boolean => true;
