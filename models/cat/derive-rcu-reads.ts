// Sources a read may not take (Model.forbiddenSources), derived for a
// compiled model: a read-side critical section that would see one side of
// a grace period and miss the other, judged at the read by the model's own
// checks on a small part of the execution.
//
// The theorem. Call a part of an execution its sub-structure on a set of
// events S: S's events with their tags, locations and the order of their
// thread, the coherence order of X restricted to S, and at most X's
// reads-from, dependencies and rmw pairs among them. A definition is
// *contained* when its value on every such part τ of every execution X is
// contained in X's value restricted to S, *containing* when the reverse,
// *exact* when both (SubStructure below decides which, from the
// definitions): tags, po, loc, int, ext, id and co are exact; rf, fr, the
// dependencies and rmw are contained; a union, intersection or restriction
// keeps what its parts share; a sequence of two steps or more, a closure,
// domain and range are at most contained (a path may pass through events
// outside S); a difference or complement turns what it takes away around;
// a recursive definition is contained where its bodies are, taking its
// names as contained (by induction on herd's iterations from empty); a
// `with` takes the candidate's own co (generate_cos: exact) or nothing
// (a source the program's events make empty); anything else is neither.
// So a non-negated acyclic, irreflexive or empty check over a contained
// relation that fails on τ fails on X.
//
// One definition is read by a lemma instead: the matching of nested
// markers (monotone.ts nestingMarkers: the bell's rcu-rscs, A and B tag
// sets). On a part whose only markers are a lock L (in A) and an unlock
// U (in B) after it, the matching is {(L, U)}: contained wherever X pairs
// L with U.
//
// At a read r (its thread T's last event) taking w, the part τ is made of
// events built so far and, for a section that every path of T's code from
// r on closes (closesFrom), a stand-in U for the unlock to come: an event
// with the unlock's tags after r in T's order. Every complete execution X
// of the branch (r reading w, T run to its end) has that unlock U' after
// every event of T built so far, paired with L (the section's lock, its
// markers in between paired among themselves on every path), so τ with U
// read as U' is a part of X as above. When τ fails one of the contained
// checks, X does: the source is forbidden. The parts tried are the shape
// RCU exists to forbid (rcu-link from L through a read b that misses a
// write wb of another thread V, then a grace period of V; a read a before
// U seeing a write u of V after it): L, a, b, U of T; wb, the fences of V
// between wb and u, and u; the write a reads (u, or one co-after it) and
// the write b reads. Which tags the sections' markers are is the lemma's
// A and B; whether a part fails is the model's own judgement of it
// (checks it cannot be read for skipped), kept per shape of part. A model
// without such a matching, or whose checks are not contained, derives
// nothing, and its reads take every source.

import type { Event } from '../../src/events/event.js';
import { effectOf } from '../../src/events/primitives.js';
import { buildExecution, type Execution } from '../../src/model/execution.js';
import type { ForbiddenSource, PartialExecution, Verdict } from '../../src/model/model.js';
import type { Instr, Program, Thread } from '../../src/program/program.js';
import type { CatExpr, Pattern } from './ast.js';
import { tagsOf } from './builtins.js';
import { tagSetName, type CompiledCat } from './compile.js';
import { nestingMarkers } from './monotone.js';

/** Bit 1: contained (τ's value within X's restricted); bit 2: containing. 3 exact, 0 neither. */
type Pol = 0 | 1 | 2 | 3;

interface Info {
  pol: Pol;
  /** Within the identity ([S], id): a sequence through it passes no other event. */
  ident?: boolean;
  /** Empty in every execution of the program (made of sets its code never produces). */
  empty?: boolean;
}

const NEITHER: Info = { pol: 0 };
const EXACT: Info = { pol: 3 };
const EXACT_IDENT: Info = { pol: 3, ident: true };
const CONTAINED: Info = { pol: 1 };
const EMPTY: Info = { pol: 3, ident: true, empty: true };

const BASE: Record<string, Info> = {
  R: EXACT, W: EXACT, M: EXACT, F: EXACT, IW: EXACT, RMW: EXACT,
  LKR: EXACT, LKW: EXACT, UL: EXACT, LF: EXACT, RL: EXACT, RU: EXACT,
  po: EXACT, loc: EXACT, int: EXACT, ext: EXACT, id: EXACT_IDENT, co: EXACT,
  rf: CONTAINED, fr: CONTAINED, addr: CONTAINED, data: CONTAINED, ctrl: CONTAINED, rmw: CONTAINED,
};

