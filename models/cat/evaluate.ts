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
import type { CatExpr, CatInstr, CatPos } from './ast.js';
import { dynamicBaseValue, NATIVES, staticBase, type NativeContext } from './builtins.js';
import { bindPattern, CatCode, CatFailure, solveRec, type Code, type Locals, type Run } from './code.js';
import { patternNames, tagSetName, type CompiledCat } from './compile.js';
import { ModelError } from './lexer.js';
import { isEmptyValue } from './operators.js';
import { asRelOrNull, asSetOrNull, elementsOf, EMPTY, relValue, typeName, type Choices, type Value } from './values.js';
import type { StaticEval } from './bounds.js';
import type { Dag } from './dag.js';
import { stageModel, type StagedModel } from './stage.js';
import type { Unsupported } from './values.js';
import { isStackOverflow } from '../../src/parse/errors.js';

/** `with X from S` found no element of S in the candidate: it is not one of the model's candidates. */
class NotGenerated extends Error {}

const NO_POS: CatPos = { file: 'litmus:bounds', line: 0, col: 0 };

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
 * How deep the model's function calls may nest: a `let rec` function that
 * calls itself without end is refused as that (herd7 recurses until it
 * runs out of stack), never reported as the test's search running out of
 * stack. Most stacks give out first, at a few hundred calls: an overflow
 * under RECURSION_SEEN nested calls or more is reported the same way.
 */
const MAX_CALL_DEPTH = 10_000;
const RECURSION_SEEN = 64;

function endlessRecursion(name: string, pos: CatPos): ModelError {
  return new ModelError(`${name || 'a function'} calls itself without end (a recursive function whose recursion does not stop, or nests deeper than litmus's stack allows)`, pos);
}

/**
 * The values of one model for one event structure (static slots) or one
 * candidate (the others, reading static ones from `statics`).
 */
export class Evaluator implements NativeContext, Run {
  readonly slots: (Value | undefined)[];
  /** Checks (by instruction index) whose static outcome is known. */
  readonly staticTests = new Map<number, boolean>();
  /** Values of hoisted subexpressions (see models/cat/code.ts), computed once per structure. */
  private readonly hoistedValues: (Value | undefined)[] = [];
  readonly invariants: (Value | undefined)[] = [];
  /** The `cross` parts whose choices are known to be sources the explorer builds (refuseUnbuiltSources; the static run's). */
  private sourcesChecked: WeakSet<Value> | undefined;
  private truthRel: Relation | undefined;
  /** The structure's staged form, when this run evaluates the model once for every candidate of the structure (models/cat/stage.ts). */
  dag?: Dag;
  constructor(
    readonly cat: CompiledCat,
    readonly code: CatCode,
    public x: Execution,
    readonly opts: RunOptions,
    readonly statics: Evaluator | null,
    /** The static base values (for the static run); a candidate's are read when first needed (dynamicBase). */
    base: Map<string, Value> | null,
    private readonly dynamicBase: ((name: string, x: Execution) => Value | undefined) | null,
  ) {
    this.slots = new Array(cat.slots.length);
    if (base) {
      for (const [name, slot] of cat.base) {
        const v = base.get(name);
        if (v) this.slots[slot] = v;
      }
    }
  }

  /**
   * For explanations of a candidate the model's `with` does not generate
   * (an incoherent one): `with X from S` takes the candidate's own rf and
   * co where S offers them, so that every check can be evaluated on it.
   */
  lenient = false;

  /** The next candidate of the structure, in place of this one (whose values are forgotten). */
  reset(x: Execution): void {
    this.x = x;
    this.slots.fill(undefined);
    this.truthRel = undefined;
    this.lenient = false;
  }

  /** The candidate's own rf and co (all events), from which `with` chooses; null for static values. */
  get truth(): Relation | null {
    if (!this.statics) return null;
    return (this.truthRel ??= this.x.rel.rf.or(this.x.rel.co));
  }

  get n(): number {
    return this.x.n;
  }

