// Coherence and RMW atomicity at one location, over what the exploration
// has decided so far: the cheap check every choice of a read's source or a
// write's place passes before the model sees it.

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

/**
 * Coherence (po-loc | rf | co | fr acyclic) and RMW atomicity at one
 * location, over what is decided so far.
 */
export function coherentAt(s: ExploreState, loc: number): boolean {
  if (s.opts.keepIncoherent) return true;
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
