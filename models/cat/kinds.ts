// A compiled model read at the level of single events, for the shortcuts
// that reason about events not built yet (load buffering,
// models/cat/derive-load-buffering.ts): which of the model's sets an event
// is in, from the event alone, and lower bounds of its relations as hops.
//
// A set is decided for an event where its definition reads only herd's
// base sets (kinds, tags, lock operations, initial writes), the events of
// base rmw pairs (domain(rmw), range(rmw)), and set operators: then it
// holds of the event whatever else the execution has. Anything else (a set
// built from a relation, the final writes) is undecided.
//
// A hop is a pattern of pairs of events that a relation contains in every
// execution: (x, y) in base relation `rel` (po, rf, co, fr, or a
// dependency), x in every set of P and y in every set of Q, where given
// within one thread or across threads, at one location, or with an event
// of `via` between them in program order (po ; [S] ; po). The lower bound
// of a relation is a list of hops each of which it contains: a union
// contains each part's, [S] ; r ; [T] restricts r's, r & int, r & ext,
// r & loc, r & (S * T) restrict too, r \ id is r where r has no pair (e, e)
// (every base relation of a hop), r*, r+, r? contain r; a composition of
// two hops, an intersection of two relations, a difference, an inverse
// bound nothing here (which only ever proves less).

import type { Event } from '../../src/events/event.js';
import type { CatExpr, Pattern } from './ast.js';
import { tagsOf } from './builtins.js';
import { tagSetName, type CompiledCat } from './compile.js';

/** What an event is, as far as the model's base sets can tell. */
export type EventLike = Pick<Event, 'kind' | 'thread' | 'annot' | 'fence' | 'lock' | 'srcu' | 'isRmw' | 'rmwPartner'>;

/** Membership of one event in a set: true, false, or undefined (not decided by the event alone). */
export type Pred = (e: EventLike) => boolean | undefined;

export interface Hop {
  rel: 'po' | 'rf' | 'co' | 'fr' | 'addr' | 'data' | 'ctrl';
  scope?: 'int' | 'ext';
  loc?: boolean;
  /** Some event of every one of these sets is between the two in program order. */
  via: readonly Pred[];
  P: readonly Pred[];
  Q: readonly Pred[];
}

/** What an expression is, at this level. */
type Value =
  | { kind: 'set'; pred: Pred }
  | { kind: 'hops'; hops: readonly Hop[]; id?: readonly Pred[][] }
  | { kind: 'fn'; param: Pattern; body: CatExpr; env: Env }
  | { kind: 'tuple'; elems: readonly Value[] }
  | { kind: 'native'; name: string };

type Env = { name: string; v: Value | undefined; next: Env } | null;

const yes: Pred = () => true;
const no: Pred = () => false;

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

  /** The lower bound of a check's relation, as hops (none when nothing is known). */
  hopsOf(e: CatExpr): readonly Hop[] {
    const v = this.expr(e, null);
    return v?.kind === 'hops' ? v.hops : [];
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
      if (name === 'rf') return { kind: 'hops', hops: [{ rel: 'rf', via: [], P: [], Q: [BASE_SETS.R] }] };
      if (name === 'co') return { kind: 'hops', hops: [{ rel: 'co', via: [], P: [BASE_SETS.W], Q: [BASE_SETS.W] }] };
      if (name === 'fr') return { kind: 'hops', hops: [{ rel: 'fr', via: [], P: [BASE_SETS.R], Q: [BASE_SETS.W] }] };
      if (BASE_RELATIONS.has(name)) return { kind: 'hops', hops: [{ rel: name as Hop['rel'], via: [], P: [], Q: [] }] };
      if (name === 'id') return { kind: 'hops', hops: [], id: [[]] };
      if (['loc', 'int', 'ext', 'rmw'].includes(name)) return { kind: 'native', name: `rel:${name}` };
      const raw = name.replace(/^%/, '');
      if (raw === 'domain' || raw === 'range') return { kind: 'native', name: raw };
      return undefined;
    }
    const ci = this.cat.instrs[info.instr];
    const ins = ci.instr;
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
        return { kind: 'hops', hops: [] };
      case 'universe':
        return { kind: 'set', pred: yes };
      case 'tuple': {
        const elems = e.elems.map((x) => this.expr(x, env));
        return elems.every((x) => x !== undefined) ? { kind: 'tuple', elems: elems as Value[] } : undefined;
      }
      case 'unary':
        return this.unary(e.op, this.expr(e.arg, env));
      case 'binary': {
        let acc = this.expr(e.args[0], env);
        for (const a of e.args.slice(1)) acc = this.binary(e.op, acc, this.expr(a, env));
        return acc;
      }
      case 'app':
        return this.apply(this.expr(e.fn, env), e.arg, env);
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
      if (arg?.kind === 'hops' && arg.hops.length === 0 && !arg.id) return { kind: 'set', pred: no };
    }
    return undefined;
  }

  private unary(op: string, a: Value | undefined): Value | undefined {
    if (!a) return undefined;
    switch (op) {
      case 'comp':
        return a.kind === 'set' ? { kind: 'set', pred: (e) => { const x = a.pred(e); return x === undefined ? undefined : !x; } } : undefined;
      case 'toid':
        return a.kind === 'set' ? { kind: 'hops', hops: [], id: [[a.pred]] } : undefined;
      case 'star':
      case 'opt':
        return a.kind === 'hops' ? { kind: 'hops', hops: a.hops, id: [...(a.id ?? []), []] } : undefined;
      case 'plus':
        return a.kind === 'hops' ? a : undefined;
      default:
        return undefined;
    }
  }

  private binary(op: string, a: Value | undefined, b: Value | undefined): Value | undefined {
    if (op === 'union') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'set', pred: (e) => or3(a.pred(e), b.pred(e)) };
      // A part bounding nothing leaves the other's hops (a lower bound).
      const ha = asHops(a);
      const hb = asHops(b);
      if (!ha && !hb) return undefined;
      return { kind: 'hops', hops: [...(ha?.hops ?? []), ...(hb?.hops ?? [])].slice(0, MAX_HOPS), id: [...(ha?.id ?? []), ...(hb?.id ?? [])].slice(0, MAX_HOPS) };
    }
    if (op === 'inter') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'set', pred: (e) => and3(a.pred(e), b.pred(e)) };
      const [h, other] = a?.kind === 'hops' ? [a, b] : [b, a];
      if (h?.kind !== 'hops') return undefined;
      return restrict(h, other);
    }
    if (op === 'diff') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'set', pred: (e) => { const y = b.pred(e); return and3(a.pred(e), y === undefined ? undefined : !y); } };
      // r \ id: every hop's relation has no pair (e, e).
      if (a?.kind === 'hops' && b?.kind === 'hops' && b.hops.length === 0 && b.id?.length === 1 && b.id[0].length === 0) return { kind: 'hops', hops: a.hops };
      return a?.kind === 'hops' ? { kind: 'hops', hops: [] } : undefined;
    }
    if (op === 'seq') return seq(a, b);
    if (op === 'cartesian') {
      if (a?.kind === 'set' && b?.kind === 'set') return { kind: 'native', name: 'cartesian', ...{ sets: [a.pred, b.pred] } } as Value;
      return undefined;
    }
    return undefined;
  }
}

