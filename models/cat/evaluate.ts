// Running a compiled cat model on candidate executions. Definitions are
// computed when first read (a relation no check or flag needs is never
// built); static ones once per event structure (kept, outside the scratch
// memory of one check), dynamic ones per candidate. Checks run in the
// model's order and the first that fails rejects the candidate; flags are
// reported for candidates that pass every check.
//
// `with X from S` (candidate generation: coherence orders, the reads of
// failed trylocks and spin_is_locked) is never enumerated: the explorer has
// built one candidate, and X is the one element of S that the candidate's
// own rf and co contain. A candidate no element matches is not one of the
// model's; two matching elements are refused as ambiguous.

import type { Event } from '../../src/events/event.js';
import type { Execution } from '../../src/model/execution.js';
import { lockReadMayTake } from '../../src/explore/locks.js';
import { EventSet, lasting, Relation } from '../../src/relation/relation.js';
import type { Binding, CatExpr, CatInstr, CatPos, Condition, Pattern } from './ast.js';
import { dynamicBase, elementsOf, NATIVES, staticBase, type NativeContext } from './builtins.js';
import { patternNames, tagSetName, type CompiledCat } from './compile.js';
import { ModelError } from './lexer.js';
import { asRelOrNull, asSetOrNull, EMPTY, relValue, sameValue, setValue, typeName, UNIVERSE, type Choices, type Value } from './values.js';

/** A value of an unknown name, or an error inside `try`: what `try ... with` catches. */
class CatFailure extends Error {}

/** `with X from S` found no element of S in the candidate: it is not one of the model's candidates. */
class NotGenerated extends Error {}

/** Local names (function parameters, `let ... in`), innermost first. */
interface Locals {
  name: string;
  value: Value;
  next: Locals | null;
}

function lookupLocal(l: Locals | null, name: string): Value | undefined {
  for (let c = l; c; c = c.next) if (c.name === name) return c.value;
  return undefined;
}

function bindPattern(p: Pattern, v: Value, locals: Locals | null, pos: CatPos): Locals | null {
  if (p.kind === 'var') return p.name === null ? locals : { name: p.name, value: v, next: locals };
  if (v.kind !== 'tuple' || v.elems.length !== p.names.length) {
    throw new ModelError(`expected a tuple of ${p.names.length}, found ${typeName(v)}`, pos);
  }
  let l = locals;
  p.names.forEach((n, i) => {
    if (n !== null) l = { name: n, value: v.elems[i], next: l };
  });
  return l;
}

/** Why a candidate is rejected, or the flags it raises. */
export interface CatVerdict {
  consistent: boolean;
  violated?: string;
  flags: string[];
  /** The candidate is not one of those the model's `with` generates (it cannot be judged as a prefix). */
  notGenerated?: boolean;
}

/** What one run of the model needs besides the candidate. */
export interface RunOptions {
  variants: ReadonlySet<string>;
  /** Checks not enforced (herd's -skipchecks). */
  skipChecks: ReadonlySet<string>;
}

/**
 * The values of one model for one event structure (static slots) or one
 * candidate (the others, reading static ones from `statics`).
 */
class Evaluator implements NativeContext {
  readonly slots: (Value | undefined)[];
  /** Checks (by instruction index) whose static outcome is known. */
  readonly staticTests = new Map<number, boolean>();
  constructor(
    readonly cat: CompiledCat,
    public x: Execution,
    readonly opts: RunOptions,
    readonly statics: Evaluator | null,
    base: Map<string, Value>,
    /** The candidate's own rf and co (all events), from which `with` chooses; null for static values. */
    readonly truth: Relation | null,
  ) {
    this.slots = new Array(cat.slots.length);
    for (const [name, slot] of cat.base) {
      const v = base.get(name);
      if (v) this.slots[slot] = v;
    }
  }

  /** Values of hoisted subexpressions (see CatExpr), computed once per structure. */
  private readonly hoisted = new Map<CatExpr, Value>();