const up = (p: Pol) => (p & 1) !== 0;
const down = (p: Pol) => (p & 2) !== 0;
const polOf = (contained: boolean, containing: boolean): Pol => ((contained ? 1 : 0) | (containing ? 2 : 0)) as Pol;
const flip = (p: Pol): Pol => polOf(down(p), up(p));

/** The sections' markers: the tags of the lock and the unlock of the model's nesting matching. */
export interface SectionMarkers {
  open: string;
  close: string;
}

/** What the derivation finds: the contained checks (instruction indexes), their failure names, the markers. */
export interface SectionRule {
  checks: ReadonlySet<number>;
  /** Every other check (skipped when a part is judged). */
  skip: ReadonlySet<number>;
  names: ReadonlySet<string>;
  markers: SectionMarkers;
}

/**
 * The checks of the model that a part τ failing proves failed (see the
 * header), for a program whose code never produces the sets `absent`,
 * with the markers of the one nesting matching they read; undefined when
 * none of them reads such a matching (nothing here to derive).
 */
export function deriveSectionRule(cat: CompiledCat, absent: ReadonlySet<string>, skipChecks: ReadonlySet<string> = new Set()): SectionRule | undefined {
  const a = new SubStructure(cat, absent);
  const checks = new Set<number>();
  const skip = new Set<number>();
  const names = new Set<string>();
  cat.instrs.forEach((ci, i) => {
    const ins = ci.instr;
    if (ins.kind !== 'test' || ins.role !== 'check') return;
    if (!ins.negated && !(ins.name && skipChecks.has(ins.name)) && up(a.expr(ins.expr, new Map()).pol)) {
      checks.add(i);
      names.add(ins.name ?? ins.test);
    } else skip.add(i);
  });
  if (a.markers.size !== 1 || checks.size === 0) return undefined;
  const [key] = a.markers;
  const [open, close] = key.split('\u0000');
  return { checks, skip, names, markers: { open, close } };
}

class SubStructure {
  private readonly slotInfo = new Map<number, Info>();
  private readonly active = new Set<number>();
  private depth = 0;
  /** The nesting matchings read (as open\0close tags); one read with other markers counts as two. */
  readonly markers = new Set<string>();
  constructor(
    private readonly cat: CompiledCat,
    private readonly absent: ReadonlySet<string>,
  ) {}

  private slot(slot: number): Info {
    const known = this.slotInfo.get(slot);
    if (known) return known;
    const info = this.computeSlot(slot);
    this.slotInfo.set(slot, info);
    return info;
  }

  private computeSlot(slot: number): Info {
    const s = this.cat.slots[slot];
    if (s.instr < 0) {
      if (this.absent.has(s.name)) return EMPTY;
      return BASE[s.name] ?? (this.tagOf(s.name) !== undefined ? EXACT : NEITHER);
    }
    if (this.active.has(slot)) return NEITHER;
    const ins = this.cat.instrs[s.instr].instr;
    if (ins.kind === 'let' && ins.rec) return this.recursiveSlots(s.instr, slot);
    this.active.add(slot);
    try {
      if (ins.kind === 'with') {
        const from = this.expr(ins.from, new Map());
        if (from.empty) return EMPTY;
        return ins.from.kind === 'app' && this.isLibraryFunction(ins.from.fn, 'generate_cos') ? EXACT : NEITHER;
      }
      if (ins.kind !== 'let') return NEITHER;
      const b = ins.bindings.find((x) => x.pattern.kind === 'var' && x.pattern.name === s.name);
      if (!b || b.expr.kind === 'fun') return NEITHER;
      return this.expr(b.expr, new Map());
    } finally {
      this.active.delete(slot);
    }
  }

  /** The tag whose set a base name is (Rcu-lock: rcu-lock), if it is one. */
  tagOf(name: string): string | undefined {
    for (const t of this.cat.tags) if (tagSetName(t) === name) return t;
    return undefined;
  }

  private isLibraryFunction(e: CatExpr, name: string): boolean {
    if (e.kind !== 'var' || e.name !== name || e.ref?.kind !== 'slot') return false;
    const s = this.cat.slots[e.ref.slot];
    return s.instr >= 0 && this.cat.instrs[s.instr].instr.pos.file.startsWith('litmus:');
  }

