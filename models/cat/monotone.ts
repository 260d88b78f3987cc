// Which checks of a compiled model may judge a partial execution (the
// explorer's prefix checks, src/explore/prefix.ts): those whose relation
// can only grow as the execution is built, so that a violation in a prefix
// is one in every completion.
//
// The explorer builds an execution by adding events (each after every
// earlier event of its thread in program order), giving reads their
// sources (rf only grows) and placing writes in coherence order (the order
// of writes already placed never changes). So, restricted to the events
// already built, a definition is
//   - stable: it never changes (an event's own kind, tags, location,
//     dependencies; po, loc, int, ext, id; co; set operations of stable
//     sets; program-order paths through stable relations, whose middle
//     events come before the last in program order and so exist already);
//   - growing: it only gains pairs (rf, and whatever unions, intersections,
//     sequences and closures make of growing and stable parts);
//   - or anything else: a difference or complement of something that grows
//     (`LKW \ domain(critical)`: a lock's unlock may come later), the final
//     writes, a function not seen through.
// A `let ... in` binds its names to what their definitions are. A `let rec`
// (a least fixpoint, reached as herd does, by iterating from empty
// relations) is stable (growing) where each body is, taking the recursive
// names as stable (growing): by induction on the iterations, each iterate
// on a prefix is the completion's restricted (contained in it), so the
// limits are too. One recursive definition that takes differences of what
// it computes is read by a lemma (nestingMarkers): the matching of nested
// markers, as the kernel's bell pairs rcu_read_lock() with
// rcu_read_unlock(), is stable.
// A non-negated acyclic, irreflexive or empty check over a stable or
// growing relation is safe on prefixes; the others wait for the whole
// execution.

import type { CatExpr, Pattern } from './ast.js';
import type { CompiledCat } from './compile.js';

/** 0 stable, 1 growing, 2 anything. */
type Level = 0 | 1 | 2;

interface Info {
  level: Level;
  /** A relation within program order (or the identity): paths through it stay inside what is built. */
  intra: boolean;
  /** Within the identity ([S], id): a step through it passes no other event. */
  ident?: boolean;
  /** Empty in every execution of the program (made of sets its code never produces). */
  empty?: boolean;
}

const EMPTY: Info = { level: 0, intra: true, ident: true, empty: true };

const STABLE: Info = { level: 0, intra: false };
const STABLE_INTRA: Info = { level: 0, intra: true };
const STABLE_IDENT: Info = { level: 0, intra: true, ident: true };
const GROWING: Info = { level: 1, intra: false };
const ANY: Info = { level: 2, intra: false };

/** herd's base names: how each behaves as an execution is built. */
const BASE: Record<string, Info> = {
  R: STABLE, W: STABLE, M: STABLE, F: STABLE, IW: STABLE, RMW: STABLE,
  LKR: STABLE, LKW: STABLE, UL: STABLE, LF: STABLE, RL: STABLE, RU: STABLE,
  po: STABLE_INTRA, addr: STABLE_INTRA, data: STABLE_INTRA, ctrl: STABLE_INTRA, rmw: STABLE_INTRA, id: STABLE_IDENT,
  loc: STABLE, int: STABLE, ext: STABLE,
  rf: GROWING, co: STABLE, fr: GROWING, FW: ANY,
};

const join = (...xs: Info[]): Level => Math.max(0, ...xs.map((x) => x.level)) as Level;

/**
 * The test instructions of the model (by index) that may judge a prefix,
 * for a program whose code never produces the base sets named `absent`
 * (lock operations, in a test without locks).
 */
export function prefixSafeChecks(cat: CompiledCat, absent: ReadonlySet<string> = new Set()): Set<number> {
  const a = new Analysis(cat, absent);
  const safe = new Set<number>();
  cat.instrs.forEach((ci, i) => {
    const ins = ci.instr;
    if (ins.kind !== 'test' || ins.role !== 'check' || ins.negated) return;
    if (a.expr(ins.expr, new Map()).level <= 1) safe.add(i);
  });
  return safe;
}

