// A compiled model checked before any test is: every top-level definition,
// check, flag, `with` and procedure call is evaluated once over types
// instead of values (herd7 evaluates every one of them for the first
// candidate, so a type error anywhere refuses every test; litmus computes a
// definition only when a check needs it, and stops at an empty operand, so
// without this a wrong `[W] ; fencerel(Wmb) ; W` would fail only tests
// with an smp_wmb()). The types are herd's: sets of events, relations,
// tags, tuples, sets of values, functions, procedures; herd's polymorphic
// empty set (`0`, `{}`) and universe (`_`). A function is checked where it
// is applied, with the types of that application's arguments (as herd
// checks it when it runs), a procedure where it is called; the body of a
// `try` may fail (its fallback is then what it means). The messages are
// those of the operators at run time (models/cat/operators.ts), at the
// operand that has the wrong type; an error inside one of litmus's own
// library files (a function such as fencerel) is reported where the model
// applies it.

import type { Binding, CatExpr, CatInstr, CatPos, Condition, Pattern } from './ast.js';
import { BASE_NAMES, NATIVES } from './builtins.js';
import type { CompiledCat } from './compile.js';
import { ModelError } from './lexer.js';

/** A value's type, as far as the model can be judged before any execution. */
type Ty =
  /** Unknown (a join of incompatible types, a value read back from a fixpoint still being solved): no error is reported about it. */
  | { k: 'any' }
  | { k: 'empty' }
  | { k: 'universe' }
  | { k: 'set' }
  | { k: 'rel' }
  | { k: 'tag' }
  | { k: 'event' }
  | { k: 'pair' }
  | { k: 'tuple'; elems: Ty[] }
  | { k: 'values'; elem: Ty }
  | { k: 'fun'; name: string; apply: (arg: Ty, pos: CatPos) => Ty }
  /** One of herd's primitives (domain, range, ...) or litmus's natives (map, cross). */
  | { k: 'native'; name: string }
  | { k: 'proc'; name: string; param: Pattern; body: CatInstr[] }
  | { k: 'choices' };

const ANY: Ty = { k: 'any' };
const EMPTY: Ty = { k: 'empty' };
const SET: Ty = { k: 'set' };
const REL: Ty = { k: 'rel' };

/** How a message names a type (models/cat/values.ts typeName, for values). */
function typeName(t: Ty): string {
  switch (t.k) {
    case 'any':
      return 'a value';
    case 'empty':
      return 'the empty set';
    case 'universe':
      return 'the set of all events';
    case 'set':
      return 'a set of events';
    case 'rel':
      return 'a relation';
    case 'tag':
      return 'a tag';
    case 'event':
      return 'an event';
    case 'pair':
      return 'a pair of events';
    case 'tuple':
      return `a tuple of ${t.elems.length}`;
    case 'values':
      return 'a set of values';
    case 'fun':
    case 'native':
      return 'a function';
    case 'proc':
      return 'a procedure';
    case 'choices':
      return 'a set of candidate relations (for "with ... from")';
  }
}

const setLike = (t: Ty) => t.k === 'set' || t.k === 'universe' || t.k === 'empty' || t.k === 'any';
/** herd's universe `_` is every event, or every pair of events, as the context needs. */
const relLike = (t: Ty) => t.k === 'rel' || t.k === 'empty' || t.k === 'universe' || t.k === 'any';

/** The least type of both (what a value of either may be). */
function join(a: Ty, b: Ty): Ty {
  if (a === b) return a;
  if (a.k === 'any' || b.k === 'any') return ANY;
  if (a.k === 'empty') return b;
  if (b.k === 'empty') return a;
  if (a.k === b.k) {
    if (a.k === 'tuple' && b.k === 'tuple') return a.elems.length === b.elems.length ? { k: 'tuple', elems: a.elems.map((t, i) => join(t, b.elems[i])) } : ANY;
    if (a.k === 'values' && b.k === 'values') return { k: 'values', elem: join(a.elem, b.elem) };
    if (a.k === 'fun' || a.k === 'proc') return ANY;
    if (a.k === 'native' && b.k === 'native') return a.name === b.name ? a : ANY;
    return a;
  }
  if ((a.k === 'universe' && b.k === 'set') || (a.k === 'set' && b.k === 'universe')) return SET;
  return ANY;
}

