// One litmus test, start to finish: parse, build the program, explore under a
// model, and summarise the way herd7 does (states, verdict, P/N, flags).

import { fail } from './parse/errors.js';
import type { CondExpr, CondTerm, LitmusTest } from './parse/ast.js';
import { headerPredictsDataRace, parseLitmus } from './parse/parser.js';
import { buildProgram, isAddress, isSymbolic, LOC_BASE, locationOf, observedName, SYM_BASE, VAR_STRIDE, type Program, type WaitReading } from './program/program.js';
import type { Pos } from './parse/ast.js';
import type { Hang, StuckKind } from './explore/liveness.js';
import { explore, type ExploreResult } from './explore/explorer.js';
import type { Model } from './model/model.js';
import type { SpeedMode } from './explore/speedcheck.js';
import type { PrimitiveTable } from './events/primitives.js';
import { Deadline } from './limits.js';

export type Observation = 'Always' | 'Sometimes' | 'Never';

export interface CheckOptions {
  model: Model;
  unroll?: number;
  maxExecutions?: number;
  timeoutMs?: number;
  keepWitnesses?: boolean | 'all';
  /** Decide without counting every execution (explore/speedcheck.ts); counts and flags are then partial. */
  speedcheck?: SpeedMode;
  /** The primitives calls mean (a .def read by loadMacros, src/events/def.ts); the built-in table by default. */
  primitives?: PrimitiveTable;
  /** Stop once this many consistent executions satisfy the condition (herd7's -nshow with -show prop); counts are then partial. */
  stopAfterPositive?: number;
  /** Prefix checks from the first choice on, none skipped (for testing the explorer's pruning). */
  checkEveryPrefix?: boolean;
  /**
   * How loops are read: 'exact' (the default: an idle iteration of a wait
   * ends its path, judged for liveness; see program.ts WaitReading) or
   * herd7's 'unrolled' (what `litmus herd7`, the conformance and the
   * collection runs use, where herd7 is the reference).
   */
  waits?: WaitReading;
}

/**
 * Whether some thread of a test with waits can wait forever under fair
 * scheduling (src/explore/liveness.ts): 'hang' with the first thread found
 * waiting, 'terminates', or 'unknown' where the search did not look at
 * every execution (why says so).
 */
export interface Liveness {
  verdict: 'hang' | 'terminates' | 'unknown';
  why?: string;
  /** Executions the model allows in which some thread waits forever. */
  hangs: number;
  /** With a hang: the thread that waits forever, how, and where (its loop, lock or grace period). */
  thread?: number;
  kind?: StuckKind;
  pos?: Pos;
  /** What its final pass keeps reading, location and value as herd prints them (a loop), or the lock it waits for. */
  reads?: { location: string; value: string }[];
  lock?: string;
  /** The thread holding that lock, or -1 when none holds it. */
  holder?: number;
  /** The execution and every thread waiting in it (for traces). */
  witness?: Hang;
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
  /** Whether the Result: line also says DATARACE. */
  expectsDataRace: boolean;
  /** Whether the verdict matches the Result: line (undefined if there is none). */
  matches?: boolean;
  /** Why it does not match, or why a different verdict is forgiven (see judge). */
  judgement?: string;
  stats: { candidates: number; pruned: number; cutPaths: number; ms: number };
  /** Set when the search was condition-directed: states, counts and flags cover only the executions it built. */
  speedcheck?: SpeedMode;
  program: Program;
  exploration: ExploreResult;
  /** For a test with waits read exactly: whether some thread can wait forever. */
  liveness?: Liveness;
}

/**
 * Checks one test's text. The --timeout covers every stage: reading the
 * text, building the program, the value analysis, the search and the
 * summary (src/limits.ts).
 */
export function checkSource(text: string, opts: CheckOptions): CheckResult {
  const t0 = performance.now();
  const deadline = Deadline.after(opts.timeoutMs);
  const test = parseLitmus(text);
  deadline.check('reading the test');
  return checkTest(test, opts, { t0, expectsDataRace: headerPredictsDataRace(text), deadline });
}