/** A value as hops, if it is a relation. */
function asHops(v: Value | undefined): (Value & { kind: 'hops' }) | undefined {
  return v?.kind === 'hops' ? v : undefined;
}

/** r & x: a base relation narrows the hops, [S]-like sets restrict their ends. */
function restrict(h: Value & { kind: 'hops' }, x: Value | undefined): Value | undefined {
  if (x?.kind === 'native') {
    if (x.name === 'rel:int' || x.name === 'rel:ext') {
      const scope = x.name === 'rel:int' ? 'int' : 'ext';
      return { kind: 'hops', hops: h.hops.filter((p) => p.scope === undefined || p.scope === scope).map((p) => ({ ...p, scope })) };
    }
    if (x.name === 'rel:loc') return { kind: 'hops', hops: h.hops.map((p) => ({ ...p, loc: true })) };
    if (x.name === 'cartesian') {
      const [S, T] = (x as unknown as { sets: [Pred, Pred] }).sets;
      return { kind: 'hops', hops: h.hops.map((p) => ({ ...p, P: [...p.P, S], Q: [...p.Q, T] })) };
    }
  }
  // Another relation: inside both, which no hop here says.
  return { kind: 'hops', hops: [] };
}

/**
 * a ; b: identities restrict ends; po ; po is po with an event between (the
 * first's target, the second's source: x po z po y, z in both's sets), so
 * po ; [S] ; po is po through an event of S (fencerel); any other two hops
 * bound nothing here.
 */
function seq(a: Value | undefined, b: Value | undefined): Value | undefined {
  const ha = asHops(a);
  const hb = asHops(b);
  if (!ha || !hb) return ha || hb ? { kind: 'hops', hops: [] } : undefined;
  const hops: Hop[] = [];
  const ids: Pred[][] = [];
  // identity ; identity
  for (const x of ha.id ?? []) for (const y of hb.id ?? []) ids.push([...x, ...y]);
  // identity ; hop, hop ; identity
  for (const x of ha.id ?? []) for (const h of hb.hops) hops.push({ ...h, P: [...x, ...h.P] });
  for (const h of ha.hops) for (const y of hb.id ?? []) hops.push({ ...h, Q: [...h.Q, ...y] });
  for (const h1 of ha.hops) {
    for (const h2 of hb.hops) {
      if (h1.rel !== 'po' || h2.rel !== 'po' || h1.loc || h2.loc || h1.scope === 'ext' || h2.scope === 'ext') continue;
      const between = [...h1.Q, ...h2.P];
      hops.push({ rel: 'po', scope: 'int', via: [...h1.via, (e) => (holds(between, e) ? true : undefined), ...h2.via], P: h1.P, Q: h2.Q });
    }
  }
  return { kind: 'hops', hops: hops.slice(0, MAX_HOPS), id: ids.slice(0, MAX_HOPS) };
}

/** Lower bounds are kept small: dropping hops only proves less. */
const MAX_HOPS = 256;

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
