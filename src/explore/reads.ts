// Read-from choice: a read takes each write that exists, or waits for one
// still to come (its thread stops); a write is offered to the waiting reads.
// When every thread waits, guesses.ts breaks the deadlock.

import type { Event, LockKind } from '../events/event.js';
import { effectOf } from '../events/primitives.js';
import { mayStillWrite } from './domain.js';
import type { PrimInstr } from '../program/program.js';
import { coherentRead } from './coherence.js';
import { lastSectionBefore, lockForbidsRead, lockStillWaits } from './locks.js';
import { readOrder, takesFirst, WAIT } from './likely.js';
import { owe, prefixConsistent, sourceForbidden } from './prefix.js';
import { advance } from './schedule.js';
import { noInitReadUnmatched } from './guesses.js';
import { eventRecord, newEvent, popEvent, prune, type EventFields, type ExploreState, type ThreadState, type Waiting } from './state.js';

/** A read event of thread t, given each possible source in turn (chooseSource). */
export function read(
  s: ExploreState,
  t: number,
  ts: ThreadState,
  f: EventFields & { kind: 'R' },
  k: (r: Event) => void,
): void {
  const saved = ts.po;
  const r = newEvent(s, t, ts, f);
  // Address 0 (a name the process does not declare) has no initial write in herd7, and a write there is refused:
  // the read waits until the other threads are done, and then whether the execution is dropped or the test
  // refused depends on their writes (breakDeadlock).
  if (r.loc === s.prog.zeroLocation) wait(s, { t, r, k, accept: notInitial, ready: false });
  // An address no variable declares (`a+1`) has no initial write in herd7 either: the read takes a write of
  // the threads, or waits for one; with none in the whole execution, herd7 refuses the test (noInitReadUnmatched).
  else if (r.loc >= s.prog.unnamedFrom) chooseSource(s, t, r, notInitial, k);
  else chooseSource(s, t, r, anyWrite, k);
  popEvent(s, r);
  ts.po = saved;
}

/** A plain read may take any write of its location. */
const anyWrite = (): boolean => true;
const notInitial = (w: Event): boolean => w.thread !== -1;

/**
 * Gives read r each possible source in turn: the writes that exist now;
 * then, if another thread may still write the location, a write to come:
 * the thread waits until a write is offered to it (or, if every thread
 * ends up waiting, until its value is guessed: see breakDeadlock).
 */
export function chooseSource(s: ExploreState, t: number, r: Event, accept: (w: Event) => boolean, k: (r: Event) => void, guessKind?: LockKind): void {
  const loc = r.loc;
  const ids = s.byLoc[loc];
  // The writes r may read: cheap tests first (lock order, coherence at loc).
  const viable: Event[] = [];
  const before = lastSectionBefore(s, r, s.co[loc]);
  for (let i = 0; i < ids.length; i++) {
    const w = s.events[ids[i]];
    if (w.kind !== 'W' || w.id === r.id || !accept(w) || lockStillWaits(s, w)) continue;
    if (lockForbidsRead(s, r, w, before)) {
      prune(s);
      continue;
    }
    r.rf = w.id;
    if (coherentRead(s, r) && !sourceForbidden(s, r, w)) viable.push(w);
    else prune(s);
  }
  const willWait = othersMayWriteFor(s, t, r);
  if (viable.length === 0 && !willWait && r.loc >= s.prog.unnamedFrom && !r.lock) {
    noInitReadUnmatched(s, t, r);
    return;
  }
  // A choice that is the only one left need not be shown to the model now:
  // the next check (or the final one) sees it anyway.
  const forced = viable.length === 1 && !willWait;
  if (s.order) {
    // A search that stops early tries first where a witness is likely (likely.ts).
    const co = s.co[loc];
    for (const i of readOrder(s.order, t, r.pc, viable, willWait, (id) => co.indexOf(id))) {
      if (i !== WAIT) readFrom(s, t, r, viable[i], forced, k);
      else {
        r.rf = -1;
        r.value = 0;
        wait(s, { t, r, k, accept, guessKind, ready: false });
      }
    }
  } else for (const w of viable) readFrom(s, t, r, w, forced, k);
  r.rf = -1;
  r.value = 0;
  if (willWait && !s.order) wait(s, { t, r, k, accept, guessKind, ready: false });
}

/**
 * Read r of thread t takes w, then goes on, unless the model rejects the
 * prefix (not asked when the choice was forced or reads the last write; in a
 * test without loops, asked at the thread's next step that is not a fence:
 * prefix.ts owe).
 */
function readFrom(s: ExploreState, t: number, r: Event, w: Event, forced: boolean, k: (r: Event) => void): void {
  r.rf = w.id;
  r.value = w.value;
  const co = s.co[r.loc];
  // Reading the last write, r (its thread's last event) gains edges only
  // into itself: a model may say that keeps the prefix as it was.
  const latest = s.latestRead && w.id === co[co.length - 1];
  if (forced || w.thread === t || (w.thread < 0 && co.length === 1) || latest) k(r);
  else if (s.dropsAnywhere) owe(s, t, () => k(r));
  else if (prefixConsistent(s)) k(r);
  else prune(s);
}

