// Coherence and RMW atomicity at one location, over what the exploration
// has decided so far: the cheap check every choice of a read's source or a
// write's place passes before the model sees it.

import type { Event } from '../events/event.js';
import type { ExploreState } from './state.js';

/** Reused arrays for coherentAt, indexed by event id or by access. */
export interface CoherenceScratch {
  mark: number;
  stamp: Int32Array;
  index: Int32Array;
  coPos: Int32Array;
  from: Int32Array;
  to: Int32Array;
  last: Int32Array;
  indeg: Int32Array;
  queue: Int32Array;
  head: Int32Array;
  adj: Int32Array;
}

export function newCoherenceScratch(): CoherenceScratch {
  const empty = () => new Int32Array(0);
  return {
    mark: 0, stamp: empty(), index: empty(), coPos: empty(), from: empty(), to: empty(),
    last: empty(), indeg: empty(), queue: empty(), head: empty(), adj: empty(),
  };
}

// Every choice is checked when made, so before it the location was
// coherent: a new cycle must go through an edge the choice added. The two
// cases below add edges only towards accesses that have no way back, and
// skip the whole check.

/**
 * coherentAt after read r was given its source r.rf. When that source is
 * the last write of the location's coherence order and no access of r's
 * thread at the location follows r, r gains no outgoing edge (fr would go
 * to writes after its source): no cycle goes through it. Atomicity only
 * changes for r, whose write, if any, is still to come.
 */
export function coherentRead(s: ExploreState, r: Event): boolean {
  const list = s.co[r.loc];
  if (list[list.length - 1] === r.rf && lastOfThreadAt(s, r)) return true;
  return coherentAt(s, r.loc);
}

/**
 * coherentAt after write w was placed last in its location's coherence
 * order (with `lkr`, a lock's read, given the write before it as source).
 * When nothing reads w and no access of w's thread at the location follows
 * it, w has no outgoing edge, and lkr's edges (po, fr) go only to w: no
 * cycle goes through either. Atomicity only changes for w's own RMW.
 */
export function coherentAppend(s: ExploreState, w: Event, lkr?: Event): boolean {
  if (keepsIncoherent(s, w.loc)) return true;
  const list = s.co[w.loc];
  const at = list.length - 1;
  const simple = list[at] === w.id && lastOfThreadAt(s, w) && unread(s, w) &&
    (!lkr || (lkr.rf === list[at - 1] && lkr.rmwPartner === w.id));
  if (!simple) return coherentAt(s, w.loc);
  if (w.rmwPartner < 0 || w.kind !== 'W') return true;
  // w's RMW: nothing of another thread between its read's source and w.
  const p = list.indexOf(s.events[w.rmwPartner].rf);
  for (let j = p + 1; p >= 0 && j < at; j++) {
    if (s.events[list[j]].thread !== w.thread) return false;
  }
  return true;
}

/** Whether the model judges coherence and atomicity at loc itself (ExploreOptions.keepIncoherent). */
function keepsIncoherent(s: ExploreState, loc: number): boolean {
  const k = s.opts.keepIncoherent;
  return k === true || (k !== undefined && k !== false && k.has(loc));
}

/** Whether no access of e's thread at e's location was made after e. */
function lastOfThreadAt(s: ExploreState, e: Event): boolean {
  const ids = s.byLoc[e.loc];
  for (let i = ids.length - 1; i >= 0 && ids[i] !== e.id; i--) {
    if (s.events[ids[i]].thread === e.thread) return false;
  }
  return true;
}

/** Whether no read has w as its source. */
function unread(s: ExploreState, w: Event): boolean {
  const ids = s.byLoc[w.loc];
  for (let i = 0; i < ids.length; i++) if (s.events[ids[i]].rf === w.id) return false;
  return true;
}

/**
 * Coherence (po-loc | rf | co | fr acyclic) and RMW atomicity at one
 * location, over what is decided so far.
 */
