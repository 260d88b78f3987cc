// The LKMM's rcu axiom at a read (Model.forbiddenSources): which sources a
// read may not take, given the execution built so far, because the RCU
// read-side critical section it belongs to would straddle a grace period.
//
// From linux-kernel.cat: rcu-link = po? ; hb* ; pb* ; prop ; po,
// rcu-order contains rcu-rscsi ; rcu-link ; rcu-gp (and rcu-gp ; rcu-link ;
// rcu-rscsi), rcu-fence = po ; rcu-order ; po?, rb = prop ; rcu-fence ; hb* ;
// pb* ; [Marked], and rb must be irreflexive. Take a critical section C of
// thread T (lock L, unlock U, matched as the bell's rcu-rscs), a grace
// period G (synchronize_rcu) of another thread V, and two marked reads a and
// b of T with
//   - a po-before U, reading (rfe) from a write u of V po-after G, or from a
//     write co-after such a u in a third thread (prop = coe ; rfe);
//   - b po-after L, reading a write that a write wb of V, po-before G, comes
//     co-after (prop = fre), every write marked.
// Then L -po-> b -fre-> wb -po-> G is rcu-link (hb* and pb* taken as the
// identity), so U -rscsi-> L -link-> G is rcu-order, a -po-> U ... G -po-> u
// is rcu-fence and u -prop-> a -rcu-fence-> u is rb, reflexive at u: every
// execution with these events and edges is forbidden, whatever else it
// has, since each relation only grows as events and edges are added. (The
// other term, rcu-gp ; rcu-link ; rcu-rscsi, gives the same conditions
// with the cycle through b.) The section is "seen after G" by a and "seen
// before G" by b, the outcome RCU exists to forbid.
//
// At a read r of T, this is decided for the pairs that r is part of (as a
// or as b), over T's events built so far. U may still be to come: a section
// still open at r counts when every path of T's code from r on closes it
// (closesFrom), for then every complete execution of the branch has U, after
// r and so after every event of T built so far. The LKMM decides nothing
// else here: other shapes (chains of grace periods and sections, hb and pb
// between them, SRCU) are left to the prefix checks and the final judgement.

import type { Event } from '../src/events/event.js';
import { effectOf } from '../src/events/primitives.js';
import type { ForbiddenSource, PartialExecution } from '../src/model/model.js';
import type { Instr, Program, Thread } from '../src/program/program.js';

/** The test of Model.forbiddenSources for the LKMM: undefined unless some thread has a read-side section and some thread a grace period. */
export function rcuForbiddenSources(prog: Program): ForbiddenSource | undefined {
  const closes = prog.threads.map(closesFrom);
  const hasGracePeriods = prog.threads.some((th) => th.code.some((ins) => fenceOf(ins) === 'sync-rcu'));
  if (!hasGracePeriods || !closes.some((c) => c !== undefined && c.firstLock >= 0)) return undefined;
  const scan = new PrefixScan();
  return (x, r, w) => {
    const c = closes[r.thread];
    // Before its thread's first rcu_read_lock() a read is in no section, and has none behind it.
    if (c === undefined || c.firstLock < 0 || r.pc < c.firstLock || !markedRead(r)) return false;
    return scan.of(x, r) && sectionStraddles(x, scan, r, w, c.count[r.pc]);
  };
}

/**
 * Per instruction of a thread, how many of the RCU read-side critical
 * sections open there (innermost first) every path from it to the
 * thread's end closes; `firstLock`: where its first rcu_read_lock() is
 * (in loop-free code, no event before it is in program order), or -1. Undefined
 * for code whose effects on sections are not known here (a loop, an
 * access that also makes a read-side fence): then no section counts as
 * closed.
 */