  hoistedValue(e: CatExpr): Value {
    let v = this.hoisted.get(e);
    if (!v) this.hoisted.set(e, (v = lasting(() => this.expr(e, null))));
    return v;
  }

  /** The value of a slot, computed (once) when first asked for. */
  value(slot: number, pos: CatPos): Value {
    const known = this.slots[slot];
    if (known) return known;
    const info = this.cat.slots[slot];
    if (info.stage === 'static' && this.statics) return this.statics.value(slot, pos);
    if (info.instr < 0) {
      const native = NATIVES.get(info.name.replace(/^%/, ''));
      if (native) return (this.slots[slot] = { kind: 'function', name: info.name, apply: (arg, p) => native(arg, p, this) });
      throw new CatFailure(`"${info.name}" has no value here`);
    }
    const run = () => this.define(info.instr);
    if (info.stage === 'static') lasting(run);
    else run();
    const v = this.slots[slot];
    if (!v) throw new ModelError(`"${info.name}" is used before it is defined`, pos);
    return v;
  }

  /** Computes the slots instruction i defines. */
  private define(i: number): void {
    const ci = this.cat.instrs[i];
    const ins = ci.instr;
    if (ins.kind === 'let') {
      if (ins.rec) this.defineRec(ins, ci.defines);
      else {
        let k = 0;
        for (const b of ins.bindings) {
          const v = this.expr(b.expr, null);
          for (const [j, name] of patternNames(b.pattern).entries()) {
            this.slots[ci.defines[k++]] = b.pattern.kind === 'var' ? v : this.tupleElem(v, j, name, b.pos);
          }
        }
      }
    } else if (ins.kind === 'enum') {
      this.slots[ci.defines[0]] = { kind: 'values', elems: ins.tags.map((name) => ({ kind: 'tag', name }) as Value) };
    } else if (ins.kind === 'procedure') {
      this.slots[ci.defines[0]] = { kind: 'procedure', name: ins.name, param: ins.param, body: ins.body };
    } else if (ins.kind === 'with') {
      if (!this.truth) throw new ModelError(`"${ins.name}" is chosen per candidate`, ins.pos);
      const chosen = this.choose(this.expr(ins.from, null), ins.pos, this.truth);
      if (!chosen) throw new NotGenerated(ins.name);
      this.slots[ci.defines[0]] = chosen;
    }
  }

  private tupleElem(v: Value, j: number, name: string | null, pos: CatPos): Value {
    if (v.kind !== 'tuple') throw new ModelError(`expected a tuple to bind ${name ?? '_'}, found ${typeName(v)}`, pos);
    return v.elems[j];
  }

  /** let rec: functions see themselves; other values are the least fixpoint from empty. */
  private defineRec(ins: CatInstr & { kind: 'let' }, slots: number[]): void {
    for (const s of slots) this.slots[s] = EMPTY;
    solveRec(ins.bindings, ins.pos, this.x.n, (b) => this.expr(b.expr, null), {
      get: (k) => this.slots[slots[k]]!,
      set: (k, v) => {
        this.slots[slots[k]] = v;
      },
    });
  }

  apply(fn: Value, arg: Value, pos: CatPos): Value {
    if (fn.kind === 'function') return fn.apply(arg, pos);
    throw new ModelError(`${typeName(fn)} cannot be applied`, pos);
  }

