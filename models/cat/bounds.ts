// Upper bounds of a compiled cat model's definitions, over one event
// structure: for each relation the model defines, a relation that contains
// it in every candidate execution of the structure, written in terms the
// explorer's search for an interleaving can use (models/cat/derive-
// interleaving.ts). Static definitions (those that only read what the
// events decide) are computed exactly, once per structure; a dynamic one
// is bounded by
//   - chains: sequences of factors, each a static relation (its value) or
//     a dynamic factor: a class of edges of the candidate's own rf and co
//     (rf, co, its immediate successor relation coimm, fr, fre ; coe as
//     frco, the inverse of rf), or `fwd`, "forward in every interleaving
//     order", with a static envelope that contains its pairs.
// An interleaving order T of a candidate is a strict total order of its
// events that contains its rf, co and fr and a set of static edges (the
// `needs` the bounds collect: program-order parts), and respects grace
// constraints (`cons`: for a pair (lock, unlock) and an event g, g is not
// strictly between them). rf, co, coimm and fr are inside every such T; so
// is a factor of class fwd, given its needs and constraints. A factor that
// is not `strict` may also contain pairs (e, e).
//
// The rules, each a lemma about every candidate the explorer builds (the
// facts per structure are computed from its events: structureFacts):
//   - A union, intersection or composition of factors inside T is inside
//     T; so are their closures; a difference is inside its first operand.
//   - rf^-1 ; co is fr (by definition; herd's fr too).
//   - A write w po-before (or T-before) a read r of its location is co-before
//     or equal to the write r reads: T-before r, r's source is not co-before
//     w, else r fr w and w T-before r make a cycle in T. So X ; rf^-1 is
//     inside T or the identity when X is inside T and links writes to reads
//     of their location.
//   - A lock's critical section (LKW, UL) is adjacent in co (the explorer
//     appends a section's unlock right after its lock write, where no other
//     write reaches the lock's location): C^-1 ; co, for C made of such pairs,
//     is inside co (or the identity), and a lock read LKR reads the write
//     just before its LKW in co: coimm ; L^-1 is inside rf for L made of
//     (LKR, LKW) pairs. A lock read inside its own critical section reads
//     that section's lock write (rf).
//   - Grace constraints: for a static C inside po and a pair (l, u) of C, if
//     g is T-before u and the interleaving keeps g out of [l, u], g is
//     T-before l: X ; C^-1 is inside T when X is, given the constraints
//     (l, u, g) for the pairs (g, u) of X; likewise C^-1 ; X, g T-after l.
//   - `with X from S` (candidate generation): X is a part of the candidate's
//     own rf and co (models/cat/evaluate.ts takes the element they contain).
//     For litmus's own generate_cos(pco), X is co restricted to a set of
//     writes, and exists in every complete candidate whose co contains pco
//     (pco inside T between writes of one location is inside co: co is
//     total on them and inside T).
//   - The final writes FW are the last of their location's co: (S \ FW) * FW
//     & loc, S a set of writes, is inside co (complete candidates only).
//   - singlestep(X) (litmus's stdlib: X \ (X ; X)), for X inside co and
//     containing co on every write of its locations, is coimm.
// Anything else (an inverse of a dynamic relation other than rf, a
// complement, a function not seen through) bounds nothing: `top`.

import type { Execution } from '../../src/model/execution.js';
import { EventSet, Relation } from '../../src/relation/relation.js';
import type { CatExpr, Pattern } from './ast.js';
import type { Locals } from './code.js';
import type { CompiledCat } from './compile.js';
import { asRelOrNull, asSetOrNull, type Value } from './values.js';

/** Classes of dynamic edges (see the header). nf2f: from a write not final to a final write, any location (co once restricted to one). */
export type EdgeClass = 'rf' | 'co' | 'coimm' | 'fr' | 'frco' | 'fwd' | 'rfinv' | 'nf2f';

/** Event g may not be strictly between lock and unlock in the interleaving. */
export interface Constraint {
  lock: number;
  unlock: number;
  gp: number;
}

/** A dynamic relation bounded by a class of edges. */
export interface DynFactor {
  kind: 'dyn';
  cls: EdgeClass;
  /** Every pair of the relation is in env. */
  env: Relation;
  /** No pair (e, e): inside its class; else inside the class or the identity. */
  strict: boolean;
  /** Static edges the interleaving order must contain for the bound to hold (null: none). */
  needs: Relation | null;
  /** Grace constraints the interleaving must respect for it. */
  cons: readonly Constraint[];
  /** Holds of complete candidates only (the final writes; a with that must exist). */
  whole: boolean;
  /** For co: the relation contains co restricted to these writes. */
  covers?: EventSet;
}

export interface StaticFactor {
  kind: 'static';
  rel: Relation;
}

export type Factor = DynFactor | StaticFactor;

/** The composition of the factors, intersected with `filter` when there is one. */
export interface Chain {
  fs: readonly Factor[];
  filter?: Relation;
}

/** What an expression is bounded by. */
export type Bound =
  | { kind: 'val'; v: Value }
  | { kind: 'rel'; chains: readonly Chain[]; narrowed?: { from: Bound; by: Relation } }
  | { kind: 'dset'; env: EventSet; fw?: boolean; final?: boolean; nonFinal?: boolean; whole: boolean }
  | { kind: 'closure'; param: Pattern; body: CatExpr; env: Env }
  | { kind: 'native'; name: string }
  | { kind: 'mapf'; f: Bound }
  | { kind: 'lin'; over: EventSet; order: Bound }
  | { kind: 'cross'; parts: readonly Bound[] }
  | { kind: 'list'; elems: readonly Bound[] }
  | { kind: 'tuple'; elems: readonly Bound[] }
  | { kind: 'top' };

/** Local names with their bounds. */
type Env = { name: string; b: Bound; next: Env } | null;

const TOP: Bound = { kind: 'top' };

/** herd's primitives and litmus's natives (models/cat/builtins.ts), as base names. */
const NATIVE_NAMES: ReadonlySet<string> = new Set(['domain', 'range', 'classes-loc', 'linearisations', 'cross', 'map', 'different-values']);
const NO_CHAINS: Bound = { kind: 'rel', chains: [] };

/** How a structure's static values are computed (models/cat/evaluate.ts). */
export interface StaticEval {
  /** A static top-level definition's value. */
  slot(slot: number): Value;
  /** A static expression's value, its local names given. */
  expr(e: CatExpr, locals: Locals | null): Value;
}

/** What the explorer guarantees of every candidate of a structure (see the header). */
export interface StructureFacts {
  n: number;
  po: Relation;
  loc: Relation;
  int: Relation;
  ext: Relation;
  id: Relation;
  /** Every read and write, lock operations included. */
  R: EventSet;
  W: EventSet;
  IW: EventSet;
  /** The writes every complete candidate has in its co (all but unmatched unlocks). */
  placed: EventSet;
  /** po, and initial writes before every other event: edges the order may always take. */
  forwardOk: Relation;
  /** (LKW, UL) of each critical section, adjacent in co (empty where a lock's location has other writes). */
  sections: Relation;
  /** (LKR, LKW) of each spin_lock. */
  lockRmw: Relation;
  /** (LKW, r): a lock read inside its own critical section, which reads that lock write. */
  ownLockReads: Relation;
  /** Writes by location, for the sets a class's envelope relates. */
  sameLocWrites: Relation;
}

