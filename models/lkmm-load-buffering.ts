// The LKMM's pruning of load-buffering cycles (Model.mayCycleThrough): can
// a waiting read take part in one?
//
// When every unfinished thread waits on a read whose write is still to come,
// each of those writes is program-order after some waiting read: the
// completion needs a cycle of "waiting read, later write of its thread, read
// from by another waiting read". A model that keeps every such read-to-write
// pair in order (and sees rf between marked accesses) forbids the cycle, so
// such a deadlock has no consistent completion and need not be guessed out.
//
// This file decides, conservatively and per the LKMM's preserved program
// order, whether a read is ordered before every write its thread may still
// do: each later write is marked (hb links marked accesses only: a plain
// write's rf is no rfe of hb, so a plain write after even an acquire
// leaves the cycle open), and the read is an acquire (or a lock, or a
// full-barrier RMW that always succeeds), or the write is a release (an
// unlock too, not a lock's write), follows a full fence, writes the read's
// location, or depends (data, address) on the read on every path.

import type { FenceKind } from '../src/events/event.js';
import { effectOf, type Effect } from '../src/events/primitives.js';
import type { WaitingRead } from '../src/model/model.js';
import type { PureExpr, Thread } from '../src/program/program.js';
import { evalPure, pureRegs } from '../src/program/program.js';

/**
 * Whether a load-buffering cycle may go through these waiting reads: not
 * if each of them is ordered before every write its thread may still do.
 */
export function mayCycleThrough(reads: readonly WaitingRead[]): boolean {
  return !reads.every(orderedBeforeItsLaterWrites);
}

/**
 * The answers for each thread, by the read's place and location: the
 * analysis reads only the program, and the explorer asks again at every
 * deadlock it meets.
 */
const answers = new WeakMap<Thread, Map<number, boolean>>();

function orderedBeforeItsLaterWrites(w: WaitingRead): boolean {
  // pc and location identify the read (its annotation and primitive are the instruction's).
  if (w.read.loc + 1 >= 0x10000) return analyse(w);
  const key = w.pc * 0x10000 + (w.read.loc + 1);
  let known = answers.get(w.thread);
  if (!known) answers.set(w.thread, (known = new Map()));
  let answer = known.get(key);
  if (answer === undefined) known.set(key, (answer = analyse(w)));
  return answer;
}

function analyse(w: WaitingRead): boolean {
  const { read: r, thread, pc, ins } = w;
  if (r.annot === 'PLAIN') return false;
  const e = effectOf(ins.prim);
  // A read that may belong to a failed RMW (cmpxchg, add_unless) may
  // order nothing: the bell's Acquire and Mb leave out FailedRMW.
  const strong = r.lock === 'LKR' || (!e.mayFail && (r.annot === 'ACQUIRE' || (r.annot === 'MB' && e.rmw)));
  // An exchange's own write does not depend on its read.
  if (!strong && e.rmw && !e.dataFromRead) return false;
  return orderedBeforeLaterWrites(thread, pc, ins.dst, strong, w.address);
}

interface Must {
  /** Registers that hold a value computed from the read, on every path. */
  tainted: Set<number>;
  /** Every path passed a full fence. */
  ordered: boolean;
}

const FULL_FENCES: ReadonlySet<string> = new Set<FenceKind>(['MB', 'sync-rcu']);

function uses(e: PureExpr, regs: Set<number>): boolean {
  return pureRegs(e).some((r) => regs.has(r));
}

/**
 * Whether a write is ordered after everything before it (a release, a
 * full-barrier RMW, an unlock: lock.cat's UL is Release). Not the write of
 * spin_lock() or spin_trylock(): its LKR is an acquire, ordering what
 * follows, and nothing orders an earlier read before the pair (herd7 7.58
 * allows a load-buffering cycle through a read, the thread's later lock
 * and another thread's failed trylock or spin_is_locked() of it).
 */
function selfOrdered(e: Effect): boolean {
  return (e.object === 'spinlock' && e.shape === 'unlock') || e.annot === 'RELEASE' || e.annot === 'MB';
}

/** A full barrier: smp_mb(), synchronize_rcu(), or an RMW that always succeeds with one. */
function fullBarrier(e: Effect): boolean {
  return (e.shape === 'fence' && e.fence !== undefined && FULL_FENCES.has(e.fence)) || (e.rmw && !e.mayFail && e.annot === 'MB');
}

/**
 * Whether the read at `pc` of `th` (result in register `dst`; `strong` when
 * it is an acquire, a lock, or a full-barrier RMW that always succeeds) comes
 * before every write the thread may do after it, under the LKMM's ppo.
 */
function orderedBeforeLaterWrites(th: Thread, pc: number, dst: number, strong: boolean, readAddress: number): boolean {
  const params = new Set(th.paramRegs);
  // A write to the read's own location, later in program order, is always
  // after it (coherence puts it co-after the read's source: fr & int).
  const sameLocation = (e: PureExpr): boolean => {
    const regs = pureRegs(e);
    if (!regs.every((r) => params.has(r))) return false;
    return evalPure(e, th.initRegs) === readAddress;
  };
  const code = th.code;
  const n = code.length;
  const states: (Must | undefined)[] = new Array(n + 1);
  const start: Must = { tainted: new Set(dst >= 0 ? [dst] : []), ordered: false };
  const work: number[] = [];
  const meet = (at: number, m: Must) => {
    if (at > n) return;
    const cur = states[at];
    if (!cur) {
      states[at] = { tainted: new Set(m.tainted), ordered: m.ordered };
      work.push(at);
      return;
    }
    let changed = false;
    for (const r of [...cur.tainted]) {
      if (!m.tainted.has(r)) {
        cur.tainted.delete(r);
        changed = true;
      }
    }
    if (cur.ordered && !m.ordered) {
      cur.ordered = false;
      changed = true;
    }
    if (changed) work.push(at);
  };
  meet(pc + 1, start);
  let steps = 0;
  while (work.length > 0) {
    if (++steps > 20000) return false;
    const at = work.pop()!;
    if (at >= n) continue;
    const m = states[at]!;
    const ins = code[at];
    const out: Must = { tainted: new Set(m.tainted), ordered: m.ordered };
    switch (ins.op) {
      case 'set':
        if (uses(ins.e, m.tainted)) out.tainted.add(ins.dst);
        else out.tainted.delete(ins.dst);
        meet(at + 1, out);
        break;
      case 'jump':
        meet(ins.target, out);
        break;
      case 'branch':
        // A control dependency reaches only the branches' events; not
        // tracking its extent, the analysis does not count on it.
        meet(at + 1, out);
        meet(ins.ifFalse, out);
        break;
      case 'ctrlpush':
      case 'ctrlpop':
        meet(at + 1, out);
        break;
      case 'loopcheck':
      case 'bound':
      case 'head':
        meet(at + 1, out);
        break;
      case 'prim': {
        const e = effectOf(ins.prim);
        if (e.writes) {
          // A plain write is outside hb whatever orders it: the cycle stays open.
          if (e.annot === 'PLAIN') return false;
          if (!strong) {
            const dep = uses(ins.addr, m.tainted) || e.dataArgs.some((i) => uses(ins.args[i], m.tainted));
            if (!(m.ordered || dep || selfOrdered(e) || sameLocation(ins.addr))) return false;
          }
        }
        if (fullBarrier(e)) out.ordered = true;
        if (ins.dst >= 0) out.tainted.delete(ins.dst);
        meet(at + 1, out);
        break;
      }
    }
  }
  return true;
}