class Analysis {
  private readonly slotInfo = new Map<number, Info>();
  /** Definitions being analysed (a recursive one is anything). */
  private readonly active = new Set<number>();
  private depth = 0;
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
      return BASE[s.name] ?? (this.cat.base.has(s.name) && !s.name.startsWith('%') ? STABLE : ANY);
    }
    if (this.active.has(slot)) return ANY;
    const rec = this.cat.instrs[s.instr].instr;
    if (rec.kind === 'let' && rec.rec) return this.recursiveSlots(s.instr, slot);
    this.active.add(slot);
    try {
      const ins = this.cat.instrs[s.instr].instr;
      // A coherence order chosen by litmus's own generate_cos is the candidate's co among those writes: stable.
      if (ins.kind === 'with') return ins.from.kind === 'app' && this.isLibraryFunction(ins.from.fn, 'generate_cos') ? STABLE : GROWING;
      if (ins.kind !== 'let' || ins.rec) return ANY;
      const b = ins.bindings.find((x) => x.pattern.kind === 'var' && x.pattern.name === s.name);
      if (!b || b.expr.kind === 'fun') return ANY; // functions are seen through at each application
      return this.expr(b.expr, new Map());
    } finally {
      this.active.delete(slot);
    }
  }

  /** Whether e names the function `name` of litmus's own library files (not one a model defines). */
  private isLibraryFunction(e: CatExpr, name: string): boolean {
    if (e.kind !== 'var' || e.name !== name || e.ref?.kind !== 'slot') return false;
    const s = this.cat.slots[e.ref.slot];
    return s.instr >= 0 && this.cat.instrs[s.instr].instr.pos.file.startsWith('litmus:');
  }

  /**
   * The slots of a top-level `let rec` (see the header): each binding's
   * body read with every recursive name taken as stable, then as growing;
   * the first assumption each body keeps is what they all are.
   */
  private recursiveSlots(instr: number, slot: number): Info {
    const ci = this.cat.instrs[instr];
    const ins = ci.instr;
    if (ins.kind !== 'let' || ins.bindings.some((b) => b.expr.kind === 'fun' || b.pattern.kind !== 'var')) return ANY;
    const defined = ci.defines;
    for (const level of [0, 1] as const) {
      const assumed: Info = { level, intra: false };
      for (const d of defined) this.slotInfo.set(d, assumed);
      let holds = true;
      for (const b of ins.bindings) if (this.expr(b.expr, new Map()).level > level) holds = false;
      for (const d of defined) this.slotInfo.delete(d);
      if (holds) {
        for (const d of defined) this.slotInfo.set(d, assumed);
        return assumed;
      }
    }
    for (const d of defined) this.slotInfo.set(d, ANY);
    return this.slotInfo.get(slot) ?? ANY;
  }

  /** A `let ... in` (see the header). */
  private letIn(e: CatExpr & { kind: 'let' }, locals: Map<string, Info>): Info {
    if (e.bindings.some((b) => b.expr.kind === 'fun')) return ANY;
    const bind = (into: Map<string, Info>, p: Pattern, v: Info) => {
      if (p.kind === 'var') {
        if (p.name !== null) into.set(p.name, v);
      } else for (const n of p.names) if (n !== null) into.set(n, ANY);
    };
    if (!e.rec) {
      const inner = new Map(locals);
      for (const b of e.bindings) bind(inner, b.pattern, this.expr(b.expr, locals));
      return this.expr(e.body, inner);
    }
    if (e.bindings.some((b) => b.pattern.kind !== 'var')) return ANY;
    if (nestingMarkers(e, (x) => this.expr(x, locals).level === 0)) return STABLE_INTRA;
    for (const level of [0, 1] as const) {
      const assumed: Info = { level, intra: false };
      const inner = new Map(locals);
      for (const b of e.bindings) bind(inner, b.pattern, assumed);
      if (e.bindings.every((b) => this.expr(b.expr, inner).level <= level)) return this.expr(e.body, inner);
    }
    return ANY;
  }

  /** The function a name means, if it is a `let f(x) = ...` of the model. */
  private functionOf(e: CatExpr): { param: Pattern; body: CatExpr } | undefined {
    if (e.kind !== 'var' || e.ref?.kind !== 'slot') return undefined;
    const s = this.cat.slots[e.ref.slot];
    if (s.instr < 0) return undefined;
    const ins = this.cat.instrs[s.instr].instr;
    if (ins.kind !== 'let' || ins.rec) return undefined;
    const b = ins.bindings.find((x) => x.pattern.kind === 'var' && x.pattern.name === s.name);
    return b && b.expr.kind === 'fun' ? { param: b.expr.param, body: b.expr.body } : undefined;
  }

  expr(e: CatExpr, locals: Map<string, Info>): Info {
    if (++this.depth > 200) {
      this.depth--;
      return ANY;
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
        if (e.ref?.kind === 'local') return locals.get(e.name) ?? ANY;
        if (e.ref?.kind === 'slot') return this.slot(e.ref.slot);
        return ANY;
      case 'empty':
        return EMPTY;
      case 'universe':
        return STABLE;
      case 'unary': {
        const a = this.expr(e.arg, locals);
        if (a.empty) return e.op === 'star' || e.op === 'opt' || e.op === 'comp' ? STABLE_IDENT : EMPTY;
        switch (e.op) {
          case 'toid':
            return { level: a.level, intra: true, ident: true };
          case 'comp':
            return a.level === 0 ? STABLE : ANY;
          case 'inv':
            return { level: a.level, intra: false };
          case 'opt':
            return { level: a.level, intra: a.intra, ident: a.ident };
          default:
            // r* and r+: paths of r; within program order they stay inside what is built.
            return { level: a.level === 0 && !a.intra ? 1 : a.level, intra: a.intra };
        }
      }
      case 'binary': {
        const all = e.args.map((x) => this.expr(x, locals));
        if (e.op === 'inter' || e.op === 'seq' || e.op === 'cartesian') {
          if (all.some((a) => a.empty)) return EMPTY;
        }
        if (e.op === 'diff' && all[0].empty) return EMPTY;
        // An empty part adds nothing to a union and takes nothing from a difference.
        const args = e.op === 'union' || e.op === 'diff' ? [all[0], ...all.slice(1).filter((a) => !a.empty)] : all;
        if (e.op === 'union' && args.every((a) => a.empty)) return EMPTY;
        switch (e.op) {
          case 'union':
            return { level: join(...args), intra: args.every((a) => a.intra), ident: args.every((a) => a.ident) };
          case 'inter':
            return { level: join(...args), intra: args.some((a) => a.intra), ident: args.some((a) => a.ident) };
          case 'cartesian':
            return { level: join(...args), intra: false };
          case 'seq': {
            const level = join(...args);
            const intra = args.every((a) => a.intra);
            // A path's middle events exist already when every step is within program order, or all but one are identities.
            const steps = args.filter((a) => !a.ident).length;
            const ident = steps === 0;
            return { level: level === 0 && !intra && steps > 1 ? 1 : level, intra, ident };
          }
          case 'diff': {
            const [first, ...rest] = args;
            if (rest.some((r) => r.level !== 0)) return ANY;
            return { level: first.level, intra: first.intra, ident: first.ident };
          }
          default:
            return ANY;
        }
      }
      case 'app':
        return this.application(e, locals);
      case 'let':
        return this.letIn(e, locals);
      case 'try': {
        // The body's value, or the fallback's when the body fails.
        const body = this.expr(e.body, locals);
        const otherwise = this.expr(e.otherwise, locals);
        if (body.empty && otherwise.empty) return EMPTY;
        return { level: join(body, otherwise), intra: body.intra && otherwise.intra };
      }
      default:
        return ANY;
    }
  }

  private application(e: CatExpr & { kind: 'app' }, locals: Map<string, Info>): Info {
    const fn = e.fn;
    const arg = this.expr(e.arg, locals);
    if (fn.kind === 'var' && fn.ref?.kind === 'slot' && this.cat.slots[fn.ref.slot].instr < 0) {
      const name = this.cat.slots[fn.ref.slot].name.replace(/^%/, '');
      if (name === 'domain' || name === 'range') {
        if (e.arg.kind === 'empty' || arg.empty) return EMPTY;
        // An RMW's read and write are built together: which events are in them never changes.
        if (e.arg.kind === 'var' && e.arg.ref?.kind === 'slot' && this.cat.slots[e.arg.ref.slot].instr < 0 && this.cat.slots[e.arg.ref.slot].name === 'rmw') return STABLE;
        return { level: arg.level === 0 ? 1 : arg.level, intra: false };
      }
      return ANY;
    }
    const f = this.functionOf(fn);
    if (!f) return ANY;
    const inner = new Map(locals);
    if (f.param.kind === 'var') {
      if (f.param.name !== null) inner.set(f.param.name, arg);
    } else {
      if (e.arg.kind !== 'tuple' || e.arg.elems.length !== f.param.names.length) return ANY;
      f.param.names.forEach((n, i) => {
        if (n !== null) inner.set(n, this.expr((e.arg as CatExpr & { kind: 'tuple' }).elems[i], locals));
      });
    }
    return this.expr(f.body, inner);
  }
}

