// A candidate execution as a model sees it: the events, and the base sets and
// relations herd gives a cat model (po, rf, co, rmw, dependencies, the
// annotation sets). Models in models/ derive everything else from these.

import type { Event } from '../events/event.js';
import type { Program } from '../program/program.js';
import { EventSet, lasting, Relation } from '../relation/relation.js';

export interface BaseSets {
  R: EventSet;
  W: EventSet;
  M: EventSet;
  F: EventSet;
  IW: EventSet;
  FW: EventSet;
  all: EventSet;
  /** Syntactic annotations of accesses (herd's tags). */
  ONCE: EventSet;
  ACQUIRE: EventSet;
  RELEASE: EventSet;
  MB: EventSet;
  NORETURN: EventSet;
  PLAIN: EventSet;
  /** Events of RMW instructions, successful or not. */
  RMW: EventSet;
  LKR: EventSet;
  LKW: EventSet;
  UL: EventSet;
  LF: EventSet;
  RL: EventSet;
  RU: EventSet;
  SrcuLock: EventSet;
  SrcuUnlock: EventSet;
  SyncSrcu: EventSet;
  /** Fence events by kind (F[mb] is fence('mb'), ...). */
  fence: (kind: string) => EventSet;
}

export interface BaseRelations {
  po: Relation;
  rf: Relation;
  co: Relation;
  rmw: Relation;
  addr: Relation;
  data: Relation;
  ctrl: Relation;
  loc: Relation;
  int: Relation;
  ext: Relation;
  id: Relation;
}

export interface Execution {
  n: number;
  events: Event[];
  /** Coherence order per location, as lists of event ids. */
  co: number[][];
  locations: string[];
  sets: BaseSets;
  rel: BaseRelations;
  /**
   * Shared by every candidate with the same events (threads, program order,
   * annotations, dependencies): models may cache what depends on it alone.
   */
  structure: object;
}

export interface Structure {
  sets: Omit<BaseSets, 'FW'>;
  rel: Omit<BaseRelations, 'rf' | 'co'>;
}

/**
 * Where a list of events sits in the tree of event sequences explored: two
 * candidates with the same node have the same structure (events, program
 * order, annotations, dependencies), and share the relations derived from
 * it. The explorer keeps one node per event on its stack; sequences built
 * again after a backtrack (other rf choices earlier) find their node again.
 * The tree is bounded: past MAX_NODES it is cut back to the current stack.
 */
export class StructureNode {
  private children?: Map<string, StructureNode>;
  structure?: Structure;

  static count = 0;
  static readonly MAX_NODES = 2_000;

  child(e: Event): StructureNode {
    const key = `${e.thread},${e.kind},${e.loc},${e.annot},${e.fence ?? ''},${e.lock ?? ''},${e.srcu ?? ''},` +
      `${e.isRmw ? 1 : 0},${e.kind === 'W' ? e.rmwPartner : ''},${e.addrDeps},${e.dataDeps},${e.ctrlDeps}`;
    this.children ??= new Map();
    let c = this.children.get(key);
    if (!c) {
      this.children.set(key, (c = new StructureNode()));
      StructureNode.count++;
    }
    return c;
  }

  /** Forgets the subtrees below this node (memory bound). */
  prune(): void {
    this.children = undefined;
  }
}

export function buildExecution(prog: Program, evs: readonly Event[], coLists: readonly number[][], node?: StructureNode): Execution {
  const events = evs as Event[];
  const n = events.length;
  let st = node?.structure;
  if (!st) {
    st = lasting(() => buildStructure(events));
    if (node) node.structure = st;
  }
  // Final writes, of the locations the final state shows (as herd's FW).
  const FW = new EventSet(n);
  for (const o of prog.observed ?? []) {
    if (o.kind !== 'mem') continue;
    const l = coLists[o.loc];
    if (l && l.length > 0) FW.add(l[l.length - 1]);
  }
  const rf = new Relation(n);
  for (let a = 0; a < n; a++) {
    const e = events[a];
    if (e.kind === 'R' && e.rf >= 0) rf.add(e.rf, a);
  }
  const co = new Relation(n);
  for (const l of coLists) for (let i = 0; i < l.length; i++) for (let j = i + 1; j < l.length; j++) co.add(l[i], l[j]);
  return {
    n,
    events,
    co: coLists as number[][],
    locations: prog.locations,
    sets: { ...st.sets, FW },
    rel: { ...st.rel, rf, co },
    structure: st,
  };
}

