// The values a cat model computes with, for one candidate execution: event
// sets and relations (bitsets of src/relation), herd's polymorphic empty
// (`0`, `{}`) and universe (`_`), tags, tuples, sets of values (what `map`,
// `classes-loc` and `{a, b}` of non-events make), single events and pairs
// (the elements `match ... with e ++ S` takes apart), functions and
// procedures, and the candidate choices of `with X from S`.

import type { BinaryOp, CatInstr, CatPos, Pattern, UnaryOp } from './ast.js';
import { EventSet, Relation } from '../../src/relation/relation.js';
import { ModelError } from './lexer.js';

export type Value =
  | { kind: 'set'; set: EventSet }
  | { kind: 'rel'; rel: Relation }
  | { kind: 'empty' }
  | { kind: 'universe' }
  | { kind: 'tag'; name: string }
  | { kind: 'tuple'; elems: Value[] }
  | { kind: 'values'; elems: Value[] }
  | { kind: 'event'; id: number }
  | { kind: 'pair'; from: number; to: number }
  /** A function: a native, or a `fun` of the model with the scope it was made in. */
  | { kind: 'function'; name: string; apply: (arg: Value, pos: CatPos) => Value }
  | { kind: 'procedure'; name: string; param: Pattern; body: CatInstr[] }
  | { kind: 'choices'; choices: Choices }
  /**
   * A set or relation of the candidate at hand, not yet known: a node of
   * the structure's staged form (models/cat/dag.ts), made when a model is
   * evaluated once per event structure with rf, co and the final writes
   * left symbolic.
   */
  | SymbolicValue;

/** See Value: a node of a structure's staged form, and what it is (a set of events or a relation). */
export interface SymbolicValue {
  kind: 'node';
  id: number;
  type: 'set' | 'rel';
  ops: SymbolicOps;
}

/** The operations on symbolic values (models/cat/dag.ts's Dag). */
export interface SymbolicOps {
  unary(op: UnaryOp, v: Value, pos: CatPos): Value;
  binary(op: BinaryOp, a: Value, b: Value, pos: CatPos): Value;
  /** r1 ; r2 ; ..., each factor a relation or (`toid`) a set applied as [S]. */
  sequence(factors: readonly { toid: boolean; value: Value; pos: CatPos }[]): Value;
  native(name: string, arg: Value, pos: CatPos): Value | undefined;
}

/**
 * A value the staged form cannot follow (an element of a set not known
 * before the candidate, a comparison of such values, ...): the structure
 * is then judged by the evaluator of models/cat/evaluate.ts instead.
 */
export class Unsupported extends Error {}

/**
 * The candidates of `with X from S` when S is one of herd's generators:
 * the linearisations of a partial order on a set, or one choice from each
 * of several such sets (`cross`). Never enumerated: `with` takes the one
 * candidate the explorer built (see models/cat/evaluate.ts).
 */
export type Choices =
  | { kind: 'linearisations'; over: EventSet; order: Relation | SymbolicValue }
  /** One element from each part: each part is a set of values, or choices itself. */
  | { kind: 'cross'; parts: Value[] };

export const EMPTY: Value = { kind: 'empty' };
export const UNIVERSE: Value = { kind: 'universe' };

export const setValue = (set: EventSet): Value => ({ kind: 'set', set });
export const relValue = (rel: Relation): Value => ({ kind: 'rel', rel });

/** How an error message names a value's type. */
export function typeName(v: Value): string {
  switch (v.kind) {
    case 'set':
      return 'a set of events';
    case 'rel':
      return 'a relation';
    case 'empty':
      return 'the empty set';
    case 'universe':
      return 'the set of all events';
    case 'tag':
      return `the tag '${v.name}`;
    case 'tuple':
      return `a tuple of ${v.elems.length}`;
    case 'values':
      return 'a set of values';
    case 'event':
      return 'an event';
    case 'pair':
      return 'a pair of events';
    case 'function':
      return 'a function';
    case 'procedure':
      return 'a procedure';
    case 'choices':
      return 'a set of candidate relations (for "with ... from")';
    case 'node':
      return v.type === 'set' ? 'a set of events' : 'a relation';
  }
}

/** Structural equality (for `=`, `in` and removing duplicates from sets of values). */
export function sameValue(a: Value, b: Value, n: number): boolean {
  if (a.kind === 'node' || b.kind === 'node') throw new Unsupported('a comparison of values known only per candidate');
  if (isEventSetLike(a) && isEventSetLike(b)) return sameSet(asSetOrNull(a, n)!, asSetOrNull(b, n)!);
  if (isRelationLike(a) && isRelationLike(b)) return asRelOrNull(a, n)!.equals(asRelOrNull(b, n)!);
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'tag':
      return a.name === (b as typeof a).name;
    case 'event':
      return a.id === (b as typeof a).id;
    case 'pair':
      return a.from === (b as typeof a).from && a.to === (b as typeof a).to;
    case 'tuple':
    case 'values': {
      const o = b as typeof a;
      return a.elems.length === o.elems.length && a.elems.every((e, i) => sameValue(e, o.elems[i], n));
    }
    default:
      return a === b;
  }
}

function sameSet(a: EventSet, b: EventSet): boolean {
  for (let i = 0; i < a.w; i++) if (a.word(i) !== b.word(i)) return false;
  return true;
}

const isEventSetLike = (v: Value) => v.kind === 'set' || v.kind === 'universe';
const isRelationLike = (v: Value) => v.kind === 'rel';

/** The value as an event set, or null if it is not one (the empty value is both a set and a relation). */
export function asSetOrNull(v: Value, n: number): EventSet | null {
  if (v.kind === 'node') throw new Unsupported('a set known only per candidate, where its events are needed');
  if (v.kind === 'set') return v.set;
  if (v.kind === 'empty') return new EventSet(n);
  if (v.kind === 'universe') return EventSet.where(n, () => true);
  return null;
}

/** The value as a relation, or null if it is not one (herd's universe `_` is every pair of events where a relation is needed). */
export function asRelOrNull(v: Value, n: number): Relation | null {
  if (v.kind === 'node') throw new Unsupported('a relation known only per candidate, where its pairs are needed');
  if (v.kind === 'rel') return v.rel;
  if (v.kind === 'empty') return Relation.empty(n);
  if (v.kind === 'universe') return Relation.where(n, () => true);
  return null;
}

/** The elements of a set, a relation or a set of values, as values (for map and match). */
export function elementsOf(v: Value, n: number, pos: CatPos): Value[] {
  switch (v.kind) {
    case 'empty':
      return [];
    case 'set':
      return v.set.members().map((id) => ({ kind: 'event', id }));
    case 'universe':
      return Array.from({ length: n }, (_, id) => ({ kind: 'event', id }));
    case 'rel':
      return v.rel.pairs().map(([from, to]) => ({ kind: 'pair', from, to }));
    case 'values':
      return v.elems;
    case 'node':
      throw new Unsupported('the elements of a set known only per candidate');
    default:
      throw new ModelError(`expected a set, not ${typeName(v)}`, pos);
  }
}