// ------------------------------------------------------------ the nesting lemma

/**
 * Whether a `let rec ... in P` is the matching of nested markers (its A
 * and B, or undefined): with
 * its other names written out, P's binding is
 *   P = P | (([S] ; po ; [E]) \ (L ; L)),  L = [S | E] ; po ; [S | E],
 *   S = A \ domain(P),  E = B \ range(P),
 * A and B stable sets (the bell's rcu-rscs, however its parts are named).
 * The lemma: iterated from empty, P relates a in A to b in B, a po-before
 * b, exactly when the markers (events of A or B) strictly between them
 * are all paired among themselves: a pair is added once no unpaired
 * marker is left between its ends, a marker between two ends is paired
 * before them and, pairs never crossing, with a partner between them too
 * (by induction on the rounds). So whether two events are paired is
 * decided by the events between them in program order, which a prefix
 * holding both has: P is stable.
 */
export function nestingMarkers(e: CatExpr & { kind: 'let' }, stable: (x: CatExpr) => boolean): { open: CatExpr; close: CatExpr } | undefined {
  if (e.body.kind !== 'var' || e.body.ref?.kind !== 'local') return undefined;
  const P = e.body.name;
  const defs = new Map<string, CatExpr>();
  for (const b of e.bindings) if (b.pattern.kind === 'var' && b.pattern.name !== null) defs.set(b.pattern.name, b.expr);
  const top = defs.get(P);
  if (!top) return undefined;
  // The binding with the other recursive names written out (a name of P's only).
  let fuel = 200;
  const inline = (x: CatExpr): CatExpr | undefined => {
    if (--fuel < 0) return undefined;
    switch (x.kind) {
      case 'var':
        if (x.ref?.kind === 'local' && x.name !== P) {
          const d = defs.get(x.name);
          return d ? inline(d) : x;
        }
        return x;
      case 'unary': {
        const a = inline(x.arg);
        return a && { ...x, arg: a };
      }
      case 'binary': {
        const args: CatExpr[] = [];
        for (const a of x.args) {
          const y = inline(a);
          if (!y) return undefined;
          // Associative operators flattened.
          if ((x.op === 'seq' || x.op === 'union') && y.kind === 'binary' && y.op === x.op) args.push(...y.args);
          else args.push(y);
        }
        return { ...x, args };
      }
      case 'app': {
        const f = inline(x.fn);
        const a = inline(x.arg);
        return f && a && { ...x, fn: f, arg: a };
      }
      case 'empty':
      case 'universe':
      case 'tag':
        return x;
      default:
        return undefined;
    }
  };
  const body = inline(top);
  if (!body || body.kind !== 'binary' || body.op !== 'union' || body.args.length !== 2) return undefined;
  const isP = (x: CatExpr) => x.kind === 'var' && x.ref?.kind === 'local' && x.name === P;
  const rest = isP(body.args[0]) ? body.args[1] : isP(body.args[1]) ? body.args[0] : undefined;
  if (!rest || rest.kind !== 'binary' || rest.op !== 'diff' || rest.args.length !== 2) return undefined;
  const [pairs, loose2] = rest.args;
  const between = sectioned(pairs);
  if (!between || !between.from || !between.to) return undefined;
  const S = between.from;
  const E = between.to;
  const ofP = (x: CatExpr, fn: 'domain' | 'range') => {
    if (x.kind !== 'binary' || x.op !== 'diff' || x.args.length !== 2) return undefined;
    const [A, d] = x.args;
    if (d.kind !== 'app' || !isBase(d.fn, fn) || !isP(d.arg)) return undefined;
    // A stable set that does not read P.
    return !mentions(A, P) && stable(A) ? A : undefined;
  };
  const open = ofP(S, 'domain');
  const close = ofP(E, 'range');
  if (!open || !close) return undefined;
  if (loose2.kind !== 'binary' || loose2.op !== 'seq' || loose2.args.length !== 6) return undefined;
  const L1 = sectioned({ ...loose2, args: loose2.args.slice(0, 3) });
  const L2 = sectioned({ ...loose2, args: loose2.args.slice(3) });
  const isSE = (u: CatExpr | undefined) =>
    u !== undefined && u.kind === 'binary' && u.op === 'union' && u.args.length === 2 &&
    ((same(u.args[0], S) && same(u.args[1], E)) || (same(u.args[0], E) && same(u.args[1], S)));
  return [L1?.from, L1?.to, L2?.from, L2?.to].every(isSE) ? { open, close } : undefined;
}