/** The facts of x's structure (read from its events: valid while x is the execution at hand). */
export function structureFacts(x: Execution): StructureFacts {
  const { n, events } = x;
  const { po, loc, int, ext, id } = x.rel;
  const R = new EventSet(n);
  const W = new EventSet(n);
  const IW = new EventSet(n);
  const placed = new EventSet(n);
  const sections = new Relation(n);
  const lockRmw = new Relation(n);
  const ownLockReads = new Relation(n);
  const lockLocs = new Set<number>();
  for (const e of events) if (e.lock) lockLocs.add(e.loc);
  let otherWrites = false;
  // Per thread and lock location, the open section's lock write.
  const open = new Map<string, number>();
  const byPo = [...events].sort((a, b) => a.thread - b.thread || a.poIndex - b.poIndex);
  for (const e of byPo) {
    if (e.kind === 'R') R.add(e.id);
    if (e.kind === 'W') W.add(e.id);
    if (e.thread < 0) {
      if (e.kind === 'W') (IW.add(e.id), placed.add(e.id));
      continue;
    }
    if (e.kind === 'W' && e.lock !== 'UL') placed.add(e.id);
    if (e.kind === 'W' && !e.lock && lockLocs.has(e.loc)) otherWrites = true;
    const key = `${e.thread}:${e.loc}`;
    if (e.lock === 'LKR' && e.rmwPartner >= 0) lockRmw.add(e.id, e.rmwPartner);
    if (e.lock === 'LKW') open.set(key, e.id);
    else if (e.lock === 'UL') {
      const l = open.get(key);
      if (l !== undefined) {
        sections.add(l, e.id);
        placed.add(e.id);
        open.delete(key);
      }
    } else if (e.lock === 'LF' || e.lock === 'RL') {
      const l = open.get(key);
      if (l !== undefined) ownLockReads.add(l, e.id);
    }
  }
  const forwardOk = po.or(IW.cross(IW.complement()));
  const writes = W.id();
  return {
    n, po, loc, int, ext, id, R, W, IW, placed, forwardOk,
    sections: otherWrites ? new Relation(n) : sections,
    lockRmw, ownLockReads,
    sameLocWrites: writes.seq(loc).seq(writes),
  };
}

/** What an expression reads, for deciding whether it is computed rather than bounded. */
interface StaticInfo {
  /** A dynamic definition, or a function as a value (functions are applied to bounds). */
  dynamic: boolean;
  /** The local names it reads (free in it). */
  locals: ReadonlySet<string>;
  /** The top-level definitions it names. */
  slots: ReadonlySet<number>;
}

const NO_LOCALS: ReadonlySet<string> = new Set();
const NO_SLOTS: ReadonlySet<number> = new Set();

/** What bounding needs of a compiled model, whatever the structure: what each expression reads, which slots hold functions. */
export class BoundsModel {
  private readonly info = new WeakMap<CatExpr, StaticInfo>();
  private readonly functionSlots = new Map<number, boolean>();
  constructor(readonly cat: CompiledCat) {}

  staticInfo(e: CatExpr): StaticInfo {
    let i = this.info.get(e);
    if (!i) this.info.set(e, (i = this.computeInfo(e)));
    return i;
  }

  private computeInfo(e: CatExpr): StaticInfo {
    const all = (xs: readonly CatExpr[], bound: readonly (string | null)[] = []): StaticInfo => {
      let dynamic = false;
      const locals = new Set<string>();
      const slots = new Set<number>();
      for (const x of xs) {
        const i = this.staticInfo(x);
        if (i.dynamic) dynamic = true;
        for (const nm of i.locals) locals.add(nm);
        for (const sl of i.slots) slots.add(sl);
      }
      for (const b of bound) if (b !== null) locals.delete(b);
      return { dynamic, locals: locals.size === 0 ? NO_LOCALS : locals, slots: slots.size === 0 ? NO_SLOTS : slots };
    };
    const join = (a: StaticInfo, b: StaticInfo): StaticInfo => ({
      dynamic: a.dynamic || b.dynamic, locals: new Set([...a.locals, ...b.locals]), slots: new Set([...a.slots, ...b.slots]),
    });
    switch (e.kind) {
      case 'var':
        if (e.ref?.kind === 'local') return { dynamic: false, locals: new Set([e.name]), slots: NO_SLOTS };
        if (e.ref?.kind === 'slot') return { dynamic: this.cat.slots[e.ref.slot].stage !== 'static' || this.isFunctionSlot(e.ref.slot), locals: NO_LOCALS, slots: new Set([e.ref.slot]) };
        return { dynamic: false, locals: NO_LOCALS, slots: NO_SLOTS };
      case 'empty':
      case 'universe':
      case 'tag':
        return { dynamic: false, locals: NO_LOCALS, slots: NO_SLOTS };
      case 'explicit':
      case 'tuple':
        return all(e.elems);
      case 'unary':
        return all([e.arg]);
      case 'binary':
        return all(e.args);
      case 'app':
        // A static function applied to static arguments is computed.
        if (e.fn.kind === 'var' && e.fn.ref?.kind === 'slot') {
          const arg = all([e.arg]);
          const slots = new Set([...arg.slots, e.fn.ref.slot]);
          return this.cat.slots[e.fn.ref.slot].stage === 'static' ? { ...arg, slots } : { ...arg, dynamic: true, slots };
        }
        return all([e.fn, e.arg]);
      case 'fun': {
        // A function is applied to bounds: it stays a closure.
        const body = all([e.body], e.param.kind === 'var' ? [e.param.name] : e.param.names);
        return { ...body, dynamic: true };
      }
      case 'let': {
        const names = e.bindings.flatMap((b) => (b.pattern.kind === 'var' ? [b.pattern.name] : b.pattern.names));
        return join(all([e.body], names), all(e.bindings.map((b) => b.expr), e.rec ? names : []));
      }
      case 'try':
        return all([e.body, e.otherwise]);
      case 'if':
        return all(e.cond.kind === 'variant' ? [e.then, e.otherwise] : [e.cond.left, e.cond.right, e.then, e.otherwise]);
      case 'match-tag':
        return all([e.subject, ...e.clauses.map((c) => c.body), ...(e.fallback ? [e.fallback] : [])]);
      case 'match-set':
        return join(all([e.body], [e.elem, e.rest]), all([e.subject, e.ifEmpty]));
    }
  }

  /** Whether a slot holds a function (applied to bounds, not computed): a `fun`, a native, or a name for one. */
  isFunctionSlot(slot: number): boolean {
    const known = this.functionSlots.get(slot);
    if (known !== undefined) return known;
    this.functionSlots.set(slot, false);
    const s = this.cat.slots[slot];
    let fn = false;
    if (s.instr < 0) fn = NATIVE_NAMES.has(s.name.replace(/^%/, ''));
    else {
      const ci = this.cat.instrs[s.instr];
      const ins = ci.instr;
      if (ins.kind === 'let') {
        const k = ci.defines.indexOf(slot);
        let at = 0;
        for (const b of ins.bindings) {
          const names = b.pattern.kind === 'var' ? [b.pattern.name] : b.pattern.names;
          if (k < at + names.length) {
            fn = b.expr.kind === 'fun' || (b.expr.kind === 'var' && b.expr.ref?.kind === 'slot' && this.isFunctionSlot(b.expr.ref.slot));
            break;
          }
          at += names.length;
        }
      }
    }
    this.functionSlots.set(slot, fn);
    return fn;
  }
}

/** A relation's chains (a static value as one chain of one factor). */
function chainsOf(b: Bound, n: number): readonly Chain[] | undefined {
  if (b.kind === 'rel') return b.chains;
  if (b.kind === 'val') {
    const r = asRelOrNull(b.v, n);
    if (!r) return undefined;
    return r.isEmpty() ? [] : [{ fs: [{ kind: 'static', rel: r }] }];
  }
  if (b.kind === 'dset') return undefined;
  return undefined;
}

const MAX_CHAINS = 96;

/** The bounds of a compiled model's definitions for one structure (each slot bounded once). */
export class Bounds {
  private readonly slots = new Map<number, Bound>();
  private readonly active = new Set<number>();
  readonly n: number;
  readonly cat: CompiledCat;
  constructor(
    readonly model: BoundsModel,
    readonly ev: StaticEval,
    readonly f: StructureFacts,
    readonly variants: ReadonlySet<string>,
  ) {
    this.n = f.n;
    this.cat = model.cat;
  }

  /** Whether the bound says the relation (or set) is empty in every candidate. */
  isEmpty(b: Bound): boolean {
    return isNothing(b, this.n);
  }

  // ------------------------------------------------------------ names

