// What cat's operators do to values (models/cat/values.ts), for the
// compiled expressions of models/cat/code.ts: `|`, `&`, `\` of sets, of
// relations and of sets of values; `;` with `[S]` applied as a restriction;
// `*` of two sets; `++`; the postfix operators, `~` and `[S]`; `{a, b}`.
// `n` is the number of events of the execution at hand.

import { EventSet, Relation } from '../../src/relation/relation.js';
import type { BinaryOp, CatPos, UnaryOp } from './ast.js';
import { ModelError } from './lexer.js';
import { asRelOrNull, asSetOrNull, elementsOf, EMPTY, relValue, sameValue, setValue, typeName, UNIVERSE, Unsupported, type Value } from './values.js';

export function unary(op: UnaryOp, v: Value, n: number, pos: CatPos): Value {
  if (v.kind === 'node') return v.ops.unary(op, v, pos);
  if (op === 'toid') return relValue(needSet(v, n, '[...]', pos).id());
  if (op === 'comp') {
    if (v.kind === 'set') return setValue(v.set.complement());
    if (v.kind === 'universe') return setValue(new EventSet(n));
    if (v.kind === 'rel') return relValue(Relation.where(n, (a, b) => !v.rel.has(a, b)));
    if (v.kind === 'empty') return UNIVERSE;
    throw new ModelError(`~ takes a set or a relation, not ${typeName(v)}`, pos);
  }
  const r = asRelOrNull(v, n);
  if (!r) throw new ModelError(`${op === 'inv' ? '^-1' : op === 'star' ? '*' : op === 'plus' ? '+' : '?'} takes a relation, not ${typeName(v)}`, pos);
  switch (op) {
    case 'star':
      return relValue(r.star());
    case 'plus':
      return relValue(r.plus());
    case 'opt':
      return relValue(r.opt());
    default:
      return relValue(r.inv());
  }
}

/** a op b, for every binary operator but `;` of more than two (see Sequence). */
export function binary(op: BinaryOp, a: Value, b: Value, n: number, pos: CatPos): Value {
  if (a.kind === 'node') return a.ops.binary(op, a, b, pos);
  if (b.kind === 'node') return b.ops.binary(op, a, b, pos);
  if (op === 'add') return add(a, b, n, pos);
  if (op === 'cartesian') {
    const s = asSetOrNull(a, n);
    const t = asSetOrNull(b, n);
    if (!s || !t) throw new ModelError(`* takes two sets of events, not ${typeName(s ? b : a)}`, pos);
    return relValue(s.cross(t));
  }
  if (op === 'seq') {
    const r = asRelOrNull(a, n);
    const s = asRelOrNull(b, n);
    if (!r || !s) throw new ModelError(`; takes two relations, not ${typeName(r ? b : a)}`, pos);
    return relValue(r.seq(s));
  }
  // union, inter, diff: of relations (the common case first), of sets, or of sets of values.
  if (a.kind === 'rel' && b.kind === 'rel') return relations(op, a, b);
  if (a.kind === 'empty' && b.kind === 'empty') return EMPTY;
  if (a.kind === 'values' || b.kind === 'values') return valueSetOp(op, a, b, n, pos);
  const setA = a.kind === 'set' || a.kind === 'universe';
  const setB = b.kind === 'set' || b.kind === 'universe';
  if ((setA || a.kind === 'empty') && (setB || b.kind === 'empty')) {
    const s = asSetOrNull(a, n)!;
    const t = asSetOrNull(b, n)!;
    return setValue(op === 'union' ? s.or(t) : op === 'inter' ? s.and(t) : s.minus(t));
  }
  const r = asRelOrNull(a, n);
  const s = asRelOrNull(b, n);
  if (!r || !s) {
    const sym = op === 'union' ? '|' : op === 'inter' ? '&' : '\\';
    throw new ModelError(`${sym} needs two sets or two relations, not ${typeName(a)} and ${typeName(b)}`, pos);
  }
  return relValue(op === 'union' ? r.or(s) : op === 'inter' ? r.and(s) : r.minus(s));
}

/**
 * r | s, r & s, r \ s. Values are never changed once made, so an operand
 * is the result where the other is empty (most of a model's relations are,
 * in a given test): no new relation.
 */
function relations(op: BinaryOp, a: Value & { kind: 'rel' }, b: Value & { kind: 'rel' }): Value {
  const r = a.rel;
  const s = b.rel;
  if (op === 'union') return s.isEmpty() ? a : r.isEmpty() ? b : relValue(r.or(s));
  if (op === 'inter') return r.isEmpty() ? a : s.isEmpty() ? b : relValue(r.and(s));
  return r.isEmpty() || s.isEmpty() ? a : relValue(r.minus(s));
}

function valueSetOp(op: BinaryOp, a: Value, b: Value, n: number, pos: CatPos): Value {
  const ea = elementsOf(a, n, pos);
  const eb = elementsOf(b, n, pos);
  const inB = (v: Value) => eb.some((w) => sameValue(v, w, n));
  const elems = op === 'union' ? dedupe([...ea, ...eb], n) : op === 'inter' ? ea.filter(inB) : ea.filter((v) => !inB(v));
  return { kind: 'values', elems };
}