  expr(e: CatExpr, locals: Locals | null): Value {
    if (e.hoisted && this.statics) return this.statics.hoistedValue(e);
    const n = this.x.n;
    switch (e.kind) {
      case 'var': {
        const ref = e.ref;
        if (!ref || ref.kind === 'local') {
          const v = lookupLocal(locals, e.name);
          if (v) return v;
          throw new ModelError(`unknown name "${e.name}"`, e.pos);
        }
        if (ref.kind === 'unbound') throw new CatFailure(`unknown name "${e.name}"`);
        return this.value(ref.slot, e.pos);
      }
      case 'empty':
        return EMPTY;
      case 'universe':
        return UNIVERSE;
      case 'tag':
        return { kind: 'tag', name: e.name };
      case 'explicit':
        return this.explicit(e.elems.map((x) => this.expr(x, locals)));
      case 'tuple':
        return { kind: 'tuple', elems: e.elems.map((x) => this.expr(x, locals)) };
      case 'unary':
        return this.unary(e.op, this.expr(e.arg, locals), e.pos);
      case 'binary': {
        if (e.op === 'seq') return this.sequence(e.args, locals);
        let acc = this.expr(e.args[0], locals);
        for (let k = 1; k < e.args.length; k++) acc = this.binary(e.op, acc, this.expr(e.args[k], locals), e.args[k].pos);
        return acc;
      }
      case 'app':
        return this.apply(this.expr(e.fn, locals), this.expr(e.arg, locals), e.pos);
      case 'fun':
        return { kind: 'function', name: e.name, apply: (arg, pos) => this.expr(e.body, bindPattern(e.param, arg, locals, pos)) };
      case 'let': {
        if (e.rec) return this.letRecIn(e, locals);
        let inner = locals;
        for (const b of e.bindings) inner = bindPattern(b.pattern, this.expr(b.expr, locals), inner, b.pos);
        return this.expr(e.body, inner);
      }
      case 'try':
        try {
          return this.expr(e.body, locals);
        } catch (err) {
          if (err instanceof CatFailure || err instanceof ModelError) return this.expr(e.otherwise, locals);
          throw err;
        }
      case 'if':
        return this.condition(e.cond, locals) ? this.expr(e.then, locals) : this.expr(e.otherwise, locals);
      case 'match-tag': {
        const v = this.expr(e.subject, locals);
        if (v.kind !== 'tag') throw new ModelError(`match on tags needs a tag, not ${typeName(v)}`, e.pos);
        const c = e.clauses.find((k) => k.tag === v.name);
        if (c) return this.expr(c.body, locals);
        if (e.fallback) return this.expr(e.fallback, locals);
        throw new ModelError(`no clause for the tag '${v.name}`, e.pos);
      }
      case 'match-set': {
        const v = this.expr(e.subject, locals);
        const elems = elementsOf(v, n, e.pos);
        if (elems.length === 0) return this.expr(e.ifEmpty, locals);
        const [first, ...rest] = elems;
        let inner = locals;
        if (e.elem !== null) inner = { name: e.elem, value: first, next: inner };
        if (e.rest !== null) inner = { name: e.rest, value: this.rebuild(v, rest), next: inner };
        return this.expr(e.body, inner);
      }
    }
  }

  /**
   * r1 ; r2 ; ... with each `[S]` applied as a restriction of its
   * neighbour (`[S] ; r` keeps r's rows in S, `r ; [S]` its columns), not
   * composed as an identity relation: the same relation, n times cheaper.
   */
  private sequence(args: CatExpr[], locals: Locals | null): Value {
    const n = this.x.n;
    let acc: Relation | null = null;
    let pendingRows: EventSet | null = null;
    for (const a of args) {
      if (a.kind === 'unary' && a.op === 'toid') {
        const v = this.expr(a.arg, locals);
        const s = asSetOrNull(v, n);
        if (!s) throw new ModelError(`[...] takes a set of events, not ${typeName(v)}`, a.pos);
        if (acc) acc = acc.restrict(undefined, s);
        else pendingRows = pendingRows ? pendingRows.and(s) : s;
        continue;
      }
      const v = this.expr(a, locals);
      const r = asRelOrNull(v, n);
      if (!r) throw new ModelError(`; takes relations, not ${typeName(v)}`, a.pos);
      if (acc) acc = acc.seq(r);
      else acc = pendingRows ? r.restrict(pendingRows) : r;
      pendingRows = null;
    }
    return relValue(acc ?? pendingRows!.id());
  }