  private recursiveSlots(instr: number, slot: number): Info {
    const ci = this.cat.instrs[instr];
    const ins = ci.instr;
    if (ins.kind !== 'let' || ins.bindings.some((b) => b.expr.kind === 'fun' || b.pattern.kind !== 'var')) return NEITHER;
    for (const d of ci.defines) this.slotInfo.set(d, CONTAINED);
    const holds = ins.bindings.every((b) => up(this.expr(b.expr, new Map()).pol));
    for (const d of ci.defines) this.slotInfo.set(d, holds ? CONTAINED : NEITHER);
    return this.slotInfo.get(slot) ?? NEITHER;
  }

  private letIn(e: CatExpr & { kind: 'let' }, locals: Map<string, Info>): Info {
    const bind = (into: Map<string, Info>, p: Pattern, v: Info) => {
      if (p.kind === 'var') {
        if (p.name !== null) into.set(p.name, v);
      } else for (const n of p.names) if (n !== null) into.set(n, NEITHER);
    };
    if (!e.rec) {
      const inner = new Map(locals);
      // A local function is neither (map's rule below needs only its set).
      for (const b of e.bindings) bind(inner, b.pattern, b.expr.kind === 'fun' ? NEITHER : this.expr(b.expr, locals));
      return this.expr(e.body, inner);
    }
    if (e.bindings.some((b) => b.pattern.kind !== 'var' || b.expr.kind === 'fun')) return NEITHER;
    const m = nestingMarkers(e, (x) => this.expr(x, locals).pol === 3);
    if (m) {
      const open = m.open.kind === 'var' && m.open.ref?.kind === 'slot' && this.cat.slots[m.open.ref.slot].instr < 0 ? this.tagOf(m.open.name) : undefined;
      const close = m.close.kind === 'var' && m.close.ref?.kind === 'slot' && this.cat.slots[m.close.ref.slot].instr < 0 ? this.tagOf(m.close.name) : undefined;
      if (open === undefined || close === undefined || open === close) return NEITHER;
      this.markers.add(`${open}\u0000${close}`);
      return CONTAINED;
    }
    const inner = new Map(locals);
    for (const b of e.bindings) bind(inner, b.pattern, CONTAINED);
    if (!e.bindings.every((b) => up(this.expr(b.expr, inner).pol))) return NEITHER;
    return this.expr(e.body, inner);
  }

  private functionOf(e: CatExpr): { param: Pattern; body: CatExpr } | undefined {
    if (e.kind !== 'var' || e.ref?.kind !== 'slot') return undefined;
    const s = this.cat.slots[e.ref.slot];
    if (s.instr < 0) return undefined;
    const ins = this.cat.instrs[s.instr].instr;
    if (ins.kind !== 'let' || ins.rec) return undefined;
    const b = ins.bindings.find((x) => x.pattern.kind === 'var' && x.pattern.name === s.name);
    return b && b.expr.kind === 'fun' ? { param: b.expr.param, body: b.expr.body } : undefined;
  }

  /** The base function an expression names (domain, map, cross, ...), without herd's %. */
  private native(e: CatExpr, fuel = 8): string | undefined {
    if (e.kind !== 'var' || e.ref?.kind !== 'slot') return undefined;
    const s = this.cat.slots[e.ref.slot];
    if (s.instr < 0) return s.name.replace(/^%/, '');
    // A name bound to a native (the library's `let map = %map`).
    const ins = this.cat.instrs[s.instr].instr;
    if (fuel === 0 || ins.kind !== 'let' || ins.rec) return undefined;
    const b = ins.bindings.find((x) => x.pattern.kind === 'var' && x.pattern.name === s.name);
    return b ? this.native(b.expr, fuel - 1) : undefined;
  }

  expr(e: CatExpr, locals: Map<string, Info>): Info {
    if (++this.depth > 200) {
      this.depth--;
      return NEITHER;
    }
    try {
      return this.exprInner(e, locals);
    } finally {
      this.depth--;
    }
  }

