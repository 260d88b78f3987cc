// Writes: a write takes each place in its location's coherence order (not
// inside a critical section's lock/unlock pair), then is matched against the
// guessed reads and offered to the waiting ones.

import type { Event } from '../events/event.js';
import { coherentAppend, coherentAt } from './coherence.js';
import { matchPending } from './guesses.js';
import { lastSectionBefore } from './locks.js';
import { lastFirst } from './likely.js';
import { prefixConsistent } from './prefix.js';
import { offer } from './reads.js';
import { breaksStuckWait } from './liveness.js';
import { insertAt, newEvent, popEvent, prune, removeAt, type EventFields, type ExploreState, type ThreadState } from './state.js';

/** A write event of thread t (the second half of an RMW if `partner` is its read), in each place it may take. */
export function write(
  s: ExploreState,
  t: number,
  ts: ThreadState,
  f: EventFields & { kind: 'W' },
  k: (w: Event) => void,
  partner?: Event,
): void {
  const saved = ts.po;
  const w = newEvent(s, t, ts, f);
  if (partner && !f.ins) {
    w.pos = partner.pos;
    w.text = partner.text;
  }
  if (partner) {
    partner.rmwPartner = w.id;
    w.rmwPartner = partner.id;
  }
  placeInCo(s, w, () => matchPending(s, w, 0, () => offer(s, w, 0, () => k(w))));
  if (partner) partner.rmwPartner = -1;
  popEvent(s, w);
  ts.po = saved;
}

/** The write half of an RMW whose read is r. */
export function rmwWrite(s: ExploreState, t: number, ts: ThreadState, r: Event, value: number, dataDeps: bigint, k: () => void): void {
  write(s, t, ts, { kind: 'W', loc: r.loc, value, annot: r.annot, fence: undefined, lock: undefined, srcu: undefined, isRmw: true, addrDeps: r.addrDeps, dataDeps }, () => k(), r);
}

/** Tries each position of w in the coherence order of its location. */
function placeInCo(s: ExploreState, w: Event, k: () => void): void {
  const list = s.co[w.loc];
  // The positions w may take: cheap tests first (not inside a critical
  // section's lock/unlock pair, lock order, coherence at the location).
  const viable: number[] = [];
  // A write of an earlier critical section may not come after w.
  const before = lastSectionBefore(s, w, list);
  for (let at = 1; at <= list.length; at++) {
    if (s.events[list[at - 1]].lock === 'LKW') continue;
    // Nor after the write a stuck thread's final pass read (liveness.ts): it must stay the last.
    if (at <= before || (s.liveness && breaksStuckWait(s, w.loc, at))) {
      prune(s);
      continue;
    }
    insertAt(list, at, w.id);
    if (at === list.length - 1 ? coherentAppend(s, w) : coherentAt(s, w.loc)) viable.push(at);
    else prune(s);
    removeAt(list, at);
  }
  const forced = viable.length === 1;
  // A search that stops early tries the last place first (likely.ts).
  if (s.order && lastFirst(s.order, w.loc, w.value)) viable.reverse();
  for (const at of viable) {
    insertAt(list, at, w.id);
    // Placed last, w adds co edges only from earlier writes: no new cycle
    // unless some read saw one of those (then fr edges point to w).
    const last = at === list.length - 1;
    if (forced || (last && !readsSawAny(s, w.loc)) || prefixConsistent(s)) k();
    else prune(s);
    removeAt(list, at);
  }
}

/** Whether some read of loc already has its source. */
function readsSawAny(s: ExploreState, loc: number): boolean {
  for (const id of s.byLoc[loc]) if (s.events[id].kind === 'R' && s.events[id].rf >= 0) return true;
  return false;
}
