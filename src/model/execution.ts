// A candidate execution as a model sees it: the events, and the base sets and
// relations herd gives a cat model (po, rf, co, rmw, dependencies, the
// annotation sets). Models in models/ derive everything else from these.

import { ANNOTS, FENCE_KINDS, LOCK_KINDS, SRCU_KINDS, type Event, type EventShape } from '../events/event.js';
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
  /** Fence events by kind (F[MB] is fence('MB'), F[rmb] fence('rmb'), ...; any tag a .def gives a fence). */
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
  /** For each event, the write it reads from (rf), or -1: rel.rf as a list. */
  rfSource: readonly number[];
  /** Coherence order per location, as lists of event ids. */
  co: number[][];
  locations: string[];
  /** The program the execution is one of. */
  program: Program;
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
 * The structures of the candidates explored so far, by the shape of their
 * events (per thread, in program order: kind, location, annotations, RMW
 * partner, dependencies): two candidates of the same shape share their
 * structure and every relation a model derives from it. Events are numbered
 * canonically (initial writes, then thread by thread in program order), so
 * every interleaving and every lock order that builds the same per-thread
 * events finds the same structure. Bounded: past `limit` shapes it starts
 * afresh.
 */
export class StructureCache {
  private readonly shapeIds = new Map<string, number>();
  private readonly packedIds = new Map<number, number>();
  private readonly depsIds = new Map<bigint, number>();
  private readonly packedPairs = new Map<number, number>();
  private shapeCount = 0;
  private root: ShapeNode = { next: new Map() };
  private nodeCount = 0;
  /** Numbering buffers, reused from one candidate to the next (see `generation`). */
  private buffers = { newId: new Int32Array(64), order: new Int32Array(64), count: new Int32Array(8), base: new Int32Array(8), shapes: new Int32Array(64) };
  /** The shape last given to each canonical event (see shapeOf). */
  private readonly shapeAt: EventShape[] = [];
  /** The shapes and structure of the last candidate looked up in the trie (see sameAsLast). */
  private last?: { n: number; shapes: Int32Array; structure: Structure };
  /** Counts calls of execution(): an execution's events can be read only until the next. */
  private generation = 0;
  /** The dependency cuts of the program last numbered (cutsOf), and that program. */
  private cuts?: (CutsAt | undefined)[];
  private cutsFor?: Program;
  constructor(private readonly limit = 20_000) {}

  private numbering(n: number, T: number) {
    const b = this.buffers;
    if (b.newId.length < n) b.newId = new Int32Array(2 * n);
    if (b.order.length < n) b.order = new Int32Array(2 * n);
    if (b.count.length < T) b.count = new Int32Array(2 * T);
    if (b.base.length < T) b.base = new Int32Array(2 * T);
    b.count.fill(0, 0, T);
    return b;
  }

  /** The execution of the explorer's events (in the order they were built) and coherence lists. */
  execution(prog: Program, evs: readonly Event[], coIn: readonly number[][]): Execution {
    const n = evs.length;
    const T = prog.threads.length;
    const { newId, order, count, base } = this.numbering(n, T);
    const generation = ++this.generation;
    // Canonical id of each event: initial writes first, then thread by thread.
    let inits = 0;
    for (let i = 0; i < n; i++) {
      const t = evs[i].thread;
      if (t < 0) inits++;
      else count[t]++;
    }
    let at = inits;
    for (let t = 0; t < T; t++) {
      base[t] = at;
      at += count[t];
    }
    let nextInit = 0;
    for (let i = 0; i < n; i++) {
      const e = evs[i];
      newId[i] = e.thread < 0 ? nextInit++ : base[e.thread] + e.poIndex;
    }
    for (let i = 0; i < n; i++) order[newId[i]] = i;
    if (prog !== this.cutsFor) {
      this.cutsFor = prog;
      this.cuts = cutsOf(prog);
    }
    const shapes = this.shapes(n);
    for (let c = 0; c < n; c++) shapes[c] = this.shapeOf(evs[order[c]], evs, c).id;
    // The events themselves are copied only when asked for (reports, flags
    // that read values, a new structure): most candidates never are.
    let copies: Event[] | undefined;
    const events = (): Event[] => {
      if (!copies && generation !== this.generation) throw new Error('execution: events read after the explorer went on');
      return (copies ??= canonicalEvents(evs, n, order, newId, base));
    };
    const st = this.sameAsLast(n) ?? this.structureOf(n, events);
    // A plain array, of its final size, each element set once: a typed array
    // this small costs more to make (its memory is outside the heap), and
    // so do fill() and growing by push().
    const rfSource = new Array<number>(n);
    for (let c = 0; c < n; c++) {
      const e = evs[order[c]];
      rfSource[c] = e.kind === 'R' && e.rf >= 0 ? newId[e.rf] : -1;
    }
    return assemble(prog, events, rfSource, renumberedLists(coIn, newId), st);
  }