  slot(s: number): Bound {
    const known = this.slots.get(s);
    if (known) return known;
    if (this.active.has(s)) return TOP;
    this.active.add(s);
    let b: Bound;
    try {
      b = this.slotBound(s);
    } catch (e) {
      if (!(e instanceof Unbounded)) throw e;
      b = TOP;
    } finally {
      this.active.delete(s);
    }
    this.slots.set(s, b);
    return b;
  }

  private slotBound(s: number): Bound {
    const info = this.cat.slots[s];
    if (info.instr < 0) return this.base(info.name, s);
    const ci = this.cat.instrs[info.instr];
    const ins = ci.instr;
    if (ins.kind === 'let') {
      const k = ci.defines.indexOf(s);
      let at = 0;
      for (const b of ins.bindings) {
        const names = b.pattern.kind === 'var' ? [b.pattern.name] : b.pattern.names;
        if (k < at + names.length) {
          if (b.expr.kind === 'fun') return { kind: 'closure', param: b.expr.param, body: b.expr.body, env: null };
          // A name for another (`let domain = %domain`): what that one is (a native stays a native).
          if (b.expr.kind === 'var' && b.pattern.kind === 'var') return this.expr(b.expr, null);
          if (info.stage === 'static') return { kind: 'val', v: this.ev.slot(s) };
          if (ins.rec) return this.recBound(ins.bindings.map((x) => x.expr), ci.defines, s);
          const v = this.expr(b.expr, null);
          if (b.pattern.kind === 'var') return v;
          return v.kind === 'tuple' ? v.elems[k - at] : TOP;
        }
        at += names.length;
      }
      return TOP;
    }
    if (ins.kind === 'with') return this.withOf(info.instr).value;
    if (info.stage === 'static') return { kind: 'val', v: this.ev.slot(s) };
    return TOP;
  }

  /** herd's base names: static ones exact, rf, co, fr and FW by class. */
  private base(name: string, s: number): Bound {
    const f = this.f;
    const raw = name.replace(/^%/, '');
    if (NATIVE_NAMES.has(raw)) return { kind: 'native', name: raw };
    const baseR = asSetOrNull(this.ev.slot(this.cat.base.get('R')!), this.n)!;
    switch (name) {
      case 'rf':
        return rel([dyn('rf', f.W.cross(baseR).and(f.loc), true)]);
      case 'co': {
        const w = this.ev.slot(this.cat.base.get('W')!);
        const bw = asSetOrNull(w, this.n)!;
        const env = bw.cross(bw).and(f.loc).minus(f.id);
        return rel([{ ...dyn('co', env, true), covers: bw }]);
      }
      case 'fr': {
        const w = asSetOrNull(this.ev.slot(this.cat.base.get('W')!), this.n)!;
        return rel([dyn('fr', baseR.cross(w).and(f.loc), true)]);
      }
      case 'FW':
        return { kind: 'dset', env: f.W, fw: true, final: true, whole: true };
      default:
        return { kind: 'val', v: this.ev.slot(s) };
    }
  }

  // ------------------------------------------------------------ expressions

  /** The bound of an expression, its local names' bounds given. */
  expr(e: CatExpr, env: Env): Bound {
    // Bounds of expressions that read no local name are kept (unless they read a definition being solved).
    const info = this.model.staticInfo(e);
    if (info.locals.size === 0 && e.kind !== 'var') {
      const known = this.memo.get(e);
      if (known) return known;
      const b = this.exprInner(e, env);
      if (!this.readsSolving(info)) this.memo.set(e, b);
      return b;
    }
    return this.exprInner(e, env);
  }

  private readonly memo = new Map<CatExpr, Bound>();
  /** The definitions of the `let rec` being solved (recBound). */
  private readonly solving = new Set<number>();

  private readsSolving(info: StaticInfo): boolean {
    if (this.solving.size === 0) return false;
    for (const sl of info.slots) if (this.solving.has(sl)) return true;
    return false;
  }

  private exprInner(e: CatExpr, env: Env): Bound {
    if (this.isStatic(e, env)) {
      try {
        return { kind: 'val', v: this.ev.expr(e, concreteLocals(env)) };
      } catch (err) {
        if (err instanceof Unbounded) throw err;
        // The value fails (an unknown name, a type error): what the model's own run says of it.
        if (e.kind === 'try') return this.expr(e.otherwise, env);
        throw new Unbounded();
      }
    }
    switch (e.kind) {
      case 'var': {
        if (e.ref?.kind === 'local') return lookup(env, e.name) ?? TOP;
        if (e.ref?.kind === 'slot') return this.slot(e.ref.slot);
        return TOP;
      }
      case 'tuple':
        return { kind: 'tuple', elems: e.elems.map((x) => this.expr(x, env)) };
      case 'unary':
        return this.unary(e.op, this.expr(e.arg, env));
      case 'binary': {
        // Like the model's own run: an empty left operand of ;, & or \\ ends the computation.
        let acc = this.expr(e.args[0], env);
        for (const a of e.args.slice(1)) {
          if (e.op !== 'union' && e.op !== 'cartesian' && isNothing(acc, this.n)) return e.op === 'seq' ? NO_CHAINS : acc;
          acc = e.op === 'seq' ? this.seq(acc, this.expr(a, env)) : this.binary(e.op, acc, this.expr(a, env));
        }
        return acc;
      }
      case 'app':
        return this.apply(e.fn, this.expr(e.fn, env), this.expr(e.arg, env));
      case 'fun':
        return { kind: 'closure', param: e.param, body: e.body, env };
      case 'let': {
        if (e.rec) return TOP;
        let inner = env;
        for (const b of e.bindings) inner = bind(b.pattern, this.expr(b.expr, env), inner);
        return this.expr(e.body, inner);
      }
      case 'try':
        try {
          return this.expr(e.body, env);
        } catch (err) {
          if (err instanceof Unbounded) throw err;
          return this.expr(e.otherwise, env);
        }
      case 'if':
        if (e.cond.kind === 'variant') return this.expr(this.variants.has(e.cond.name) ? e.then : e.otherwise, env);
        return TOP;
      default:
        return TOP;
    }
  }

  /** Whether e reads only static definitions and locals whose values are known. */
  private isStatic(e: CatExpr, env: Env): boolean {
    const info = this.model.staticInfo(e);
    if (info.dynamic) return false;
    for (const nm of info.locals) if (lookup(env, nm)?.kind !== 'val') return false;
    return true;
  }

  private apply(fnExpr: CatExpr, fn: Bound, arg: Bound): Bound {
    if (fn.kind === 'closure') {
      if (this.isLibrary(fnExpr, 'singlestep')) {
        const s = this.singlestep(arg);
        if (s) return s;
      }
      return this.expr(fn.body, bind(fn.param, arg, fn.env));
    }
    if (fn.kind === 'native') return this.native(fn.name, arg);
    if (fn.kind === 'mapf') {
      if (arg.kind !== 'val') return TOP;
      const elems = valueElems(arg.v, this.n);
      if (!elems) return TOP;
      return { kind: 'list', elems: elems.map((v) => this.apply({ kind: 'empty', pos: { file: '', line: 0, col: 0 } }, fn.f, { kind: 'val', v })) };
    }
    return TOP;
  }

  /** Whether e names the function `name` of litmus's own library files (not one a model defines). */
  private isLibrary(e: CatExpr, name: string): boolean {
    if (e.kind !== 'var' || e.name !== name || e.ref?.kind !== 'slot') return false;
    const s = this.cat.slots[e.ref.slot];
    return s.instr >= 0 && this.cat.instrs[s.instr].instr.pos.file.startsWith('litmus:');
  }

