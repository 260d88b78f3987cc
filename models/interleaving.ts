// Whether a candidate execution is an interleaving: some total order of its
// events extends the part of program order a model needs kept (all of it
// for sequential consistency, less for weaker models), and every
// communication (rf, co, fr), keeps each read-modify-write atomic (no other
// thread's write coherence-between its read's write and its own), and puts
// no grace period inside a read-side critical section it waits for
// (models/grace-periods.ts). models/lkmm.ts says when the LKMM allows every
// such execution.
//
// The order is searched for greedily, by Kahn's algorithm: an event is
// placed once everything ordered before it is; a read-side critical section
// is placed whole, when nothing else is ready (topologicalWithGrace).
// Without grace constraints this decides exactly; with them a failure may
// be the greedy's, so callers take only "found" as an answer.

import type { Execution } from '../src/model/execution.js';
import type { Relation } from '../src/relation/relation.js';
import type { GraceConstraint } from './grace-periods.js';

/** What the search needs beyond the execution, fixed per event structure (made by interleavingShape). */
export interface InterleavingShape {
  /** The program-order edges the order must keep (a part of po). */
  order: Relation;
  /** order as successor lists, made once: the successors of a are orderSucc[orderStart[a] .. orderStart[a+1]). */
  orderStart: Int32Array;
  orderSucc: Int32Array;
  /** Read and write of each read-modify-write, flattened: [r0, w0, r1, w1, ...]. */
  rmw: Int32Array;
  grace: readonly GraceConstraint[];
  /** The constraints by their critical section's lock, indexed by event (undefined: not such a lock). */
  graceByLock: readonly (readonly GraceConstraint[] | undefined)[];
}

/** The InterleavingShape of a structure's order, read-modify-writes (flattened pairs) and grace constraints. */
export function interleavingShape(order: Relation, rmw: Int32Array, grace: readonly GraceConstraint[]): InterleavingShape {
  const orderStart = new Int32Array(order.n + 1);
  const succ: number[] = [];
  for (let a = 0; a < order.n; a++) {
    orderStart[a] = succ.length;
    succ.push(...order.successors(a));
  }
  orderStart[order.n] = succ.length;
  const graceByLock = new Array<GraceConstraint[] | undefined>(order.n).fill(undefined);
  for (const c of grace) (graceByLock[c.lock] ??= []).push(c);
  return { order, orderStart, orderSucc: Int32Array.from(succ), rmw, grace, graceByLock };
}

/**
 * Working arrays, reused from one call to the next (the search runs per
 * candidate; it keeps nothing between calls). The graph is kept as
 * successor lists: the successors of a are succ[start[a] .. start[a+1]).
 */
class Scratch {
  rfFirst = new Int32Array(64);
  rfNext = new Int32Array(64);
  coNext = new Int32Array(64);
  coPos = new Int32Array(64);
  coList = new Int32Array(64);
  indegree = new Int32Array(64);
  ready = new Int32Array(64);
  placed = new Uint8Array(64);
  inSection = new Uint8Array(64);
  stack = new Int32Array(64);
  local = new Int32Array(64);
  start = new Int32Array(65);
  succ = new Int32Array(256);
  predStart = new Int32Array(65);
  pred = new Int32Array(256);
  size(n: number): this {
    if (this.rfFirst.length < n) {
      const m = 2 * n;
      this.rfFirst = new Int32Array(m);
      this.rfNext = new Int32Array(m);
      this.coNext = new Int32Array(m);
      this.coPos = new Int32Array(m);
      this.coList = new Int32Array(m);
      this.indegree = new Int32Array(m);
      this.ready = new Int32Array(m);
      this.placed = new Uint8Array(m);
      this.inSection = new Uint8Array(m);
      this.stack = new Int32Array(m);
      this.local = new Int32Array(m);
      this.start = new Int32Array(m + 1);
      this.predStart = new Int32Array(m + 1);
    }
    return this;
  }
  /** Room for `more` successors after the first `used`. */
  room(used: number, more: number): void {
    if (used + more <= this.succ.length) return;
    const bigger = new Int32Array(2 * (used + more));
    bigger.set(this.succ.subarray(0, used));
    this.succ = bigger;
  }
}
const scratchArrays = new Scratch();

/** InterleavingShape.graceByLock. */
type Sections = readonly (readonly GraceConstraint[] | undefined)[];