function sameTy(a: Ty, b: Ty): boolean {
  if (a === b) return true;
  if (a.k !== b.k) return false;
  if (a.k === 'tuple' && b.k === 'tuple') return a.elems.length === b.elems.length && a.elems.every((t, i) => sameTy(t, b.elems[i]));
  if (a.k === 'values' && b.k === 'values') return sameTy(a.elem, b.elem);
  if (a.k === 'native' && b.k === 'native') return a.name === b.name;
  return a.k !== 'fun' && a.k !== 'proc';
}

/** A key of a type, for remembering applications of a function (functions and procedures by identity). */
function tyKey(t: Ty, ids: Map<object, number>): string {
  switch (t.k) {
    case 'tuple':
      return `(${t.elems.map((e) => tyKey(e, ids)).join(',')})`;
    case 'values':
      return `{${tyKey(t.elem, ids)}}`;
    case 'native':
      return `native ${t.name}`;
    case 'fun':
    case 'proc': {
      let id = ids.get(t);
      if (id === undefined) ids.set(t, (id = ids.size));
      return `${t.k}${id}`;
    }
    default:
      return t.k;
  }
}

/** Local names, innermost first. */
interface Locals {
  name: string;
  ty: Ty;
  next: Locals | null;
}

function lookup(l: Locals | null, name: string): Ty | undefined {
  for (let c = l; c; c = c.next) if (c.name === name) return c.ty;
  return undefined;
}

/** A failure that `try` catches: an unknown name, or a type error inside its body. */
class TryFailure extends Error {}

/** Nested applications beyond this are taken as a recursion whose result is not known yet. */
const MAX_DEPTH = 64;

class Checker {
  private readonly slots: (Ty | undefined)[];
  private readonly memo = new Map<string, Ty>();
  private readonly ids = new Map<object, number>();
  private readonly funIds = new Map<object, number>();
  private depth = 0;
  private tryDepth = 0;
  /** The application of a library function being checked, outermost first (errors inside one are reported there). */
  private readonly applied: { name: string; pos: CatPos }[] = [];

  constructor(
    private readonly cat: CompiledCat,
    private readonly variants: ReadonlySet<string>,
  ) {
    this.slots = new Array(cat.slots.length);
    cat.slots.forEach((s, i) => {
      if (s.instr >= 0) return;
      const base = BASE_NAMES.get(s.name);
      if (base !== undefined) this.slots[i] = ['po', 'addr', 'data', 'ctrl', 'rmw', 'loc', 'int', 'ext', 'id', 'rf', 'co', 'fr'].includes(s.name) ? REL : SET;
      else if (NATIVES.has(s.name.replace(/^%/, ''))) this.slots[i] = { k: 'native', name: s.name.replace(/^%/, '') };
      else this.slots[i] = SET; // the rest are tags' sets
    });
  }

  /**
   * Checks what herd7 evaluates: every check and flag, `with`, procedure
   * call and forall, and the definitions they read (herd7's definitions are
   * lazy: one that nothing reads is never evaluated, and a type error in it
   * refuses nothing).
   */
  run(): void {
    for (const ci of this.cat.instrs) {
      const ins = ci.instr;
      if (ins.kind === 'test') this.test(ins, null);
      else if (ins.kind === 'with') this.slotTy(ci.defines[0]);
      else if (ins.kind === 'call') this.call(ins, null);
      else if (ins.kind === 'forall') this.forall(ins, null);
    }
  }

  /** Slots whose type is being found (a definition read while its own type is found is a fixpoint's: ANY). */
  private readonly pending = new Set<number>();

  /** A top-level definition's type, found when first read. */
  private slotTy(slot: number): Ty {
    const known = this.slots[slot];
    if (known) return known;
    const info = this.cat.slots[slot];
    if (info.instr < 0 || this.pending.has(slot)) return ANY;
    const ci = this.cat.instrs[info.instr];
    for (const s of ci.defines) this.pending.add(s);
    try {
      this.define(ci.instr, ci.defines, slot);
    } finally {
      for (const s of ci.defines) this.pending.delete(s);
    }
    return this.slots[slot] ?? ANY;
  }