/** A test already parsed (or built by the TypeScript suite reader). */
export function checkTest(test: LitmusTest, opts: CheckOptions, from: { t0?: number; expectsDataRace?: boolean; deadline?: Deadline } = {}): CheckResult {
  const t0 = from.t0 ?? performance.now();
  const deadline = from.deadline ?? Deadline.after(opts.timeoutMs);
  const prog = buildProgram(test, { unroll: opts.unroll, primitives: opts.primitives, waits: opts.waits });
  const refused = opts.model.refuses?.(prog);
  if (refused) fail(refused.message, refused.pos);
  deadline.check('building the program');
  const ex = explore(prog, opts.model, {
    maxExecutions: opts.maxExecutions,
    timeoutMs: opts.timeoutMs,
    deadline,
    // A forall's trace shows an execution that fails its proposition: those are kept too.
    keepWitnesses: opts.keepWitnesses === true && test.quantifier === 'forall' ? 'all' : opts.keepWitnesses,
    speedcheck: opts.speedcheck,
    stopAfterPositive: opts.stopAfterPositive,
    checkEveryPrefix: opts.checkEveryPrefix,
  });
  const ms = performance.now() - t0;
  const show = (v: number) => formatValue(prog, v);
  const names = prog.observed.map(observedName);
  // herd lists registers (by thread, then name) before memory (by name).
  const order = names.map((_, i) => i).sort((a, b) => compareObs(prog, a, b));
  // One [name, value] pair per distinct binding, shared by the states that
  // have it (a test with 65,536 states of 16 registers has 32 of them).
  const pairs = order.map(() => new Map<number, [string, string]>());
  const pair = (j: number, v: number): [string, string] => {
    let p = pairs[j].get(v);
    if (!p) pairs[j].set(v, (p = [names[order[j]], show(v)]));
    return p;
  };
  const states: StateLine[] = ex.outcomes
    .map((o) => ({ raw: order.map((i) => o.values[i]), o }))
    .sort((a, b) => compareStates(prog, a.raw, b.raw))
    .map(({ raw, o }) => ({
      bindings: raw.map((v, j) => pair(j, v)),
      positive: o.positive,
      count: o.count,
    }));
  deadline.check('the summary');
  const p = ex.positive;
  const n = ex.negative;
  const observation: Observation = p === 0 ? 'Never' : n === 0 ? 'Always' : 'Sometimes';
  const q = test.quantifier;
  const ok = q === 'exists' ? p > 0 : q === 'forall' ? n === 0 : p === 0;
  const expected = test.result;
  const expectsDataRace = from.expectsDataRace ?? false;
  const verdict = expected === undefined ? undefined : judge({ expected, expectsDataRace, observation, executions: p + n, flags: ex.flags, flagsPartial: opts.speedcheck !== undefined });
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
    expectsDataRace,
    matches: verdict?.matches,
    judgement: verdict?.why,
    stats: { candidates: ex.candidates, pruned: ex.pruned, cutPaths: ex.cutPaths, ms },
    speedcheck: opts.speedcheck,
    program: prog,
    exploration: ex,
    liveness: livenessOf(prog, ex, opts.speedcheck !== undefined || opts.stopAfterPositive !== undefined),
  };
}

/** What an exploration says of the waits (undefined for a test without any, or read as herd7 reads it). */
export function livenessOf(prog: Program, ex: ExploreResult, stoppedEarly: boolean): Liveness | undefined {
  const l = ex.liveness;
  if (!l) return undefined;
  const hang = l.hang;
  if (!hang) {
    if (stoppedEarly) return { verdict: 'unknown', why: 'the search stopped once it had its answer', hangs: 0 };
    if (ex.cutPaths > 0) return { verdict: 'unknown', why: `paths of loops whose iterations change something were cut at --unroll ${prog.unroll}`, hangs: 0 };
    return { verdict: 'terminates', hangs: 0 };
  }
  // A thread at a loop or a lock first: a blocked grace period waits for one of those.
  const st = hang.threads.find((t) => t.kind !== 'grace-period') ?? hang.threads[0];
  const th = prog.threads[st.thread];
  const x = hang.exec;
  const out: Liveness = { verdict: 'hang', hangs: l.hangs, thread: st.thread, kind: st.kind, witness: hang };
  if (st.kind === 'loop') {
    out.pos = th.loops[st.loop].pos;
    out.reads = x.events
      .filter((e) => e.thread === st.thread && e.poIndex >= st.from && e.kind === 'R')
      .map((e) => ({ location: prog.locations[e.loc], value: formatValue(prog, e.value) }));
  } else {
    out.pos = (th.code[st.pc] as { pos?: Pos }).pos;
    if (st.kind === 'lock') {
      out.lock = prog.locations[st.loc];
      const co = x.co[st.loc];
      out.holder = co.length ? x.events[co[co.length - 1]].thread : -1;
    }
  }
  return out;
}

/** The liveness verdict in words, for the summary line: "can hang: P1 waits forever at line 12 (reads x=0 forever)", "every wait terminates". */
export function livenessWords(l: Liveness, where: (pos: Pos) => string = (p) => `line ${p.line}`): string {
  if (l.verdict === 'terminates') return 'every wait terminates';
  if (l.verdict === 'unknown') return `waits not decided (${l.why})`;
  const at = l.pos ? ` at ${where(l.pos)}` : '';
  const what =
    l.kind === 'loop' ? (l.reads!.length ? `reads ${l.reads!.map((r) => `${r.location}=${r.value}`).join(', ')} forever` : 'reads nothing: it never leaves')
    : l.kind === 'lock' ? `${l.lock} stays locked${l.holder !== undefined && l.holder >= 0 ? ` by P${l.holder}` : ''}`
    : 'its grace period waits for a read-side critical section that never ends';
  return `can hang: P${l.thread} waits forever${at} (${what})`;
}

