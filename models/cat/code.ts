// A compiled model's expressions turned into closures, once per model
// (not walked as syntax per candidate): each node of an expression becomes
// a function of the run it is evaluated in and its local names, with its
// operator chosen, its names resolved (models/cat/compile.ts gave each
// top-level name its slot) and its children's closures in hand.
//
// Two kinds of subexpression are computed less often than their
// definition:
//   - hoisted ones (compile.ts: reading only what the events decide,
//     inside a definition that reads rf or co), once per event structure;
//   - inside a `let rec` solved as a fixpoint, those that read neither the
//     names being solved nor any local name, once per solve rather than
//     once per round ("invariant"): `rcu-gp ; rcu-link ; rcu-order ;
//     rcu-link ; rcu-rscsi` composes `rcu-gp ; rcu-link` and `rcu-link ;
//     rcu-rscsi` once, and each round only the two compositions with
//     rcu-order, as the built-in LKMM writes it by hand (models/lkmm.ts).

import type { BinaryOp, Binding, CatExpr, CatInstr, CatPos, Condition, Pattern } from './ast.js';
import { patternNames } from './compile.js';
import { ModelError } from './lexer.js';
import { binary, explicit, isEmptyValue, rebuild, Sequence, unary } from './operators.js';
import { asRelOrNull, asSetOrNull, elementsOf, EMPTY, sameValue, typeName, UNIVERSE, Unsupported, type Value } from './values.js';
import type { Dag } from './dag.js';

/** A value of an unknown name, or an error inside `try`: what `try ... with` catches. */
export class CatFailure extends Error {}

/** Local names (function parameters, `let ... in`), innermost first. */
export interface Locals {
  name: string;
  value: Value;
  next: Locals | null;
}

function lookupLocal(l: Locals | null, name: string): Value | undefined {
  for (let c = l; c; c = c.next) if (c.name === name) return c.value;
  return undefined;
}

