// Locks: spin_lock (an LKR/LKW pair), spin_unlock (UL), the failed trylock
// (LF) and spin_is_locked (RL/RU) reads, and the order a lock imposes on the
// accesses of its critical sections (Model.lockOrders).

import type { Event, LockKind } from '../events/event.js';
import type { Instr, PrimInstr } from '../program/program.js';
import { effectOf } from '../events/primitives.js';
import { coherentAppend, coherentRead } from './coherence.js';
import { matchPending } from './guesses.js';
import { chooseSource, offer, othersMayWrite, wait } from './reads.js';
import { newEvent, popEvent, prune, type ExploreState, type ThreadState } from './state.js';

/**
 * spin_lock: an LKR/LKW pair. The lock's place in the order of critical
 * sections is decided by the LKR's source, the unlock (or initial write)
 * that it follows in coherence order: the one last in that order now, or
 * an unlock yet to come (then the pair waits, like a guessed read, and is
 * attached when that unlock is last). Critical sections thus join the
 * coherence order only at its end, each exactly once.
 */
export function lock(s: ExploreState, t: number, ts: ThreadState, loc: number, addrDeps: bigint, ins: Instr, k: (lkr: Event) => void): void {
  // A lock taken again inside its own critical section deadlocks: where liveness is judged, a spin_lock() waits
  // there forever (liveness.ts); a spin_trylock() fails instead (its other branch).
  const spins = s.liveness && effectOf((ins as PrimInstr).prim).shape === 'lock';
  const nested = openLockWrite(s, t, loc, s.events.length) >= 0;
  if (nested && !spins) {
    prune(s);
    return;
  }
  const saved = ts.po;
  const lkr = newEvent(s, t, ts, { kind: 'R', loc, value: 0, annot: 'ACQUIRE', lock: 'LKR', addrDeps, ins });
  const lkw = newEvent(s, t, ts, { kind: 'W', loc, value: 1, annot: 'ONCE', lock: 'LKW', addrDeps, ins });
  lkr.rmwPartner = lkw.id;
  lkw.rmwPartner = lkr.id;
  const go = () =>
    matchPending(s, lkw, 0, () =>
      offer(s, lkw, 0, () => {
        const held = s.open[t];
        s.open[t] = [...held, lkw.id];
        k(lkr);
        s.open[t] = held;
      }),
    );
  const list = s.co[loc];
  const last = s.events[list[list.length - 1]];
  if (!nested && (last.thread === -1 || last.lock === 'UL')) {
    lkr.rf = last.id;
    list.push(lkw.id);
    if (coherentAppend(s, lkw, lkr)) go();
    else prune(s);
    list.pop();
    lkr.rf = -1;
  }
  // Or wait until an unlock of another thread is last (attach); where liveness is judged, also for a lock
  // held now that no unlock may release (the thread then waits forever: liveness.ts).
  if (nested) wait(s, { t, r: lkr, k: () => prune(s), accept: () => false, ready: false });
  else if (othersMayWrite(s, t, loc) || (spins && last.lock === 'LKW')) wait(s, { t, r: lkr, k: () => go(), accept: () => false, ready: false });
  popEvent(s, lkw);
  popEvent(s, lkr);
  ts.po = saved;
}

export function unlock(s: ExploreState, t: number, ts: ThreadState, loc: number, addrDeps: bigint, ins: Instr, k: () => void): void {
  const saved = ts.po;
  const ul = newEvent(s, t, ts, { kind: 'W', loc, value: 0, annot: 'RELEASE', lock: 'UL', addrDeps, ins });
  const lkw = openLockWrite(s, t, loc, ul.id);
  const list = s.co[loc];
  const go = () =>
    matchPending(s, ul, 0, () =>
      offer(s, ul, 0, () => {
        const held = s.open[t];
        if (held.includes(lkw)) s.open[t] = held.filter((id) => id !== lkw);
        k();
        s.open[t] = held;
      }),
    );
  if (lkw >= 0 && list[list.length - 1] === lkw) {
    list.push(ul.id);
    if (coherentAppend(s, ul)) attach(s, loc, go);
    else prune(s);
    list.pop();
  } else {
    // The critical section waits to be attached (or the unlock matches no lock).
    go();
  }
  popEvent(s, ul);
  ts.po = saved;
}

/**
 * The last write of loc's coherence order is an unlock: either no waiting
 * lock follows it now, or one does (its thread is then ready to go on).
 */
function attach(s: ExploreState, loc: number, k: () => void): void {
  k();
  const list = s.co[loc];
  const last = s.events[list[list.length - 1]];
  for (const b of s.waiting) {
    const lkr = b.r;
    if (b.ready || lkr.lock !== 'LKR' || lkr.loc !== loc) continue;
    b.ready = true;
    lkr.rf = last.id;
    list.push(lkr.rmwPartner);
    if (coherentAppend(s, s.events[lkr.rmwPartner], lkr)) k(); // the model sees the new order at the next check
    else prune(s);
    list.pop();
    lkr.rf = -1;
    b.ready = false;
  }
}