function closesFrom(th: Thread): { count: Int32Array; firstLock: number } | undefined {
  const code = th.code;
  const count = new Int32Array(code.length + 1);
  let firstLock = -1;
  // Loop-free code jumps only forward: each instruction's successors are decided before it.
  for (let pc = code.length - 1; pc >= 0; pc--) {
    const ins = code[pc];
    const next = successors(ins, pc);
    if (next.some((n) => n <= pc || n > code.length)) return undefined;
    const step = sectionStep(ins);
    if (step === undefined) return undefined;
    if (step > 0) firstLock = pc;
    // A path's sections closed: the most its running count of unlocks over locks reaches (an unlock with none open is the bell's unmatched one).
    let least = Infinity;
    for (const n of next) least = Math.min(least, count[n]);
    count[pc] = Math.max(0, least - step);
  }
  return { count, firstLock };
}

/** Where control goes after instruction ins at pc. */
function successors(ins: Instr, pc: number): number[] {
  if (ins.op === 'jump') return [ins.target];
  if (ins.op === 'branch') return [pc + 1, ins.ifFalse];
  return [pc + 1];
}

/** +1 for rcu_read_lock, -1 for rcu_read_unlock, 0 for other instructions; undefined for an access that also makes one of those fences. */
function sectionStep(ins: Instr): number | undefined {
  const f = fenceOf(ins);
  if (f !== 'rcu-lock' && f !== 'rcu-unlock') return 0;
  if (ins.op !== 'prim' || effectOf(ins.prim).object !== 'none') return undefined;
  return f === 'rcu-lock' ? 1 : -1;
}

function fenceOf(ins: Instr): string | undefined {
  return ins.op === 'prim' ? effectOf(ins.prim).fence : undefined;
}

/**
 * What a read's test needs of the execution built so far, gathered in one
 * pass and kept in arrays reused from one read to the next: its thread's
 * sections and earlier marked reads with a source, and the grace periods.
 */
class PrefixScan {
  /** Locks of the sections open at the read, outermost first (program-order indexes). */
  readonly open: number[] = [];
  /** The last unlock that closed a section, or -1. */
  lastUnlock = -1;
  readonly reads: Event[] = [];
  readonly graces: Event[] = [];

  /** Scans x for read r; false when r's thread has no section at all (nothing to test). */
  of(x: PartialExecution, r: Event): boolean {
    const { events } = x;
    const T = r.thread;
    const { open, reads, graces } = this;
    open.length = 0;
    reads.length = 0;
    graces.length = 0;
    this.lastUnlock = -1;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.kind === 'F') {
        if (e.fence === 'sync-rcu' && e.thread !== T) graces.push(e);
        else if (e.thread !== T) continue;
        else if (e.fence === 'rcu-lock') open.push(e.poIndex);
        else if (e.fence === 'rcu-unlock' && open.length > 0) {
          open.pop();
          this.lastUnlock = e.poIndex;
        }
      } else if (e.thread === T && e !== r && e.rf >= 0 && markedRead(e)) reads.push(e);
    }
    return graces.length > 0 && reads.length > 0 && (open.length > 0 || this.lastUnlock >= 0);
  }
}

/**
 * Whether r (its thread's last event) reading w makes a pair a, b of its
 * thread as the header says, with r as one of them. `closing`: how many of
 * the sections open at r every path of r's thread closes.
 */
function sectionStraddles(x: PartialExecution, p: PrefixScan, r: Event, w: Event, closing: number): boolean {
  const k = Math.min(p.open.length, closing);
  // The outermost open section every path closes: its lock, or -1.
  const closedLater = k > 0 ? p.open[p.open.length - k] : -1;
  if (closedLater < 0 && p.lastUnlock < 0) return false;
  // r as b: any section (its lock is before r); a before its unlock.
  const aBefore = closedLater >= 0 ? Infinity : p.lastUnlock;
  if (seenBeforeGrace(x, p, r, w, aBefore)) return true;
  // r as a: a section whose unlock is still to come; b after its lock.
  return closedLater >= 0 && seenAfterGrace(x, p, r, w, closedLater);
}

