// A cat model staged for one event structure: the model run once, in its
// order, with the candidate's rf, co and final writes left symbolic
// (models/cat/dag.ts). What is static is computed now (the structure's
// evaluator, models/cat/evaluate.ts); what depends on the candidate is
// nodes of the structure's graph; each check, `with` and flag becomes a
// step that tests one node per candidate, or is decided now (a check that
// holds for every candidate of the structure is no step at all).
// models/cat/generate.ts makes the code that runs the steps.
//
// Where the model does something the graph cannot follow (the elements of
// a set known only per candidate: a `forall`, a `match` or a `map` over
// one, comparing such values), staging fails with Unsupported and the
// structure's candidates are judged by the evaluator instead.

import type { Execution } from '../../src/model/execution.js';
import { lasting, type EventSet } from '../../src/relation/relation.js';
import type { CatInstr, CatPos, TestKind } from './ast.js';
import { bindPattern, CatFailure, type CatCode, type Locals } from './code.js';
import type { CompiledCat } from './compile.js';
import { Dag } from './dag.js';
import { Evaluator, type RunOptions } from './evaluate.js';
import { ModelError } from './lexer.js';
import { isEmptyValue } from './operators.js';
import { asRelOrNull, elementsOf, setValue, typeName, Unsupported, type Value } from './values.js';

/** One step of a staged model, in the model's order. `instr`: the top-level instruction it is part of. */
export type Step =
  /** A check that fails for every candidate of the structure. */
  | { kind: 'fail'; instr: number; violated: string }
  /** A check of a node per candidate. */
  | { kind: 'check'; instr: number; test: TestKind; negated: boolean; node: number; violated: string }
  /** with X from S: whether the candidate has its element (node: the choose). */
  | { kind: 'with'; instr: number; node: number; name: string }
  /** An instruction that cannot be run (a type error, ...): thrown when reached. */
  | { kind: 'error'; instr: number; error: Error };

/** A flag raised when its test (of a node) is `raisedWhen`. `instr`: the top-level instruction it is part of. */
export interface FlagStep {
  instr: number;
  test: TestKind;
  negated: boolean;
  node: number;
  name: string;
  raisedWhen: boolean;
}

export interface StagedModel {
  dag: Dag;
  steps: Step[];
  flags: FlagStep[];
  /** Flags every consistent candidate of the structure raises, with the top-level instruction each is part of. */
  staticFlags: { name: string; instr: number }[];
}

/**
 * The staged model of x's structure, or Unsupported where the graph cannot
 * follow the model. `statics`: the structure's evaluator (static values);
 * `reads`, `writes`: herd's R and W (lock operations left out).
 */
export function stageModel(
  cat: CompiledCat,
  code: CatCode,
  statics: Evaluator,
  x: Execution,
  opts: RunOptions,
  reads: EventSet,
  writes: EventSet,
): StagedModel | Unsupported {
  return lasting(() => {
    const dag = new Dag(x.n, lasting);
    const base = symbolicBase(dag, reads, writes);
    const ev = new Evaluator(cat, code, x, opts, statics, null, (name) => base(name));
    ev.dag = dag;
    const stager = new Stager(ev, opts);
    try {
      for (let i = 0; i < cat.instrs.length; i++) stager.instr(i);
    } catch (e) {
      if (e instanceof Unsupported) return e;
      throw e;
    }
    return { dag, steps: stager.steps, flags: stager.flags, staticFlags: stager.staticFlags };
  });
}

/** herd's rf (no lock reads), co among W, fr and the final writes, as nodes of the candidate's inputs. */
function symbolicBase(dag: Dag, reads: EventSet, writes: EventSet): (name: string) => Value | undefined {
  const pos: CatPos = { file: 'litmus:base', line: 1, col: 1 };
  const R = setValue(reads);
  const W = setValue(writes);
  let rf: Value | undefined;
  let co: Value | undefined;
  const rfOf = () => (rf ??= dag.sequence([{ toid: false, value: dag.input('rf'), pos }, { toid: true, value: R, pos }]));
  const coOf = () => (co ??= dag.sequence([{ toid: true, value: W, pos }, { toid: false, value: dag.input('co'), pos }, { toid: true, value: W, pos }]));
  return (name) => {
    switch (name) {
      case 'rf':
        return rfOf();
      case 'co':
        return coOf();
      case 'fr':
        return dag.sequence([{ toid: false, value: dag.unary('inv', rfOf(), pos), pos }, { toid: false, value: coOf(), pos }]);
      case 'FW':
        return dag.input('FW');
      default:
        return undefined;
    }
  };
}

/** Runs the model's instructions once, symbolically, into steps. */
class Stager {
  readonly steps: Step[] = [];
  readonly flags: FlagStep[] = [];
  readonly staticFlags: { name: string; instr: number }[] = [];
  constructor(
    private readonly ev: Evaluator,
    private readonly opts: RunOptions,
  ) {}