/** LF (failed trylock), RL (is_locked true) and RU (is_locked false) reads. */
export function lockRead(s: ExploreState, t: number, ts: ThreadState, loc: number, addrDeps: bigint, ins: Instr, kind: LockKind, k: (r: Event) => void): void {
  const open = openLockWrite(s, t, loc, s.events.length);
  if (kind === 'RU' && open >= 0) {
    prune(s); // is_locked() inside its own critical section is true
    return;
  }
  const saved = ts.po;
  const r = newEvent(s, t, ts, { kind: 'R', loc, value: 0, annot: 'ONCE', lock: kind, addrDeps, ins });
  if (open >= 0) {
    // Inside its own critical section: reads its own lock write.
    r.rf = open;
    r.value = 1;
    if (coherentRead(s, r)) k(r);
    r.rf = -1;
  } else if (kind === 'RU') {
    const lastOwnUL = lastOwnUnlock(s, t, loc, r.id);
    // Address 0 (a name the process does not declare) has no initial write in herd7: nothing to read there.
    const noInit = loc === s.prog.zeroLocation;
    chooseSource(s, t, r, (w) => !(noInit && w.thread === -1) && lockReadMayTake('RU', w, t, lastOwnUL), k, 'UL');
  } else {
    chooseSource(s, t, r, (w) => lockReadMayTake(kind, w, t, -1), k, 'LKW');
  }
  popEvent(s, r);
  ts.po = saved;
}

/**
 * Whether w is the write of a spin_lock() whose thread still waits at it:
 * for its place in the lock's order, or placed (attach) but not yet gone
 * on. No read takes it then: one that would waits instead, and is offered
 * it when the lock's thread goes on (lock, `go`); taking it now as well
 * would build that execution twice (and, where the lock is never placed,
 * one that is dropped).
 */
export function lockStillWaits(s: ExploreState, w: Event): boolean {
  if (w.lock !== 'LKW') return false;
  for (const b of s.waiting) if (b.r.id === w.rmwPartner) return true;
  return false;
}

/**
 * The writes a lock read of thread t outside its own critical sections is
 * built reading (lock.cat's rules): a failed trylock or a true
 * spin_is_locked() another thread's lock write; a false spin_is_locked()
 * the initial value, another thread's unlock, or its own last unlock
 * (`lastOwnUL`). Inside its own critical section a lock read reads that
 * section's lock write. A model read from files that offers other sources
 * is refused (models/cat/evaluate.ts).
 */
export function lockReadMayTake(kind: LockKind, w: Pick<Event, 'thread' | 'lock' | 'id'>, t: number, lastOwnUL: number): boolean {
  if (kind === 'RU') return w.thread === -1 || (w.lock === 'UL' && (w.thread !== t || w.id === lastOwnUL));
  return w.lock === 'LKW' && w.thread !== t;
}

/** Thread t's last unlock of loc before event `before`, or -1. */
function lastOwnUnlock(s: ExploreState, t: number, loc: number, before: number): number {
  const ids = s.byLoc[loc];
  for (let i = ids.length - 1; i >= 0; i--) {
    const e = s.events[ids[i]];
    if (e.id < before && e.thread === t && e.lock === 'UL') return e.id;
  }
  return -1;
}

/** The lock write of thread t at loc not yet closed by an unlock (before event `before`), or -1. */
function openLockWrite(s: ExploreState, t: number, loc: number, before: number): number {
  const ids = s.byLoc[loc];
  for (let i = ids.length - 1; i >= 0; i--) {
    const e = s.events[ids[i]];
    if (e.id >= before || e.thread !== t) continue;
    if (e.lock === 'UL') return -1;
    if (e.lock === 'LKW') return e.id;
  }
  return -1;
}

// ---------------------------------------------------- mutual exclusion

/**
 * Whether a's critical section comes before b's in the order of a lock
 * both hold, and the model orders a before b then (Model.lockOrders).
 */
function lockOrdered(s: ExploreState, a: Event, b: Event): boolean {
  const aHeld = a.held;
  const bHeld = b.held;
  if (!aHeld || !bHeld || !s.model.lockOrders(a, b, s.prog)) return false;
  for (const la of aHeld) {
    for (const lb of bHeld) {
      if (la === lb) continue;
      const loc = s.events[la].loc;
      if (s.events[lb].loc !== loc) continue;
      if (precedes(s.co[loc], la, lb)) return true;
    }
  }
  return false;
}

/** Whether x and y are both in list, x first (one pass, stopping at the first of them). */
function precedes(list: readonly number[], x: number, y: number): boolean {
  for (let i = 0; i < list.length; i++) {
    if (list[i] === y) return false;
    if (list[i] === x) {
      for (let j = i + 1; j < list.length; j++) if (list[j] === y) return true;
      return false;
    }
  }
  return false;
}

/**
 * The last position in coherence list `list` (of e's location) of a write
 * whose critical section comes before e's (lockOrdered), or -1: e may read
 * no write before it, and a write e goes only after it.
 */
export function lastSectionBefore(s: ExploreState, e: Event, list: readonly number[]): number {
  if (!e.held) return -1;
  // (Decremented before the first test: the decrement is then known to V8
  // when it optimizes this, though the search rarely looks past the last.)
  for (let i = list.length; i-- > 0; ) if (lockOrdered(s, s.events[list[i]], e)) return i;
  return -1;
}

/**
 * Read r may not take w: w is in a later critical section, or an earlier
 * one wrote over w. `before` is lastSectionBefore(r), if already known.
 */
export function lockForbidsRead(s: ExploreState, r: Event, w: Event, before = lastSectionBefore(s, r, s.co[r.loc])): boolean {
  if (!r.held) return false;
  if (lockOrdered(s, r, w)) return true;
  const at = s.co[r.loc].indexOf(w.id);
  return at >= 0 && at < before;
}