  /** The buffer of shape ids, by canonical event id, of the candidate being numbered (the last one's beside it). */
  private shapes(n: number): Int32Array {
    const b = this.buffers;
    if (b.shapes.length < n) b.shapes = new Int32Array(2 * n);
    return b.shapes;
  }

  /**
   * The last candidate's structure, if this one's events have the same
   * shapes (consecutive candidates mostly do: a shortcut past the trie).
   */
  private sameAsLast(n: number): Structure | undefined {
    const last = this.last;
    if (!last || last.n !== n) return undefined;
    const shapes = this.buffers.shapes;
    for (let c = 0; c < n; c++) if (shapes[c] !== last.shapes[c]) return undefined;
    return last.structure;
  }

  /** The structure of the events whose shapes are in the shapes buffer, found in (or added to) the trie. */
  private structureOf(n: number, events: () => Event[]): Structure {
    const shapes = this.buffers.shapes;
    let node = this.root;
    for (let c = 0; c < n; c++) {
      let child = node.next.get(shapes[c]);
      if (!child) {
        node.next.set(shapes[c], (child = { next: new Map() }));
        this.nodeCount++;
      }
      node = child;
    }
    const st = (node.structure ??= lasting(() => buildStructure(events())));
    if (this.nodeCount > this.limit) {
      this.root = { next: new Map() };
      this.nodeCount = 0;
    }
    this.last = { n, shapes: shapes.slice(0, n), structure: st };
    return st;
  }

  /**
   * The shape of e, canonical event c: the one it was given, the one last
   * found at c if e matches it (the explorer makes the same events again
   * and again), else a new one. The explorer's events carry dependencies as
   * positions in their thread already (see Event.addrDeps).
   */
  private shapeOf(e: Event, evs: readonly Event[], c: number): EventShape {
    const partner = e.rmwPartner >= 0 ? evs[e.rmwPartner].poIndex : -1;
    const known = e.shape;
    if (known && known.owner === this && known.partner === partner) return known;
    // The dependencies the model is given (a shape's are fixed with it: they name earlier events of its thread).
    const cut = this.cuts?.[e.thread]?.get(e.pc);
    const addr = cut ? this.uncut(e, e.addrDeps, cut.addr, evs) : e.addrDeps;
    const data = cut ? this.uncut(e, e.dataDeps, cut.data, evs) : e.dataDeps;
    const seen = this.shapeAt[c];
    const sh = seen && hasShape(e, partner, addr, data, seen) ? seen : this.newShape(e, partner, addr, data);
    this.shapeAt[c] = sh;
    e.shape = sh;
    return sh;
  }

  /**
   * Dependencies deps of e (a bit per program-order position in its
   * thread) less those on the reads of instructions `reads` (a cut,
   * Thread.depCuts). The events at those positions are the candidate's,
   * numbered canonically already (see execution()).
   */
  private uncut(e: Event, deps: bigint, reads: ReadonlySet<number> | undefined, evs: readonly Event[]): bigint {
    if (!reads || deps === 0n) return deps;
    const { order, base } = this.buffers;
    let out = deps;
    for (let rest = deps, i = 0; rest !== 0n; rest >>= 1n, i++) {
      if (rest & 1n && reads.has(evs[order[base[e.thread] + i]].pc)) out &= ~(1n << BigInt(i));
    }
    return out;
  }

  private newShape(e: Event, partner: number, addr: bigint, data: bigint): EventShape {
    return {
      id: this.shapeId(e, partner, addr, data), owner: this, thread: e.thread, kind: e.kind, loc: e.loc, annot: e.annot, fence: e.fence,
      lock: e.lock, srcu: e.srcu, isRmw: e.isRmw, partner, addr, data, ctrl: e.ctrlDeps,
    };
  }