  private native(name: string, arg: Bound): Bound {
    switch (name) {
      case 'domain':
      case 'range': {
        const d = this.collapseAll(arg);
        if (!d) return TOP;
        const env = name === 'domain' ? d.env.domain() : d.env.range();
        return { kind: 'dset', env, whole: d.whole };
      }
      case 'linearisations': {
        if (arg.kind !== 'tuple' || arg.elems.length !== 2 || arg.elems[0].kind !== 'val') return TOP;
        const over = asSetOrNull(arg.elems[0].v, this.n);
        return over ? { kind: 'lin', over, order: arg.elems[1] } : TOP;
      }
      case 'cross':
        if (arg.kind === 'list') return { kind: 'cross', parts: arg.elems };
        return TOP;
      case 'map':
        return { kind: 'mapf', f: arg };
      case 'different-values':
        // A part of its argument.
        return arg.kind === 'rel' ? arg : TOP;
      default:
        return TOP;
    }
  }

  // ------------------------------------------------------------ with

  private readonly withs = new Map<number, { value: Bound; proven: DynFactor | null }>();

  /**
   * The bound of `with X from S` (instruction i), and, when every complete
   * candidate has X (a generate_cos whose pco is inside co), what that
   * rests on (its needs and constraints).
   */
  withOf(i: number): { value: Bound; proven: DynFactor | null } {
    const known = this.withs.get(i);
    if (known) return known;
    const ins = this.cat.instrs[i].instr;
    let r: { value: Bound; proven: DynFactor | null } = { value: TOP, proven: null };
    if (ins.kind === 'with') {
      try {
        r = this.withBound(this.expr(ins.from, null));
      } catch (e) {
        if (!(e instanceof Unbounded)) throw e;
      }
    }
    this.withs.set(i, r);
    return r;
  }

  private withBound(src: Bound): { value: Bound; proven: DynFactor | null } {
    const f = this.f;
    const lins = src.kind === 'lin' ? [src] : src.kind === 'cross' && src.parts.every((p) => p.kind === 'lin') ? (src.parts as (Bound & { kind: 'lin' })[]) : undefined;
    if (lins) {
      // A linearisation of each set of writes: co restricted to them, in every candidate that has it.
      const over = new EventSet(this.n).or(...lins.map((l) => l.over));
      const env = over.cross(over).and(f.loc).minus(f.id);
      const value = rel([{ ...dyn('co', env, true), covers: over }]);
      let proven: DynFactor | null = null;
      if (over.minus(f.placed).isEmpty() && over.minus(f.W).isEmpty()) {
        // pco, where it relates writes of one set, must be inside co: inside T between placed writes of one location.
        const orders = lins.map((l) => {
          const d = this.collapseAll(this.binary('inter', l.order, { kind: 'val', v: { kind: 'rel', rel: l.over.cross(l.over) } }));
          return d && forwardClass(d.cls) && (d.strict || d.env.irreflexive()) && d.env.minus(f.id).includedIn(f.sameLocWrites) ? d : undefined;
        });
        if (orders.every((d) => d !== undefined)) proven = { ...mergeFactors(orders as DynFactor[], this.n), whole: true };
      }
      return { value, proven };
    }
    // Any other source: a part of the candidate's rf and co.
    if (src.kind === 'val') {
      const env = unionOfChoices(src.v, this.n);
      // Only the empty relation to choose (a cross of no parts): every candidate has it.
      if (env?.isEmpty() && hasEmptyChoice(src.v)) return { value: NO_CHAINS, proven: dyn('fwd', env, true) };
      if (env) return { value: rel([dyn(classOfEnv(env, f), env, true)]), proven: null };
    }
    const truth = f.W.cross(f.R.or(f.W)).and(f.loc).minus(f.id);
    return { value: rel([dyn('fwd', truth, true)]), proven: null };
  }

  // ------------------------------------------------------------ let rec

  /** A recursive definition: the least fixpoint, bounded by iterating the bounds from empty. */
  private recBound(exprs: CatExpr[], slots: number[], wanted: number): Bound {
    let current: (DynFactor | null)[] = slots.map(() => null);
    for (const sl of slots) this.solving.add(sl);
    try {
      return this.solveRec(exprs, slots, wanted, current);
    } finally {
      for (const sl of slots) this.solving.delete(sl);
    }
  }

  private solveRec(exprs: CatExpr[], slots: number[], wanted: number, start: (DynFactor | null)[]): Bound {
    let current = start;
    for (let round = 0; round < 16; round++) {
      slots.forEach((s, k) => this.slots.set(s, current[k] ? rel([current[k]!]) : NO_CHAINS));
      const next = exprs.map((e, k) => {
        const b = this.expr(e, null);
        const d = this.collapseAll(b);
        if (d === undefined) return undefined;
        return current[k] && d ? mergeFactors([current[k]!, d], this.n) : d;
      });
      slots.forEach((s) => this.slots.delete(s));
      if (next.some((d) => d === undefined)) return TOP;
      const stable = next.every((d, k) => sameFactor(d ?? null, current[k]));
      current = next as (DynFactor | null)[];
      if (stable) {
        slots.forEach((s, k) => {
          if (s !== wanted) this.slots.set(s, current[k] ? rel([current[k]!]) : NO_CHAINS);
        });
        const k = slots.indexOf(wanted);
        return current[k] ? rel([current[k]!]) : NO_CHAINS;
      }
    }
    return TOP;
  }

  // ------------------------------------------------------------ operators

  private unary(op: string, a: Bound): Bound {
    if (a.kind === 'top') return TOP;
    const n = this.n;
    switch (op) {
      case 'toid': {
        if (a.kind === 'dset') return rel([{ ...dyn('fwd', a.env.id(), false), whole: a.whole }]);
        return TOP;
      }
      case 'opt': {
        const c = chainsOf(a, n);
        if (!c) return TOP;
        return { kind: 'rel', chains: [...c, { fs: [{ kind: 'static', rel: this.f.id }] }] };
      }
      case 'plus':
      case 'star': {
        const c = chainsOf(a, n);
        if (!c) return TOP;
        if (c.length === 0) return op === 'star' ? { kind: 'val', v: { kind: 'rel', rel: this.f.id } } : NO_CHAINS;
        const covers = this.closureCovers(c);
        const d = this.collapseAll(a);
        if (!d || !forwardClass(d.cls)) return TOP;
        if (d.env.isEmpty()) return op === 'star' ? { kind: 'val', v: { kind: 'rel', rel: this.f.id } } : NO_CHAINS;
        const env = d.env.plus();
        const cls: EdgeClass = d.cls === 'co' || d.cls === 'coimm' ? 'co' : (d.cls === 'rf' || d.cls === 'fr') && d.env.seq(d.env).isEmpty() ? d.cls : 'fwd';
        const plus: DynFactor = { ...d, cls, env: d.strict ? env.minus(this.f.id) : env, covers: cls === 'co' ? covers ?? d.covers : undefined };
        if (op === 'plus') return rel([plus]);
        return { kind: 'rel', chains: [{ fs: [plus] }, { fs: [{ kind: 'static', rel: this.f.id }] }] };
      }
      case 'inv': {
        const c = chainsOf(a, n);
        if (!c) return TOP;
        const out: Chain[] = [];
        for (const ch of c) {
          const fs: Factor[] = [];
          const own = localRules(ch.fs, this.f);
          if (!own) return TOP;
          for (let i = own.length - 1; i >= 0; i--) {
            const x = this.inverse(own[i]);
            if (!x) return TOP;
            fs.push(x);
          }
          out.push({ fs, filter: ch.filter?.inv() });
        }
        return { kind: 'rel', chains: out };
      }
      default:
        return TOP;
    }
  }

  /** The inverse of a factor: static exactly (a lock read's own lock write as rf), rf and its inverse; nothing else. */
  private inverse(x: Factor): Factor | undefined {
    if (x.kind === 'static') {
      if (!x.rel.isEmpty() && x.rel.includedIn(this.f.ownLockReads)) return dyn('rfinv', x.rel.inv(), true);
      return { kind: 'static', rel: x.rel.inv() };
    }
    if (x.cls === 'rf') return { ...x, cls: 'rfinv', env: x.env.inv(), covers: undefined };
    if (x.cls === 'rfinv') return { ...x, cls: 'rf', env: x.env.inv(), covers: undefined };
    return undefined;
  }