export function bindPattern(p: Pattern, v: Value, locals: Locals | null, pos: CatPos): Locals | null {
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

/** What compiled code reads of the run it is evaluated in (models/cat/evaluate.ts). */
export interface Run {
  /** The number of events of the execution at hand. */
  readonly n: number;
  readonly variants: ReadonlySet<string>;
  /** A top-level definition's value. */
  slot(slot: number, pos: CatPos): Value;
  /** A hoisted subexpression's value, computed once per event structure. */
  hoisted(index: number, code: Code): Value;
  /** The values of invariant subexpressions of the fixpoint being solved (see the header), by index. */
  readonly invariants: (Value | undefined)[];
  apply(fn: Value, arg: Value, pos: CatPos): Value;
  /** The structure's staged form, when the run is evaluated once per structure with the candidate's values symbolic (models/cat/dag.ts). */
  readonly dag?: Dag;
}

export type Code = (run: Run, locals: Locals | null) => Value;

/** A compiled expression and what it reads (for invariants). */
interface Compiled {
  code: Code;
  /** It reads a name being solved by the innermost fixpoint, or any local name. */
  varies: boolean;
}

/** The fixpoint being compiled: the names it solves, and its invariants' indexes. */
interface Fixpoint {
  slots: ReadonlySet<number>;
  locals: ReadonlySet<string>;
  invariants: number[];
}

/** Worth caching apart: an operator's result (a name or a constant is read as it is). */
const worthCaching = (e: CatExpr) => e.kind === 'binary' || e.kind === 'unary' || e.kind === 'app' || e.kind === 'explicit' || e.kind === 'tuple';

/** The closures of one compiled model's expressions. */
export class CatCode {
  private readonly codes = new Map<CatExpr, Code>();
  private readonly recs = new Map<CatInstr, RecCode>();
  private hoistedCount = 0;
  /** Depth of try bodies being compiled (see fold). */
  private tryDepth = 0;
  private invariantCount = 0;

  /** The closure of an expression of the model (compiled when first asked for, outside any fixpoint). */
  of(e: CatExpr): Code {
    let c = this.codes.get(e);
    if (!c) this.codes.set(e, (c = this.compile(e, null).code));
    return c;
  }

  /**
   * A `let rec`'s bindings, compiled to be solved together (`slots`: the
   * top-level slots they define, or none for a `let rec ... in`, whose
   * names are locals).
   */
  recBindings(bindings: readonly Binding[], slots: readonly number[]): RecCode {
    const isFunctions = bindings.every((b) => b.expr.kind === 'fun');
    const fix: Fixpoint | null = isFunctions
      ? null
      : { slots: new Set(slots), locals: new Set(bindings.flatMap((b) => patternNames(b.pattern)).filter((n): n is string => n !== null)), invariants: [] };
    const codes = bindings.map((b) => this.compile(b.expr, fix).code);
    return { isFunctions, codes, invariants: fix?.invariants ?? [] };
  }

  /** A top-level `let rec`'s bindings, compiled once (see recBindings). */
  recOf(ins: CatInstr & { kind: 'let' }, slots: readonly number[]): RecCode {
    let c = this.recs.get(ins);
    if (!c) this.recs.set(ins, (c = this.recBindings(ins.bindings, slots)));
    return c;
  }

  private compile(e: CatExpr, fix: Fixpoint | null): Compiled {
    const c = this.node(e, fix);
    if (e.hoisted) return { code: this.hoist(c.code), varies: false };
    if (fix && !c.varies && worthCaching(e)) return { code: this.invariant(c.code, fix), varies: false };
    return c;
  }

  private hoist(inner: Code): Code {
    const index = this.hoistedCount++;
    return (run) => run.hoisted(index, inner);
  }

  private invariant(inner: Code, fix: Fixpoint): Code {
    const index = this.invariantCount++;
    fix.invariants.push(index);
    return (run, locals) => run.invariants[index] ?? (run.invariants[index] = inner(run, locals));
  }

  private node(e: CatExpr, fix: Fixpoint | null): Compiled {
    const sub = (x: CatExpr) => this.compile(x, fix);
    const fixed = (code: Code): Compiled => ({ code, varies: false });
    switch (e.kind) {
      case 'var':
        return this.variable(e, fix);
      case 'empty':
        return fixed(() => EMPTY);
      case 'universe':
        return fixed(() => UNIVERSE);
      case 'tag': {
        const v: Value = { kind: 'tag', name: e.name };
        return fixed(() => v);
      }
      case 'explicit': {
        const elems = e.elems.map(sub);
        const codes = elems.map((x) => x.code);
        return { code: (run, l) => explicit(codes.map((c) => c(run, l)), run.n), varies: elems.some((x) => x.varies) };
      }
      case 'tuple': {
        const elems = e.elems.map(sub);
        const codes = elems.map((x) => x.code);
        return { code: (run, l) => ({ kind: 'tuple', elems: codes.map((c) => c(run, l)) }), varies: elems.some((x) => x.varies) };
      }
      case 'unary': {
        const arg = sub(e.arg);
        const { op, pos } = e;
        const a = arg.code;
        return { code: (run, l) => unary(op, a(run, l), run.n, pos), varies: arg.varies };
      }
      case 'binary':
        return e.op === 'seq' ? this.sequence(e.args, fix) : this.fold(e.op, e.args, fix);
      case 'app': {
        const fn = sub(e.fn);
        const arg = sub(e.arg);
        const f = fn.code;
        const a = arg.code;
        const pos = e.pos;
        return { code: (run, l) => run.apply(f(run, l), a(run, l), pos), varies: fn.varies || arg.varies };
      }
      case 'fun': {
        // Its body runs when the function is applied, maybe after a solve: no invariants in it.
        const body = this.compile(e.body, null).code;
        const { name, param } = e;
        return {
          code: (run, l) => ({ kind: 'function', name, apply: (arg, pos) => body(run, bindPattern(param, arg, l, pos)) }),
          varies: true,
        };
      }
      case 'let':
        return { code: e.rec ? this.letRecIn(e) : this.letIn(e, fix), varies: true };
      case 'try': {
        // What a try falls back to depends on what fails: every operand of its body is computed.
        this.tryDepth++;
        let body: Compiled;
        try {
          body = sub(e.body);
        } finally {
          this.tryDepth--;
        }
        const otherwise = sub(e.otherwise);
        const b = body.code;
        const o = otherwise.code;
        const code: Code = (run, l) => {
          try {
            return b(run, l);
          } catch (err) {
            if (err instanceof CatFailure || err instanceof ModelError) return o(run, l);
            throw err;
          }
        };
        return { code, varies: body.varies || otherwise.varies };
      }
      case 'if': {
        const cond = this.condition(e.cond, fix);
        const then = sub(e.then);
        const otherwise = sub(e.otherwise);
        const t = then.code;
        const o = otherwise.code;
        return { code: (run, l) => (cond.holds(run, l) ? t(run, l) : o(run, l)), varies: cond.varies || then.varies || otherwise.varies };
      }
      case 'match-tag': {
        const subject = sub(e.subject).code;
        const clauses = new Map<string, Code>();
        for (const c of e.clauses) if (!clauses.has(c.tag)) clauses.set(c.tag, sub(c.body).code);
        const fallback = e.fallback ? sub(e.fallback).code : null;
        const pos = e.pos;
        const code: Code = (run, l) => {
          const v = subject(run, l);
          if (v.kind !== 'tag') throw new ModelError(`match on tags needs a tag, not ${typeName(v)}`, pos);
          const c = clauses.get(v.name) ?? fallback;
          if (c) return c(run, l);
          throw new ModelError(`no clause for the tag '${v.name}`, pos);
        };
        return { code, varies: true };
      }
      case 'match-set': {
        const subject = sub(e.subject).code;
        const ifEmpty = sub(e.ifEmpty).code;
        const body = sub(e.body).code;
        const { elem, rest, pos } = e;
        const code: Code = (run, l) => {
          const v = subject(run, l);
          const elems = elementsOf(v, run.n, pos);
          if (elems.length === 0) return ifEmpty(run, l);
          const [first, ...others] = elems;
          let inner = l;
          if (elem !== null) inner = { name: elem, value: first, next: inner };
          if (rest !== null) inner = { name: rest, value: rebuild(v, others, run.n), next: inner };
          return body(run, inner);
        };
        return { code, varies: true };
      }
    }
  }

  private variable(e: CatExpr & { kind: 'var' }, fix: Fixpoint | null): Compiled {
    const { name, pos, ref } = e;
    if (!ref || ref.kind === 'local') {
      const code: Code = (_run, l) => {
        const v = lookupLocal(l, name);
        if (v) return v;
        throw new ModelError(`unknown name "${name}"`, pos);
      };
      return { code, varies: true };
    }
    if (ref.kind === 'unbound') {
      return {
        code: () => {
          throw new CatFailure(`unknown name "${name}"`);
        },
        varies: false,
      };
    }
    const slot = ref.slot;
    return { code: (run) => run.slot(slot, pos), varies: fix !== null && fix.slots.has(slot) };
  }

  /**
   * a | b | c (and &, \, *, ++), left to right. An empty relation or set
   * on the left of & or \ is the result: what is on the right is not
   * computed (as a definition no check reads is not; in a try, it is).
   */
  private fold(op: BinaryOp, args: CatExpr[], fix: Fixpoint | null): Compiled {
    const parts = args.map((x) => this.compile(x, fix));
    const codes = parts.map((p) => p.code);
    const poss = args.map((x) => x.pos);
    const varies = parts.some((p) => p.varies);
    const shortCircuit = (op === 'inter' || op === 'diff') && this.tryDepth === 0;
    if (codes.length === 2) {
      const [a, b] = codes;
      const pos = poss[1];
      if (shortCircuit) {
        return {
          code: (run, l) => {
            const x = a(run, l);
            return isEmptyOperand(x) ? x : binary(op, x, b(run, l), run.n, pos);
          },
          varies,
        };
      }
      return { code: (run, l) => binary(op, a(run, l), b(run, l), run.n, pos), varies };
    }
    const code: Code = (run, l) => {
      let acc = codes[0](run, l);
      for (let k = 1; k < codes.length; k++) {
        if (shortCircuit && isEmptyOperand(acc)) return acc;
        acc = binary(op, acc, codes[k](run, l), run.n, poss[k]);
      }
      return acc;
    };
    return { code, varies };
  }

  /**
   * r1 ; r2 ; ... (operators.ts's Sequence). Inside a fixpoint, each run
   * of two or more factors that do not vary is composed once per solve.
   */
  private sequence(args: CatExpr[], fix: Fixpoint | null): Compiled {
    const factors = args.map((a) => this.factor(a, fix));
    const varies = factors.some((f) => f.varies);
    if (!fix || !varies) return { code: composeFactors(factors, this.tryDepth === 0), varies };
    const grouped: Factor[] = [];
    for (let i = 0; i < factors.length; ) {
      let j = i;
      while (j < factors.length && !factors[j].varies) j++;
      if (j - i >= 2) grouped.push({ code: this.invariant(composeFactors(factors.slice(i, j), this.tryDepth === 0), fix), toid: false, varies: false, pos: factors[i].pos });
      else if (j > i) grouped.push(factors[i]);
      if (j < factors.length) grouped.push(factors[j]);
      i = j + 1;
    }
    return { code: composeFactors(grouped, this.tryDepth === 0), varies };
  }

  /** A factor of a sequence: `[S]` (its set's code) or a relation. */
  private factor(a: CatExpr, fix: Fixpoint | null): Factor {
    if (a.kind === 'unary' && a.op === 'toid') {
      // [S] restricts its neighbour: only its set is computed (once per structure if hoisted).
      const s = this.compile(a.arg, fix);
      const code = a.hoisted && a.arg.kind !== 'var' && !a.arg.hoisted ? this.hoist(s.code) : s.code;
      return { code, toid: true, varies: s.varies, pos: a.pos };
    }
    const r = this.compile(a, fix);
    return { code: r.code, toid: false, varies: r.varies, pos: a.pos };
  }

  private letIn(e: CatExpr & { kind: 'let' }, fix: Fixpoint | null): Code {
    const bindings = e.bindings.map((b) => ({ pattern: b.pattern, pos: b.pos, code: this.compile(b.expr, fix).code }));
    const body = this.compile(e.body, fix).code;
    return (run, l) => {
      let inner = l;
      for (const b of bindings) inner = bindPattern(b.pattern, b.code(run, l), inner, b.pos);
      return body(run, inner);
    };
  }

  private letRecIn(e: CatExpr & { kind: 'let' }): Code {
    const rec = this.recBindings(e.bindings, []);
    const body = this.compile(e.body, null).code;
    const names = e.bindings.map((b) => patternNames(b.pattern)[0]);
    const pos = e.pos;
    return (run, l) => {
      // One cell per binding, in scope in every binding and in the body.
      let inner = l;
      const cells = names.map((name) => {
        if (name === null) return null;
        inner = { name, value: EMPTY, next: inner };
        return inner;
      });
      solveRec(rec, pos, run, inner, {
        get: (k) => cells[k]?.value ?? EMPTY,
        set: (k, v) => {
          const cell = cells[k];
          if (cell) cell.value = v;
        },
      });
      return body(run, inner);
    };
  }

  private condition(c: Condition, fix: Fixpoint | null): { holds: (run: Run, l: Locals | null) => boolean; varies: boolean } {
    if (c.kind === 'variant') {
      const name = c.name;
      return { holds: (run) => run.variants.has(name), varies: false };
    }
    const left = this.compile(c.left, fix);
    const right = this.compile(c.right, fix);
    const a = left.code;
    const b = right.code;
    const varies = left.varies || right.varies;
    const pos = c.pos;
    switch (c.kind) {
      case 'equal':
        return { holds: (run, l) => sameValue(a(run, l), b(run, l), run.n), varies };
      case 'subset':
        return { holds: (run, l) => isEmptyValue(binary('diff', a(run, l), b(run, l), run.n, pos), run.n), varies };
      case 'in':
        return {
          holds: (run, l) => {
            const x = a(run, l);
            const s = b(run, l);
            if (x.kind === 'event') return asSetOrNull(s, run.n)?.has(x.id) ?? false;
            if (x.kind === 'pair') return asRelOrNull(s, run.n)?.has(x.from, x.to) ?? false;
            return elementsOf(s, run.n, pos).some((v) => sameValue(v, x, run.n));
          },
          varies,
        };
    }
  }
}

interface Factor {
  code: Code;
  /** `[S]`: code is the set's. */
  toid: boolean;
  varies: boolean;
  pos: CatPos;
}

/** An empty relation or set (not the polymorphic 0, which stays what it is). */
function isEmptyOperand(v: Value): boolean {
  return v.kind === 'rel' ? v.rel.isEmpty() : v.kind === 'set' && v.set.isEmpty();
}

/** The sequence of the factors; once it is empty, the factors after are not computed (outside a try). */
function composeFactors(factors: readonly Factor[], shortCircuit: boolean): Code {
  return (run, l) => {
    const s = new Sequence(run.n);
    for (let k = 0; k < factors.length; k++) {
      const f = factors[k];
      if (f.toid) s.restrictTo(f.code(run, l), f.pos);
      else s.then(f.code(run, l), f.pos);
      if (shortCircuit && k + 1 < factors.length && s.isEmpty()) break;
    }
    return s.value();
  };
}

/** A `let rec`'s bindings, compiled (CatCode.recBindings). */
export interface RecCode {
  /** Every binding is a function: they see themselves, in one pass. */
  isFunctions: boolean;
  codes: Code[];
  /** The invariants of this fixpoint (computed once per solve). */
  invariants: number[];
}

/**
 * let rec: functions see themselves (one pass); other values are the least
 * fixpoint from empty, each binding seeing the values the bindings before
 * it just got (herd's order: the simultaneous order matches RCU sections
 * wrongly). The invariants are forgotten before and after the solve (what
 * they read may differ the next time; a solve inside a solve keeps the
 * outer one's).
 */
export function solveRec(
  rec: RecCode,
  pos: CatPos,
  run: Run,
  locals: Locals | null,
  cells: { get(k: number): Value; set(k: number, v: Value): void },
): void {
  if (rec.isFunctions) {
    rec.codes.forEach((c, k) => cells.set(k, c(run, locals)));
    return;
  }
  const saved = rec.invariants.map((i) => run.invariants[i]);
  for (const i of rec.invariants) run.invariants[i] = undefined;
  try {
    for (let round = 0; ; round++) {
      if (round > 10_000) throw new ModelError('let rec: no fixpoint reached', pos);
      let changed = false;
      for (let k = 0; k < rec.codes.length; k++) {
        const v = rec.codes[k](run, locals);
        if (v.kind === 'node') return solveStaged(rec, pos, run, locals, cells);
        if (!sameValue(v, cells.get(k), run.n)) changed = true;
        cells.set(k, v);
      }
      if (!changed) return;
    }
  } finally {
    rec.invariants.forEach((i, k) => (run.invariants[i] = saved[k]));
  }
}

/**
 * A let rec whose values are known only per candidate, in a structure's
 * staged form (models/cat/dag.ts): one round from empty values tells each
 * binding's type, then the round is built once more from the loop's vars,
 * each binding seeing the values the bindings before it got in the round
 * (herd's order, as above); the loop runs it to its fixpoint per candidate.
 */
function solveStaged(rec: RecCode, pos: CatPos, run: Run, locals: Locals | null, cells: { get(k: number): Value; set(k: number, v: Value): void }): void {
  const dag = run.dag;
  if (!dag) throw new Unsupported('a let rec of symbolic values outside a staged run');
  const m = rec.codes.length;
  const types: ('set' | 'rel')[] = [];
  for (let k = 0; k < m; k++) cells.set(k, EMPTY);
  for (let k = 0; k < m; k++) {
    const v = rec.codes[k](run, locals);
    types.push(v.kind === 'node' ? v.type : v.kind === 'set' || v.kind === 'universe' ? 'set' : v.kind === 'rel' || v.kind === 'empty' ? 'rel' : unsupportedType(v));
    cells.set(k, v);
  }
  const { loop, vars } = dag.beginLoop(types, pos);
  for (let k = 0; k < m; k++) cells.set(k, vars[k]);
  const bodies: Value[] = [];
  for (let k = 0; k < m; k++) {
    const v = rec.codes[k](run, locals);
    bodies.push(v);
    cells.set(k, v);
  }
  const outs = dag.endLoop(loop, vars, bodies);
  for (let k = 0; k < m; k++) cells.set(k, outs[k]);
}

function unsupportedType(v: Value): never {
  throw new Unsupported(`a let rec of ${typeName(v)} known only per candidate`);
}