  /**
   * The interned id of what a structure depends on in e (with the
   * dependencies the model is given): the id of its other fields, paired
   * with the ids of its dependency sets if it has any (ids are all
   * distinct, from one counter).
   */
  private shapeId(e: Event, partner: number, addrDeps: bigint, dataDeps: bigint): number {
    const fields = this.fieldsId(e, partner);
    if (addrDeps === 0n && dataDeps === 0n && e.ctrlDeps === 0n) return fields;
    const addr = this.intern(this.depsIds, addrDeps);
    const data = this.intern(this.depsIds, dataDeps);
    const ctrl = this.intern(this.depsIds, e.ctrlDeps);
    return this.pairId(this.pairId(this.pairId(fields, addr), data), ctrl);
  }

  /**
   * The interned id of e's fields other than its dependencies: packed into
   * one number where they fit (small thread, location and partner numbers:
   * most events), else a string.
   */
  private fieldsId(e: Event, partner: number): number {
    // Each enumerated field as 0 (absent) or 1 + its index in event.ts's
    // list (FENCE_KINDS fits 4 bits while it has at most 15); -1 if unknown.
    const annot = (ANNOTS as readonly string[]).indexOf(e.annot);
    const fence = e.fence === undefined ? 0 : (FENCE_KINDS as readonly string[]).indexOf(e.fence) + 1 || -1;
    const lock = e.lock === undefined ? 0 : LOCK_KINDS.indexOf(e.lock) + 1 || -1;
    const srcu = e.srcu === undefined ? 0 : SRCU_KINDS.indexOf(e.srcu) + 1 || -1;
    const packable = annot >= 0 && fence >= 0 && lock >= 0 && srcu >= 0 && e.thread < 1023 && e.loc < 2047 && partner < 1023;
    if (packable) {
      let code = e.thread + 1; // 10 bits
      code = code * 2048 + e.loc + 1; // 11
      code = code * 4 + (e.kind === 'R' ? 0 : e.kind === 'W' ? 1 : 2); // 2
      code = code * 8 + annot; // 3
      code = code * 16 + fence; // 4
      code = code * 8 + lock; // 3
      code = code * 4 + srcu; // 2
      code = code * 2 + (e.isRmw ? 1 : 0); // 1
      code = code * 1024 + partner + 1; // 10: 46 bits in all, exact in a double
      return this.intern(this.packedIds, code);
    }
    const key = `${e.thread},${e.kind},${e.loc},${e.annot},${e.fence ?? ''},${e.lock ?? ''},${e.srcu ?? ''},` +
      `${e.isRmw ? 1 : 0},${partner}`;
    return this.intern(this.shapeIds, key);
  }

  /** The interned id of the pair of ids (a, b): one number where both fit in 26 bits, else a string. */
  private pairId(a: number, b: number): number {
    if (a < PAIR_BASE && b < PAIR_BASE) return this.intern(this.packedPairs, a * PAIR_BASE + b);
    return this.intern(this.shapeIds, `${a}:${b}`);
  }

  private intern<K>(ids: Map<K, number>, key: K): number {
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = this.shapeCount++));
    return id;
  }
}

/** Whether event e (whose RMW partner has program-order index `partner`, the model given dependencies addr and data) has shape sh. */
function hasShape(e: Event, partner: number, addr: bigint, data: bigint, sh: EventShape): boolean {
  return e.thread === sh.thread && e.kind === sh.kind && e.loc === sh.loc && e.annot === sh.annot && e.fence === sh.fence &&
    e.lock === sh.lock && e.srcu === sh.srcu && e.isRmw === sh.isRmw && partner === sh.partner &&
    addr === sh.addr && data === sh.data && e.ctrlDeps === sh.ctrl;
}

/** Per access instruction of a thread, the reads whose dependencies to it are cut (Thread.depCuts). */
type CutsAt = Map<number, { addr?: Set<number>; data?: Set<number> }>;