  private fail(message: string, pos: CatPos): never {
    if (this.tryDepth > 0) throw new TryFailure(message);
    const outer = this.applied.find((a) => !a.pos.file.startsWith('litmus:'));
    if (pos.file.startsWith('litmus:') && outer) {
      const inner = this.applied[this.applied.length - 1];
      throw new ModelError(`${message} (in ${inner.name}, ${pos.file.slice('litmus:'.length)}:${pos.line}:${pos.col})`, outer.pos);
    }
    throw new ModelError(message, pos);
  }

  /** The type of an element of a set of type t (what map, forall and match take apart). */
  private elementOf(t: Ty, pos: CatPos): Ty {
    switch (t.k) {
      case 'set':
      case 'universe':
        return { k: 'event' };
      case 'rel':
        return { k: 'pair' };
      case 'values':
        return t.elem;
      case 'empty':
      case 'any':
        return ANY;
      default:
        return this.fail(`expected a set, not ${typeName(t)}`, pos);
    }
  }

  /** Finds the type of `slot`, one of the slots instruction ins defines. */
  private define(ins: CatInstr, defines: readonly number[], slot: number): void {
    switch (ins.kind) {
      case 'let': {
        if (ins.rec) {
          this.letRec(ins.bindings, defines);
          return;
        }
        let k = 0;
        for (const b of ins.bindings) {
          const names = b.pattern.kind === 'var' ? 1 : b.pattern.names.length;
          if (defines.slice(k, k + names).includes(slot)) {
            this.bind(b.pattern, this.expr(b.expr, null), b.pos).forEach((t, i) => (this.slots[defines[k + i]] = t));
            return;
          }
          k += names;
        }
        return;
      }
      case 'with': {
        const from = this.expr(ins.from, null);
        const ok = from.k === 'choices' || from.k === 'empty' || from.k === 'any' || (from.k === 'values' && relLike(from.elem));
        if (!ok) this.fail(`with ... from: the candidates must be relations, not ${from.k === 'values' ? typeName(from.elem) : typeName(from)}`, ins.from.pos);
        this.slots[defines[0]] = REL;
        return;
      }
      case 'procedure':
        this.slots[defines[0]] = { k: 'proc', name: ins.name, param: ins.param, body: ins.body };
        return;
      case 'enum':
        this.slots[defines[0]] = { k: 'values', elem: { k: 'tag' } };
        return;
      default:
        return;
    }
  }

  /** The types a pattern binds a value of type t to, in order. */
  private bind(p: Pattern, t: Ty, pos: CatPos): Ty[] {
    if (p.kind === 'var') return [t];
    if (t.k === 'any') return p.names.map(() => ANY);
    if (t.k !== 'tuple' || t.elems.length !== p.names.length) this.fail(`expected a tuple of ${p.names.length}, found ${typeName(t)}`, pos);
    return t.elems;
  }

  private bindLocals(p: Pattern, t: Ty, locals: Locals | null, pos: CatPos): Locals | null {
    const names = p.kind === 'var' ? [p.name] : p.names;
    const tys = this.bind(p, t, pos);
    let l = locals;
    names.forEach((n, i) => {
      if (n !== null) l = { name: n, ty: tys[i], next: l };
    });
    return l;
  }

  /** A top-level let rec: functions see themselves; other values are solved from empty until their types settle. */
  private letRec(bindings: readonly Binding[], defines: readonly number[]): void {
    // The group reads its own slots' types of the round before (set here, so not pending).
    for (const s of defines) this.slots[s] = EMPTY;
    for (let round = 0; round < 8; round++) {
      let changed = false;
      bindings.forEach((b, k) => {
        const t = this.expr(b.expr, null);
        const joined = round === 0 ? t : join(this.slots[defines[k]]!, t);
        if (!sameTy(joined, this.slots[defines[k]]!)) changed = true;
        this.slots[defines[k]] = joined;
      });
      if (!changed) return;
    }
    for (const s of defines) this.slots[s] = ANY;
  }

  private test(ins: CatInstr & { kind: 'test' }, locals: Locals | null): void {
    const t = this.expr(ins.expr, locals);
    if (ins.test !== 'empty' && !relLike(t)) this.fail(`${ins.test} takes a relation, not ${typeName(t)}`, ins.expr.pos);
  }