  /** The rest of a set after its first element, as a value of the set's own kind. */
  private rebuild(of: Value, rest: Value[]): Value {
    if (rest.length === 0) return EMPTY;
    if (of.kind === 'set' || of.kind === 'universe') return setValue(EventSet.of(this.x.n, rest.map((v) => (v as { id: number }).id)));
    if (of.kind === 'rel') return relValue(Relation.fromPairs(this.x.n, rest.map((v) => { const p = v as { from: number; to: number }; return [p.from, p.to]; })));
    return { kind: 'values', elems: rest };
  }

  private letRecIn(e: CatExpr & { kind: 'let' }, locals: Locals | null): Value {
    // One cell per binding, in scope in every binding and in the body.
    let inner = locals;
    const cells = e.bindings.map((b) => {
      const name = patternNames(b.pattern)[0];
      if (name === null) return null;
      inner = { name, value: EMPTY, next: inner };
      return inner;
    });
    solveRec(e.bindings, e.pos, this.x.n, (b) => this.expr(b.expr, inner), {
      get: (k) => cells[k]?.value ?? EMPTY,
      set: (k, v) => {
        const cell = cells[k];
        if (cell) cell.value = v;
      },
    });
    return this.expr(e.body, inner);
  }

  private explicit(elems: Value[]): Value {
    if (elems.length === 0) return EMPTY;
    if (elems.every((v) => v.kind === 'event')) return setValue(EventSet.of(this.x.n, elems.map((v) => (v as { id: number }).id)));
    if (elems.every((v) => v.kind === 'pair')) {
      return relValue(Relation.fromPairs(this.x.n, elems.map((v) => { const p = v as { from: number; to: number }; return [p.from, p.to]; })));
    }
    return { kind: 'values', elems: dedupe(elems, this.x.n) };
  }

  condition(c: Condition, locals: Locals | null): boolean {
    switch (c.kind) {
      case 'variant':
        return this.opts.variants.has(c.name);
      case 'equal':
        return sameValue(this.expr(c.left, locals), this.expr(c.right, locals), this.x.n);
      case 'subset': {
        const a = this.expr(c.left, locals);
        const b = this.expr(c.right, locals);
        return this.isEmptyValue(this.binary('diff', a, b, c.pos));
      }
      case 'in': {
        const a = this.expr(c.left, locals);
        const b = this.expr(c.right, locals);
        if (a.kind === 'event') return asSetOrNull(b, this.x.n)?.has(a.id) ?? false;
        if (a.kind === 'pair') return asRelOrNull(b, this.x.n)?.has(a.from, a.to) ?? false;
        return elementsOf(b, this.x.n, c.pos).some((v) => sameValue(v, a, this.x.n));
      }
    }
  }

  isEmptyValue(v: Value): boolean {
    switch (v.kind) {
      case 'empty':
        return true;
      case 'set':
        return v.set.isEmpty();
      case 'rel':
        return v.rel.isEmpty();
      case 'universe':
        return this.x.n === 0;
      case 'values':
        return v.elems.length === 0;
      default:
        return false;
    }
  }

