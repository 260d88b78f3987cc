// A compiled model read at the level of single events, for the shortcuts
// that reason about events not built yet (load buffering,
// models/cat/derive-load-buffering.ts; the lock order,
// models/cat/derive-lock-order.ts): which of the model's sets an event is
// in, from the event alone, and lower bounds of its relations.
//
// A set is decided for an event where its definition reads only herd's
// base sets (kinds, tags, lock operations, initial writes), the events of
// base rmw pairs (domain(rmw), range(rmw)), and set operators: then it
// holds of the event whatever else the execution has. Anything else (a set
// built from a relation, the final writes) is undecided.
//
// The lower bound of a relation is a regular language of steps (`Lang`):
// every path its words describe is a pair the relation contains, in every
// execution the explorer builds. A step is a pair (x, y) of a base
// relation (po, rf, co, fr, a dependency) with x in every set of P and y in
// every set of Q, within one thread or across threads, at one location,
// or with events of `via` between them in program order. A union contains
// each part's words, a composition their concatenations, r* and r+ their
// repetitions, [S] an identity on S; r & int, r & ext, r & loc, r & (S * T)
// and r \ id filter the words' end points; anything else (an intersection
// of two relations, another difference, an inverse, a function not seen
// through) bounds nothing (which only ever proves less).
//
// A few lemmas about what the explorer builds give lock.cat's relations
// their lower bounds (each checked where it is applied; `F1` marks what
// holds where no other access reaches a lock's location, which the caller
// decides per program):
//   - `with X from generate_cos(pco)` (litmus's library) is exactly co
//     restricted to the set generate_cos orders (`exactCo`);
//   - ([LKW] ; po-loc ; [UL]) \ (po-loc ; [LKW | UL] ; po-loc) is exactly the
//     explorer's critical sections (a lock write and the unlock that closes
//     it: the explorer never nests a lock in its own section);
//   - (X | C | C^-1 ; X)+, X exactly co on V (holding lock writes) and C
//     exactly the critical sections, is exactly co on V and the unlocks
//     (F1: each unlock follows its lock write at once in co);
//   - rf^-1 ; co contains fr between the reads and writes their steps
//     relate, where every write such a read may read is at the start of
//     both (a lock read reads the initial write or an unlock, F1, and
//     another read no lock write, F1);
//   - ([LKR] ; po-loc ; [LKW]) \ (po ; po) is exactly the explorer's lock
//     (read, write) pairs; S ; singlestep(X) ; L^-1, with X exactly co on
//     every write of the lock's location, L those pairs, and S holding the
//     initial writes and unlocks, contains the rf of every lock read (F1: a
//     lock read reads the write just before its lock write in co, an
//     unlock or the initial write).

import type { Event } from '../../src/events/event.js';
import { effectOf } from '../../src/events/primitives.js';
import { evalPure, pureRegs, type Program } from '../../src/program/program.js';
import type { CatExpr, Pattern } from './ast.js';
import { tagsOf } from './builtins.js';
import { tagSetName, type CompiledCat } from './compile.js';

/** What an event is, as far as the model's base sets can tell. */
export type EventLike = Pick<Event, 'kind' | 'thread' | 'annot' | 'fence' | 'lock' | 'srcu' | 'isRmw' | 'rmwPartner'>;

/** Membership of one event in a set: true, false, or undefined (not decided by the event alone). */
export type Pred = (e: EventLike) => boolean | undefined;

export type BaseRel = 'po' | 'rf' | 'co' | 'fr' | 'addr' | 'data' | 'ctrl';

export interface Hop {
  rel: BaseRel;
  scope?: 'int' | 'ext';
  loc?: boolean;
  /** Some event of every one of these sets is between the two in program order, in this order. */
  via: readonly Pred[];
  P: readonly Pred[];
  Q: readonly Pred[];
  /** No event of these sets at their location between the two in program order (lock.cat's critical sections). */
  noneBetweenAtLoc?: readonly Pred[];
  /** No event at all between the two in program order (lock.cat's lk-rmw). */
  adjacent?: boolean;
  /** It rests on F1 (see the header): only where no other write reaches a lock's location. */
  F1?: boolean;
}

/** A regular lower bound (see the header). */
export type Lang =
  | { k: 'step'; h: Hop }
  | { k: 'id'; P: readonly Pred[] }
  | { k: 'seq'; a: Lang; b: Lang }
  | { k: 'alt'; parts: readonly Lang[] }
  | { k: 'star'; body: Lang }
  | { k: 'filter'; body: Lang; f: Filter }
  | { k: 'none' };