  /**
   * The writes co restricted to which a closure contains: those of a part
   * X, or, for (X | C | C^-1 ; X)+ with C critical sections (adjacent in
   * co) whose lock writes X covers, those and C's unlocks (a pair (x, u) of
   * co is x co C's lock write then C; (u, y) is C^-1 ; X; (u, u') both).
   */
  private closureCovers(chains: readonly Chain[]): EventSet | undefined {
    const cos = chains.filter((c) => !c.filter && c.fs.length === 1 && c.fs[0].kind === 'dyn' && c.fs[0].cls === 'co' && c.fs[0].covers);
    if (cos.length === 0) return undefined;
    let covers = (cos[0].fs[0] as DynFactor).covers!;
    const secs = this.f.sections;
    const stat = chains.filter((c) => !c.filter && c.fs.length === 1 && c.fs[0].kind === 'static').map((c) => (c.fs[0] as StaticFactor).rel);
    for (const C of stat) {
      if (C.isEmpty() || !C.includedIn(secs) || !C.domain().minus(covers).isEmpty()) continue;
      const back = chains.some((c) => !c.filter && c.fs.length === 2 && c.fs[0].kind === 'static' && c.fs[0].rel.equals(C.inv()) &&
        c.fs[1].kind === 'dyn' && c.fs[1].cls === 'co' && c.fs[1].covers !== undefined && covers.minus(c.fs[1].covers).isEmpty());
      if (back) covers = covers.or(C.range());
    }
    return covers;
  }

  /** singlestep(X) for X inside co and containing co on every placed write of its locations: coimm. */
  private singlestep(arg: Bound): Bound | undefined {
    const d = this.collapseAll(arg);
    if (!d || d.cls !== 'co' || !d.covers) return undefined;
    const locs = d.env.domain().or(d.env.range());
    const writesThere = this.f.placed.and(locs.id().seq(this.f.loc).range());
    if (!writesThere.minus(d.covers).isEmpty()) return undefined;
    return rel([{ ...d, cls: 'coimm', covers: undefined }]);
  }

  binary(op: string, a: Bound, b: Bound): Bound {
    const n = this.n;
    if (op === 'union') {
      if (a.kind === 'dset' || b.kind === 'dset') return setUnion(a, b, n);
      if (a.kind === 'top' || b.kind === 'top') return TOP;
      const ca = chainsOf(a, n);
      const cb = chainsOf(b, n);
      if (!ca || !cb) return TOP;
      return this.capped([...ca, ...cb]);
    }
    if (op === 'inter') return this.inter(a, b);
    if (op === 'diff') return this.diff(a, b);
    if (op === 'cartesian') return this.cartesian(a, b);
    return TOP;
  }

  private inter(a: Bound, b: Bound): Bound {
    const n = this.n;
    if (isNothing(a, n) || isNothing(b, n)) return a.kind === 'dset' || b.kind === 'dset' ? { kind: 'dset', env: new EventSet(n), whole: false } : NO_CHAINS;
    if (a.kind === 'top') return b.kind === 'val' || b.kind === 'top' ? TOP : b;
    if (b.kind === 'top') return a.kind === 'val' ? TOP : a;
    if (a.kind === 'val' && b.kind !== 'val') return this.inter(b, a);
    if (a.kind === 'dset') {
      if (b.kind === 'val') {
        const s = asSetOrNull(b.v, n);
        return s ? { ...a, env: a.env.and(s), fw: false } : TOP;
      }
      if (b.kind === 'dset') return { kind: 'dset', env: a.env.and(b.env), final: a.final || b.final, nonFinal: a.nonFinal || b.nonFinal, whole: a.whole || b.whole };
      return TOP;
    }
    const ca = chainsOf(a, n);
    if (!ca) return TOP;
    if (b.kind === 'val') {
      const s = asRelOrNull(b.v, n);
      if (!s) return TOP;
      const chains: Chain[] = [];
      for (const c of ca) {
        if (c.fs.length === 1 && !c.filter) {
          const x = narrow(c.fs[0], s, this.f);
          if (x) chains.push({ fs: [x] });
        } else chains.push({ fs: c.fs, filter: c.filter ? c.filter.and(s) : s });
      }
      return { kind: 'rel', chains, narrowed: { from: a, by: s } };
    }
    // Both dynamic: inside either; the one with the more useful class, within both envelopes.
    const da = this.collapseAll(a);
    const db = this.collapseAll(b);
    if (!da && !db) return TOP;
    if (!da || !db) return rel([(da ?? db)!]);
    const pick = rank(da.cls) >= rank(db.cls) ? da : db;
    const env = da.env.and(db.env);
    return rel([{ ...pick, env, strict: da.strict || db.strict }]);
  }

  private diff(a: Bound, b: Bound): Bound {
    const n = this.n;
    if (a.kind === 'top') return TOP;
    if (a.kind === 'val' && b.kind === 'dset') {
      const s = asSetOrNull(a.v, n);
      if (!s) return TOP;
      return this.diff({ kind: 'dset', env: s, whole: false }, b);
    }
    if (a.kind === 'dset') {
      if (b.kind === 'val') {
        const s = asSetOrNull(b.v, n);
        return s ? { ...a, env: a.env.minus(s), fw: false } : TOP;
      }
      if (b.kind === 'dset' && b.fw) return { ...a, fw: false, final: false, nonFinal: true, whole: true };
      return { ...a, fw: false };
    }
    const ca = chainsOf(a, n);
    if (!ca) return TOP;
    if (b.kind === 'val') {
      const s = asRelOrNull(b.v, n);
      if (!s) return TOP;
      const chains: Chain[] = [];
      for (const c of ca) {
        const x = c.fs.length === 1 && !c.filter ? c.fs[0] : this.collapse(c);
        if (!x) return TOP;
        const y = narrow(x, s, this.f, true);
        if (y) chains.push({ fs: [y] });
      }
      return { kind: 'rel', chains };
    }
    // X \ (X & S) is X \ S; otherwise X \ Y is inside X.
    if (b.kind === 'rel' && b.narrowed?.from === a) return this.diff(a, { kind: 'val', v: { kind: 'rel', rel: b.narrowed.by } });
    return a;
  }

  private cartesian(a: Bound, b: Bound): Bound {
    if (a.kind === 'dset' && b.kind === 'dset' && a.nonFinal && b.final) {
      const env = a.env.and(this.f.W).cross(b.env.and(this.f.W));
      return rel([{ ...dyn('nf2f', env, true), whole: true }]);
    }
    return TOP;
  }

  private seq(a: Bound, b: Bound): Bound {
    const n = this.n;
    // Nothing composed with anything is nothing.
    if (isNothing(a, n) || isNothing(b, n)) return NO_CHAINS;
    if (a.kind === 'top' || b.kind === 'top') return TOP;
    // [S] of a dynamic set is a relation.
    const ra = a.kind === 'dset' ? this.unary('toid', a) : a;
    const rb = b.kind === 'dset' ? this.unary('toid', b) : b;
    const ca = chainsOf(ra, n);
    const cb = chainsOf(rb, n);
    if (!ca || !cb) return TOP;
    const out: Chain[] = [];
    for (const x of ca) {
      for (const y of cb) {
        const left = x.filter ? this.collapse(x) : undefined;
        const right = y.filter ? this.collapse(y) : undefined;
        if ((x.filter && !left) || (y.filter && !right)) return TOP;
        const fs = joinFactors(left ? [left] : x.fs, right ? [right] : y.fs, this.f);
        if (fs) out.push({ fs: this.shorten(fs) });
      }
    }
    return this.capped(out);
  }