/** [X] ; po ; [Y] as X and Y. */
function sectioned(x: CatExpr): { from?: CatExpr; to?: CatExpr } | undefined {
  if (x.kind !== 'binary' || x.op !== 'seq' || x.args.length !== 3) return undefined;
  const [a, po, b] = x.args;
  if (a.kind !== 'unary' || a.op !== 'toid' || b.kind !== 'unary' || b.op !== 'toid' || !isBase(po, 'po')) return undefined;
  return { from: a.arg, to: b.arg };
}

/** Whether x names herd's base `name` (po, domain, range). */
function isBase(x: CatExpr, name: string): boolean {
  return x.kind === 'var' && x.ref?.kind === 'slot' && x.name.replace(/^%/, '') === name;
}

/** Whether x reads the local name n. */
function mentions(x: CatExpr, n: string): boolean {
  if (x.kind === 'var') return x.ref?.kind === 'local' && x.name === n;
  return Object.values(x).some((v) => (Array.isArray(v) ? v.some((y) => isExpr(y) && mentions(y, n)) : isExpr(v) && mentions(v, n)));
}

function isExpr(v: unknown): v is CatExpr {
  return typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string' && 'pos' in (v as object);
}

/** Structural equality of two expressions, positions aside. */
function same(a: CatExpr, b: CatExpr): boolean {
  const eq = (x: unknown, y: unknown): boolean => {
    if (x === y) return true;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x).filter((k) => k !== 'pos' && k !== 'hoisted');
    const ky = Object.keys(y).filter((k) => k !== 'pos' && k !== 'hoisted');
    if (kx.length !== ky.length) return false;
    return kx.every((k) => eq((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]));
  };
  return eq(a, b);
}