/** Conditions on a path's end points. */
export interface Filter {
  scope?: 'int' | 'ext';
  loc?: boolean;
  notId?: boolean;
  P?: readonly Pred[];
  Q?: readonly Pred[];
}

/** A relation's lower bound; `exactCo`: it is exactly co restricted to these writes; `F1`: it rests on F1 (see the header). */
interface Rel {
  kind: 'rel';
  lang: Lang;
  /** It is the inverse of a relation with this lower bound (which only rf^-1 ; co puts to use). */
  inverse?: Lang;
  exactCo?: Pred;
  sections?: boolean;
  lockPairs?: boolean;
  F1?: boolean;
}

/** What an expression is, at this level. */
type Value =
  | { kind: 'set'; pred: Pred }
  | Rel
  | { kind: 'fn'; param: Pattern; body: CatExpr; env: Env }
  | { kind: 'tuple'; elems: readonly Value[] }
  | { kind: 'native'; name: string };

type Env = { name: string; v: Value | undefined; next: Env } | null;

const yes: Pred = () => true;
const no: Pred = () => false;
const NONE: Lang = { k: 'none' };

const and3 = (a: boolean | undefined, b: boolean | undefined) => (a === false || b === false ? false : a === true && b === true ? true : undefined);
const or3 = (a: boolean | undefined, b: boolean | undefined) => (a === true || b === true ? true : a === false && b === false ? false : undefined);

/** Whether every predicate surely holds of e. */
export function holds(ps: readonly Pred[], e: EventLike): boolean {
  return ps.every((p) => p(e) === true);
}

const isLockRead = (e: EventLike) => e.lock === 'LKR' || e.lock === 'LF' || e.lock === 'RL' || e.lock === 'RU';
const isLockWrite = (e: EventLike) => e.lock === 'LKW' || e.lock === 'UL';

/** herd's base sets for C (models/cat/builtins.ts staticBase: lock operations out of R and W). */
const BASE_SETS: Readonly<Record<string, Pred>> = {
  R: (e) => e.kind === 'R' && !isLockRead(e),
  W: (e) => e.kind === 'W' && !isLockWrite(e),
  M: (e) => (e.kind === 'R' && !isLockRead(e)) || (e.kind === 'W' && !isLockWrite(e)),
  F: (e) => e.kind === 'F',
  IW: (e) => e.thread < 0 && e.kind === 'W',
  RMW: (e) => e.isRmw,
  LKR: (e) => e.lock === 'LKR',
  LKW: (e) => e.lock === 'LKW',
  UL: (e) => e.lock === 'UL',
  LF: (e) => e.lock === 'LF',
  RL: (e) => e.lock === 'RL',
  RU: (e) => e.lock === 'RU',
};

/** The pairs of base rmw: an RMW's read and write that both happen (not a lock's). */
const inRmwDomain: Pred = (e) => e.kind === 'R' && !e.lock && e.rmwPartner >= 0;
const inRmwRange: Pred = (e) => e.kind === 'W' && !e.lock && e.rmwPartner >= 0;

const BASE_RELATIONS = new Set(['po', 'rf', 'co', 'fr', 'addr', 'data', 'ctrl']);

/** Events of the lock operations, as the explorer makes them. */
export const LOCK_EVENTS = {
  IW: { kind: 'W', thread: -1, annot: 'ONCE', fence: undefined, lock: undefined, srcu: undefined, isRmw: false, rmwPartner: -1 } as EventLike,
  LKR: { kind: 'R', thread: 0, annot: 'ACQUIRE', fence: undefined, lock: 'LKR', srcu: undefined, isRmw: false, rmwPartner: 1 } as EventLike,
  LKW: { kind: 'W', thread: 0, annot: 'ONCE', fence: undefined, lock: 'LKW', srcu: undefined, isRmw: false, rmwPartner: 0 } as EventLike,
  UL: { kind: 'W', thread: 0, annot: 'RELEASE', fence: undefined, lock: 'UL', srcu: undefined, isRmw: false, rmwPartner: -1 } as EventLike,
};

const step = (h: Hop): Lang => ({ k: 'step', h });
const baseStep = (rel: BaseRel, P: Pred[] = [], Q: Pred[] = [], F1 = false): Lang => step({ rel, via: [], P, Q, ...(F1 ? { F1 } : {}) });
const seqL = (a: Lang, b: Lang): Lang => (a.k === 'none' || b.k === 'none' ? NONE : { k: 'seq', a, b });
const altL = (parts: readonly Lang[]): Lang => {
  const ps = parts.filter((p) => p.k !== 'none');
  return ps.length === 0 ? NONE : ps.length === 1 ? ps[0] : { k: 'alt', parts: ps };
};
const relOf = (lang: Lang): Rel => ({ kind: 'rel', lang });