/** e ++ S: an event into a set, a pair into a relation, any other value into a set of values. */
function add(e: Value, s: Value, n: number, pos: CatPos): Value {
  if (e.kind === 'event' && (s.kind === 'set' || s.kind === 'empty')) {
    const out = s.kind === 'set' ? s.set.or() : new EventSet(n);
    out.add(e.id);
    return setValue(out);
  }
  if (e.kind === 'pair' && (s.kind === 'rel' || s.kind === 'empty')) {
    const out = s.kind === 'rel' ? s.rel.clone() : new Relation(n);
    out.add(e.from, e.to);
    return relValue(out);
  }
  if (s.kind === 'values' || s.kind === 'empty') return { kind: 'values', elems: dedupe([e, ...(s.kind === 'values' ? s.elems : [])], n) };
  throw new ModelError(`++ adds an element to a set, not ${typeName(e)} to ${typeName(s)}`, pos);
}

/**
 * r1 ; r2 ; ... built factor by factor, each `[S]` applied as a
 * restriction of its neighbour (`[S] ; r` keeps r's rows in S, `r ; [S]`
 * its columns), not composed as an identity relation: the same relation,
 * n times cheaper. Once a factor is known only per candidate (a symbolic
 * value, models/cat/dag.ts), the factors are kept and composed by its
 * staged form.
 */
export class Sequence {
  private acc: Relation | null = null;
  private pendingRows: EventSet | null = null;
  /** The factors, once one of them is symbolic (what was composed before as one factor). */
  private staged: { toid: boolean; value: Value; pos: CatPos }[] | null = null;
  /** A factor known to be empty (then so is the sequence), while staged. */
  private stagedEmpty = false;
  constructor(private readonly n: number) {}

  /** ; [S] */
  restrictTo(v: Value, pos: CatPos): void {
    if (v.kind === 'node' || this.staged) return this.stage(true, v, pos);
    const s = needSet(v, this.n, '[...]', pos);
    if (this.acc) this.acc = this.acc.isEmpty() ? this.acc : this.acc.restrict(undefined, s);
    else this.pendingRows = this.pendingRows ? this.pendingRows.and(s) : s;
  }

  /** ; r (an empty factor makes the whole empty: nothing composed from there on). */
  then(v: Value, pos: CatPos): void {
    if (v.kind === 'node' || this.staged) return this.stage(false, v, pos);
    const r = asRelOrNull(v, this.n);
    if (!r) throw new ModelError(`; takes relations, not ${typeName(v)}`, pos);
    const acc = this.acc;
    if (acc) this.acc = acc.isEmpty() ? acc : r.isEmpty() ? r : acc.seq(r);
    else this.acc = this.pendingRows && !r.isEmpty() ? r.restrict(this.pendingRows) : r;
    this.pendingRows = null;
  }

  private stage(toid: boolean, v: Value, pos: CatPos): void {
    if (!this.staged) {
      this.staged = [];
      if (this.acc) this.staged.push({ toid: false, value: relValue(this.acc), pos });
      else if (this.pendingRows) this.staged.push({ toid: true, value: setValue(this.pendingRows), pos });
      this.stagedEmpty = this.isEmpty();
    }
    this.staged.push({ toid, value: v, pos });
    if (v.kind !== 'node' && isEmptyValue(v, this.n)) this.stagedEmpty = true;
  }

  /** Whether the sequence so far is empty (then so is any longer one). */
  isEmpty(): boolean {
    if (this.staged) return this.stagedEmpty;
    return this.acc ? this.acc.isEmpty() : this.pendingRows !== null && this.pendingRows.isEmpty();
  }

  value(): Value {
    if (this.staged) {
      const node = this.staged.find((f) => f.value.kind === 'node')!.value as Value & { kind: 'node' };
      return node.ops.sequence(this.staged);
    }
    return relValue(this.acc ?? this.pendingRows!.id());
  }
}

/** {a, b, ...}: a set of events, a relation (of pairs), or a set of other values. */
export function explicit(elems: Value[], n: number): Value {
  if (elems.length === 0) return EMPTY;
  if (elems.every((v) => v.kind === 'event')) return setValue(EventSet.of(n, elems.map((v) => (v as { id: number }).id)));
  if (elems.every((v) => v.kind === 'pair')) {
    return relValue(Relation.fromPairs(n, elems.map((v) => { const p = v as { from: number; to: number }; return [p.from, p.to]; })));
  }
  return { kind: 'values', elems: dedupe(elems, n) };
}

/** The rest of a set after its first element, as a value of the set's own kind. */
export function rebuild(of: Value, rest: Value[], n: number): Value {
  if (rest.length === 0) return EMPTY;
  if (of.kind === 'set' || of.kind === 'universe') return setValue(EventSet.of(n, rest.map((v) => (v as { id: number }).id)));
  if (of.kind === 'rel') return relValue(Relation.fromPairs(n, rest.map((v) => { const p = v as { from: number; to: number }; return [p.from, p.to]; })));
  return { kind: 'values', elems: rest };
}

export function isEmptyValue(v: Value, n: number): boolean {
  switch (v.kind) {
    case 'node':
      throw new Unsupported('whether a value known only per candidate is empty');
    case 'empty':
      return true;
    case 'set':
      return v.set.isEmpty();
    case 'rel':
      return v.rel.isEmpty();
    case 'universe':
      return n === 0;
    case 'values':
      return v.elems.length === 0;
    default:
      return false;
  }
}

export function dedupe(vs: Value[], n: number): Value[] {
  const out: Value[] = [];
  for (const v of vs) if (!out.some((w) => sameValue(v, w, n))) out.push(v);
  return out;
}

function needSet(v: Value, n: number, what: string, pos: CatPos): EventSet {
  const s = asSetOrNull(v, n);
  if (!s) throw new ModelError(`${what} takes a set of events, not ${typeName(v)}`, pos);
  return s;
}