/** The program's dependency cuts, per thread (undefined where it has none). */
function cutsOf(prog: Program): (CutsAt | undefined)[] | undefined {
  if (!prog.threads.some((th) => th.depCuts?.length)) return undefined;
  return prog.threads.map((th) => {
    if (!th.depCuts?.length) return undefined;
    const at: CutsAt = new Map();
    for (const c of th.depCuts) {
      let reads = at.get(c.access);
      if (!reads) at.set(c.access, (reads = {}));
      (reads[c.kind] ??= new Set()).add(c.read);
    }
    return at;
  });
}

/** Ids below it pair into one number exactly (2 * 26 bits). */
const PAIR_BASE = 1 << 26;


/** The coherence lists with canonical ids. */
function renumberedLists(lists: readonly number[][], newId: Int32Array): number[][] {
  const out = new Array<number[]>(lists.length);
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l];
    const ids = new Array<number>(list.length);
    for (let i = 0; i < list.length; i++) ids[i] = newId[list[i]];
    out[l] = ids;
  }
  return out;
}

/** The events in canonical order: order[c] is the explorer's id of canonical event c. */
function canonicalEvents(evs: readonly Event[], n: number, order: Int32Array, newId: Int32Array, base: Int32Array): Event[] {
  const out = new Array<Event>(n);
  for (let c = 0; c < n; c++) {
    const e = evs[order[c]];
    out[c] = renumbered(e, c, newId, e.shape!, e.thread < 0 ? 0n : BigInt(base[e.thread]));
  }
  return out;
}

/** A copy of e with canonical id c (every field listed: one object shape for V8). */
function renumbered(e: Event, c: number, newId: Int32Array, sh: EventShape, shift: bigint): Event {
  return {
    id: c,
    thread: e.thread,
    poIndex: e.poIndex,
    kind: e.kind,
    loc: e.loc,
    value: e.value,
    annot: e.annot,
    fence: e.fence,
    lock: e.lock,
    srcu: e.srcu,
    isRmw: e.isRmw,
    rmwPartner: e.rmwPartner >= 0 ? newId[e.rmwPartner] : e.rmwPartner,
    addrDeps: sh.addr === 0n ? 0n : sh.addr << shift,
    dataDeps: sh.data === 0n ? 0n : sh.data << shift,
    ctrlDeps: sh.ctrl === 0n ? 0n : sh.ctrl << shift,
    rf: e.rf >= 0 ? newId[e.rf] : e.rf,
    pos: e.pos,
    text: e.text,
    pc: e.pc,
    held: e.held === undefined ? undefined : e.held.map((h) => newId[h]),
    shape: sh,
  };
}

interface ShapeNode {
  next: Map<number, ShapeNode>;
  structure?: Structure;
}

/**
 * An execution of events already numbered as the model sees them (a copy
 * made for a report, a test): no structure is shared.
 */
export function buildExecution(prog: Program, events: readonly Event[], coLists: readonly number[][]): Execution {
  const rfSource = events.map((e) => (e.kind === 'R' && e.rf >= 0 ? e.rf : -1));
  const st = lasting(() => buildStructure(events as Event[]));
  const x = assemble(prog, () => events as Event[], rfSource, coLists as number[][], st);
  // An execution that is kept makes its lazy parts now, in the memory the
  // rest is in (later, inside a model's scratch(), they would not last).
  void x.rel.rf;
  void x.rel.co;
  void x.sets.FW;
  return x;
}

/**
 * The execution object; `events` is made by the given function when first
 * read, FW and the rf and co relations when first asked for (a check that
 * decides on the sources of reads and the coherence lists alone never
 * builds them).
 */
function assemble(prog: Program, events: () => Event[], rfSource: readonly number[], coLists: number[][], st: Structure): Execution {
  return new Candidate(prog, events, rfSource, coLists, st);
}

/** An Execution (a class, not a literal with a getter: one is made per candidate). */
class Candidate implements Execution {
  readonly n: number;
  readonly locations: string[];
  readonly sets: BaseSets;
  readonly rel: BaseRelations;
  constructor(readonly program: Program, private readonly made: () => Event[], readonly rfSource: readonly number[], readonly co: number[][], public structure: Structure) {
    this.n = rfSource.length;
    const prog = program;
    this.locations = prog.locations;
    this.sets = new CandidateSets(structure.sets, prog, co, this.n);
    this.rel = new CandidateRelations(structure.rel, rfSource, co);
  }
  get events(): Event[] {
    return this.made();
  }
}