/** The model at the level of single events (each definition read once). */
export class EventKinds {
  private readonly slots = new Map<number, Value | undefined>();
  private readonly active = new Set<number>();
  private readonly tagOf = new Map<string, string>();
  constructor(
    readonly cat: CompiledCat,
    private readonly variants: ReadonlySet<string>,
  ) {
    for (const t of cat.tags) this.tagOf.set(tagSetName(t), t);
  }

  /** The lower bound of a check's relation, as single hops (none when nothing is known). */
  hopsOf(e: CatExpr): readonly Hop[] {
    const v = this.expr(e, null);
    return v?.kind === 'rel' ? singleHops(v.lang).hops : [];
  }

  /** The lower bound of a relation as a regular language, and whether it rests on F1. */
  langOf(e: CatExpr): { lang: Lang; F1: boolean } | undefined {
    const v = this.expr(e, null);
    return v?.kind === 'rel' ? { lang: v.lang, F1: v.F1 ?? false } : undefined;
  }

  /** The predicate of a set expression (undefined when it is not a set decided by events alone). */
  setOf(e: CatExpr): Pred | undefined {
    const v = this.expr(e, null);
    return v?.kind === 'set' ? v.pred : undefined;
  }

  private slot(s: number): Value | undefined {
    if (this.slots.has(s)) return this.slots.get(s);
    if (this.active.has(s)) return undefined;
    this.active.add(s);
    let v: Value | undefined;
    try {
      v = this.slotValue(s);
    } finally {
      this.active.delete(s);
    }
    this.slots.set(s, v);
    return v;
  }

  private slotValue(s: number): Value | undefined {
    const info = this.cat.slots[s];
    if (info.instr < 0) {
      const name = info.name;
      if (BASE_SETS[name]) return { kind: 'set', pred: BASE_SETS[name] };
      const tag = this.tagOf.get(name);
      if (tag !== undefined) return { kind: 'set', pred: (e) => tagsOf(e as Event).includes(tag) };
      // herd's rf, co and fr relate its base reads and writes only (lock operations are lock.cat's to add).
      if (name === 'rf') return relOf(baseStep('rf', [], [BASE_SETS.R]));
      if (name === 'co') return { ...relOf(baseStep('co', [BASE_SETS.W], [BASE_SETS.W])), exactCo: BASE_SETS.W };
      if (name === 'fr') return relOf(baseStep('fr', [BASE_SETS.R], [BASE_SETS.W]));
      if (BASE_RELATIONS.has(name)) return relOf(baseStep(name as BaseRel));
      if (name === 'id') return relOf({ k: 'id', P: [] });
      if (['loc', 'int', 'ext', 'rmw'].includes(name)) return { kind: 'native', name: `rel:${name}` };
      const raw = name.replace(/^%/, '');
      if (raw === 'domain' || raw === 'range') return { kind: 'native', name: raw };
      return undefined;
    }
    const ci = this.cat.instrs[info.instr];
    const ins = ci.instr;
    if (ins.kind === 'with') return this.withValue(ins.from);
    if (ins.kind !== 'let' || ins.rec) return undefined;
    const k = ci.defines.indexOf(s);
    let at = 0;
    for (const b of ins.bindings) {
      const names = b.pattern.kind === 'var' ? [b.pattern.name] : b.pattern.names;
      if (k < at + names.length) {
        if (b.expr.kind === 'fun') return { kind: 'fn', param: b.expr.param, body: b.expr.body, env: null };
        if (b.pattern.kind !== 'var') return undefined;
        return this.expr(b.expr, null);
      }
      at += names.length;
    }
    return undefined;
  }

  /** `with X from generate_cos(pco)` of litmus's library: exactly co among the writes generate_cos orders. */
  private withValue(from: CatExpr): Value | undefined {
    if (from.kind !== 'app' || !this.isLibrary(from.fn, 'generate_cos') || from.fn.kind !== 'var' || from.fn.ref?.kind !== 'slot') return undefined;
    const s = this.cat.slots[from.fn.ref.slot];
    const ins = this.cat.instrs[s.instr].instr;
    if (ins.kind !== 'let') return undefined;
    const b = ins.bindings.find((x) => x.pattern.kind === 'var' && x.pattern.name === s.name);
    // let generate_cos(pco) = generate_orders(W, pco): the writes are its first argument.
    const body = b?.expr.kind === 'fun' ? b.expr.body : undefined;
    if (body?.kind !== 'app' || !this.isLibrary(body.fn, 'generate_orders') || body.arg.kind !== 'tuple') return undefined;
    const over = this.setOf(body.arg.elems[0]);
    if (!over) return undefined;
    return { ...relOf(baseStep('co', [over], [over])), exactCo: over };
  }

