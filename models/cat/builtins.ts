// What herd gives a cat model before it reads a line: the sets and
// relations of a candidate execution (named as herd names them for C
// tests), and its primitive functions (domain, range, classes-loc,
// linearisations, different-values), with litmus's native versions of the
// library's `map` and `cross`.
//
// The events are litmus's (src/model/execution.ts); herd's base sets for C
// leave lock operations out of R, W and M, and their reads out of rf:
// lock.cat puts them back (R | LKR | LF | RU, W | LKW, then W | UL) and
// builds their rf and co itself.

import type { Event } from '../../src/events/event.js';
import type { Execution } from '../../src/model/execution.js';
import { EventSet, Relation } from '../../src/relation/relation.js';
import type { CatPos } from './ast.js';
import type { Stage } from './compile.js';
import { ModelError } from './lexer.js';
import { asRelOrNull, asSetOrNull, elementsOf, relValue, setValue, typeName, type Value } from './values.js';

/** Base names and their stage: static ones are fixed by the events, dynamic ones by rf and co. */
export const BASE_NAMES: ReadonlyMap<string, Stage> = new Map<string, Stage>([
  ...(['R', 'W', 'M', 'F', 'IW', 'RMW', 'LKR', 'LKW', 'UL', 'LF', 'RL', 'RU'] as const).map((n) => [n, 'static'] as [string, Stage]),
  ...(['po', 'addr', 'data', 'ctrl', 'rmw', 'loc', 'int', 'ext', 'id'] as const).map((n) => [n, 'static'] as [string, Stage]),
  ...(['rf', 'co', 'fr', 'FW'] as const).map((n) => [n, 'dynamic'] as [string, Stage]),
]);

/** The tags an event carries, as herd's C front end gives them (the .def's __load{ONCE}, __fence{rmb}, ...). */
export function tagsOf(e: Event): string[] {
  const tags: string[] = [];
  if (e.kind !== 'F' && e.thread >= 0 && !e.lock && !e.srcu && e.annot !== 'PLAIN') tags.push(e.annot);
  if (e.kind === 'F' && e.fence) tags.push(e.fence); // herd's tag, as the .def wrote it (MB, rmb, ...)
  if (e.srcu) tags.push(e.srcu);
  return tags;
}

/** The lock operations' sets, which herd's R, W and M leave out. */
function lockSets(x: Execution) {
  const S = x.sets;
  return { reads: S.LKR.or(S.LF, S.RL, S.RU), writes: S.LKW.or(S.UL) };
}

/** The static base values of an execution's structure, by name (tags: one set per declared tag). */
export function staticBase(x: Execution, tagSets: ReadonlyMap<string, string>): Map<string, Value> {
  const S = x.sets;
  const B = x.rel;
  const locks = lockSets(x);
  const R = S.R.minus(locks.reads);
  const W = S.W.minus(locks.writes);
  const out = new Map<string, Value>([
    ['R', setValue(R)], ['W', setValue(W)], ['M', setValue(R.or(W))], ['F', setValue(S.F)], ['IW', setValue(S.IW)],
    ['RMW', setValue(S.RMW)], ['LKR', setValue(S.LKR)], ['LKW', setValue(S.LKW)], ['UL', setValue(S.UL)],
    ['LF', setValue(S.LF)], ['RL', setValue(S.RL)], ['RU', setValue(S.RU)],
    ['po', relValue(B.po)], ['addr', relValue(B.addr)], ['data', relValue(B.data)], ['ctrl', relValue(B.ctrl)],
    ['rmw', relValue(B.rmw)], ['loc', relValue(B.loc)], ['int', relValue(B.int)], ['ext', relValue(B.ext)], ['id', relValue(B.id)],
  ]);
  if (tagSets.size > 0) {
    const byTag = new Map<string, EventSet>();
    for (const tag of tagSets.keys()) byTag.set(tag, new EventSet(x.n));
    const events = x.events;
    for (let i = 0; i < x.n; i++) for (const t of tagsOf(events[i])) byTag.get(t)?.add(i);
    for (const [tag, name] of tagSets) out.set(name, setValue(byTag.get(tag)!));
  }
  return out;
}

/**
 * A dynamic base value of a candidate, by name (undefined for any other
 * name): herd's rf (no lock reads), co among W, fr, the final writes.
 * `reads` and `writes` are the structure's base R and W (staticBase),
 * which leave lock operations out.
 */