/**
 * r as b, reading w: some write wb of a thread V co-after w, and an earlier
 * read a of r's thread (po-before aBefore) reading from V after a grace
 * period of V that follows wb.
 */
function seenBeforeGrace(x: PartialExecution, p: PrefixScan, r: Event, w: Event, aBefore: number): boolean {
  const { events } = x;
  const T = r.thread;
  const co = x.co[w.loc];
  const at = co.indexOf(w.id);
  let any = false;
  for (let j = at + 1; j < co.length && !any; j++) any = overwritesFor(events[co[j]], T);
  if (!any) return false;
  for (const a of p.reads) {
    if (a.poIndex >= aBefore) continue;
    const src = events[a.rf];
    if (src.thread < 0 || src.thread === T || !marked(src)) continue;
    for (let j = at + 1; j < co.length; j++) {
      const wb = events[co[j]];
      if (overwritesFor(wb, T) && graceBetweenSeen(x, p, wb, src)) return true;
    }
  }
  return false;
}

/**
 * r as a, reading w: an earlier read b of r's thread, po-after the lock at
 * poIndex `after`, whose source some write wb of a thread V overwrites, wb
 * before a grace period of V that comes before w (or a write w is co-after).
 */
function seenAfterGrace(x: PartialExecution, p: PrefixScan, r: Event, w: Event, after: number): boolean {
  const { events } = x;
  const T = r.thread;
  if (w.thread < 0 || w.thread === T || !marked(w)) return false;
  for (const b of p.reads) {
    if (b.poIndex <= after) continue;
    const co = x.co[b.loc];
    for (let j = co.indexOf(b.rf) + 1; j < co.length; j++) {
      const wb = events[co[j]];
      if (overwritesFor(wb, T) && graceBetweenSeen(x, p, wb, w)) return true;
    }
  }
  return false;
}

/** Whether wb, co-after a read's source, gives that read of thread T an fre edge the rcu-link can use (marked, of another thread). */
function overwritesFor(wb: Event, T: number): boolean {
  return wb.thread >= 0 && wb.thread !== T && marked(wb);
}

/**
 * Whether src, read from (rfe), is u or co-after u by another thread (coe),
 * for a marked write u of wb's thread with a grace period between wb and u
 * in program order.
 */
function graceBetweenSeen(x: PartialExecution, p: PrefixScan, wb: Event, src: Event): boolean {
  const V = wb.thread;
  if (src.thread === V) return src.poIndex > wb.poIndex && graceBetween(p, V, wb.poIndex, src.poIndex);
  const co = x.co[src.loc];
  for (let j = co.indexOf(src.id) - 1; j > 0; j--) {
    const u = x.events[co[j]];
    if (u.thread === V && marked(u) && u.poIndex > wb.poIndex && graceBetween(p, V, wb.poIndex, u.poIndex)) return true;
  }
  return false;
}

/** Whether thread V has a synchronize_rcu() strictly between program-order positions lo and hi (every event of V before hi is built). */
function graceBetween(p: PrefixScan, V: number, lo: number, hi: number): boolean {
  for (const g of p.graces) if (g.thread === V && g.poIndex > lo && g.poIndex < hi) return true;
  return false;
}

/** A marked read of memory: not a lock's or SRCU's own read, whose source the explorer sets at once. */
function markedRead(e: Event): boolean {
  return e.kind === 'R' && !e.lock && !e.srcu && marked(e);
}

/** The bell's Marked, for an access: initial writes, ONCE, acquire, release, fully ordered, RMWs, lock and SRCU events. */
function marked(e: Event): boolean {
  return e.thread < 0 || e.isRmw || e.lock !== undefined || e.srcu !== undefined ||
    e.annot === 'ONCE' || e.annot === 'ACQUIRE' || e.annot === 'RELEASE' || e.annot === 'MB';
}