  /** Whether e names the function `name` of litmus's own library files (not one a model defines). */
  private isLibrary(e: CatExpr, name: string): boolean {
    if (e.kind !== 'var' || e.name !== name || e.ref?.kind !== 'slot') return false;
    const s = this.cat.slots[e.ref.slot];
    return s.instr >= 0 && this.cat.instrs[s.instr].instr.pos.file.startsWith('litmus:');
  }

  private expr(e: CatExpr, env: Env): Value | undefined {
    switch (e.kind) {
      case 'var': {
        if (e.ref?.kind === 'local') {
          for (let c = env; c; c = c.next) if (c.name === e.name) return c.v;
          return undefined;
        }
        return e.ref?.kind === 'slot' ? this.slot(e.ref.slot) : undefined;
      }
      case 'empty':
        return relOf(NONE);
      case 'universe':
        return { kind: 'set', pred: yes };
      case 'tuple': {
        const elems = e.elems.map((x) => this.expr(x, env));
        return elems.every((x) => x !== undefined) ? { kind: 'tuple', elems: elems as Value[] } : undefined;
      }
      case 'unary':
        if (e.op === 'plus') {
          const closed = this.coClosure(e.arg, env);
          if (closed) return closed;
        }
        return this.unary(e.op, this.expr(e.arg, env));
      case 'binary': {
        if (e.op === 'seq') {
          const lockRf = this.lockReadsFrom(e.args, env);
          if (lockRf) return lockRf;
        }
        if (e.op === 'diff' && e.args.length === 2) {
          const lemma = this.lockDiff(e.args[0], e.args[1], env);
          if (lemma) return lemma;
        }
        let acc = this.expr(e.args[0], env);
        for (const a of e.args.slice(1)) acc = this.binary(e.op, acc, this.expr(a, env), a);
        return acc;
      }
      case 'app': {
        const fn = this.expr(e.fn, env);
        return this.apply(fn, e.arg, env);
      }
      case 'fun':
        return { kind: 'fn', param: e.param, body: e.body, env };
      case 'let': {
        if (e.rec) return undefined;
        let inner = env;
        for (const b of e.bindings) inner = bind(b.pattern, this.expr(b.expr, env), inner);
        return this.expr(e.body, inner);
      }
      case 'try':
        return readsUnbound(e.body) ? this.expr(e.otherwise, env) : this.expr(e.body, env);
      case 'if':
        return e.cond.kind === 'variant' ? this.expr(this.variants.has(e.cond.name) ? e.then : e.otherwise, env) : undefined;
      default:
        return undefined;
    }
  }

  private apply(fn: Value | undefined, argExpr: CatExpr, env: Env): Value | undefined {
    if (!fn) return undefined;
    if (fn.kind === 'fn') return this.expr(fn.body, bind(fn.param, this.expr(argExpr, env), fn.env));
    if (fn.kind === 'native' && (fn.name === 'domain' || fn.name === 'range')) {
      // domain(rmw), range(rmw): the events of base rmw pairs.
      const arg = this.expr(argExpr, env);
      if (arg?.kind === 'native' && arg.name === 'rel:rmw') return { kind: 'set', pred: fn.name === 'domain' ? inRmwDomain : inRmwRange };
      if (arg?.kind === 'rel' && arg.lang.k === 'none') return { kind: 'set', pred: no };
    }
    return undefined;
  }

  // ------------------------------------------------------------ lock.cat's lemmas (see the header)