/** Final writes, of the locations the final state shows (as herd's FW). */
function finalWrites(prog: Program, n: number, coLists: readonly number[][]): EventSet {
  const FW = new EventSet(n);
  for (const o of prog.observed ?? []) {
    if (o.kind !== 'mem') continue;
    const l = coLists[o.loc];
    if (l && l.length > 0) FW.add(l[l.length - 1]);
  }
  return FW;
}

/** co from the lists, whole rows: each write is coherence-before every write after it in its list. */
function coherenceRelation(n: number, coLists: readonly number[][]): Relation {
  const co = new Relation(n);
  for (const l of coLists) {
    const after = new EventSet(n);
    for (let i = l.length - 1; i >= 0; i--) {
      co.addRow(l[i], after);
      after.add(l[i]);
    }
  }
  return co;
}

/** The structure's sets and this candidate's final writes (made when first read). */
class CandidateSets implements BaseSets {
  readonly R: EventSet; readonly W: EventSet; readonly M: EventSet; readonly F: EventSet; readonly IW: EventSet;
  readonly all: EventSet; readonly ONCE: EventSet; readonly ACQUIRE: EventSet; readonly RELEASE: EventSet;
  readonly MB: EventSet; readonly NORETURN: EventSet; readonly PLAIN: EventSet; readonly RMW: EventSet;
  readonly LKR: EventSet; readonly LKW: EventSet; readonly UL: EventSet; readonly LF: EventSet; readonly RL: EventSet;
  readonly RU: EventSet; readonly SrcuLock: EventSet; readonly SrcuUnlock: EventSet; readonly SyncSrcu: EventSet;
  readonly fence: (kind: string) => EventSet;
  private finals?: EventSet;
  constructor(S: Structure['sets'], private readonly prog: Program, private readonly coLists: number[][], private readonly n: number) {
    this.R = S.R; this.W = S.W; this.M = S.M; this.F = S.F; this.IW = S.IW; this.all = S.all;
    this.ONCE = S.ONCE; this.ACQUIRE = S.ACQUIRE; this.RELEASE = S.RELEASE; this.MB = S.MB;
    this.NORETURN = S.NORETURN; this.PLAIN = S.PLAIN; this.RMW = S.RMW;
    this.LKR = S.LKR; this.LKW = S.LKW; this.UL = S.UL; this.LF = S.LF; this.RL = S.RL; this.RU = S.RU;
    this.SrcuLock = S.SrcuLock; this.SrcuUnlock = S.SrcuUnlock; this.SyncSrcu = S.SyncSrcu; this.fence = S.fence;
  }
  get FW(): EventSet {
    return (this.finals ??= finalWrites(this.prog, this.n, this.coLists));
  }
}

/** The structure's relations and this candidate's rf and co (each relation made when first read). */
class CandidateRelations implements BaseRelations {
  readonly po: Relation; readonly rmw: Relation; readonly addr: Relation; readonly data: Relation; readonly ctrl: Relation;
  readonly loc: Relation; readonly int: Relation; readonly ext: Relation; readonly id: Relation;
  private readsFrom?: Relation;
  private coherence?: Relation;
  constructor(B: Structure['rel'], private readonly rfSource: readonly number[], private readonly coLists: number[][]) {
    this.po = B.po; this.rmw = B.rmw; this.addr = B.addr; this.data = B.data; this.ctrl = B.ctrl;
    this.loc = B.loc; this.int = B.int; this.ext = B.ext; this.id = B.id;
  }
  get rf(): Relation {
    return (this.readsFrom ??= readsFromRelation(this.rfSource));
  }
  get co(): Relation {
    return (this.coherence ??= coherenceRelation(this.rfSource.length, this.coLists));
  }
}

/** rf from the source of each read. */
function readsFromRelation(rfSource: readonly number[]): Relation {
  const rf = new Relation(rfSource.length);
  for (let r = 0; r < rfSource.length; r++) if (rfSource[r] >= 0) rf.add(rfSource[r], r);
  return rf;
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
    if ((access && e.annot === 'MB') || e.fence === 'MB') sets.MB.add(i);
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
