// The explorer builds candidate executions one event at a time and asks the
// model about the complete ones (ARCHITECTURE.md has the overview). Its
// parts share one ExploreState (state.ts):
//
// - schedule.ts: the first thread that can go on runs its next primitive
//   (advance); execute.ts makes the events its Effect (the primitive
//   table) says.
// - reads.ts: a read takes each write that exists, or waits for one still
//   to come; a write is offered to the waiting reads (chooseSource, wait,
//   offer). guesses.ts: when every thread waits, the first waiting read
//   guesses a value that a later write must match (breakDeadlock,
//   matchPending), unless the model rules out a load-buffering cycle
//   (Model.mayCycleThrough).
// - writes.ts: a write takes each place in its location's coherence order
//   (placeInCo); locks.ts: a lock follows the unlock last in that order, or
//   waits (lock, attach), and critical sections order the accesses the
//   model says they order (Model.lockOrders).
// - Each choice is checked at once: coherence and atomicity at the location
//   (coherence.ts), and the model's axioms on the prefix (prefix.ts), which
//   only get worse as events and edges are added.
// - outcomes.ts: each complete candidate is judged and counted.
// - speedcheck.ts (with the speedcheck option): a partial execution whose
//   final condition can no longer come out a way the search looks for is
//   dropped, and the search stops once it has its answer. Without it, one
//   that the test's filter already rejects is dropped (it would not count).

import type { Execution } from '../model/execution.js';
import type { Model } from '../model/model.js';
import { addLocationAt, evalPure, isAddress, locationOf, pureRegs, unnamedAddressName, UnnamedAddress, type Program, type PureExpr } from '../program/program.js';
import { effectOf } from '../events/primitives.js';
import { fail } from '../parse/errors.js';
import { zeroAccessRefused } from './execute.js';
import { analyseValues } from './domain.js';
import { result } from './outcomes.js';
import { advance, initThread } from './schedule.js';
import { newEvent, newState } from './state.js';
import { SearchDone, type SpeedMode } from './speedcheck.js';
import { asLimit, isStackOverflow } from '../parse/errors.js';
import type { Deadline } from '../limits.js';
import type { LivenessResult } from './liveness.js';

export interface ExploreOptions {
  maxExecutions?: number;
  timeoutMs?: number;
  /** The check's deadline, when it started before the search (else timeoutMs from now). */
  deadline?: Deadline;
  /** Keep one witnessing execution per final state that satisfies the condition (for traces); 'all': per final state. */
  keepWitnesses?: boolean | 'all';
  /**
   * Build incoherent candidates too, leaving coherence and atomicity to the
   * model's final judgement (for finding forbidden candidates to explain);
   * a set: at those locations only (Model.judgesCoherence).
   */
  keepIncoherent?: boolean | ReadonlySet<number>;
  /** Stop once this many consistent executions satisfy the condition (herd7's -nshow N with -show prop). */
  stopAfterPositive?: number;
  /** Called with the forbidden candidate kept (see keepWitnesses); may throw to stop the exploration. */
  onForbidden?: (c: ForbiddenCandidate) => void;
  /** Condition-directed search instead of counting every execution (speedcheck.ts). */
  speedcheck?: SpeedMode;
  /** Prefix checks from the first choice on, none skipped (prefix.ts): for testing the pruning. */
  checkEveryPrefix?: boolean;
  /** Stop at the first execution in which a thread waits forever (liveness.ts). */
  stopAtHang?: boolean;
  /** Judge only executions in which a thread waits forever: no final state is counted (for fixes and audits of liveness). */
  livenessOnly?: boolean;
}

/** A candidate that satisfies the condition but that the model forbids, and why. */
export interface ForbiddenCandidate {
  exec: Execution;
  axiom: string;
  /** The values of Program.observed, in order. */
  values: number[];
}

export interface Outcome {
  /** The values of Program.observed, in order. */
  values: number[];
  positive: boolean;
  count: number;
  witness?: Execution;
}

export interface ExploreResult {
  outcomes: Outcome[];
  positive: number;
  negative: number;
  flags: string[];
  /** Complete candidate executions judged by the model. */
  candidates: number;
  /** Partial executions dropped early (incoherent or unmatched guesses). */
  pruned: number;
  /** Paths cut by the loop unrolling bound. */
  cutPaths: number;
  /** Partial executions shown to the model, and how many it rejected. */
  prefixChecks: number;
  prefixRejects: number;
  /** Complete executions rejected, by the axiom the model named (one they break, not always the first). */
  rejectedBy: Map<string, number>;
  /** The first rejected execution found that satisfies the condition (kept with keepWitnesses). */
  forbiddenWitness?: ForbiddenCandidate;
  /** Where waits are read exactly and the program has some: the executions in which a thread waits forever (liveness.ts). */
  liveness?: LivenessResult;
}

/**
 * Every execution of the program under the model. An access that reaches an
 * address no variable declares (`y + 1`) names it as a location of the
 * program (herd7's reading, addLocationAt), and the search starts again.
 */