  /**
   * X \ Y where Y is po-loc ; [S] ; po-loc (an event of S at the location
   * between) or po ; po (any event between): X's words whose two ends have
   * none between.
   */
  private lockDiff(xe: CatExpr, ye: CatExpr, env: Env): Value | undefined {
    const x = this.expr(xe, env);
    if (x?.kind !== 'rel') return undefined;
    const through = this.poThrough(ye, env);
    if (!through) return undefined;
    const sh = singleHops(x.lang);
    const single = sh.hops.length === 1 && sh.ids.length === 0 && (x.lang.k === 'step' || x.lang.k === 'seq' || x.lang.k === 'filter') ? sh.hops[0] : undefined;
    if (!single || single.rel !== 'po' || single.via.length > 0) return undefined;
    const h: Hop = through.any ? { ...single, adjacent: true } : { ...single, noneBetweenAtLoc: [...(single.noneBetweenAtLoc ?? []), through.S!] };
    const out: Rel = relOf(step(h));
    // The explorer's critical sections, and its lock (read, write) pairs.
    if (!through.any && isSections(h)) out.sections = true;
    if (through.any && isLockPairs(h)) out.lockPairs = true;
    return out;
  }

  /** Y as "po (at one location) through an event of S", or "po through any event". */
  private poThrough(ye: CatExpr, env: Env): { S?: Pred; any?: boolean } | undefined {
    if (ye.kind !== 'binary' || ye.op !== 'seq') return undefined;
    const parts = ye.args.map((a) => this.expr(a, env));
    const isPo = (v: Value | undefined, loc: boolean) =>
      v?.kind === 'rel' && ((v.lang.k === 'step' && v.lang.h.rel === 'po' && v.lang.h.P.length === 0 && v.lang.h.Q.length === 0 && v.lang.h.via.length === 0 && (loc ? true : !v.lang.h.loc)) ||
        (v.lang.k === 'filter' && v.lang.f.loc === loc && !v.lang.f.P && !v.lang.f.Q && !v.lang.f.scope && v.lang.body.k === 'step' && v.lang.body.h.rel === 'po' && v.lang.body.h.P.length === 0 && v.lang.body.h.Q.length === 0));
    if (parts.length === 2 && isPo(parts[0], false) && isPo(parts[1], false)) return { any: true };
    if (parts.length === 3 && isPo(parts[0], true) && isPo(parts[2], true)) {
      const mid = ye.args[1];
      if (mid.kind === 'unary' && mid.op === 'toid') {
        const S = this.setOf(mid.arg);
        if (S) return { S };
      }
    }
    return undefined;
  }

  /** (X | C | C^-1 ; X)+ with X exactly co on V (holding lock writes), C the critical sections: exactly co on V and unlocks (F1). */
  private coClosure(arg: CatExpr, env: Env): Value | undefined {
    if (arg.kind !== 'binary' || arg.op !== 'union' || arg.args.length !== 3) return undefined;
    const [xe, ce, be] = arg.args;
    if (be.kind !== 'binary' || be.op !== 'seq' || be.args.length !== 2) return undefined;
    const [inv, x2] = be.args;
    if (inv.kind !== 'unary' || inv.op !== 'inv' || !sameName(inv.arg, ce) || !sameName(x2, xe)) return undefined;
    const x = this.expr(xe, env);
    const c = this.expr(ce, env);
    if (x?.kind !== 'rel' || !x.exactCo || c?.kind !== 'rel' || !c.sections) return undefined;
    if (x.exactCo(LOCK_EVENTS.LKW) !== true) return undefined;
    const V = x.exactCo;
    const over: Pred = (e) => or3(V(e), e.lock === 'UL');
    return { ...relOf(baseStep('co', [over], [over], true)), exactCo: over, F1: true };
  }

  /**
   * S ; singlestep(X) ; L^-1 with X exactly co on every write of a lock's
   * location, L the lock (read, write) pairs, S holding the initial writes
   * and unlocks: contains rf into every lock read (F1).
   */
  private lockReadsFrom(args: readonly CatExpr[], env: Env): Value | undefined {
    if (args.length !== 3) return undefined;
    const [se, ss, le] = args;
    if (se.kind !== 'unary' || se.op !== 'toid' || ss.kind !== 'app' || !this.isLibrary(ss.fn, 'singlestep') || le.kind !== 'unary' || le.op !== 'inv') return undefined;
    const S = this.setOf(se.arg);
    const x = this.expr(ss.arg, env);
    const l = this.expr(le.arg, env);
    if (!S || x?.kind !== 'rel' || !x.exactCo || l?.kind !== 'rel' || !l.lockPairs) return undefined;
    const V = x.exactCo;
    if (![LOCK_EVENTS.IW, LOCK_EVENTS.LKW, LOCK_EVENTS.UL].every((ev) => V(ev) === true)) return undefined;
    if (S(LOCK_EVENTS.IW) !== true || S(LOCK_EVENTS.UL) !== true) return undefined;
    return { ...relOf(baseStep('rf', [S], [BASE_SETS.LKR], true)), F1: true };
  }