  private exprInner(e: CatExpr, locals: Map<string, Info>): Info {
    switch (e.kind) {
      case 'var':
        if (e.ref?.kind === 'local') return locals.get(e.name) ?? NEITHER;
        if (e.ref?.kind === 'slot') return this.slot(e.ref.slot);
        return NEITHER;
      case 'empty':
        return EMPTY;
      case 'universe':
        return EXACT;
      case 'unary': {
        const a = this.expr(e.arg, locals);
        if (a.empty) return e.op === 'star' || e.op === 'opt' || e.op === 'comp' ? EXACT_IDENT : EMPTY;
        switch (e.op) {
          case 'toid':
            return { pol: a.pol, ident: true };
          case 'comp':
            return { pol: flip(a.pol) };
          case 'inv':
            return { pol: a.pol, ident: a.ident };
          case 'opt':
            return { pol: a.pol, ident: a.ident };
          default:
            // Paths of r: through events outside the part, unless r stays on one event.
            return { pol: a.ident ? a.pol : polOf(up(a.pol), false), ident: a.ident };
        }
      }
      case 'binary': {
        const all = e.args.map((x) => this.expr(x, locals));
        if ((e.op === 'inter' || e.op === 'seq' || e.op === 'cartesian') && all.some((a) => a.empty)) return EMPTY;
        if (e.op === 'diff' && all[0].empty) return EMPTY;
        const args = e.op === 'union' || e.op === 'diff' ? [all[0], ...all.slice(1).filter((a) => !a.empty)] : all;
        if (e.op === 'union' && args.every((a) => a.empty)) return EMPTY;
        const every = (f: (p: Pol) => boolean, xs: Info[]) => xs.every((a) => f(a.pol));
        switch (e.op) {
          case 'union':
          case 'inter':
            return { pol: polOf(every(up, args), every(down, args)), ident: e.op === 'union' ? args.every((a) => a.ident) : args.some((a) => a.ident) };
          case 'cartesian':
            return { pol: polOf(every(up, args), every(down, args)) };
          case 'seq': {
            const steps = args.filter((a) => !a.ident).length;
            return { pol: polOf(every(up, args), steps <= 1 && every(down, args)), ident: steps === 0 };
          }
          case 'diff': {
            const [first, ...rest] = args;
            return { pol: polOf(up(first.pol) && every(down, rest), down(first.pol) && every(up, rest)), ident: first.ident };
          }
          default:
            return NEITHER;
        }
      }
      case 'app':
        return this.application(e, locals);
      case 'let':
        return this.letIn(e, locals);
      case 'try': {
        const body = this.expr(e.body, locals);
        const otherwise = this.expr(e.otherwise, locals);
        if (body.empty && otherwise.empty) return EMPTY;
        return { pol: polOf(up(body.pol) && up(otherwise.pol), down(body.pol) && down(otherwise.pol)) };
      }
      default:
        return NEITHER;
    }
  }

  private application(e: CatExpr & { kind: 'app' }, locals: Map<string, Info>): Info {
    const fn = e.fn;
    const arg = this.expr(e.arg, locals);
    const native = this.native(fn);
    if (native === 'domain' || native === 'range') return arg.empty ? EMPTY : { pol: polOf(up(arg.pol), false) };
    // cross of no sets, map over no elements: nothing.
    if (native === 'cross' && arg.empty) return EMPTY;
    if (fn.kind === 'app' && this.native(fn.fn) === 'map' && arg.empty) return EMPTY;
    if (native !== undefined) return NEITHER;
    const f = this.functionOf(fn);
    if (!f) return NEITHER;
    const inner = new Map(locals);
    if (f.param.kind === 'var') {
      if (f.param.name !== null) inner.set(f.param.name, arg);
    } else {
      if (e.arg.kind !== 'tuple' || e.arg.elems.length !== f.param.names.length) return NEITHER;
      const elems = e.arg.elems;
      f.param.names.forEach((n, i) => {
        if (n !== null) inner.set(n, this.expr(elems[i], locals));
      });
    }
    return this.expr(f.body, inner);
  }
}

// ------------------------------------------------------------ the program's sections

/**
 * Per instruction of a thread, how many of the sections open there
 * (innermost first) every path from it to the thread's end closes;
 * `firstLock`: where its first lock is, or -1. Undefined for code whose
 * effect on sections is not known here (a loop; an instruction whose
 * event carries a marker's tag other than as a fence of its own).
 */