  private call(ins: CatInstr & { kind: 'call' }, locals: Locals | null): void {
    const arg = this.expr(ins.arg, locals);
    if (ins.slot === undefined) this.fail(`unknown procedure "${ins.name}"`, ins.pos);
    const p = this.slotTy(ins.slot);
    if (p.k === 'any') return;
    if (p.k !== 'proc') this.fail(`"${ins.name}" is not a procedure`, ins.pos);
    const key = `proc ${tyKey(p, this.ids)} ${tyKey(arg, this.ids)}`;
    if (this.memo.has(key) || this.depth > MAX_DEPTH) return;
    this.memo.set(key, ANY);
    this.nested(ins.name, ins.pos, () => this.body(p.body, this.bindLocals(p.param, arg, null, ins.pos)));
  }

  private forall(ins: CatInstr & { kind: 'forall' }, locals: Locals | null): void {
    const elem = this.elementOf(this.expr(ins.set, locals), ins.set.pos);
    this.body(ins.body, { name: ins.name, ty: elem, next: locals });
  }

  /** A procedure's or a forall's instructions. */
  private body(instrs: readonly CatInstr[], locals: Locals | null): void {
    let l = locals;
    for (const ins of instrs) {
      if (ins.kind === 'let') {
        for (const b of ins.bindings) l = this.bindLocals(b.pattern, this.expr(b.expr, l), l, b.pos);
      } else if (ins.kind === 'test') this.test(ins, l);
      else if (ins.kind === 'call') this.call(ins, l);
      else if (ins.kind === 'forall') this.forall(ins, l);
    }
  }

  /** Runs `f` as the application of `name` at `pos` (one level deeper). */
  private nested<T>(name: string, pos: CatPos, f: () => T): T {
    this.depth++;
    this.applied.push({ name, pos });
    try {
      return f();
    } finally {
      this.applied.pop();
      this.depth--;
    }
  }

  private expr(e: CatExpr, locals: Locals | null): Ty {
    switch (e.kind) {
      case 'var':
        return this.variable(e, locals);
      case 'empty':
        return EMPTY;
      case 'universe':
        return { k: 'universe' };
      case 'tag':
        return { k: 'tag' };
      case 'explicit': {
        const elems = e.elems.map((x) => this.expr(x, locals));
        if (elems.length === 0) return EMPTY;
        if (elems.every((t) => t.k === 'event')) return SET;
        if (elems.every((t) => t.k === 'pair')) return REL;
        if (elems.some((t) => t.k === 'any')) return ANY;
        return { k: 'values', elem: elems.reduce(join) };
      }
      case 'tuple':
        return { k: 'tuple', elems: e.elems.map((x) => this.expr(x, locals)) };
      case 'unary':
        return this.unary(e.op, this.expr(e.arg, locals), e.arg.pos);
      case 'binary':
        return e.op === 'seq' ? this.sequence(e.args, locals) : this.fold(e, locals);
      case 'app':
        return this.apply(this.expr(e.fn, locals), this.expr(e.arg, locals), e.pos);
      case 'fun':
        return this.closure(e, locals);
      case 'let': {
        if (e.rec) return this.expr(e.body, this.letRecIn(e.bindings, locals));
        let inner = locals;
        for (const b of e.bindings) inner = this.bindLocals(b.pattern, this.expr(b.expr, locals), inner, b.pos);
        return this.expr(e.body, inner);
      }
      case 'try': {
        this.tryDepth++;
        let body: Ty;
        try {
          body = this.expr(e.body, locals);
        } catch (err) {
          if (!(err instanceof TryFailure)) throw err;
          this.tryDepth--;
          return this.expr(e.otherwise, locals);
        }
        this.tryDepth--;
        return body;
      }
      case 'if': {
        if (e.cond.kind === 'variant') return this.expr(this.variants.has(e.cond.name) ? e.then : e.otherwise, locals);
        this.condition(e.cond, locals);
        return join(this.expr(e.then, locals), this.expr(e.otherwise, locals));
      }
      case 'match-tag': {
        const s = this.expr(e.subject, locals);
        if (s.k !== 'tag' && s.k !== 'any') this.fail(`match on tags needs a tag, not ${typeName(s)}`, e.pos);
        let out: Ty = EMPTY;
        for (const c of e.clauses) out = join(out, this.expr(c.body, locals));
        return e.fallback ? join(out, this.expr(e.fallback, locals)) : out;
      }
      case 'match-set': {
        const s = this.expr(e.subject, locals);
        const elem = this.elementOf(s, e.pos);
        const rest: Ty = s.k === 'universe' ? SET : s;
        let inner = locals;
        if (e.elem !== null) inner = { name: e.elem, ty: elem, next: inner };
        if (e.rest !== null) inner = { name: e.rest, ty: rest, next: inner };
        return join(this.expr(e.ifEmpty, locals), this.expr(e.body, inner));
      }
    }
  }