  get variants(): ReadonlySet<string> {
    return this.opts.variants;
  }

  hoisted(index: number, code: Code): Value {
    const st = this.statics;
    if (!st) return code(this, null);
    return st.hoistedValues[index] ?? (st.hoistedValues[index] = lasting(() => code(st, null)));
  }

  slot(slot: number, pos: CatPos): Value {
    return this.slots[slot] ?? this.value(slot, pos);
  }

  /** The value of a slot, computed (once) when first asked for. */
  value(slot: number, pos: CatPos): Value {
    const known = this.slots[slot];
    if (known) return known;
    const info = this.cat.slots[slot];
    if (info.stage === 'static' && this.statics) return (this.slots[slot] = this.statics.value(slot, pos));
    if (info.instr < 0) {
      const base = this.dynamicBase?.(info.name, this.x);
      if (base) return (this.slots[slot] = base);
      return (this.slots[slot] = this.nativeValue(slot, info.name));
    }
    const run = () => this.define(info.instr);
    if (info.stage === 'static') lasting(run);
    else run();
    const v = this.slots[slot];
    if (!v) throw new ModelError(`"${info.name}" is used before it is defined`, pos);
    return v;
  }

  /** herd's primitives and litmus's natives as function values, made once (reset keeps them). */
  private readonly natives: (Value | undefined)[] = [];