  private unary(op: string, v: Value, pos: CatPos): Value {
    const n = this.x.n;
    if (op === 'toid') {
      const s = asSetOrNull(v, n);
      if (!s) throw new ModelError(`[...] takes a set of events, not ${typeName(v)}`, pos);
      return relValue(s.id());
    }
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

  binary(op: string, a: Value, b: Value, pos: CatPos): Value {
    const n = this.x.n;
    if (op === 'add') return this.add(a, b, pos);
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
    // union, inter, diff: of sets, of relations, or of sets of values.
    if (a.kind === 'empty' && b.kind === 'empty') return EMPTY;
    if (a.kind === 'values' || b.kind === 'values') return this.valueSetOp(op, a, b, pos);
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

  private valueSetOp(op: string, a: Value, b: Value, pos: CatPos): Value {
    const n = this.x.n;
    const ea = elementsOf(a, n, pos);
    const eb = elementsOf(b, n, pos);
    const inB = (v: Value) => eb.some((w) => sameValue(v, w, n));
    const elems = op === 'union' ? dedupe([...ea, ...eb], n) : op === 'inter' ? ea.filter(inB) : ea.filter((v) => !inB(v));
    return { kind: 'values', elems };
  }

  /** e ++ S: an event into a set, a pair into a relation, any other value into a set of values. */
  private add(e: Value, s: Value, pos: CatPos): Value {
    const n = this.x.n;
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

  /** The one element of a `with` source that this candidate's rf and co contain, or null. */
  choose(from: Value, pos: CatPos, truth: Relation): Value | null {
    if (from.kind === 'choices') return this.chooseFrom(from.choices, pos, truth);
    const matching = elementsOf(from, this.x.n, pos).filter((v) => this.contained(v, truth, pos));
    if (matching.length > 1) throw new ModelError('with ... from: more than one candidate matches the execution litmus built; litmus cannot enumerate this set', pos);
    return matching[0] ?? null;
  }

  private contained(v: Value, truth: Relation, pos: CatPos): boolean {
    const r = asRelOrNull(v, this.x.n);
    if (!r) throw new ModelError(`with ... from: the candidates must be relations, not ${typeName(v)}`, pos);
    return r.minus(truth).isEmpty();
  }

  private chooseFrom(c: Choices, pos: CatPos, truth: Relation): Value | null {
    const n = this.x.n;
    if (c.kind === 'linearisations') {
      const t = truth.restrict(c.over, c.over);
      // A strict total order of the set that extends the partial order.
      if (!c.order.restrict(c.over, c.over).minus(t).isEmpty()) return null;
      if (!t.irreflexive() || !t.seq(t).minus(t).isEmpty()) return null;
      const members = c.over.members();
      for (let i = 0; i < members.length; i++) {
        for (let j = i + 1; j < members.length; j++) if (!t.has(members[i], members[j]) && !t.has(members[j], members[i])) return null;
      }
      return relValue(t);
    }
    let acc = new Relation(n);
    for (const part of c.parts) {
      this.refuseUnbuiltSources(part, pos);
      const chosen = this.choose(part, pos, truth);
      if (!chosen) return null;
      const r = asRelOrNull(chosen, n);
      if (!r) throw new ModelError(`with ... from: the candidates must be relations, not ${typeName(chosen)}`, pos);
      acc = acc.or(r);
    }
    return relValue(acc);
  }

  /**
   * The choices of a `cross` part must be sources the explorer builds for
   * the read they go to (a lock read: lock.cat's rules, see
   * lockReadMayTake; any other read: any write to its location): a choice
   * it never builds would be a candidate litmus never counts.
   */
  private refuseUnbuiltSources(part: Value, pos: CatPos): void {
    if (part.kind !== 'values') return;
    const events = this.x.events;
    for (const choice of part.elems) {
      const r = asRelOrNull(choice, this.x.n);
      if (!r) continue;
      r.forEach((w, rd) => {
        const read = events[rd];
        const write = events[w];
        if (read.kind !== 'R' || write.kind !== 'W' || read.loc !== write.loc) {
          throw new ModelError('with ... from: a candidate relation that is not reads-from (a write to a read of its location): litmus builds only rf and co candidates', pos);
        }
        if (!read.lock || read.lock === 'LKR') return;
        const own = openOrLastOwn(events, read);
        const built = own.open >= 0 ? w === own.open : lockReadMayTake(read.lock, write, read.thread, own.lastUnlock);
        if (!built) {
          throw new ModelError(`with ... from: this model lets a lock read (${read.lock}) read from an event litmus's explorer never offers it (lock.cat's rules decide those sources); litmus cannot enumerate these candidates`, pos);
        }
      });
    }
  }

  /** Whether a test's condition holds. */
  holds(ins: CatInstr & { kind: 'test' }, locals: Locals | null): boolean {
    const v = this.expr(ins.expr, locals);
    let ok: boolean;
    if (ins.test === 'empty') ok = this.isEmptyValue(v);
    else {
      const r = asRelOrNull(v, this.x.n);
      if (!r) throw new ModelError(`${ins.test} takes a relation, not ${typeName(v)}`, ins.pos);
      ok = ins.test === 'acyclic' ? r.acyclic() : r.irreflexive();
    }
    return ins.negated ? !ok : ok;
  }
}

/** The lock write of the read's own open critical section, and its thread's last unlock before it (or -1). */
function openOrLastOwn(events: readonly Event[], read: Event): { open: number; lastUnlock: number } {
  let open = -1;
  let lastUnlock = -1;
  for (const e of events) {
    if (e.thread !== read.thread || e.loc !== read.loc || e.poIndex >= read.poIndex) continue;
    if (e.lock === 'LKW') open = e.id;
    if (e.lock === 'UL') {
      open = -1;
      lastUnlock = e.id;
    }
  }
  return { open, lastUnlock };
}

/**
 * let rec: functions see themselves (one pass); other values are the least
 * fixpoint from empty, each binding seeing the values the bindings before
 * it just got (herd's order: the simultaneous order matches RCU sections wrongly).
 */
function solveRec(
  bindings: readonly Binding[],
  pos: CatPos,
  n: number,
  evaluate: (b: Binding) => Value,
  cells: { get(k: number): Value; set(k: number, v: Value): void },
): void {
  if (bindings.every((b) => b.expr.kind === 'fun')) {
    bindings.forEach((b, k) => cells.set(k, evaluate(b)));
    return;
  }
  for (let round = 0; ; round++) {
    if (round > 10_000) throw new ModelError('let rec: no fixpoint reached', pos);
    let changed = false;
    bindings.forEach((b, k) => {
      const v = evaluate(b);
      if (!sameValue(v, cells.get(k), n)) changed = true;
      cells.set(k, v);
    });
    if (!changed) return;
  }
}

function dedupe(vs: Value[], n: number): Value[] {
  const out: Value[] = [];
  for (const v of vs) if (!out.some((w) => sameValue(v, w, n))) out.push(v);
  return out;
}

/** The model for every candidate of one event structure. */
export class StructureRun {
  private readonly statics: Evaluator;
  /** herd's R and W of the structure (lock operations left out), for each candidate's rf and co. */
  private readonly baseReads: EventSet;
  private readonly baseWrites: EventSet;
  constructor(
    private readonly cat: CompiledCat,
    first: Execution,
    private readonly opts: RunOptions,
    /** The checks that may judge a partial execution (models/cat/monotone.ts). */
    private readonly prefixSafe: ReadonlySet<number>,
  ) {
    const tagSets = new Map([...cat.tags].map((t) => [t, tagSetName(t)] as [string, string]));
    const base = lasting(() => staticBase(first, tagSets));
    this.statics = lasting(() => new Evaluator(cat, first, opts, null, base, null));
    this.baseReads = asSetOrNull(base.get('R')!, first.n)!;
    this.baseWrites = asSetOrNull(base.get('W')!, first.n)!;
  }

  private candidate(x: Execution): Evaluator {
    this.statics.x = x;
    return new Evaluator(this.cat, x, this.opts, this.statics, dynamicBase(x, this.baseReads, this.baseWrites), x.rel.rf.or(x.rel.co));
  }

  /** Judges a candidate of this structure. `prefix`: a partial execution (a `with` that finds nothing is no verdict). */
  check(x: Execution, prefix: boolean): CatVerdict {
    const ev = this.candidate(x);
    const flags: string[] = [];
    for (let i = 0; i < this.cat.instrs.length; i++) {
      const ci = this.cat.instrs[i];
      if (ci.instr.kind === 'with') {
        try {
          ev.value(ci.defines[0], ci.instr.pos);
        } catch (e) {
          if (!(e instanceof NotGenerated)) throw e;
          return { consistent: prefix, violated: prefix ? undefined : `with ${ci.instr.name}`, flags: [], notGenerated: true };
        }
        continue;
      }
      // A prefix is judged by the checks that only grow with it; flags wait for the whole execution.
      if (prefix && !this.prefixSafe.has(i)) continue;
      const r = this.instr(ev, i, flags);
      if (r) return r;
    }
    return { consistent: true, flags: prefix ? [] : [...new Set(flags)].sort() };
  }

  /** The relation an expression of the model evaluates to on a candidate (for explanations), if it is one. */
  relationOf(x: Execution, e: CatExpr): Relation | undefined {
    try {
      return asRelOrNull(this.candidate(x).expr(e, null), x.n) ?? undefined;
    } catch (err) {
      if (err instanceof NotGenerated) return undefined;
      throw err;
    }
  }

  /** Runs a top-level test, call or forall; returns a verdict if it rejects the candidate. */
  private instr(ev: Evaluator, i: number, flags: string[]): CatVerdict | undefined {
    const ci = this.cat.instrs[i];
    const ins = ci.instr;
    if (ins.kind === 'test') {
      const holds = ci.stage === 'static' ? this.staticHolds(i, ins) : ev.holds(ins, null);
      return this.outcome(ins, holds, flags);
    }
    if (ins.kind === 'call' || ins.kind === 'forall') return this.runBody(ev, ins, null, flags);
    return undefined;
  }

  private staticHolds(i: number, ins: CatInstr & { kind: 'test' }): boolean {
    const known = this.statics.staticTests.get(i);
    if (known !== undefined) return known;
    const holds = lasting(() => this.statics.holds(ins, null));
    this.statics.staticTests.set(i, holds);
    return holds;
  }

  private outcome(ins: CatInstr & { kind: 'test' }, holds: boolean, flags: string[], as?: string): CatVerdict | undefined {
    const name = as ?? ins.name;
    if (ins.role === 'flag') {
      if (holds && name) flags.push(name);
      return undefined;
    }
    if (ins.role === 'undefined-unless') {
      if (!holds) flags.push(name ?? 'undefined');
      return undefined;
    }
    if (holds || (name !== undefined && this.opts.skipChecks.has(name))) return undefined;
    return { consistent: false, violated: name ?? ins.test, flags: [] };
  }

  /** A procedure call or a forall: its body's tests, with its own locals. */
  private runBody(ev: Evaluator, ins: CatInstr, locals: Locals | null, flags: string[], as?: string): CatVerdict | undefined {
    if (ins.kind === 'call') {
      if (ins.slot === undefined) throw new ModelError(`unknown procedure "${ins.name}"`, ins.pos);
      const proc = ev.value(ins.slot, ins.pos);
      if (proc.kind !== 'procedure') throw new ModelError(`"${ins.name}" is not a procedure`, ins.pos);
      const arg = ev.expr(ins.arg, locals);
      return this.runInstrs(ev, proc.body, bindPattern(proc.param, arg, null, ins.pos), flags, ins.as ?? as);
    }
    if (ins.kind === 'forall') {
      for (const e of elementsOf(ev.expr(ins.set, locals), ev.x.n, ins.pos)) {
        const r = this.runInstrs(ev, ins.body, { name: ins.name, value: e, next: locals }, flags, as);
        if (r) return r;
      }
    }
    return undefined;
  }

  private runInstrs(ev: Evaluator, body: CatInstr[], locals: Locals | null, flags: string[], as?: string): CatVerdict | undefined {
    let l = locals;
    for (const ins of body) {
      if (ins.kind === 'let') {
        for (const b of ins.bindings) l = bindPattern(b.pattern, ev.expr(b.expr, l), l, b.pos);
      } else if (ins.kind === 'test') {
        const r = this.outcome(ins, ev.holds(ins, l), flags, as);
        if (r) return r;
      } else if (ins.kind === 'call' || ins.kind === 'forall') {
        const r = this.runBody(ev, ins, l, flags, as);
        if (r) return r;
      }
    }
    return undefined;
  }
}