export function closesFrom(th: Thread, m: SectionMarkers): { count: Int32Array; firstLock: number } | undefined {
  const code = th.code;
  const count = new Int32Array(code.length + 1);
  let firstLock = -1;
  // Loop-free code jumps only forward: each instruction's successors are decided before it.
  for (let pc = code.length - 1; pc >= 0; pc--) {
    const ins = code[pc];
    const next = ins.op === 'jump' ? [ins.target] : ins.op === 'branch' ? [pc + 1, ins.ifFalse] : [pc + 1];
    if (next.some((n) => n <= pc || n > code.length)) return undefined;
    const step = sectionStep(ins, m);
    if (step === undefined) return undefined;
    if (step > 0) firstLock = pc;
    // A path's sections closed: the most its running count of unlocks over locks reaches.
    let least = Infinity;
    for (const n of next) least = Math.min(least, count[n]);
    count[pc] = Math.max(0, least - step);
  }
  return { count, firstLock };
}

/** +1 for a lock, -1 for an unlock, 0 for other instructions; undefined for one whose events carry a marker's tag otherwise. */
function sectionStep(ins: Instr, m: SectionMarkers): number | undefined {
  if (ins.op !== 'prim') return 0;
  const e = effectOf(ins.prim);
  const tags = [e.fence, e.annot, e.srcu];
  if (!tags.includes(m.open) && !tags.includes(m.close)) return 0;
  if (e.object !== 'none' || e.annot === m.open || e.annot === m.close || e.srcu === m.open || e.srcu === m.close) return undefined;
  return e.fence === m.open ? 1 : -1;
}

// ------------------------------------------------------------ the parts tried at a read

/** Judges a part (an execution of the model's program) with the checks outside the rule skipped. */
export type PartJudge = (x: Execution, skip: ReadonlySet<number>) => Verdict;

/**
 * The test of Model.forbiddenSources for a compiled model and a program
 * (see the header); undefined when the program has no thread whose
 * sections are known, or the rule none.
 */
export function sectionForbiddenSources(prog: Program, rule: SectionRule, judge: PartJudge): ForbiddenSource | undefined {
  const m = rule.markers;
  const closes = prog.threads.map((th) => closesFrom(th, m));
  if (!closes.some((c) => c !== undefined && c.firstLock >= 0)) return undefined;
  const parts = new Parts(prog, rule, judge);
  const scan = new Scan();
  return (x, r, w) => {
    const c = closes[r.thread];
    if (c === undefined || c.firstLock < 0 || r.pc < c.firstLock || r.kind !== 'R' || r.lock || r.srcu) return false;
    scan.of(x, r, m);
    if (scan.fences.length === 0 || scan.reads.length === 0) return false;
    const k = Math.min(scan.open.length, c.count[r.pc]);
    // The outermost section open at r that every path closes, or the last one closed.
    const closing = k > 0 ? scan.open[scan.open.length - k] : undefined;
    const lock = closing ?? scan.lastLock;
    const unlock = closing ? undefined : scan.lastUnlock;
    if (lock === undefined) return false;
    return parts.straddles(x, scan, r, w, lock, unlock);
  };
}

/**
 * What a read's test needs of the execution built so far, gathered in one
 * pass into arrays reused from one read to the next: T's sections (the
 * locks open at r, outermost first; the last section closed), T's earlier
 * reads with a source, and the other threads' fences.
 */
class Scan {
  readonly open: Event[] = [];
  lastLock: Event | undefined;
  lastUnlock: Event | undefined;
  readonly reads: Event[] = [];
  readonly fences: Event[] = [];

  of(x: PartialExecution, r: Event, m: SectionMarkers): void {
    const { open, reads, fences } = this;
    open.length = 0;
    reads.length = 0;
    fences.length = 0;
    this.lastLock = undefined;
    this.lastUnlock = undefined;
    const T = r.thread;
    // The explorer builds a thread's events in program order.
    for (const e of x.events) {
      if (e.thread !== T) {
        if (e.kind === 'F' && e.thread >= 0) fences.push(e);
      } else if (e.kind === 'F') {
        if (e.fence === m.open) open.push(e);
        else if (e.fence === m.close && open.length > 0) {
          this.lastLock = open.pop();
          this.lastUnlock = e;
        }
      } else if (e !== r && e.kind === 'R' && e.rf >= 0 && !e.lock && !e.srcu) reads.push(e);
    }
  }

  /** Whether thread V has a fence strictly between program-order positions lo and hi. */
  fenceBetween(V: number, lo: number, hi: number): boolean {
    for (const f of this.fences) if (f.thread === V && f.poIndex > lo && f.poIndex < hi) return true;
    return false;
  }
}