  // ------------------------------------------------------------ operators

  private unary(op: string, a: Value | undefined): Value | undefined {
    if (!a) return undefined;
    switch (op) {
      case 'comp':
        return a.kind === 'set' ? { kind: 'set', pred: (e) => { const x = a.pred(e); return x === undefined ? undefined : !x; } } : undefined;
      case 'toid':
        return a.kind === 'set' ? relOf({ k: 'id', P: [a.pred] }) : undefined;
      case 'inv':
        return a.kind === 'rel' ? { ...relOf(NONE), inverse: a.lang, F1: a.F1 } : undefined;
      case 'star':
        return a.kind === 'rel' ? { ...relOf({ k: 'star', body: a.lang }), F1: a.F1 } : undefined;
      case 'opt':
        return a.kind === 'rel' ? { ...relOf(altL([a.lang, { k: 'id', P: [] }])), F1: a.F1 } : undefined;
      case 'plus':
        return a.kind === 'rel' ? { ...relOf(seqL(a.lang, { k: 'star', body: a.lang })), F1: a.F1 } : undefined;
      default:
        return undefined;
    }
  }

  private binary(op: string, a: Value | undefined, b: Value | undefined, be: CatExpr): Value | undefined {
    const F1 = (a?.kind === 'rel' && a.F1) || (b?.kind === 'rel' && b.F1);
    if (op === 'union') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'set', pred: (e) => or3(a.pred(e), b.pred(e)) };
      // A part bounding nothing leaves the other's words (a lower bound).
      const la = a?.kind === 'rel' ? a.lang : NONE;
      const lb = b?.kind === 'rel' ? b.lang : NONE;
      if (a?.kind !== 'rel' && b?.kind !== 'rel') return undefined;
      return { ...relOf(altL([la, lb])), F1 };
    }
    if (op === 'inter') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'set', pred: (e) => and3(a.pred(e), b.pred(e)) };
      const [r, other] = a?.kind === 'rel' ? [a, b] : [b, a];
      if (r?.kind !== 'rel') return undefined;
      const f = filterOf(other);
      return f ? { ...relOf({ k: 'filter', body: r.lang, f }), F1 } : relOf(NONE);
    }
    if (op === 'diff') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'set', pred: (e) => { const y = b.pred(e); return and3(a.pred(e), y === undefined ? undefined : !y); } };
      // r \ id.
      if (a?.kind === 'rel' && b?.kind === 'rel' && be.kind === 'var' && isIdentity(be, this.cat)) return { ...relOf({ k: 'filter', body: a.lang, f: { notId: true } }), F1 };
      return a?.kind === 'rel' ? relOf(NONE) : undefined;
    }
    if (op === 'seq') {
      if (a?.kind !== 'rel' || b?.kind !== 'rel') return a?.kind === 'rel' || b?.kind === 'rel' ? relOf(NONE) : undefined;
      if (a.inverse) return { ...relOf(frOf(a.inverse, b.lang)), F1 };
      return { ...relOf(seqL(a.lang, b.lang)), F1 };
    }
    if (op === 'cartesian') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'native', name: 'cartesian', sets: [a.pred, b.pred] } as unknown as Value;
      return undefined;
    }
    return undefined;
  }
}

/**
 * rf^-1 ; co (X the rf, Y the co): for a read r reading w0, and a write w
 * co-after w0, (r, w) is in it when (w0, r) is a step of X's and (w0, w)
 * one of Y's: fr from X's reads to Y's writes, where every write such a
 * read may read (a lock read: the initial write or an unlock, F1; another:
 * any write) is at the start of both steps.
 */
function frOf(x: Lang, y: Lang): Lang {
  const rfs = singleHops(x).hops.filter((h) => h.rel === 'rf' && !h.scope && !h.loc && h.via.length === 0);
  const cos = singleHops(y).hops.filter((h) => h.rel === 'co' && !h.scope && !h.loc && h.via.length === 0);
  const out: Lang[] = [];
  const writes = CATALOG.filter((e) => e.kind === 'W');
  for (const r of rfs) {
    const lockReads = holds(r.Q, LOCK_EVENTS.LKR);
    for (const c of cos) {
      const covered = (ws: readonly EventLike[]) => ws.every((w) => holds(r.P, w) && holds(c.P, w));
      // The writes a read may read: any; under F1 a lock read's are the initial write and unlocks, another read's no lock write.
      const F1 = lockReads ? covered([LOCK_EVENTS.IW, LOCK_EVENTS.UL]) : !covered(writes) && covered(writes.filter((w) => !w.lock));
      if (!F1 && !covered(writes)) continue;
      out.push(step({ rel: 'fr', via: [], P: r.Q, Q: c.Q, ...(r.F1 || c.F1 || F1 ? { F1: true } : {}) }));
    }
  }
  return altL(out);
}