export function dynamicBaseValue(name: string, x: Execution, reads: EventSet, writes: EventSet): Value | undefined {
  const rf = () => x.rel.rf.restrict(undefined, reads);
  const co = () => x.rel.co.restrict(writes, writes);
  switch (name) {
    case 'rf':
      return relValue(rf());
    case 'co':
      return relValue(co());
    case 'fr':
      return relValue(rf().inv().seq(co()));
    case 'FW':
      return setValue(x.sets.FW);
    default:
      return undefined;
  }
}

/** herd's own primitives, visible in every model (map and cross come with the library files that define them). */
export const HERD_PRIMITIVES: readonly string[] = ['domain', 'range', 'classes-loc', 'different-values', 'linearisations'];

/** What a native needs of the candidate at hand. */
export interface NativeContext {
  x: Execution;
  /** Calls a function value of the model (for map). */
  apply(fn: Value, arg: Value, pos: CatPos): Value;
}

type Native = (arg: Value, pos: CatPos, c: NativeContext) => Value;

function needRel(v: Value, what: string, pos: CatPos, n: number): Relation {
  const r = asRelOrNull(v, n);
  if (!r) throw new ModelError(`${what} takes a relation, not ${typeName(v)}`, pos);
  return r;
}

function needSet(v: Value, what: string, pos: CatPos, n: number): EventSet {
  const s = asSetOrNull(v, n);
  if (!s) throw new ModelError(`${what} takes a set of events, not ${typeName(v)}`, pos);
  return s;
}

/** The natives, by name: in the model they are `%name`, bound to their names by stdlib.cat and cross.cat. */
export const NATIVES: ReadonlyMap<string, Native> = new Map<string, Native>([
  ['domain', (v, pos, c) => symbolic('domain', v, pos) ?? setValue(needRel(v, 'domain', pos, c.x.n).domain())],
  ['range', (v, pos, c) => symbolic('range', v, pos) ?? setValue(needRel(v, 'range', pos, c.x.n).range())],
  ['classes-loc', (v, pos, c) => classesLoc(needSet(v, 'classes-loc', pos, c.x.n), c.x)],
  ['different-values', (v, pos, c) => {
    const sym = symbolic('different-values', v, pos);
    if (sym) return sym;
    const r = needRel(v, 'different-values', pos, c.x.n);
    const events = c.x.events;
    const out = new Relation(c.x.n);
    r.forEach((a, b) => {
      if (events[a].value !== events[b].value) out.add(a, b);
    });
    return relValue(out);
  }],
  ['linearisations', (v, pos, c) => {
    if (v.kind !== 'tuple' || v.elems.length !== 2) throw new ModelError('linearisations takes (a set of events, a relation)', pos);
    const over = needSet(v.elems[0], 'linearisations', pos, c.x.n);
    const o = v.elems[1];
    const order = o.kind === 'node' && o.type === 'rel' ? o : needRel(o, 'linearisations', pos, c.x.n);
    return { kind: 'choices', choices: { kind: 'linearisations', over, order } };
  }],
  ['cross', (v, pos, c) => ({ kind: 'choices', choices: { kind: 'cross', parts: elementsOf(v, c.x.n, pos) } })],
  ['map', (f, pos, c) => ({
    kind: 'function',
    name: 'map f',
    apply: (s, p2) => ({ kind: 'values', elems: elementsOf(s, c.x.n, p2).map((e) => c.apply(f, e, pos)) }),
  })],
]);

/** A native applied to a value known only per candidate (models/cat/dag.ts), or undefined for a value known now. */
function symbolic(name: string, v: Value, pos: CatPos): Value | undefined {
  if (v.kind !== 'node') return undefined;
  const out = v.ops.native(name, v, pos);
  if (!out) throw new ModelError(`${name} takes a relation, not ${typeName(v)}`, pos);
  return out;
}

/** classes-loc(S): S split by location, as a set of sets. */
function classesLoc(s: EventSet, x: Execution): Value {
  const byLoc = new Map<number, EventSet>();
  const events = x.events;
  for (const e of s.members()) {
    const l = events[e].loc;
    let part = byLoc.get(l);
    if (!part) byLoc.set(l, (part = new EventSet(x.n)));
    part.add(e);
  }
  return { kind: 'values', elems: [...byLoc.values()].map(setValue) };
}