/** The parts tried and the model's verdicts on them, by shape. */
class Parts {
  private readonly known = new Map<string, boolean>();
  private readonly classIds = new Map<string, number>();
  private readonly bySlot = new Map<number, { annot: string; fence?: string; srcu?: string; lock?: string; isRmw: boolean; cls: number }>();
  constructor(
    private readonly prog: Program,
    private readonly rule: SectionRule,
    private readonly judge: PartJudge,
  ) {}

  /**
   * Whether r (T's last event) reading w, with T's section from lock L to
   * unlock U (undefined: one to come, after r), makes a part the model
   * forbids: r as b (a any earlier read of T before U) or as a (b an
   * earlier read of T after L, U to come).
   */
  straddles(x: PartialExecution, scan: Scan, r: Event, w: Event, L: Event, U: Event | undefined): boolean {
    // r as b: a before the unlock (any, when it is to come).
    for (const a of scan.reads) {
      if (U && a.poIndex >= U.poIndex) continue;
      if (this.tries(x, scan, L, U, a, x.events[a.rf], r, w)) return true;
    }
    // r as a: b after the lock, the unlock to come.
    if (U) return false;
    for (const b of scan.reads) {
      if (b.poIndex <= L.poIndex) continue;
      if (this.tries(x, scan, L, U, r, w, b, x.events[b.rf])) return true;
    }
    return false;
  }

  /** a reading src (of another thread), b reading wb0: each write wb of another thread V co-after wb0, u of V after wb with src u or co-after it. */
  private tries(x: PartialExecution, scan: Scan, L: Event, U: Event | undefined, a: Event, src: Event, b: Event, wb0: Event): boolean {
    const T = a.thread;
    if (src.thread < 0 || src.thread === T) return false;
    const coB = x.co[b.loc];
    const coA = x.co[a.loc];
    const srcAt = coA.indexOf(src.id);
    for (let j = coB.indexOf(wb0.id) + 1; j < coB.length; j++) {
      const wb = x.events[coB[j]];
      const V = wb.thread;
      if (V < 0 || V === T) continue;
      // u: src itself (of V), or a write of V co-before src.
      for (let i = srcAt; i >= 0; i--) {
        const u = x.events[coA[i]];
        if (u.thread !== V || u.poIndex <= wb.poIndex) continue;
        if (i !== srcAt && src.thread === V) continue;
        // Only a fence of V between wb and u (a grace period) can separate them; the part has V's fences there.
        if (!scan.fenceBetween(V, wb.poIndex, u.poIndex)) continue;
        if (this.forbids(x, scan, [L, a, b, wb, u, src, wb0], U, V, wb, u)) return true;
      }
    }
    return false;
  }

  /** The part of these events (and V's fences between wb and u, and the unlock U or a stand-in after T's events), judged. */
  private forbids(x: PartialExecution, scan: Scan, roles: Event[], U: Event | undefined, V: number, wb: Event, u: Event): boolean {
    const T = roles[0].thread;
    const evs: Event[] = [];
    const pick = (e: Event) => {
      if (!evs.includes(e)) evs.push(e);
    };
    roles.forEach(pick);
    for (const e of scan.fences) if (e.thread === V && e.poIndex > wb.poIndex && e.poIndex < u.poIndex) pick(e);
    if (U) pick(U);
    const m = this.rule.markers;
    // The lemma's part: L and U its only markers.
    for (const e of evs) if (e !== roles[0] && e !== U && this.classOf(e) < 0) return false;
    // Canonical order: by thread (T first, then as met), then program order; initial writes first.
    const threads = [T];
    for (const e of evs) if (e.thread >= 0 && !threads.includes(e.thread)) threads.push(e.thread);
    const rank = (e: Event) => (e.thread < 0 ? -1 : threads.indexOf(e.thread));
    evs.sort((p, q) => rank(p) - rank(q) || p.poIndex - q.poIndex);
    const locs: number[] = [];
    let key = U ? '' : `U:${m.close}`;
    for (const e of evs) {
      if (e.loc >= 0 && !locs.includes(e.loc)) locs.push(e.loc);
      // A read's source by its place in the part; a write's place among the part's writes of its location in coherence order.
      let rel = -1;
      if (e.kind === 'R') rel = e.rf >= 0 ? evs.indexOf(x.events[e.rf]) : -1;
      else if (e.kind === 'W') {
        const co = x.co[e.loc];
        const at = co.indexOf(e.id);
        rel = 0;
        for (const f of evs) if (f.kind === 'W' && f.loc === e.loc && co.indexOf(f.id) < at) rel++;
      }
      key += `;${rank(e)}:${this.classOf(e)}:${locs.indexOf(e.loc)}:${rel}`;
    }
    let known = this.known.get(key);
    if (known === undefined) this.known.set(key, (known = this.judgePart(x, evs, U === undefined, T)));
    return known;
  }