  /**
   * A chain with each run of forward factors between its first and last
   * dynamic factor collapsed into one (the static factors at a run's ends
   * are kept apart: what comes before and after the run restricts the
   * program-order pairs they need; inverse and backward factors stay, for
   * the rules that need their neighbours).
   */
  private shorten(fs: Factor[]): Factor[] {
    const f = this.f;
    const out: Factor[] = [];
    let i = 0;
    while (i < fs.length) {
      if (!(fs[i].kind === 'dyn' && isForward(fs[i], f))) {
        out.push(fs[i++]);
        continue;
      }
      // A run of forward factors from this dynamic one; its last dynamic factor.
      let j = i;
      let lastDyn = i;
      while (j < fs.length && isForward(fs[j], f)) {
        if (fs[j].kind === 'dyn') lastDyn = j;
        j++;
      }
      if (lastDyn > i) {
        const d = composeForward(fs.slice(i, lastDyn + 1), f);
        if (!d) return fs;
        out.push(d);
      } else out.push(fs[i]);
      i = lastDyn + 1;
    }
    return out;
  }

  /**
   * Chains of one shape (the same static factors, dynamic ones of the same
   * classes, in the same places) merged into one; past MAX_CHAINS, all
   * collapsed into one factor (what that loses is only how precisely needs
   * are restricted).
   */
  private capped(chains: Chain[]): Bound {
    if (chains.length <= 2) return { kind: 'rel', chains };
    const groups = new Map<string, Chain[]>();
    const keyOf = (c: Chain) => (c.filter ? null : c.fs.map((x) => (x.kind === 'static' ? `s${staticKey(x.rel)}` : x.cls)).join(' '));
    const merged: Chain[] = [];
    for (const c of chains) {
      const k = keyOf(c);
      if (k === null) {
        merged.push(c);
        continue;
      }
      const g = groups.get(k);
      if (g) g.push(c);
      else groups.set(k, [c]);
    }
    for (const g of groups.values()) {
      if (g.length === 1) {
        merged.push(g[0]);
        continue;
      }
      merged.push({ fs: g[0].fs.map((x, i) => (x.kind === 'static' ? x : mergeFactors(g.map((c) => c.fs[i] as DynFactor), this.n))) });
    }
    if (merged.length <= MAX_CHAINS) return { kind: 'rel', chains: merged };
    const d = this.collapseAll({ kind: 'rel', chains: merged });
    return d ? rel([d]) : TOP;
  }

  // ------------------------------------------------------------ collapsing

  /** Every chain of a bound as one factor (undefined: some chain is not inside one class). */
  collapseAll(b: Bound): DynFactor | undefined {
    const c = chainsOf(b, this.n);
    if (!c) return undefined;
    if (c.length === 0) return dyn('co', new Relation(this.n), true);
    const parts: DynFactor[] = [];
    for (const ch of c) {
      const d = this.collapse(ch);
      if (!d) return undefined;
      if (!d.env.isEmpty()) parts.push(d);
    }
    return parts.length === 0 ? dyn('co', new Relation(this.n), true) : mergeFactors(parts, this.n);
  }

  /**
   * A chain as one factor, by the rules of the header; `from` and `to`
   * restrict where its pairs start and end (for the needs its static
   * factors impose: only the program-order pairs some path uses).
   */
  collapse(ch: Chain, from?: EventSet, to?: EventSet): DynFactor | undefined {
    if (from || to) return this.collapseChain(ch, from, to);
    const known = this.collapsed.get(ch);
    if (known !== undefined) return known ?? undefined;
    const d = this.collapseChain(ch);
    this.collapsed.set(ch, d ?? null);
    return d;
  }

  private readonly collapsed = new WeakMap<Chain, DynFactor | null>();

  private collapseChain(ch: Chain, from?: EventSet, to?: EventSet): DynFactor | undefined {
    const f = this.f;
    const fs = localRules(ch.fs, f);
    if (!fs) return undefined;
    // Scan: forward factors gather in `run`; an inverse of rf or a backward static factor ends the run before it.
    let acc: DynFactor | undefined;
    let run: Factor[] = [];
    for (let i = 0; i < fs.length; i++) {
      const x = fs[i];
      if (isForward(x, f)) {
        run.push(x);
        continue;
      }
      if (x.kind === 'dyn' && x.cls === 'rfinv') {
        // Writes T-before reads of their location, then the reads' sources: T-before or equal.
        const prefix = this.composeRun(acc, run, from, x.env.domain());
        if (!prefix || !(prefix.strict || prefix.env.irreflexive())) return undefined;
        const onto = prefix.env.minus(f.id);
        if (!onto.includedIn(f.W.cross(f.R).and(f.loc))) return undefined;
        acc = { ...prefix, cls: 'fwd', env: onto.seq(x.env), strict: false, covers: undefined, needs: prefix.needs, whole: prefix.whole || x.whole };
        run = [];
        continue;
      }
      if (x.kind === 'static' && x.rel.inv().includedIn(f.po)) {
        const C = x.rel.inv(); // pairs (l, u): l po-before u
        if (acc || run.length > 0) {
          // X ; C^-1: g T-before u, kept out of [l, u], is T-before l.
          const prefix = this.composeRun(acc, run, from, x.rel.domain());
          if (!prefix) return undefined;
          acc = graceAfter(prefix, C, f);
          run = [];
          continue;
        }
        // C^-1 ; X: l T-before g, g kept out of [l, u]: u T-before g.
        const rest = this.collapse({ fs: fs.slice(i + 1) }, x.rel.range(), to);
        if (!rest) return undefined;
        const res = graceBefore(C, rest, f);
        if (ch.filter) return narrow(res, ch.filter, f) as DynFactor | undefined;
        return res;
      }
      return undefined;
    }
    const all = this.composeRun(acc, run, from, to);
    if (!all) return undefined;
    return ch.filter ? (narrow(all, ch.filter, f) as DynFactor | undefined) ?? dyn(all.cls, new Relation(this.n), true) : all;
  }

  /** acc (if any) then the forward factors of run, as one factor. */
  private composeRun(acc: DynFactor | undefined, run: readonly Factor[], from?: EventSet, to?: EventSet): DynFactor | undefined {
    const list: Factor[] = acc ? [acc, ...run] : [...run];
    if (list.length === 0) return undefined;
    return composeForward(list, this.f, from, to);
  }
}

/** A static relation's pairs, as a key for chain shapes (kept per relation: relations are not changed once made). */
const staticKeys = new WeakMap<Relation, string>();
function staticKey(r: Relation): string {
  let k = staticKeys.get(r);
  if (k === undefined) {
    const parts: number[] = [];
    r.forEach((a, b) => parts.push(a, b));
    staticKeys.set(r, (k = parts.join(',')));
  }
  return k;
}

/** Whether a bound is the empty relation (or set). */
function isNothing(b: Bound, n: number): boolean {
  if (b.kind === 'rel') return b.chains.length === 0;
  if (b.kind === 'val') return (asRelOrNull(b.v, n)?.isEmpty() ?? false) || (asSetOrNull(b.v, n)?.isEmpty() ?? false);
  if (b.kind === 'dset') return b.env.isEmpty();
  return false;
}

/** A failure to bound: the definition being bounded is `top`. */
class Unbounded extends Error {}

// ------------------------------------------------------------ factors

function rel(fs: DynFactor[]): Bound {
  return { kind: 'rel', chains: fs.map((x) => ({ fs: [x] })) };
}

function dyn(cls: EdgeClass, env: Relation, strict: boolean): DynFactor {
  return { kind: 'dyn', cls, env, strict, needs: null, cons: [], whole: false };
}

const forwardClass = (c: EdgeClass): boolean => c === 'rf' || c === 'co' || c === 'coimm' || c === 'fr' || c === 'frco' || c === 'fwd';

/** How useful a class is as a bound (an intersection keeps the better). */
function rank(c: EdgeClass): number {
  return c === 'rfinv' || c === 'nf2f' ? 0 : c === 'fwd' ? 1 : c === 'coimm' ? 3 : 2;
}

/** A factor inside T (with its needs): a dynamic one of a forward class, or a static one inside po or after an initial write. */
function isForward(x: Factor, f: StructureFacts): boolean {
  if (x.kind === 'dyn') return forwardClass(x.cls);
  return x.rel.minus(f.id).includedIn(f.forwardOk);
}

