// One litmus test, start to finish: parse, build the program, explore under a
// model, and summarise the way herd7 does (states, verdict, P/N, flags).

import type { CondExpr, CondTerm } from './parse/ast.js';
import { parseLitmus } from './parse/parser.js';
import { buildProgram, isAddress, LOC_BASE, type Program } from './program/program.js';
import { explore, type ExploreResult } from './explore/explorer.js';
import type { Model } from './model/model.js';

export type Observation = 'Always' | 'Sometimes' | 'Never';

export interface CheckOptions {
  model: Model;
  unroll?: number;
  maxExecutions?: number;
  timeoutMs?: number;
  keepWitnesses?: boolean;
}

export interface StateLine {
  /** [name as herd prints it ("0:r1", "[x]"), value as herd prints it]. */
  bindings: [string, string][];
  positive: boolean;
  count: number;
}

export interface CheckResult {
  name: string;
  model: string;
  quantifier: 'exists' | 'forall' | '~exists';
  condition: string;
  states: StateLine[];
  positive: number;
  negative: number;
  flags: string[];
  observation: Observation;
  /** herd's Ok/No: whether the final clause is validated. */
  ok: boolean;
  /** The Result: of the test's header, if any. */
  expected?: string;
  /** Whether the verdict matches the Result: line (undefined if there is none). */
  matches?: boolean;
  stats: { candidates: number; pruned: number; cutPaths: number; ms: number };
  program: Program;
  exploration: ExploreResult;
}

export function checkSource(text: string, opts: CheckOptions): CheckResult {
  const t0 = performance.now();
  const test = parseLitmus(text);
  const prog = buildProgram(test, { unroll: opts.unroll });
  const ex = explore(prog, opts.model, {
    maxExecutions: opts.maxExecutions,
    timeoutMs: opts.timeoutMs,
    keepWitnesses: opts.keepWitnesses,
  });
  const ms = performance.now() - t0;
  const show = (v: number) => formatValue(prog, v);
  const names = prog.observed.map((o) => (o.kind === 'reg' ? `${o.thread}:${o.name}` : `[${o.name}]`));
  // herd lists registers (by thread, then name) before memory (by name).
  const order = names.map((_, i) => i).sort((a, b) => compareObs(prog, a, b));
  const states: StateLine[] = ex.outcomes.map((o) => ({
    bindings: order.map((i) => [names[i], show(o.values[i])] as [string, string]),
    positive: o.positive,
    count: o.count,
  }));
  states.sort((a, b) => compareStates(a, b));
  const p = ex.positive;
  const n = ex.negative;
  const observation: Observation = p === 0 ? 'Never' : n === 0 ? 'Always' : 'Sometimes';
  const q = test.quantifier;
  const ok = q === 'exists' ? p > 0 : q === 'forall' ? n === 0 : p === 0;
  const expected = test.result;
  return {
    name: test.name,
    model: opts.model.name,
    quantifier: q,
    condition: `${q} ${formatCond(test.condition, 0, true)}`,
    states,
    positive: p,
    negative: n,
    flags: ex.flags,
    observation,
    ok,
    expected,
    matches: expected === undefined ? undefined : judge(expected, observation, p + n),
    stats: { candidates: ex.candidates, pruned: ex.pruned, cutPaths: ex.cutPaths, ms },
    program: prog,
    exploration: ex,
  };
}

/** The kernel's judgelitmus.sh rule: Result: against the Observation. */
export function judge(expected: string, observation: Observation, executions: number): boolean {
  if (expected === 'DEADLOCK') return executions === 0;
  return expected === observation;
}

export function formatValue(prog: Program, v: number): string {
  if (isAddress(v) && v - LOC_BASE < prog.locations.length) return prog.locations[v - LOC_BASE];
  return String(v);
}

function compareObs(prog: Program, a: number, b: number): number {
  const oa = prog.observed[a];
  const ob = prog.observed[b];
  if (oa.kind !== ob.kind) return oa.kind === 'reg' ? -1 : 1;
  if (oa.kind === 'reg' && ob.kind === 'reg') {
    if (oa.thread !== ob.thread) return oa.thread - ob.thread;
    return oa.name < ob.name ? -1 : oa.name > ob.name ? 1 : 0;
  }
  return oa.name < ob.name ? -1 : oa.name > ob.name ? 1 : 0;
}

function compareStates(a: StateLine, b: StateLine): number {
  for (let i = 0; i < a.bindings.length; i++) {
    const x = a.bindings[i][1];
    const y = b.bindings[i][1];
    if (x === y) continue;
    const nx = Number(x);
    const ny = Number(y);
    const ix = Number.isNaN(nx);
    const iy = Number.isNaN(ny);
    if (!ix && !iy) return nx - ny;
    if (ix !== iy) return ix ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Prints a condition as herd does: `[x]=1`, `0:r1=1`, `/\`, `\/`, `not (...)`. */
export function formatCond(c: CondExpr, prec = 0, top = false): string {
  const wrap = (s: string, p: number) => (p < prec ? `(${s})` : s);
  switch (c.kind) {
    case 'true':
      return top ? '(true)' : 'true';
    case 'false':
      return top ? '(false)' : 'false';
    case 'or': {
      const s = `${formatCond(c.left, 1)} \\/ ${formatCond(c.right, 1)}`;
      return top ? `(${s})` : wrap(s, 1);
    }
    case 'and': {
      const s = `${formatCond(c.left, 2)} /\\ ${formatCond(c.right, 2)}`;
      return top ? `(${s})` : wrap(s, 2);
    }
    case 'implies': {
      const s = `${formatCond(c.left, 0)} => ${formatCond(c.right, 0)}`;
      return top ? `(${s})` : wrap(s, 0);
    }
    case 'not': {
      const s = `not (${formatCond(c.arg, 0)})`;
      return top ? `(${s})` : s;
    }
    case 'eq': {
      const s = `${formatTerm(c.lhs, false)}${c.negated ? '!=' : '='}${formatTerm(c.rhs, true)}`;
      return top ? `(${s})` : s;
    }
  }
}

function formatTerm(t: CondTerm, rhs: boolean): string {
  if (t.kind === 'num') return String(t.value);
  if (t.kind === 'reg') return `${t.thread}:${t.name}`;
  return rhs ? t.name : `[${t.name}]`;
}