  private nativeValue(slot: number, name: string): Value {
    const known = this.natives[slot];
    if (known) return known;
    const native = NATIVES.get(name.replace(/^%/, ''));
    if (!native) throw new CatFailure(`"${name}" has no value here`);
    return (this.natives[slot] = { kind: 'function', name, apply: (arg, p) => native(arg, p, this) });
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
      if (!this.chosen(i)) throw new NotGenerated(ins.name);
    }
  }

  /** Whether `with` instruction i finds its element in the candidate (then its slot holds it). */
  chosen(i: number): boolean {
    const ci = this.cat.instrs[i];
    const ins = ci.instr;
    if (ins.kind !== 'with') throw new Error('internal: not a with');
    if (this.slots[ci.defines[0]]) return true;
    if (this.dag) {
      // Staged: the choice is made per candidate (a `choose` node; the with's step tests that it found one).
      const from = this.expr(ins.from, null);
      this.refuseUnbuiltParts(from, ins.pos);
      const events = this.x.events;
      // The explorer's coherence order of a location is total: on writes of one location, so is every candidate's rf | co.
      const total = (over: EventSet) => {
        let loc = -1;
        for (const e of over.members()) {
          if (events[e].kind !== 'W' || (loc >= 0 && events[e].loc !== loc)) return false;
          loc = events[e].loc;
        }
        return true;
      };
      this.slots[ci.defines[0]] = this.dag.choose(from, this.dag.binary('union', this.dag.input('rf'), this.dag.input('co'), ins.pos), ins.name, ins.pos, total);
      return true;
    }
    if (!this.truth) throw new ModelError(`"${ins.name}" is chosen per candidate`, ins.pos);
    const chosen = this.choose(this.expr(ins.from, null), ins.pos, this.truth);
    if (!chosen) return false;
    this.slots[ci.defines[0]] = chosen;
    return true;
  }

  private tupleElem(v: Value, j: number, name: string | null, pos: CatPos): Value {
    if (v.kind !== 'tuple') throw new ModelError(`expected a tuple to bind ${name ?? '_'}, found ${typeName(v)}`, pos);
    return v.elems[j];
  }

  /** let rec: functions see themselves; other values are the least fixpoint from empty. */
  private defineRec(ins: CatInstr & { kind: 'let' }, slots: number[]): void {
    for (const s of slots) this.slots[s] = EMPTY;
    solveRec(this.code.recOf(ins, slots), ins.pos, this, null, {
      get: (k) => this.slots[slots[k]]!,
      set: (k, v) => {
        this.slots[slots[k]] = v;
      },
    });
  }

  /** Function applications under way, and the deepest reached since the outermost began (a recursion without end is the model's error). */
  private calls = 0;
  private deepest = 0;

  apply(fn: Value, arg: Value, pos: CatPos): Value {
    if (fn.kind !== 'function') throw new ModelError(`${typeName(fn)} cannot be applied`, pos);
    if (this.calls >= MAX_CALL_DEPTH) throw endlessRecursion(fn.name, pos);
    if (this.calls === 0) this.deepest = 0;
    this.deepest = Math.max(this.deepest, ++this.calls);
    try {
      return fn.apply(arg, pos);
    } catch (e) {
      // Out of stack in a deep recursion of the model's functions: reported at the outermost call, where there is stack again.
      if (this.calls === 1 && this.deepest >= RECURSION_SEEN && isStackOverflow(e)) throw endlessRecursion(fn.name, pos);
      throw e;
    } finally {
      this.calls--;
    }
  }

  expr(e: CatExpr, locals: Locals | null): Value {
    return this.code.of(e)(this, locals);
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
    return r.includedIn(truth);
  }

  private chooseFrom(c: Choices, pos: CatPos, truth: Relation): Value | null {
    const n = this.x.n;
    if (c.kind === 'linearisations') {
      // A strict total order of the set that extends the partial order.
      if (!(c.order instanceof Relation)) throw new Error('internal: a symbolic order outside a staged run');
      if (!this.lenient && (!c.order.includedIn(truth, c.over) || !truth.isStrictTotalOrderOn(c.over))) return null;
      return relValue(truth.restrict(c.over, c.over));
    }
    const acc = new Relation(n);
    for (const part of c.parts) {
      this.refuseUnbuiltSources(part, pos);
      const chosen = this.choose(part, pos, truth);
      if (!chosen && this.lenient) continue;
      if (!chosen) return null;
      const r = asRelOrNull(chosen, n);
      if (!r) throw new ModelError(`with ... from: the candidates must be relations, not ${typeName(chosen)}`, pos);
      acc.addAll(r);
    }
    return relValue(acc);
  }

  /** refuseUnbuiltSources for every part of a with's source, in a staged run (see chooseFrom). */
  private refuseUnbuiltParts(from: Value, pos: CatPos): void {
    if (from.kind !== 'choices' || from.choices.kind !== 'cross') return;
    for (const part of from.choices.parts) {
      this.refuseUnbuiltSources(part, pos);
      this.refuseUnbuiltParts(part, pos);
    }
  }

  /**
   * The choices of a `cross` part must be sources the explorer builds for
   * the read they go to (a lock read: lock.cat's rules, see
   * lockReadMayTake; any other read: any write to its location): a choice
   * it never builds would be a candidate litmus never counts.
   */
  private refuseUnbuiltSources(part: Value, pos: CatPos): void {
    if (part.kind !== 'values') return;
    // The parts are the structure's (lock.cat's are static): each is looked at once.
    const st = this.statics ?? this;
    const checked = (st.sourcesChecked ??= new WeakSet());
    if (checked.has(part)) return;
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
    checked.add(part);
  }

  /** Whether a test's condition holds. */
  holds(ins: CatInstr & { kind: 'test' }, locals: Locals | null): boolean {
    const v = this.expr(ins.expr, locals);
    let ok: boolean;
    if (ins.test === 'empty') ok = isEmptyValue(v, this.x.n);
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

/** The model for every candidate of one event structure. */
export class StructureRun {
  private readonly statics: Evaluator;
  /** herd's R and W of the structure (lock operations left out), for each candidate's rf and co. */
  private readonly baseReads: EventSet;
  private readonly baseWrites: EventSet;
  constructor(
    private readonly cat: CompiledCat,
    /** The model's expressions as closures (one CatCode per model, shared by its structures). */
    private readonly code: CatCode,
    first: Execution,
    private readonly opts: RunOptions,
    /** The checks that may judge a partial execution (models/cat/monotone.ts). */
    private readonly prefixSafe: ReadonlySet<number>,
  ) {
    const tagSets = new Map([...cat.tags].map((t) => [t, tagSetName(t)] as [string, string]));
    const base = lasting(() => staticBase(first, tagSets));
    this.statics = lasting(() => new Evaluator(cat, code, first, opts, null, base, null));
    this.baseReads = asSetOrNull(base.get('R')!, first.n)!;
    this.baseWrites = asSetOrNull(base.get('W')!, first.n)!;
  }

  /** The run of the candidate at hand (one per structure, reset for each candidate). */
  private current: Evaluator | undefined;

  /** The model staged for this structure (models/cat/stage.ts), x one of its candidates; Unsupported where it cannot be. */
  stage(x: Execution): StagedModel | Unsupported {
    this.statics.x = x;
    return stageModel(this.cat, this.code, this.statics, x, this.opts, this.baseReads, this.baseWrites);
  }

  private candidate(x: Execution): Evaluator {
    this.statics.x = x;
    if (this.current) this.current.reset(x);
    else this.current = new Evaluator(this.cat, this.code, x, this.opts, this.statics, null, (name, c) => dynamicBaseValue(name, c, this.baseReads, this.baseWrites));
    return this.current;
  }

  /**
   * Judges a candidate of this structure. `prefix`: a partial execution (a
   * `with` that finds nothing is no verdict). `skip`: checks and `with`s
   * known to pass (models/cat/derive-interleaving.ts), not computed unless
   * something else reads them.
   */
  check(x: Execution, prefix: boolean, skip?: ReadonlySet<number>): CatVerdict {
    if (!skip) return this.checkAll(x, prefix);
    try {
      return this.checkAll(x, prefix, skip);
    } catch (e) {
      // A skipped `with` read by something else finds nothing: of a partial execution that is no verdict.
      if (!(e instanceof NotGenerated)) throw e;
      return { consistent: prefix, violated: prefix ? undefined : `with ${e.message}`, flags: [], notGenerated: true };
    }
  }

  private checkAll(x: Execution, prefix: boolean, skip?: ReadonlySet<number>): CatVerdict {
    const ev = this.candidate(x);
    const flags: string[] = [];
    for (let i = 0; i < this.cat.instrs.length; i++) {
      if (skip?.has(i)) continue;
      const ci = this.cat.instrs[i];
      if (ci.instr.kind === 'with') {
        // Not thrown: a prefix often has no such element yet (its coherence order not total).
        if (!ev.chosen(i)) return { consistent: prefix, violated: prefix ? undefined : `with ${ci.instr.name}`, flags: [], notGenerated: true };
        continue;
      }
      // A prefix is judged by the checks that only grow with it; flags wait for the whole execution.
      if (prefix && !this.prefixSafe.has(i)) continue;
      const r = this.instr(ev, i, flags);
      if (r) return r;
    }
    return { consistent: true, flags: prefix ? [] : [...new Set(flags)].sort() };
  }

  /** How the structure's static values are computed (for models/cat/bounds.ts). */
  staticEval(): StaticEval {
    const st = this.statics;
    return {
      slot: (slot) => lasting(() => st.value(slot, NO_POS)),
      expr: (e, locals) => lasting(() => st.expr(e, locals)),
    };
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

  /**
   * The values of expressions of the model on one candidate, each read as
   * often as needed without the candidate being judged again (for
   * explanations, models/cat/explain.ts); undefined where the candidate is
   * not one the model's `with` generates, unless `lenient` (then `with`
   * takes the candidate's own rf and co). Valid until this run judges
   * another candidate.
   */
  valuesOf(x: Execution, opts?: { lenient?: boolean }): (e: CatExpr) => Value | undefined {
    const ev = this.candidate(x);
    ev.lenient = opts?.lenient ?? false;
    return (e) => {
      try {
        return ev.expr(e, null);
      } catch (err) {
        if (err instanceof NotGenerated) return undefined;
        throw err;
      }
    };
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