export function coherentAt(s: ExploreState, loc: number): boolean {
  if (keepsIncoherent(s, loc)) return true;
  const ids = s.byLoc[loc];
  const list = s.co[loc];
  const n = ids.length;
  if (n <= 1) return true;
  const events = s.events;
  // Scratch, indexed by event id: the access's position in `ids` and its
  // place in coherence order, valid where `stamp` holds this call's mark.
  const sc = grownScratch(s, events.length, n);
  const mark = ++sc.mark;
  for (let i = 0; i < n; i++) {
    sc.stamp[ids[i]] = mark;
    sc.index[ids[i]] = i;
    sc.coPos[ids[i]] = -1;
  }
  for (let j = 0; j < list.length; j++) sc.coPos[list[j]] = j;
  const at = (id: number): number => (sc.stamp[id] === mark ? sc.index[id] : -1);
  // Edges: program order per thread, rf, fr (to the next write in co), co.
  let m = 0;
  const from = sc.from;
  const to = sc.to;
  const lastOfThread = sc.last;
  lastOfThread.fill(-1, 0, s.ts.length + 1);
  for (let i = 0; i < n; i++) {
    const e = events[ids[i]];
    if (e.thread >= 0) {
      const prev = lastOfThread[e.thread];
      if (prev >= 0) (from[m] = prev), (to[m++] = i);
      lastOfThread[e.thread] = i;
    }
    if (e.kind === 'R' && e.rf >= 0) {
      const wi = at(e.rf);
      if (wi >= 0) (from[m] = wi), (to[m++] = i);
      const p = wi >= 0 ? sc.coPos[e.rf] : -1;
      if (p >= 0 && p + 1 < list.length) (from[m] = i), (to[m++] = sc.index[list[p + 1]]);
      // Atomicity: nothing external between an RMW's source and its write.
      if (e.rmwPartner >= 0 && p >= 0) {
        const q = at(e.rmwPartner) >= 0 ? sc.coPos[e.rmwPartner] : -1;
        for (let j = p + 1; j < q; j++) {
          if (events[list[j]].thread !== e.thread) return false;
        }
      }
    }
  }
  for (let j = 0; j + 1 < list.length; j++) (from[m] = sc.index[list[j]]), (to[m++] = sc.index[list[j + 1]]);
  return acyclic(sc, n, m);
}

/** Whether the m edges from/to over n nodes are acyclic: a topological order takes every node (Kahn). */
function acyclic(sc: CoherenceScratch, n: number, m: number): boolean {
  const { from, to, indeg, head, adj } = sc;
  indeg.fill(0, 0, n);
  head.fill(0, 0, n + 1);
  for (let k = 0; k < m; k++) indeg[to[k]]++, head[from[k] + 1]++;
  for (let i = 0; i < n; i++) head[i + 1] += head[i];
  const fill = sc.queue; // borrowed as the fill cursor per node
  for (let i = 0; i < n; i++) fill[i] = head[i];
  for (let k = 0; k < m; k++) adj[fill[from[k]]++] = to[k];
  const queue = sc.queue;
  let qh = 0;
  let qt = 0;
  for (let i = 0; i < n; i++) if (indeg[i] === 0) queue[qt++] = i;
  while (qh < qt) {
    const v = queue[qh++];
    for (let k = head[v]; k < head[v + 1]; k++) if (--indeg[adj[k]] === 0) queue[qt++] = adj[k];
  }
  return qt === n;
}

/** The scratch arrays, grown to fit `events` ids and `n` accesses. */
function grownScratch(s: ExploreState, events: number, n: number): CoherenceScratch {
  const b = s.coherence;
  if (b.stamp.length < events) {
    const size = Math.max(64, events * 2);
    b.stamp = new Int32Array(size);
    b.index = new Int32Array(size);
    b.coPos = new Int32Array(size);
    b.mark = 0;
  }
  if (b.indeg.length < n) {
    const size = Math.max(64, n * 2);
    b.indeg = new Int32Array(size);
    b.queue = new Int32Array(size);
    b.head = new Int32Array(size + 1);
    b.from = new Int32Array(size * 4);
    b.to = new Int32Array(size * 4);
    b.adj = new Int32Array(size * 4);
  }
  if (b.last.length < s.ts.length + 1) b.last = new Int32Array(s.ts.length + 8);
  if (b.mark > 1 << 30) {
    b.stamp.fill(0);
    b.mark = 0;
  }
  return b;
}