function buildStructure(events: Event[]): Structure {
  const n = events.length;
  const set = () => new EventSet(n);
  const sets: Omit<BaseSets, 'FW'> = {
    R: set(), W: set(), M: set(), F: set(), IW: set(), all: set(),
    ONCE: set(), ACQUIRE: set(), RELEASE: set(), MB: set(), NORETURN: set(), PLAIN: set(), RMW: set(),
    LKR: set(), LKW: set(), UL: set(), LF: set(), RL: set(), RU: set(),
    SrcuLock: set(), SrcuUnlock: set(), SyncSrcu: set(),
    fence: () => noFences,
  };
  // Every fence kind up front: the events array is the explorer's, and changes.
  const fences = new Map<string, EventSet>();
  const noFences = set();
  sets.fence = (kind) => fences.get(kind) ?? noFences;
  const lockSets = { LKR: sets.LKR, LKW: sets.LKW, UL: sets.UL, LF: sets.LF, RL: sets.RL, RU: sets.RU };
  const srcuSets = { 'srcu-lock': sets.SrcuLock, 'srcu-unlock': sets.SrcuUnlock, 'sync-srcu': sets.SyncSrcu };
  // One pass for the sets, and the events of each thread and location.
  const byThread = new Map<number, number[]>();
  const byLoc = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const e = events[i];
    sets.all.add(i);
    if (e.kind === 'R') sets.R.add(i);
    if (e.kind === 'W') sets.W.add(i);
    if (e.kind !== 'F') sets.M.add(i);
    else sets.F.add(i);
    if (e.thread === -1) sets.IW.add(i);
    const access = e.kind !== 'F';
    if (access && e.thread >= 0 && e.annot === 'ONCE' && !e.lock && !e.srcu) sets.ONCE.add(i);
    if (access && e.annot === 'ACQUIRE' && !e.lock) sets.ACQUIRE.add(i);
    if (access && e.annot === 'RELEASE' && !e.lock) sets.RELEASE.add(i);
    if ((access && e.annot === 'MB') || e.fence === 'mb') sets.MB.add(i);
    if (e.annot === 'NORETURN') sets.NORETURN.add(i);
    if (e.annot === 'PLAIN') sets.PLAIN.add(i);
    if (e.isRmw) sets.RMW.add(i);
    if (e.lock) lockSets[e.lock].add(i);
    if (e.srcu) srcuSets[e.srcu].add(i);
    if (e.fence) {
      let f = fences.get(e.fence);
      if (!f) fences.set(e.fence, (f = set()));
      f.add(i);
    }
    if (e.thread >= 0) {
      const l = byThread.get(e.thread);
      if (l) l.push(i);
      else byThread.set(e.thread, [i]);
    }
    if (e.loc >= 0) {
      const l = byLoc.get(e.loc);
      if (l) l.push(i);
      else byLoc.set(e.loc, [i]);
    }
  }
  const po = new Relation(n);
  const loc = new Relation(n);
  const int = new Relation(n);
  const ext = new Relation(n);
  const rmw = new Relation(n);
  const addr = new Relation(n);
  const data = new Relation(n);
  const ctrl = new Relation(n);
  const id = new Relation(n);
  // Whole rows at a time: a thread's events (int), the events after each one
  // (po), a location's events (loc), everything outside the thread (ext).
  const outside = new Map<number, EventSet>();
  for (const [t, ids] of byThread) {
    ids.sort((a, b) => events[a].poIndex - events[b].poIndex);
    const after = new EventSet(n);
    for (let x = ids.length - 1; x >= 0; x--) {
      po.addRow(ids[x], after);
      after.add(ids[x]);
    }
    for (const a of ids) int.addRow(a, after);
    outside.set(t, sets.all.minus(after));
  }
  for (const ids of byLoc.values()) {
    const same = EventSet.of(n, ids);
    for (const a of ids) loc.addRow(a, same);
  }
  for (let a = 0; a < n; a++) {
    const ea = events[a];
    id.add(a, a);
    // Initial writes are on no thread: int relates only events of one thread.
    if (ea.thread < 0) ext.addRow(a, sets.all);
    else ext.addRow(a, outside.get(ea.thread)!);
    if (ea.rmwPartner >= 0 && ea.kind === 'R' && !ea.lock) rmw.add(a, ea.rmwPartner);
    if (ea.addrDeps !== 0n) addDeps(addr, ea.addrDeps, a);
    if (ea.kind === 'W' && ea.dataDeps !== 0n) addDeps(data, ea.dataDeps, a);
    if (ea.ctrlDeps !== 0n) addDeps(ctrl, ea.ctrlDeps, a);
  }
  return { sets, rel: { po, rmw, addr, data, ctrl, loc, int, ext, id } };
}

function addDeps(rel: Relation, deps: bigint, target: number): void {
  let i = 0;
  while (deps !== 0n) {
    if (deps & 1n) rel.add(i, target);
    deps >>= 1n;
    i++;
  }
}