/** A relation intersected with x, as a filter of its words' ends (undefined: x is another relation). */
function filterOf(x: Value | undefined): Filter | undefined {
  if (x?.kind !== 'native') return undefined;
  if (x.name === 'rel:int') return { scope: 'int' };
  if (x.name === 'rel:ext') return { scope: 'ext' };
  if (x.name === 'rel:loc') return { loc: true };
  if (x.name === 'cartesian') {
    const [S, T] = (x as unknown as { sets: [Pred, Pred] }).sets;
    return { P: [S], Q: [T] };
  }
  return undefined;
}

/** Events of every kind, to see which a set holds. */
const CATALOG: readonly EventLike[] = [
  LOCK_EVENTS.IW, LOCK_EVENTS.LKR, LOCK_EVENTS.LKW, LOCK_EVENTS.UL,
  { ...LOCK_EVENTS.LKR, lock: 'LF', annot: 'ONCE', rmwPartner: -1 }, { ...LOCK_EVENTS.LKR, lock: 'RU', annot: 'ONCE', rmwPartner: -1 },
  { ...LOCK_EVENTS.LKR, lock: 'RL', annot: 'ONCE', rmwPartner: -1 },
  ...(['ONCE', 'ACQUIRE', 'RELEASE', 'MB', 'PLAIN'] as const).flatMap((annot) => [
    { ...LOCK_EVENTS.IW, thread: 0, annot }, { ...LOCK_EVENTS.IW, thread: 0, annot, kind: 'R' as const },
  ]),
  { ...LOCK_EVENTS.IW, thread: 0, kind: 'F', fence: 'MB' },
];

/** Whether preds hold of exactly the catalog's events `which` picks. */
function exactly(ps: readonly Pred[], which: (e: EventLike) => boolean): boolean {
  return CATALOG.every((e) => (which(e) ? holds(ps, e) : ps.some((p) => p(e) === false)));
}

/** The explorer's critical sections: po at one location from a lock write to an unlock, no lock write or unlock between there. */
function isSections(h: Hop): boolean {
  const { LKW, UL } = LOCK_EVENTS;
  return h.rel === 'po' && h.loc === true && h.via.length === 0 && exactly(h.P, (e) => e.lock === 'LKW') && exactly(h.Q, (e) => e.lock === 'UL') &&
    (h.noneBetweenAtLoc ?? []).some((p) => p(LKW) === true && p(UL) === true);
}

/** The explorer's lock (read, write) pairs: po at one location from a lock read to a lock write, adjacent. */
function isLockPairs(h: Hop): boolean {
  const { LKW, LKR } = LOCK_EVENTS;
  return h.rel === 'po' && h.loc === true && h.adjacent === true && holds(h.P, LKR) && holds(h.Q, LKW);
}

function sameName(a: CatExpr, b: CatExpr): boolean {
  return a.kind === 'var' && b.kind === 'var' && a.ref?.kind === 'slot' && b.ref?.kind === 'slot' && a.ref.slot === b.ref.slot;
}

/** Whether e is herd's identity relation (the base name id). */
function isIdentity(e: CatExpr, cat: CompiledCat): boolean {
  return e.kind === 'var' && e.ref?.kind === 'slot' && cat.slots[e.ref.slot].instr < 0 && cat.slots[e.ref.slot].name === 'id';
}

// ------------------------------------------------------------ single hops

/** Lower bounds are kept small: dropping hops only proves less. */
const MAX_HOPS = 256;

/**
 * The single steps a language's words of length one describe (identities
 * folded into their ends; po ; po as po through the event between: x po z
 * po y with z in both's sets), and its identities.
 */
export function singleHops(l: Lang, memo = new Map<Lang, SingleHops>()): SingleHops {
  // A language shares its parts (a definition read in many places): each is read once.
  let known = memo.get(l);
  if (!known) memo.set(l, (known = singleHopsOf(l, memo)));
  return known;
}

type SingleHops = { hops: Hop[]; ids: Pred[][] };