/** Whether the search finds an interleaving of x (false: none exists, or the greedy missed it). */
export function findsInterleaving(x: Execution, shape: InterleavingShape): boolean {
  const s = scratchArrays.size(x.n);
  indexCommunication(x, s);
  if (!atomic(x, shape.rmw, s)) return false;
  buildGraph(x, shape, s);
  return shape.grace.length === 0 ? topological(x.n, s) : topologicalWithGrace(x.n, shape.graceByLock, s);
}

/**
 * The reads of each write, as lists in increasing order (rfFirst, rfNext);
 * each write's coherence successor, list and place in it.
 */
function indexCommunication(x: Execution, s: Scratch): void {
  const { n, rfSource } = x;
  s.rfFirst.fill(-1, 0, n);
  s.coNext.fill(-1, 0, n);
  s.coList.fill(-1, 0, n);
  for (let r = n - 1; r >= 0; r--) {
    const w = rfSource[r];
    if (w < 0) continue;
    s.rfNext[r] = s.rfFirst[w];
    s.rfFirst[w] = r;
  }
  for (let l = 0; l < x.co.length; l++) {
    const list = x.co[l];
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      s.coList[e] = l;
      s.coPos[e] = i;
      s.coNext[e] = i + 1 < list.length ? list[i + 1] : -1;
    }
  }
}

/** No read-modify-write has another thread's write coherence-between its read's write and its own. */
function atomic(x: Execution, rmw: Int32Array, s: Scratch): boolean {
  const int = x.rel.int;
  for (let k = 0; k < rmw.length; k += 2) {
    const r = rmw[k];
    const w = rmw[k + 1];
    const src = x.rfSource[r];
    // In a prefix being built the read may have no write yet, or the write no place in co.
    if (src < 0 || s.coList[w] < 0) continue;
    if (s.coList[src] !== s.coList[w]) return false;
    const list = x.co[s.coList[w]];
    for (let i = s.coPos[src] + 1; i < s.coPos[w]; i++) if (!int.has(r, list[i])) return false;
  }
  return true;
}

/**
 * The successor lists of order | rf | co | fr (co and fr through the
 * coherence successor only: the rest follows by transitivity), and each
 * event's number of predecessors.
 */
function buildGraph(x: Execution, shape: InterleavingShape, s: Scratch): void {
  const { n } = x;
  const { orderStart, orderSucc } = shape;
  let used = 0;
  for (let a = 0; a < n; a++) {
    s.start[a] = used;
    s.room(used, orderStart[a + 1] - orderStart[a] + n + 2);
    for (let i = orderStart[a]; i < orderStart[a + 1]; i++) s.succ[used++] = orderSucc[i];
    for (let r = s.rfFirst[a]; r >= 0; r = s.rfNext[r]) s.succ[used++] = r;
    const next = s.coNext[a];
    if (next >= 0) s.succ[used++] = next;
    const src = x.rfSource[a];
    if (src >= 0 && s.coNext[src] >= 0) s.succ[used++] = s.coNext[src];
  }
  s.start[n] = used;
  s.indegree.fill(0, 0, n);
  for (let i = 0; i < used; i++) s.indegree[s.succ[i]]++;
}

/** Kahn's algorithm: whether the graph is acyclic. */
function topological(n: number, s: Scratch): boolean {
  let top = 0;
  for (let a = 0; a < n; a++) if (s.indegree[a] === 0) s.ready[top++] = a;
  let placed = 0;
  while (top > 0) {
    const a = s.ready[--top];
    placed++;
    for (let i = s.start[a]; i < s.start[a + 1]; i++) if (--s.indegree[s.succ[i]] === 0) s.ready[top++] = s.succ[i];
  }
  return placed === n;
}


/** The predecessor lists of the graph: the predecessors of b are pred[predStart[b] .. predStart[b+1]). */
function buildPredecessors(n: number, s: Scratch): void {
  const used = s.start[n];
  if (s.pred.length < used) s.pred = new Int32Array(2 * used);
  s.predStart.fill(0, 0, n + 1);
  for (let i = 0; i < used; i++) s.predStart[s.succ[i] + 1]++;
  for (let b = 0; b < n; b++) s.predStart[b + 1] += s.predStart[b];
  const fill = s.local; // borrowed: the next free place of each list
  for (let b = 0; b < n; b++) fill[b] = s.predStart[b];
  for (let a = 0; a < n; a++) for (let i = s.start[a]; i < s.start[a + 1]; i++) s.pred[fill[s.succ[i]]++] = a;
}