  /** What a part's key says of an event on its own (kind and tags), as a number; negative for an event that carries a marker's tag. */
  private classOf(e: Event): number {
    // The events an instruction makes (by thread, place and kind) mostly have one class: that is tried first.
    const slot = ((e.thread + 1) * 65536 + (e.pc + 1)) * 4 + (e.kind === 'R' ? 0 : e.kind === 'W' ? 1 : 2);
    const seen = this.bySlot.get(slot);
    if (seen && seen.annot === e.annot && seen.fence === e.fence && seen.srcu === e.srcu && seen.lock === e.lock && seen.isRmw === e.isRmw) return seen.cls;
    const desc = `${e.kind}:${e.annot}:${e.fence ?? ''}:${e.srcu ?? ''}:${e.lock ?? ''}:${e.isRmw ? 1 : 0}`;
    let c = this.classIds.get(desc);
    if (c === undefined) {
      const tags = tagsOf(e);
      const m = this.rule.markers;
      const marker = tags.includes(m.open) || tags.includes(m.close);
      this.classIds.set(desc, (c = marker ? -1 - this.classIds.size : this.classIds.size));
    }
    this.bySlot.set(slot, { annot: e.annot, fence: e.fence, srcu: e.srcu, lock: e.lock, isRmw: e.isRmw, cls: c });
    return c;
  }

  private judgePart(x: PartialExecution, evs: Event[], standIn: boolean, T: number): boolean {
    const index = new Map<number, number>();
    evs.forEach((e, i) => index.set(e.id, i));
    // Each location's coherence order restricted to the part (by the part's indexes).
    const co = this.prog.locations.map((_, l) => x.co[l].filter((id) => index.has(id)).map((id) => index.get(id)!));
    const last = evs.reduce((n, e) => (e.thread === T ? Math.max(n, e.poIndex) : n), -1);
    const part: Event[] = evs.map((e, i) => ({
      ...e,
      id: i,
      rf: e.kind === 'R' ? index.get(e.rf) ?? -1 : -1,
      rmwPartner: -1,
      addrDeps: 0n,
      dataDeps: 0n,
      ctrlDeps: 0n,
      held: undefined,
      shape: undefined,
    }));
    if (standIn) {
      part.push({
        id: part.length, thread: T, poIndex: last + 1, kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: this.rule.markers.close,
        isRmw: false, rmwPartner: -1, addrDeps: 0n, dataDeps: 0n, ctrlDeps: 0n, rf: -1, pc: -1, held: undefined, shape: undefined,
      });
    }
    try {
      const v = this.judge(buildExecution(this.prog, part, co), this.rule.skip);
      return !v.consistent && v.violated !== undefined && this.rule.names.has(v.violated);
    } catch {
      return false;
    }
  }
}


/** A rule (or none) as kept on disk beside the compiled model (models/cat/cache.ts DerivedFacts). */
export function sectionRuleToJson(rule: SectionRule | undefined): unknown {
  return rule ? { checks: [...rule.checks], skip: [...rule.skip], names: [...rule.names], markers: rule.markers } : null;
}

/** A rule read back (sectionRuleToJson): null for none, undefined for something else (then derived again). */
export function sectionRuleFromJson(v: unknown): SectionRule | null | undefined {
  if (v === null) return null;
  if (typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const ints = (a: unknown) => Array.isArray(a) && a.every((i) => Number.isInteger(i));
  const strings = (a: unknown) => Array.isArray(a) && a.every((s) => typeof s === 'string');
  const m = o.markers as Record<string, unknown> | null | undefined;
  if (!ints(o.checks) || !ints(o.skip) || !strings(o.names) || typeof m !== 'object' || m === null || typeof m.open !== 'string' || typeof m.close !== 'string') return undefined;
  return { checks: new Set(o.checks as number[]), skip: new Set(o.skip as number[]), names: new Set(o.names as string[]), markers: { open: m.open, close: m.close } };
}