  private variable(e: CatExpr & { kind: 'var' }, locals: Locals | null): Ty {
    const ref = e.ref;
    if (!ref || ref.kind === 'local') {
      const t = lookup(locals, e.name);
      if (t) return t;
      return this.fail(`unknown name "${e.name}"`, e.pos);
    }
    if (ref.kind === 'unbound') return this.fail(`unknown name "${e.name}"`, e.pos);
    return this.slotTy(ref.slot);
  }

  private condition(c: Condition, locals: Locals | null): void {
    if (c.kind === 'variant') return;
    const a = this.expr(c.left, locals);
    const b = this.expr(c.right, locals);
    if (c.kind === 'subset') this.binary('diff', a, b, c.right.pos);
  }

  private letRecIn(bindings: readonly Binding[], locals: Locals | null): Locals | null {
    const names = bindings.map((b) => (b.pattern.kind === 'var' ? b.pattern.name : null));
    const cells: (Locals | null)[] = [];
    let inner = locals;
    for (const n of names) {
      if (n === null) cells.push(null);
      else cells.push((inner = { name: n, ty: EMPTY, next: inner }));
    }
    for (let round = 0; round < 8; round++) {
      let changed = false;
      bindings.forEach((b, k) => {
        const cell = cells[k];
        const t = this.expr(b.expr, inner);
        if (!cell) return;
        const joined = join(cell.ty, t);
        if (!sameTy(joined, cell.ty)) changed = true;
        cell.ty = joined;
      });
      if (!changed) return inner;
    }
    for (const c of cells) if (c) c.ty = ANY;
    return inner;
  }

  /** Closures made, by their fun and the locals they were made in (one type for each: a let rec of functions settles at once). */
  private readonly closures = new Map<CatExpr, Map<Locals | null, Ty>>();

  private closure(e: CatExpr & { kind: 'fun' }, locals: Locals | null): Ty {
    let made = this.closures.get(e);
    if (!made) this.closures.set(e, (made = new Map()));
    const known = made.get(locals);
    if (known) return known;
    const fn = this.makeClosure(e, locals);
    made.set(locals, fn);
    return fn;
  }

  private makeClosure(e: CatExpr & { kind: 'fun' }, locals: Locals | null): Ty {
    let id = this.funIds.get(e);
    if (id === undefined) this.funIds.set(e, (id = this.funIds.size));
    const fnId = id;
    const fn: Ty = {
      k: 'fun',
      name: e.name,
      apply: (arg, pos) => {
        const key = `fun${fnId} ${tyKey(arg, this.ids)}`;
        const known = this.memo.get(key);
        if (known) return known;
        if (this.depth > MAX_DEPTH) return ANY;
        // A recursive application reads ANY until this one is known.
        this.memo.set(key, ANY);
        const t = this.nested(e.name, pos, () => this.expr(e.body, this.bindLocals(e.param, arg, locals, pos)));
        this.memo.set(key, t);
        return t;
      },
    };
    return fn;
  }

  private apply(fn: Ty, arg: Ty, pos: CatPos): Ty {
    if (fn.k === 'any') return ANY;
    if (fn.k === 'native') return this.native(fn.name, arg, pos);
    if (fn.k !== 'fun') return this.fail(`${typeName(fn)} cannot be applied`, pos);
    return fn.apply(arg, pos);
  }

  /** herd's primitives and litmus's natives (models/cat/builtins.ts), as functions of types. */
  private native(name: string, t: Ty, pos: CatPos): Ty {
    switch (name) {
      case 'domain':
      case 'range':
        return relLike(t) ? SET : this.fail(`${name} takes a relation, not ${typeName(t)}`, pos);
      case 'different-values':
        return relLike(t) ? REL : this.fail(`${name} takes a relation, not ${typeName(t)}`, pos);
      case 'classes-loc':
        return setLike(t) ? { k: 'values', elem: SET } : this.fail(`${name} takes a set of events, not ${typeName(t)}`, pos);
      case 'linearisations':
        if (t.k === 'any' || (t.k === 'tuple' && t.elems.length === 2 && setLike(t.elems[0]) && relLike(t.elems[1]))) return { k: 'choices' };
        return this.fail('linearisations takes (a set of events, a relation)', pos);
      case 'cross':
        this.elementOf(t, pos);
        return { k: 'choices' };
      case 'map':
        // map f: a function from a set to the set of f's results.
        return {
          k: 'fun',
          name: 'map f',
          apply: (s, p2) => {
            const elem = this.elementOf(s, p2);
            return { k: 'values', elem: s.k === 'empty' ? ANY : this.apply(t, elem, pos) };
          },
        };
      default:
        return ANY;
    }
  }