/**
 * Kahn's algorithm with grace periods, placing each critical section whole:
 * ordinary events and grace periods go as soon as they are ready; a
 * read-side lock only when nothing else is, and then with its unlock and
 * everything still unplaced that the unlock needs (and, for any other lock
 * that pulls in, its unlock too), provided none of that is a grace period
 * the sections wait for. So no section is ever open while a grace period is
 * placed, and a grace period the unlock needs comes before the lock.
 */
function topologicalWithGrace(n: number, sections: Sections, s: Scratch): boolean {
  buildPredecessors(n, s);
  s.placed.fill(0, 0, n);
  let top = 0;
  let placed = 0;
  for (let a = 0; a < n; a++) if (s.indegree[a] === 0) s.ready[top++] = a;
  const place = (a: number) => {
    s.placed[a] = 1;
    placed++;
    for (let i = s.start[a]; i < s.start[a + 1]; i++) if (--s.indegree[s.succ[i]] === 0) s.ready[top++] = s.succ[i];
  };
  while (placed < n) {
    // An event that is not a read-side lock, if one is ready.
    let pick = -1;
    let lockAt = -1;
    for (let i = top - 1; i >= 0 && pick < 0; i--) {
      const e = s.ready[i];
      if (s.placed[e] === 1) s.ready[i] = s.ready[--top]; // placed with a section meanwhile
      else if (sections[e]) lockAt = i;
      else pick = i;
    }
    if (pick >= 0) {
      const a = s.ready[pick];
      s.ready[pick] = s.ready[--top];
      place(a);
      continue;
    }
    if (lockAt < 0) return false; // nothing ready: a cycle
    // Some lock whose section can be placed whole now.
    let done = false;
    for (let i = top - 1; i >= 0 && !done; i--) {
      const l = s.ready[i];
      if (s.placed[l] === 1 || !sections[l]) continue;
      const size = sectionClosure(l, sections, s);
      if (size < 0) continue;
      if (!placeWhole(size, s, place)) return false;
      done = true;
    }
    if (!done) return false;
  }
  return true;
}

/**
 * The unplaced events that section l's unlock needs, with it (and the
 * unlocks, with what they need, of the sections that pulls in), in
 * s.stack[0 .. size) and marked in s.inSection; -1 if a grace period one of
 * those sections waits for is among them.
 */
function sectionClosure(l: number, sections: Sections, s: Scratch): number {
  const { placed, inSection, stack, pred, predStart } = s;
  inSection[l] = 1;
  stack[0] = l;
  let size = 1;
  for (let k = 0; k < size; k++) {
    const e = stack[k];
    const cs = sections[e];
    if (cs) {
      for (let j = 0; j < cs.length; j++) {
        const u = cs[j].unlock;
        if (placed[u] === 0 && inSection[u] === 0) (inSection[u] = 1), (stack[size++] = u);
      }
    }
    for (let i = predStart[e]; i < predStart[e + 1]; i++) {
      const p = pred[i];
      if (placed[p] === 0 && inSection[p] === 0) (inSection[p] = 1), (stack[size++] = p);
    }
  }
  let ok = true;
  for (let k = 0; k < size && ok; k++) {
    const cs = sections[s.stack[k]];
    if (cs) for (let j = 0; j < cs.length; j++) if (s.inSection[cs[j].gp] === 1) ok = false;
  }
  if (!ok) {
    for (let k = 0; k < size; k++) s.inSection[s.stack[k]] = 0;
    return -1;
  }
  return size;
}

/** Places the events of a section closure in an order of the graph; false on a cycle. */
function placeWhole(size: number, s: Scratch, place: (a: number) => void): boolean {
  // inSection: 1 in the closure, 2 queued here.
  let count = 0;
  for (let k = 0; k < size; k++) {
    const e = s.stack[k];
    if (s.indegree[e] === 0) {
      s.inSection[e] = 2;
      s.local[count++] = e;
    }
  }
  let placedHere = 0;
  while (count > 0) {
    const a = s.local[--count];
    place(a);
    placedHere++;
    for (let i = s.start[a]; i < s.start[a + 1]; i++) {
      const b = s.succ[i];
      if (s.inSection[b] === 1 && s.indegree[b] === 0) {
        s.inSection[b] = 2;
        s.local[count++] = b;
      }
    }
  }
  for (let k = 0; k < size; k++) s.inSection[s.stack[k]] = 0;
  return placedHere === size;
}