/** Thread w.t waits at read w.r for a write to come; the others go on. */
export function wait(s: ExploreState, w: Waiting): void {
  s.waiting.push(w);
  advance(s);
  s.waiting.pop();
}

/**
 * Lets each waiting read that write w can satisfy take it (it becomes
 * ready to go on), or not: every subset, each once.
 */
export function offer(s: ExploreState, w: Event, from: number, k: () => void): void {
  for (let i = from; i < s.waiting.length; i++) {
    const b = s.waiting[i];
    const r = b.r;
    if (b.ready || r.lock === 'LKR' || r.loc !== w.loc || r.thread === w.thread || !b.accept(w)) continue;
    if (lockForbidsRead(s, r, w)) continue;
    // Not taking w, r would wait for a write no thread can make any more:
    // the next step would drop that branch (advance, pendingStillPossible),
    // so it is not built.
    const mustTake = s.dropsAnywhere && !mayBeGivenAfter(s, b, w);
    // A search that stops early may let the write pass first (likely.ts).
    const passFirst = !mustTake && s.order !== undefined && !takesFirst(s.order, r.thread, r.pc, w.value);
    if (passFirst) offer(s, w, i + 1, k);
    b.ready = true;
    r.rf = w.id;
    r.value = w.value;
    // The model sees it at the next check, unless it forbids it now.
    if (coherentRead(s, r) && !sourceForbidden(s, r, w)) offer(s, w, i + 1, k);
    else prune(s);
    b.ready = false;
    r.rf = -1;
    r.value = 0;
    if (passFirst) return;
    if (mustTake) {
      prune(s);
      return;
    }
  }
  k();
}

/**
 * Whether a thread other than waiting read b's may still write b's
 * location once write w is made: w's thread from its next instruction on.
 */
function mayBeGivenAfter(s: ExploreState, b: Waiting, w: Event): boolean {
  for (let v = 0; v < s.ts.length; v++) {
    if (v === b.t || s.ts[v].done) continue;
    if (mayStillWrite(s.domain, v, v === w.thread ? s.ts[v].pc + 1 : s.ts[v].pc, b.r.loc)) return true;
  }
  return false;
}

/**
 * Whether a thread other than u may still write a value that read r can
 * take. Inside a critical section, r's section already has its place in
 * its lock's order and every section still to come goes after it: a write
 * that another thread can make only inside such a section is left out
 * where the model orders r before it (Model.lockOrders, as lockForbidsRead
 * does when the write is offered).
 */
function othersMayWriteFor(s: ExploreState, u: number, r: Event): boolean {
  if (!r.held) return othersMayWrite(s, u, r.loc);
  for (let v = 0; v < s.ts.length; v++) {
    if (v === u || s.ts[v].done || !mayStillWrite(s.domain, v, s.ts[v].pc, r.loc)) continue;
    let excluded = false;
    for (let i = 0; i < r.held.length && !excluded; i++) excluded = onlyInSectionsAfter(s, v, s.events[r.held[i]].loc, r);
    if (!excluded) return true;
  }
  return false;
}

/**
 * Whether thread v writes r's location, from where it stands, only inside
 * critical sections of lock L, each ordered after r by the model.
 */
function onlyInSectionsAfter(s: ExploreState, v: number, L: number, r: Event): boolean {
  const pc = s.ts[v].pc;
  const guard = s.domain.lockGuards[v].get(L);
  if (!guard || guard.outside[pc].has(r.loc)) return false;
  for (const wpc of guard.inside[pc]) {
    if (s.domain.addresses[v][wpc].has(r.loc) && !s.model.lockOrders(r, writeOf(s, v, wpc, r.loc), s.prog)) return false;
  }
  return true;
}

/** The write event instruction wpc of thread v would make at loc, as far as known before it runs (no value, no dependencies). */
function writeOf(s: ExploreState, v: number, wpc: number, loc: number): Event {
  const key = (wpc * s.prog.threads.length + v) * s.prog.locations.length + loc;
  const known = s.writeProbes.get(key);
  if (known) return known;
  const ins = s.prog.threads[v].code[wpc] as PrimInstr;
  const e = effectOf(ins.prim);
  const w = eventRecord(-1, v, -1, wpc, 0n, undefined, { kind: 'W', loc, value: 0, annot: e.annot, fence: undefined, lock: undefined, srcu: e.srcu, isRmw: e.rmw, ins });
  s.writeProbes.set(key, w);
  return w;
}

/** Whether a thread other than u may still write loc (the value, if given) from where it stands. */
export function othersMayWrite(s: ExploreState, u: number, loc: number, value?: number): boolean {
  for (let v = 0; v < s.ts.length; v++) {
    if (v === u || s.ts[v].done) continue;
    if (!mayStillWrite(s.domain, v, s.ts[v].pc, loc)) continue;
    if (value === undefined || s.domain.mayWrite[v].get(loc)?.has(value)) return true;
  }
  return false;
}