function singleHopsOf(l: Lang, memo: Map<Lang, SingleHops>): SingleHops {
  const sub = (x: Lang) => singleHops(x, memo);
  switch (l.k) {
    case 'none':
      return { hops: [], ids: [] };
    case 'step':
      return { hops: [l.h], ids: [] };
    case 'id':
      return { hops: [], ids: [[...l.P]] };
    case 'alt': {
      const parts = l.parts.map(sub);
      return { hops: parts.flatMap((p) => p.hops).slice(0, MAX_HOPS), ids: parts.flatMap((p) => p.ids).slice(0, MAX_HOPS) };
    }
    case 'star': {
      const b = sub(l.body);
      return { hops: b.hops, ids: [...b.ids, []] };
    }
    case 'filter': {
      const b = sub(l.body);
      const f = l.f;
      const hops = b.hops
        .filter((h) => !f.scope || h.scope === undefined || h.scope === f.scope || (h.rel === 'po' && f.scope === 'int'))
        .filter((h) => !(f.scope === 'ext' && h.rel === 'po'))
        .map((h) => ({ ...h, scope: f.scope ?? h.scope, loc: f.loc || h.loc, P: [...h.P, ...(f.P ?? [])], Q: [...h.Q, ...(f.Q ?? [])] }));
      const ids = f.notId || f.scope === 'ext' ? [] : b.ids.map((x) => [...x, ...(f.P ?? []), ...(f.Q ?? [])]);
      return { hops, ids };
    }
    case 'seq': {
      const a = sub(l.a);
      const b = sub(l.b);
      const hops: Hop[] = [];
      const ids: Pred[][] = [];
      for (const x of a.ids) for (const y of b.ids) ids.push([...x, ...y]);
      for (const x of a.ids) for (const h of b.hops) hops.push({ ...h, P: [...x, ...h.P] });
      for (const h of a.hops) for (const y of b.ids) hops.push({ ...h, Q: [...h.Q, ...y] });
      for (const h1 of a.hops) {
        for (const h2 of b.hops) {
          if (h1.rel !== 'po' || h2.rel !== 'po' || h1.loc || h2.loc || h1.scope === 'ext' || h2.scope === 'ext') continue;
          const between = [...h1.Q, ...h2.P];
          hops.push({ rel: 'po', scope: 'int', via: [...h1.via, (e) => (holds(between, e) ? true : undefined), ...h2.via], P: h1.P, Q: h2.Q, ...(h1.F1 || h2.F1 ? { F1: true } : {}) });
        }
      }
      return { hops: hops.slice(0, MAX_HOPS), ids: ids.slice(0, MAX_HOPS) };
    }
  }
}

function bind(p: Pattern, v: Value | undefined, env: Env): Env {
  if (p.kind === 'var') return p.name === null ? env : { name: p.name, v, next: env };
  let out = env;
  p.names.forEach((nm, i) => {
    if (nm !== null) out = { name: nm, v: v?.kind === 'tuple' ? v.elems[i] : undefined, next: out };
  });
  return out;
}

/** Whether an expression names something unknown (what `try` falls back from). */
function readsUnbound(e: CatExpr): boolean {
  switch (e.kind) {
    case 'var':
      return e.ref?.kind === 'unbound';
    case 'unary':
      return readsUnbound(e.arg);
    case 'binary':
      return e.args.some(readsUnbound);
    case 'app':
      return readsUnbound(e.fn) || readsUnbound(e.arg);
    case 'tuple':
    case 'explicit':
      return e.elems.some(readsUnbound);
    default:
      return false;
  }
}

/**
 * F1 for a program (see the header): no access but a lock's own reaches a
 * location its code locks, every such address known from the code (the
 * threads' parameters).
 */
export function lockLocationsWrittenByLocksOnly(p: Program): boolean {
  const isLock = (ins: Program['threads'][number]['code'][number]) => ins.op === 'prim' && effectOf(ins.prim).object === 'spinlock';
  if (!p.threads.some((th) => th.code.some(isLock))) return true;
  const lockAddrs = new Set<number>();
  const writeAddrs = new Set<number>();
  for (const th of p.threads) {
    const params = new Set(th.paramRegs);
    for (const ins of th.code) {
      if (ins.op !== 'prim') continue;
      const e = effectOf(ins.prim);
      if (e.object !== 'spinlock' && e.object !== 'memory') continue;
      if (!pureRegs(ins.addr).every((r) => params.has(r))) return false;
      (e.object === 'spinlock' ? lockAddrs : writeAddrs).add(evalPure(ins.addr, th.initRegs));
    }
  }
  for (const a of lockAddrs) if (writeAddrs.has(a)) return false;
  return true;
}