export interface Judgement {
  matches: boolean;
  /** Why it does not match, or why a different verdict is forgiven. */
  why?: string;
}

/**
 * The kernel's judgelitmus.sh rules, in its order: a `DATARACE` in the
 * Result: line and a `data-race` flag go together; `DEADLOCK` means no
 * execution completes (and no completed execution is only right for
 * DEADLOCK); `Maybe` accepts any verdict; otherwise the word must be the
 * Observation, except that a flagged data race forgives a different one.
 * With flagsPartial (--speedcheck: not every execution was built), a data
 * race not found is not taken as absent: the Observation alone is judged.
 */
export function judge(r: { expected: string; expectsDataRace: boolean; observation: Observation; executions: number; flags: string[]; flagsPartial?: boolean }): Judgement {
  const raced = r.flags.includes('data-race');
  if (!raced && r.flagsPartial && r.executions > 0 && r.expected !== 'DEADLOCK') {
    // Whether some execution races is not known: the Observation alone is judged.
    const same = r.expected === r.observation || r.expected === 'Maybe';
    return { matches: same, why: `${same ? '' : `${r.observation}; `}judged on the Observation alone: --speedcheck does not look for data races` };
  }
  if (r.expectsDataRace && !raced) return { matches: false, why: 'Result: says DATARACE but no data race is flagged' };
  if (!r.expectsDataRace && raced) return { matches: false, why: 'a data race is flagged but Result: does not say DATARACE' };
  if (r.expected === 'DEADLOCK') {
    return r.executions === 0 ? { matches: true } : { matches: false, why: `${r.executions} executions complete` };
  }
  if (r.executions === 0) return { matches: false, why: 'no execution completes (a deadlock)' };
  if (r.expected === r.observation || r.expected === 'Maybe') return { matches: true };
  if (raced) return { matches: true, why: `${r.observation}, forgiven because of the data race` };
  return { matches: false };
}

/** A final state's line as herd7's block prints it (`1:r0=1; [x]=2;`), from an outcome's values (in prog.observed's order). */
export function stateLine(prog: Program, values: readonly number[]): string {
  const order = prog.observed.map((_, i) => i).sort((a, b) => compareObs(prog, a, b));
  return order.map((i) => {
    const o = prog.observed[i];
    return `${observedName(o)}=${formatValue(prog, values[i])};`;
  }).join(' ');
}

export function formatValue(prog: Program, v: number): string {
  if (isSymbolic(v)) return `S${v - SYM_BASE}`;
  const loc = locationOf(prog, v);
  // A variable is its name; an element or field of one, like an offset that is no location, is the offset from
  // the variable (herd7: `a+4`, `a+-2`).
  if (loc >= 0 && !/[[.]/.test(prog.locations[loc])) return prog.locations[loc];
  if (isAddress(v)) {
    const base = LOC_BASE + Math.round((v - LOC_BASE) / VAR_STRIDE) * VAR_STRIDE;
    const owner = locationOf(prog, base);
    if (owner >= 0) return `${prog.locations[owner].replace(/\[.*$|\..*$/, '')}+${v - base}`;
  }
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
  if (oa.kind === 'reg' || ob.kind === 'reg') return 0;
  // herd7: variables (by name), then elements (by variable, then place).
  const ea = /^[^[.]*/.exec(oa.name)![0];
  const eb = /^[^[.]*/.exec(ob.name)![0];
  const pa = ea !== oa.name;
  const pb = eb !== ob.name;
  if (pa !== pb) return pa ? 1 : -1;
  if (ea !== eb) return ea < eb ? -1 : 1;
  return prog.addresses[oa.loc] - prog.addresses[ob.loc];
}

/** herd's order of states: value by value, symbolic values first, then numbers, then addresses by name. */
function compareStates(prog: Program, a: number[], b: number[]): number {
  const rank = (v: number) => (isSymbolic(v) ? 0 : locationOf(prog, v) >= 0 ? 2 : 1);
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    const rx = rank(x);
    const ry = rank(y);
    if (rx !== ry) return rx - ry;
    if (rx === 2) return formatValue(prog, x) < formatValue(prog, y) ? -1 : 1;
    return x - y;
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
      // herd reads `a!=b` and `a<>b` as not (a=b), and prints it so.
      const atom = `${formatTerm(c.lhs, false)}=${formatTerm(c.rhs, true)}`;
      const s = c.negated ? `not (${atom})` : atom;
      return top ? `(${s})` : s;
    }
  }
}

function formatTerm(t: CondTerm, rhs: boolean): string {
  if (t.kind === 'num') return String(t.value);
  if (t.kind === 'reg') return `${t.thread}:${t.name}`;
  // herd7 prints an element without brackets (`a[1]=2`).
  return (rhs && !t.deref) || /[[.]/.test(t.name) ? t.name : `[${t.name}]`;
}
