// The lock-order shortcut (Model.lockOrders) for a compiled model: the
// marked accesses of a lock's critical sections are ordered by the order
// of the sections. Proved below for the kernel's definitions of the
// checks `happens-before` and `coherence` (linux-kernel.cat with its .bell
// and lock.cat, as litmus's library files complete them), and taken by a
// compiled model whose enforced checks include those two, recognised by
// digest (models/cat/digest.ts: the checks' relations with every name
// replaced by its definition, down to herd's base names). A model that
// changes anything those checks rest on (lock.cat's reads of a lock, the
// bell's Marked, ppo, prop, ...) has other digests and no shortcut; one
// that changes only other checks (rcu, plain-coherence, a flag) keeps it.
//
// The proof. Sections S1 before S2 in the order of lock L, a marked access
// in S1 and b one in S2, of one location. Between them the sections
// T0 = S1, T1, ..., Tk = S2 follow each other in L's coherence order, and
// lock.cat's rf gives each LKR the write just before its LKW: UL(Ti) rf
// LKR(Ti+1). Sections of one thread are in program order (else L's
// po-loc and co make a coherence cycle).
//   1. a ->hb+ b. From a, go to the last section of a's thread before S2:
//      a ->po-rel its UL (fence & int, in ppo: UL is Release); that UL
//      ->rfe the next section's LKR, in another thread; from there
//      ->acq-po (LKR is Acquire) the UL of that thread's last section
//      before S2, and so on; into S2, LKR(S2) ->acq-po b. If S2 is in a's
//      thread, a ->po-unlock-lock-po b, which is in ppo. Every event on the
//      way is Marked (UL, LKR, and a and b), so every step is in hb.
//   2. a reads from b (b a write): between threads that is rfe, in hb,
//      and b ->hb a closes a cycle with 1; in one thread (a before b in
//      program order) it is po-loc ; rf, a coherence cycle.
//   3. b reads a write coherence-before a, or b is a write coherence-before
//      a: b ->fr a or b ->co a (overwrite). In one thread that is
//      overwrite & int, in to-w, in ppo: with 1, an hb cycle. Between
//      threads it is overwrite & ext, which begins a prop: a ->po-rel UL
//      is A-cumul(po-rel), and each later step UL ->rfe LKR ->po-rel UL
//      is A-cumul(po-rel) too (cumul-fence), up to the first rfe into b's
//      thread, to an LKR before b, where prop ends. So b ->prop that LKR,
//      in b's thread and not b: (prop \ id) & int, in hb; and the LKR
//      ->acq-po b: an hb cycle.
// Either way the execution breaks `happens-before` or `coherence`. Plain
// accesses are left to the final judgement (as the built-in model does:
// models/lkmm.ts, whose shortcut this is).

import type { Event } from '../../src/events/event.js';
import { lockOrdersMarked } from '../lkmm.js';
import type { CompiledCat } from './compile.js';
import { checkDigests } from './digest.js';

/**
 * The digests (checkDigests) of the kernel's `happens-before` and
 * `coherence` checks, as litmus compiles linux-kernel.cat, .bell and
 * lock.cat with the variant lkmmv2 (test/cat.test.ts recomputes them from
 * the kernel's files, where present).
 */
export const KERNEL_LOCK_ORDER_CHECKS: readonly string[] = [
  '214a9110416f84b10158f84a86793aa72eefab11d27ffe17dd7c6a7711cd8823', // happens-before
  'af9e1fbcf1e221b0933c000ccbfb7c3cd8d61c343bde70d2c5bf292f99fde134', // coherence
];

/**
 * The model's Model.lockOrders: the kernel's (marked accesses ordered) when
 * its enforced checks include the kernel's happens-before and coherence,
 * none otherwise. `skipChecks`: the checks herd's -skipchecks leaves out.
 */
export function lockOrdersOf(cat: CompiledCat, skipChecks: ReadonlySet<string>): (a: Event, b: Event) => boolean {
  return ordersCriticalSections(cat, skipChecks) ? lockOrdersMarked : noLockOrder;
}

const noLockOrder = (): boolean => false;

/** Whether the model enforces checks with the digests of the kernel's happens-before and coherence. */
export function ordersCriticalSections(cat: CompiledCat, skipChecks: ReadonlySet<string>): boolean {
  const enforced = new Set<string>();
  for (const [i, digest] of checkDigests(cat)) {
    const ins = cat.instrs[i].instr;
    if (ins.kind === 'test' && !(ins.name !== undefined && skipChecks.has(ins.name))) enforced.add(digest);
  }
  return KERNEL_LOCK_ORDER_CHECKS.every((d) => enforced.has(d));
}