export function explore(prog: Program, model: Model, opts: ExploreOptions = {}): ExploreResult {
  refuseUnwritableUnnamedReads(prog);
  if (opts.speedcheck !== undefined && opts.speedcheck !== 'reachable') {
    refuseZeroWrites(prog);
    // A write at an address a read computes may be at 0 in a candidate the early stop never builds, which herd7
    // refuses: the whole search first (rare: only where the value analysis finds such a write), for its refusals.
    if (writesAtComputedAddress(prog) && analyseValues(prog).mayWriteZero) {
      explore(prog, model, { ...opts, speedcheck: undefined, keepWitnesses: false, stopAfterPositive: undefined, onForbidden: undefined });
    }
  }
  for (;;) {
    try {
      return exploreOnce(prog, model, opts);
    } catch (e) {
      if (!(e instanceof UnnamedAddress)) throw e;
      addLocationAt(prog, e.address, e.pos);
    }
  }
}

/**
 * herd7 refuses a test with a read, at an address no variable declares,
 * that no write of the test may give a value ("mixed-size test rejected"),
 * before looking at any execution: a read whose address the code fixes,
 * with no write anywhere at that address and none at an address the code
 * computes, is refused here, whatever a search that stops early (a
 * condition decided before the read is reached) builds. One with writes
 * that no execution reaching it has is refused where the search meets it
 * (guesses.ts noInitReadUnmatched).
 */
function refuseUnwritableUnnamedReads(prog: Program): void {
  const fixedAddress = (th: Program['threads'][number], e: PureExpr): number | undefined =>
    pureRegs(e).every((r) => th.paramRegs.includes(r)) ? evalPure(e, th.initRegs) : undefined;
  const writes: (number | undefined)[] = [];
  for (const th of prog.threads) {
    for (const ins of th.code) if (ins.op === 'prim' && effectOf(ins.prim).object === 'memory' && effectOf(ins.prim).writes) writes.push(fixedAddress(th, ins.addr));
  }
  if (writes.includes(undefined)) return;
  for (const th of prog.threads) {
    for (const ins of th.code) {
      if (ins.op !== 'prim' || effectOf(ins.prim).object !== 'memory' || !effectOf(ins.prim).reads) continue;
      const v = fixedAddress(th, ins.addr);
      if (v === undefined || v === 0 || !isAddress(v) || locationOf(prog, v) >= 0 || writes.includes(v)) continue;
      const name = unnamedAddressName(prog, v);
      if (name === undefined) continue;
      fail(`this reads ${name}, an address no variable declares, and no write of the test can give it a value: herd7 refuses the test ("mixed-size test rejected (symbol [${name}])")`, ins.pos);
    }
  }
}

/**
 * A search that stops early (-speedcheck) may decide the condition before
 * it reaches a write at address 0 (through a name the process does not
 * declare), which herd7 refuses on every candidate it solves, condition or
 * not ("Non-symbolic memory access found on '[0]'"): such a write, at an
 * address no register the thread assigns can change, is refused before
 * searching. (An exhaustive search refuses it where it gets there: execute.ts.)
 */
function refuseZeroWrites(prog: Program): void {
  prog.threads.forEach((th, t) => {
    const assigned = new Set<number>();
    for (const ins of th.code) if ((ins.op === 'set' || ins.op === 'prim') && ins.dst >= 0) assigned.add(ins.dst);
    for (const ins of th.code) {
      if (ins.op !== 'prim') continue;
      const e = effectOf(ins.prim);
      if (e.reads || !(e.object === 'memory' || (e.object === 'srcu' && e.shape !== 'fence'))) continue;
      if (pureRegs(ins.addr).some((r) => assigned.has(r)) || evalPure(ins.addr, th.initRegs) !== 0) continue;
      zeroAccessRefused(prog, t, ins);
    }
  });
}

/** Whether some write's (or SRCU access's) address depends on a register the thread assigns. */
function writesAtComputedAddress(prog: Program): boolean {
  return prog.threads.some((th) => {
    const assigned = new Set<number>();
    for (const ins of th.code) if ((ins.op === 'set' || ins.op === 'prim') && ins.dst >= 0) assigned.add(ins.dst);
    return th.code.some((ins) => {
      if (ins.op !== 'prim') return false;
      const e = effectOf(ins.prim);
      return !e.reads && (e.object === 'memory' || (e.object === 'srcu' && e.shape !== 'fence')) && pureRegs(ins.addr).some((r) => assigned.has(r));
    });
  });
}

function exploreOnce(prog: Program, model: Model, given: ExploreOptions): ExploreResult {
  const judged = given.keepIncoherent === true ? true : (model.judgesCoherence?.(prog) ?? false);
  const opts = judged === false ? given : { ...given, keepIncoherent: judged };
  const s = newState(prog, model, opts);
  prog.locations.forEach((_, loc) => {
    const e = newEvent(s, -1, null, { kind: 'W', loc, value: prog.initValues[loc], annot: 'ONCE' });
    s.co[loc].push(e.id);
  });
  prog.threads.forEach((_, t) => s.ts.push(initThread(s, t)));
  try {
    advance(s, 'all');
  } catch (e) {
    // Out of stack: a limit, at the instruction of the deepest event built.
    if (isStackOverflow(e)) throw asLimit(e, s.events[s.events.length - 1]?.pos);
    if (!(e instanceof SearchDone)) throw e;
  }
  return result(s);
}