/** The static relation known to be inside co or rf whatever the candidate (critical sections; a lock read's own lock write). */
function knownClass(r: Relation, f: StructureFacts): EdgeClass | undefined {
  if (r.isEmpty()) return undefined;
  if (r.includedIn(f.sections)) return 'co';
  if (r.includedIn(f.ownLockReads)) return 'rf';
  return undefined;
}

/** A factor restricted to the pairs of s, or (`outside`) to those not in s; undefined when none is left. */
function narrow(x: Factor, s: Relation, f: StructureFacts, outside = false): Factor | undefined {
  if (x.kind === 'static') {
    const r = outside ? x.rel.minus(s) : x.rel.and(s);
    return r.isEmpty() ? undefined : { kind: 'static', rel: r };
  }
  let env = outside ? x.env.minus(s) : x.env.and(s);
  if (env.isEmpty()) return undefined;
  let cls = x.cls;
  let whole = x.whole;
  // Non-final writes to final ones, of one location: co.
  if (cls === 'nf2f' && env.includedIn(f.loc)) {
    cls = 'co';
    whole = true;
  }
  const strict = x.strict || env.irreflexive();
  if (strict) env = env.minus(f.id);
  const covers = x.covers && env.equals(x.env) ? x.covers : undefined;
  return { ...x, cls, env, strict, whole, covers };
}

/**
 * Two chains composed: adjacent forward static factors composed into one
 * (their value), [S] folded into a dynamic neighbour's envelope; an empty
 * factor empties the chain (undefined).
 */
function joinFactors(a: readonly Factor[], b: readonly Factor[], f: StructureFacts): Factor[] | undefined {
  const out = [...a];
  for (const y of b) {
    const last = out[out.length - 1];
    if (last && last.kind === 'static' && y.kind === 'static' && isForward(last, f) && isForward(y, f)) {
      const r = last.rel.seq(y.rel);
      if (r.isEmpty()) return undefined;
      out[out.length - 1] = { kind: 'static', rel: r };
      continue;
    }
    if (last && last.kind === 'dyn' && y.kind === 'static' && y.rel.includedIn(f.id)) {
      const env = last.env.seq(y.rel);
      if (env.isEmpty()) return undefined;
      out[out.length - 1] = { ...last, env, covers: undefined };
      continue;
    }
    if (last && last.kind === 'static' && last.rel.includedIn(f.id) && y.kind === 'dyn') {
      const env = last.rel.seq(y.env);
      if (env.isEmpty()) return undefined;
      out[out.length - 1] = { ...y, env, covers: undefined };
      continue;
    }
    if (y.kind === 'static' ? y.rel.isEmpty() : y.env.isEmpty()) return undefined;
    out.push(y);
  }
  return out;
}

/**
 * The rules between neighbours (see the header): rf^-1 ; co is fr; a
 * critical section's unlock back to its lock write, then co, is co; coimm
 * into a lock write, back to its lock read, is rf.
 */
function localRules(fs: readonly Factor[], f: StructureFacts): Factor[] | undefined {
  const out: Factor[] = [];
  for (const y of fs) {
    let cur: Factor = y;
    for (;;) {
      const last = out[out.length - 1];
      if (!last) break;
      const merged = junction(last, cur, f);
      if (!merged) break;
      out.pop();
      cur = merged;
    }
    out.push(cur);
  }
  return out;
}

function junction(a: Factor, b: Factor, f: StructureFacts): Factor | undefined {
  if (a.kind === 'dyn' && a.cls === 'rfinv' && b.kind === 'dyn' && (b.cls === 'co' || b.cls === 'coimm') && a.strict && b.strict) {
    return { ...combine([a, b]), cls: 'fr', env: a.env.seq(b.env), strict: true };
  }
  if (a.kind === 'static' && b.kind === 'dyn' && (b.cls === 'co' || b.cls === 'coimm') && !a.rel.isEmpty() && a.rel.inv().includedIn(f.sections)) {
    // u back to its lock write l, then l co w: u co w, or w = u.
    const env = a.rel.seq(b.env);
    const strict = env.irreflexive();
    return { ...b, cls: 'co', env: strict ? env : env, strict, covers: undefined };
  }
  if (a.kind === 'dyn' && a.cls === 'coimm' && b.kind === 'static' && !b.rel.isEmpty() && b.rel.inv().includedIn(f.lockRmw)) {
    return { ...a, cls: 'rf', env: a.env.seq(b.rel), strict: true, covers: undefined };
  }
  return undefined;
}

/** The needs, constraints and wholeness of several factors together. */
function combine(xs: readonly DynFactor[]): DynFactor {
  const needs = xs.map((x) => x.needs).filter((x): x is Relation => x !== null);
  return {
    kind: 'dyn', cls: 'fwd', env: xs[0].env, strict: false,
    needs: needs.length === 0 ? null : needs.length === 1 ? needs[0] : needs[0].or(...needs.slice(1)),
    cons: unionCons(xs.map((x) => x.cons)),
    whole: xs.some((x) => x.whole),
  };
}

/** Constraint lists together, each constraint once. */
function unionCons(lists: readonly (readonly Constraint[])[]): readonly Constraint[] {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
  const seen = new Set<string>();
  const out: Constraint[] = [];
  for (const l of nonEmpty) {
    for (const c of l) {
      const k = `${c.lock},${c.unlock},${c.gp}`;
      if (!seen.has(k)) (seen.add(k), out.push(c));
    }
  }
  return out;
}

/**
 * Forward factors composed into one: its envelope the composition of
 * theirs, its needs theirs and, for static factors, the pairs some path
 * from `from` to `to` through the chain uses (unless they are inside co or
 * rf whatever the candidate).
 */
function composeForward(list: readonly Factor[], f: StructureFacts, from?: EventSet, to?: EventSet): DynFactor | undefined {
  const envs = list.map((x) => (x.kind === 'static' ? x.rel : x.env));
  // Reachable starts and ends at each step (only where a static factor's needs are restricted by them).
  const fwd: (EventSet | undefined)[] = new Array(envs.length);
  const bwd: (EventSet | undefined)[] = new Array(envs.length);
  if (list.some((x) => x.kind === 'static') && list.length > 1) {
    let reach: EventSet | undefined = from;
    envs.forEach((e, i) => {
      fwd[i] = reach;
      reach = (reach ? reach.id().seq(e) : e).range();
    });
    let back: EventSet | undefined = to;
    for (let i = envs.length - 1; i >= 0; i--) {
      bwd[i] = back;
      back = (back ? envs[i].seq(back.id()) : envs[i]).domain();
    }
  } else {
    fwd[0] = from;
    bwd[envs.length - 1] = to;
  }
  const dyns: DynFactor[] = [];
  let env = envs[0];
  for (let i = 1; i < envs.length; i++) env = env.seq(envs[i]);
  if (from) env = from.id().seq(env);
  if (to) env = env.seq(to.id());
  let strict = false;
  const needs: Relation[] = [];
  list.forEach((x, i) => {
    if (x.kind === 'dyn') {
      dyns.push(x);
      if (x.strict) strict = true;
      return;
    }
    if (!x.rel.irreflexive() || x.rel.includedIn(f.id)) {
      if (!x.rel.minus(f.id).isEmpty()) needs.push(x.rel.restrict(fwd[i], bwd[i]).minus(f.id));
      return;
    }
    strict = true;
    if (knownClass(x.rel, f)) return;
    needs.push(x.rel.restrict(fwd[i], bwd[i]));
  });
  const base = combine(dyns.length > 0 ? dyns : [dyn('fwd', env, false)]);
  const allNeeds = [...(base.needs ? [base.needs] : []), ...needs.filter((r) => !r.isEmpty())];
  const single = list.length === 1 ? list[0] : undefined;
  // fr between threads then co between threads: a write of another thread coherence-between (the atomicity axiom's).
  const [a, b] = list;
  const frco = list.length === 2 && a.kind === 'dyn' && b.kind === 'dyn' && a.cls === 'fr' && (b.cls === 'co' || b.cls === 'coimm') &&
    a.env.includedIn(f.ext) && b.env.includedIn(f.ext);
  const cls: EdgeClass = frco ? 'frco' : single?.kind === 'dyn' ? single.cls
    : single?.kind === 'static' ? knownClass(single.rel, f) ?? 'fwd'
    : list.every((x) => (x.kind === 'dyn' ? x.cls === 'co' || x.cls === 'coimm' : knownClass(x.rel, f) === 'co')) ? 'co' : 'fwd';
  strict = strict || env.irreflexive();
  return {
    kind: 'dyn', cls, env: strict ? env.minus(f.id) : env, strict,
    needs: allNeeds.length === 0 ? null : allNeeds.length === 1 ? allNeeds[0] : allNeeds[0].or(...allNeeds.slice(1)),
    cons: base.cons, whole: base.whole,
    covers: single?.kind === 'dyn' && !from && !to ? single.covers : undefined,
  };
}