  private unary(op: string, t: Ty, pos: CatPos): Ty {
    if (op === 'toid') return setLike(t) ? REL : this.fail(`[...] takes a set of events, not ${typeName(t)}`, pos);
    if (op === 'comp') {
      if (t.k === 'set' || t.k === 'universe') return SET;
      if (t.k === 'rel') return REL;
      if (t.k === 'empty') return { k: 'universe' };
      if (t.k === 'any') return ANY;
      return this.fail(`~ takes a set or a relation, not ${typeName(t)}`, pos);
    }
    if (relLike(t)) return REL;
    const sym = op === 'inv' ? '^-1' : op === 'star' ? '*' : op === 'plus' ? '+' : '?';
    return this.fail(`${sym} takes a relation, not ${typeName(t)}`, pos);
  }

  private fold(e: CatExpr & { kind: 'binary' }, locals: Locals | null): Ty {
    let acc = this.expr(e.args[0], locals);
    for (let k = 1; k < e.args.length; k++) acc = this.binary(e.op, acc, this.expr(e.args[k], locals), e.args[k].pos);
    return acc;
  }

  private binary(op: string, a: Ty, b: Ty, pos: CatPos): Ty {
    if (op === 'add') {
      if (a.k === 'any' || b.k === 'any') return ANY;
      if (a.k === 'event' && (b.k === 'set' || b.k === 'empty')) return SET;
      if (a.k === 'pair' && (b.k === 'rel' || b.k === 'empty')) return REL;
      if (b.k === 'values' || b.k === 'empty') return { k: 'values', elem: b.k === 'values' ? join(a, b.elem) : a };
      return this.fail(`++ adds an element to a set, not ${typeName(a)} to ${typeName(b)}`, pos);
    }
    if (op === 'cartesian') {
      if (!setLike(a) || !setLike(b)) this.fail(`* takes two sets of events, not ${typeName(setLike(a) ? b : a)}`, pos);
      return REL;
    }
    if (a.k === 'any' || b.k === 'any') return ANY;
    if (a.k === 'rel' && b.k === 'rel') return REL;
    // The universe is a set beside a set, a relation beside a relation.
    if (a.k === 'universe' && b.k === 'rel') return REL;
    if (a.k === 'rel' && b.k === 'universe') return REL;
    if (a.k === 'empty' && b.k === 'empty') return EMPTY;
    if (a.k === 'values' || b.k === 'values') {
      const ea = this.elementOf(a, pos);
      const eb = this.elementOf(b, pos);
      return { k: 'values', elem: join(ea, eb) };
    }
    if (setLike(a) && setLike(b)) return SET;
    if (relLike(a) && relLike(b)) return REL;
    const sym = op === 'union' ? '|' : op === 'inter' ? '&' : '\\';
    return this.fail(`${sym} needs two sets or two relations, not ${typeName(a)} and ${typeName(b)}`, pos);
  }

  private sequence(args: readonly CatExpr[], locals: Locals | null): Ty {
    for (const a of args) {
      if (a.kind === 'unary' && a.op === 'toid') {
        const s = this.expr(a.arg, locals);
        if (!setLike(s)) this.fail(`[...] takes a set of events, not ${typeName(s)}`, a.arg.pos);
        continue;
      }
      const t = this.expr(a, locals);
      if (!relLike(t)) this.fail(`; takes relations, not ${typeName(t)}`, a.pos);
    }
    return REL;
  }
}

/**
 * Checks a compiled model's types before it judges any execution; throws a
 * ModelError at the first problem (herd7 refuses the model there too).
 */
export function typecheck(cat: CompiledCat, variants: ReadonlySet<string>): void {
  new Checker(cat, variants).run();
}