  instr(i: number): void {
    const ins = this.ev.cat.instrs[i].instr;
    try {
      if (ins.kind === 'with') {
        this.ev.chosen(i);
        const v = this.ev.slots[this.ev.cat.instrs[i].defines[0]]!;
        if (v.kind === 'node') this.steps.push({ kind: 'with', instr: i, node: this.ev.dag!.testable(v.id), name: ins.name });
      } else if (ins.kind === 'test') {
        this.test(i, ins, null);
      } else if (ins.kind === 'call' || ins.kind === 'forall') {
        this.body(i, ins, null);
      }
    } catch (e) {
      if (e instanceof ModelError || e instanceof CatFailure) this.steps.push({ kind: 'error', instr: i, error: e });
      else throw e;
    }
  }

  /** A test: decided now, or a step (a check) or a flag step per candidate. */
  private test(i: number, ins: CatInstr & { kind: 'test' }, locals: Locals | null, as?: string): void {
    const v = this.ev.expr(ins.expr, locals);
    const name = as ?? ins.name;
    if (v.kind !== 'node') return this.decided(i, ins, holdsNow(ins, v, this.ev.x.n), name);
    this.ev.dag!.testable(v.id);
    if (ins.test !== 'empty' && v.type !== 'rel') throw new ModelError(`${ins.test} takes a relation, not ${typeName(v)}`, ins.pos);
    if (ins.role === 'flag') {
      if (name) this.flags.push({ instr: i, test: ins.test, negated: ins.negated, node: v.id, name, raisedWhen: true });
    } else if (ins.role === 'undefined-unless') {
      this.flags.push({ instr: i, test: ins.test, negated: ins.negated, node: v.id, name: name ?? 'undefined', raisedWhen: false });
    } else if (name === undefined || !this.opts.skipChecks.has(name)) {
      this.steps.push({ kind: 'check', instr: i, test: ins.test, negated: ins.negated, node: v.id, violated: name ?? ins.test });
    }
  }

  /** A test whose outcome is the same for every candidate of the structure (StructureRun.outcome's rules). */
  private decided(i: number, ins: CatInstr & { kind: 'test' }, holds: boolean, name: string | undefined): void {
    if (ins.role === 'flag') {
      if (holds && name) this.staticFlags.push({ name, instr: i });
    } else if (ins.role === 'undefined-unless') {
      if (!holds) this.staticFlags.push({ name: name ?? 'undefined', instr: i });
    } else if (!holds && (name === undefined || !this.opts.skipChecks.has(name))) {
      this.steps.push({ kind: 'fail', instr: i, violated: name ?? ins.test });
    }
  }

  /** A procedure call or a forall (over a set known now): its body's tests, with its own locals. */
  private body(i: number, ins: CatInstr, locals: Locals | null, as?: string): void {
    const ev = this.ev;
    if (ins.kind === 'call') {
      if (ins.slot === undefined) throw new ModelError(`unknown procedure "${ins.name}"`, ins.pos);
      const proc = ev.value(ins.slot, ins.pos);
      if (proc.kind !== 'procedure') throw new ModelError(`"${ins.name}" is not a procedure`, ins.pos);
      const arg = ev.expr(ins.arg, locals);
      this.instrs(i, proc.body, bindPattern(proc.param, arg, null, ins.pos), ins.as ?? as);
    } else if (ins.kind === 'forall') {
      for (const e of elementsOf(ev.expr(ins.set, locals), ev.x.n, ins.pos)) this.instrs(i, ins.body, { name: ins.name, value: e, next: locals }, as);
    }
  }

  private instrs(i: number, body: CatInstr[], locals: Locals | null, as?: string): void {
    let l = locals;
    for (const ins of body) {
      if (ins.kind === 'let') {
        for (const b of ins.bindings) l = bindPattern(b.pattern, this.ev.expr(b.expr, l), l, b.pos);
      } else if (ins.kind === 'test') {
        this.test(i, ins, l, as);
      } else if (ins.kind === 'call' || ins.kind === 'forall') {
        this.body(i, ins, l, as);
      }
    }
  }
}

/** Whether a test holds of a value known now (Evaluator.holds). */
function holdsNow(ins: CatInstr & { kind: 'test' }, v: Value, n: number): boolean {
  let ok: boolean;
  if (ins.test === 'empty') ok = isEmptyValue(v, n);
  else {
    const r = asRelOrNull(v, n);
    if (!r) throw new ModelError(`${ins.test} takes a relation, not ${typeName(v)}`, ins.pos);
    ok = ins.test === 'acyclic' ? r.acyclic() : r.irreflexive();
  }
  return ins.negated ? !ok : ok;
}