/** X ; C^-1 (C: lock to unlock, inside po): inside T given constraints (l, u, g) for (g, u) in X. */
function graceAfter(x: DynFactor, C: Relation, f: StructureFacts): DynFactor {
  const added: Constraint[] = [];
  const pairs = x.strict ? x.env.minus(f.id) : x.env;
  C.forEach((l, u) => {
    for (let g = 0; g < f.n; g++) if (pairs.has(g, u)) added.push({ lock: l, unlock: u, gp: g });
  });
  const cons = unionCons([x.cons, added]);
  const env = pairs.seq(C.inv());
  const strict = env.irreflexive();
  return { ...x, cls: 'fwd', env, strict, cons, needs: x.needs ? x.needs.or(C) : C, covers: undefined };
}

/** C^-1 ; X: inside T given constraints (l, u, g) for (l, g) in X. */
function graceBefore(C: Relation, x: DynFactor, f: StructureFacts): DynFactor {
  const added: Constraint[] = [];
  const pairs = x.strict ? x.env.minus(f.id) : x.env;
  C.forEach((l, u) => {
    for (let g = 0; g < f.n; g++) if (pairs.has(l, g)) added.push({ lock: l, unlock: u, gp: g });
  });
  const cons = unionCons([x.cons, added]);
  const env = C.inv().seq(pairs);
  const strict = env.irreflexive();
  return { ...x, cls: 'fwd', env, strict, cons, needs: x.needs ? x.needs.or(C) : C, covers: undefined };
}

/** Several factors as one: the least class containing theirs, every envelope, need and constraint. */
function mergeFactors(xs: readonly DynFactor[], n: number): DynFactor {
  if (xs.length === 1) return xs[0];
  const classes = new Set(xs.map((x) => x.cls));
  const cls: EdgeClass = classes.size === 1 ? xs[0].cls
    : [...classes].every((c) => c === 'co' || c === 'coimm') ? 'co'
    : [...classes].every(forwardClass) ? 'fwd'
    : 'nf2f'; // mixing an inverse with forward edges bounds nothing useful: a class no rule takes
  const env = new Relation(n).or(...xs.map((x) => x.env));
  const base = combine(xs);
  let covers: EventSet | undefined;
  if (cls === 'co') for (const x of xs) if (x.covers && (!covers || x.covers.members().length > covers.members().length)) covers = x.covers;
  return { ...base, cls, env, strict: xs.every((x) => x.strict), covers };
}

function sameFactor(a: DynFactor | null, b: DynFactor | null): boolean {
  if (!a || !b) return a === b;
  if (a.cls !== b.cls || a.strict !== b.strict || a.whole !== b.whole || !a.env.equals(b.env)) return false;
  if ((a.needs === null) !== (b.needs === null) || (a.needs && !a.needs.equals(b.needs!))) return false;
  return consKey(a.cons) === consKey(b.cons);
}

function consKey(cs: readonly Constraint[]): string {
  return [...new Set(cs.map((c) => `${c.lock},${c.unlock},${c.gp}`))].sort().join(' ');
}

// ------------------------------------------------------------ sets, locals

function setUnion(a: Bound, b: Bound, n: number): Bound {
  const env = (x: Bound) => (x.kind === 'dset' ? x.env : x.kind === 'val' ? asSetOrNull(x.v, n) : null);
  const ea = env(a);
  const eb = env(b);
  if (!ea || !eb) return TOP;
  const fin = (x: Bound) => (x.kind === 'dset' ? x.final === true : ea.isEmpty());
  const nf = (x: Bound) => (x.kind === 'dset' ? x.nonFinal === true : false);
  return { kind: 'dset', env: ea.or(eb), final: fin(a) && fin(b), nonFinal: nf(a) && nf(b), whole: (a.kind === 'dset' && a.whole) || (b.kind === 'dset' && b.whole) };
}

function lookup(env: Env, name: string): Bound | undefined {
  for (let c = env; c; c = c.next) if (c.name === name) return c.b;
  return undefined;
}

function bind(p: Pattern, b: Bound, env: Env): Env {
  if (p.kind === 'var') return p.name === null ? env : { name: p.name, b, next: env };
  if (b.kind !== 'tuple' || b.elems.length !== p.names.length) {
    let e = env;
    for (const nm of p.names) if (nm !== null) e = { name: nm, b: TOP, next: e };
    return e;
  }
  let e = env;
  p.names.forEach((nm, i) => {
    if (nm !== null) e = { name: nm, b: b.elems[i], next: e };
  });
  return e;
}

/** The locals of env that e reads, as values (each is known: isStatic said so). */
function concreteLocals(env: Env): Locals | null {
  // Innermost first, as code.ts's lookups expect.
  const list: { name: string; value: Value }[] = [];
  for (let c = env; c; c = c.next) if (c.b.kind === 'val') list.push({ name: c.name, value: c.b.v });
  let l: Locals | null = null;
  for (let i = list.length - 1; i >= 0; i--) l = { name: list[i].name, value: list[i].value, next: l };
  return l;
}

/** The elements of a set value (events, pairs, values), as values. */
function valueElems(v: Value, n: number): Value[] | undefined {
  switch (v.kind) {
    case 'empty':
      return [];
    case 'set':
      return v.set.members().map((id) => ({ kind: 'event', id }) as Value);
    case 'rel':
      return v.rel.pairs().map(([from, to]) => ({ kind: 'pair', from, to }) as Value);
    case 'values':
      return v.elems;
    case 'universe':
      return Array.from({ length: n }, (_, id) => ({ kind: 'event', id }) as Value);
    default:
      return undefined;
  }
}

/** Every pair any candidate relation of a static `with` source holds. */
function unionOfChoices(v: Value, n: number): Relation | undefined {
  const out = new Relation(n);
  const visit = (x: Value): boolean => {
    switch (x.kind) {
      case 'rel':
        out.addAll(x.rel);
        return true;
      case 'empty':
        return true;
      case 'pair':
        out.add(x.from, x.to);
        return true;
      case 'values':
      case 'tuple':
        return x.elems.every(visit);
      case 'choices':
        if (x.choices.kind === 'linearisations') {
          out.addAll(x.choices.over.cross(x.choices.over));
          return true;
        }
        return x.choices.parts.every(visit);
      default:
        return false;
    }
  };
  return visit(v) ? out : undefined;
}

/** Whether a static `with` source offers the empty relation (a cross of no parts, or of parts that offer it). */
function hasEmptyChoice(v: Value): boolean {
  switch (v.kind) {
    case 'empty':
      return true;
    case 'rel':
      return v.rel.isEmpty();
    case 'values':
      return v.elems.some(hasEmptyChoice);
    case 'choices':
      return v.choices.kind === 'cross' && v.choices.parts.every(hasEmptyChoice);
    default:
      return false;
  }
}

/** The class a part of rf and co falls in by its pairs' kinds. */
function classOfEnv(env: Relation, f: StructureFacts): EdgeClass {
  if (env.includedIn(f.W.cross(f.R))) return 'rf';
  if (env.includedIn(f.W.cross(f.W)) && env.irreflexive()) return 'co';
  return 'fwd';
}
