// The state one exploration shares between its parts (scheduling, reads,
// writes, locks, coherence, prefix checks, outcomes): the event stack being
// built, each location's coherence order, each thread's registers, the
// reads that wait, and the counters of what was found. Every part takes it
// as its first argument; nothing lives in module-level variables.

import type { Event, LockKind } from '../events/event.js';
import { Deadline, limit, LIMITS } from '../limits.js';
import { prefixChecksFrom } from './prefix.js';
import type { Instr, PrimInstr, Program } from '../program/program.js';
import { StructureCache } from '../model/execution.js';
import type { ForbiddenSource, Model } from '../model/model.js';
import { computeDomain, type ValueDomain } from './domain.js';
import { newCoherenceScratch, type CoherenceScratch } from './coherence.js';
import { ConditionSearch, filterPrunes, stopsEarly } from './speedcheck.js';
import { witnessOrder, type WitnessOrder } from './likely.js';
import { Trail } from './trail.js';
import type { ExploreOptions, ForbiddenCandidate, Outcome } from './explorer.js';
import { graceMayBlock, hasWaits, type Hang } from './liveness.js';


/** Where a thread stands: its next instruction, registers and dependencies. */
export interface ThreadState {
  done: boolean;
  pc: number;
  regs: number[];
  /** Per register, the reads its value depends on (a bit per program-order position in the thread: see Event.addrDeps). */
  deps: bigint[];
  ctrl: bigint;
  /** Control dependencies saved at the start of each enclosing if/while. */
  ctrlStack: bigint[];
  /** Program-order index of the thread's next event. */
  po: number;
  /**
   * Where waits are read exactly (liveness.ts): NOT_STUCK, or the loop
   * (Thread.loops index) whose idle iteration the thread ended in, or
   * AT_GRACE_PERIOD, blocked at a synchronize_rcu()/synchronize_srcu() it
   * never gets past. A stuck thread is also done: it makes no more events.
   */
  stuck: number;
}

/** ThreadState.stuck of a thread that is not stuck. */
export const NOT_STUCK = -1;
/** ThreadState.stuck of a thread blocked at a grace period (liveness.ts). */
export const AT_GRACE_PERIOD = -2;

/** A thread stopped at a read whose write is still to come. */
export interface Waiting {
  t: number;
  r: Event;
  /** Goes on once r has its source (or a guessed value). */
  k: (r: Event) => void;
  /** Which writes r may read (lock reads are picky). */
  accept: (w: Event) => boolean;
  guessKind?: LockKind;
  ready: boolean;
}

/** What the exploration has found so far. */
export interface ExploreCounts {
  candidates: number;
  pruned: number;
  cutPaths: number;
  positive: number;
  negative: number;
  prefixChecks: number;
  prefixRejects: number;
  /** Executions in which some thread waits forever, judged by the model (liveness.ts), and how many it allowed. */
  stuck: number;
  hangs: number;
}

export interface ExploreState {
  readonly prog: Program;
  /** Per thread and instruction, whether it is a primitive (read at every step: instructions of different kinds have different object shapes). */
  readonly isPrim: readonly (readonly boolean[])[];
  readonly model: Model;
  readonly opts: ExploreOptions;
  readonly domain: ValueDomain;
  readonly deadline: Deadline;
  readonly maxExecutions: number;
  /** The event stack: the execution built so far, ids are indexes. */
  readonly events: Event[];
  /** Per location, the coherence order chosen so far (event ids). */
  readonly co: number[][];
  /** Per location, the accesses on the stack (event ids, in stack order). */
  readonly byLoc: number[][];
  /** Structures (and what models derive from them) shared by candidates with the same events. */
  readonly structures: StructureCache;
  /** Each thread's state, changed in place: resume restores what it changes on return, advance what runLocal changes (trail). */
  readonly ts: ThreadState[];
  /** What runLocal changed in thread states, for advance to undo (trail.ts). */
  readonly trail: Trail;
  readonly finalRegs: number[][];
  readonly waiting: Waiting[];
  /** Guessed reads (event ids) that a write still to come must match. */
  readonly pending: number[];
  /**
   * The lock writes of the critical sections each thread is in: each list
   * is replaced, never changed, so that events share it (Event.held).
   */
  readonly open: (readonly number[])[];
  /**
   * Prefix checks made since the last one that rejected, and checks skipped;
   * `from`: how many leaves (judged or pruned) the search reaches before the
   * first check (prefix.ts); `every`: none skipped (ExploreOptions.checkEveryPrefix).
   */
  prefix: { sinceReject: number; skipped: number; readonly from: number; readonly every: boolean };
  steps: number;
  readonly counts: ExploreCounts;
  readonly outcomes: Map<string, Outcome>;
  /** The outcome last counted (outcomes.ts). */
  lastOutcome?: Outcome;
  readonly flags: Set<string>;
  readonly rejectedBy: Map<string, number>;
  forbidden?: ForbiddenCandidate;
  readonly coherence: CoherenceScratch;
  /** Writes as instructions would make them, for Model.lockOrders before they run (reads.ts). */
  readonly writeProbes: Map<number, Event>;
  /** The condition-directed search, with the speedcheck option; else the filter's pruning (speedcheck.ts). */
  readonly search?: ConditionSearch;
  /** Where a search that stops early tries first (likely.ts); undefined for a count of every execution. */
  readonly order?: WitnessOrder;
  /**
   * Whether a branch may be dropped at any step of its path, earlier or
   * later than where it would otherwise be (reads.ts offer, prefix.ts
   * owe): no register-only step counts or flags anything (no loop bound,
   * no array index check).
   */
  readonly dropsAnywhere: boolean;
  /** The thread whose last choice still owes the model's prefix check, or -1 (prefix.ts owe). */
  owed: number;
  /** The model's test of a read's source at the read, where branches may be dropped anywhere (Model.forbiddenSources, prefix.ts sourceForbidden). */
  readonly forbiddenSource?: ForbiddenSource;
  /** Whether waits are judged for liveness: read exactly, in a program that has some (liveness.ts). */
  readonly liveness: boolean;
  /** Whether a thread may block at a grace period: another may wait forever inside a read-side critical section (liveness.ts). */
  readonly graceMayBlock: boolean;
  /** The first execution found in which a thread waits forever, and why (liveness.ts). */
  hang?: Hang;
  /** Model.latestReadKeepsConsistency for this program (reads.ts readFrom). */
  readonly latestRead: boolean;
}

export function newState(prog: Program, model: Model, opts: ExploreOptions): ExploreState {
  const nLoc = prog.locations.length;
  const deadline = opts.deadline ?? Deadline.after(opts.timeoutMs);
  const domain = computeDomain(prog, deadline);
  const dropsAnywhere = !prog.threads.some((th) => th.code.some((ins) => ins.op === 'loopcheck' || ins.op === 'bound'));
  const liveness = prog.waits === 'exact' && hasWaits(prog);
  return {
    prog,
    isPrim: prog.threads.map((th) => th.code.map((ins) => ins.op === 'prim')),
    model,
    opts,
    domain,
    deadline,
    maxExecutions: opts.maxExecutions ?? 1_000_000,
    events: [],
    co: Array.from({ length: nLoc }, () => []),
    byLoc: Array.from({ length: nLoc }, () => []),
    structures: new StructureCache(),
    ts: [],
    trail: new Trail(),
    finalRegs: [],
    waiting: [],
    pending: [],
    open: prog.threads.map(() => []),
    prefix: { sinceReject: 0, skipped: 0, from: opts.checkEveryPrefix ? 0 : prefixChecksFrom(prog), every: opts.checkEveryPrefix ?? false },
    steps: 0,
    counts: { candidates: 0, pruned: 0, cutPaths: 0, positive: 0, negative: 0, prefixChecks: 0, prefixRejects: 0, stuck: 0, hangs: 0 },
    outcomes: new Map(),
    lastOutcome: undefined,
    flags: new Set(),
    rejectedBy: new Map(),
    forbidden: undefined,
    coherence: newCoherenceScratch(),
    writeProbes: new Map(),
    // The filter's pruning would drop an execution in which a thread waits forever (it has no final state to filter).
    search: opts.speedcheck ? new ConditionSearch(prog, domain, opts.speedcheck)
      : filterPrunes(prog) && !liveness ? new ConditionSearch(prog, domain, 'filter') : undefined,
    order: stopsEarly(opts.speedcheck) ? witnessOrder(prog, domain, opts.speedcheck === 'reachable' || prog.final.quantifier !== 'forall') : undefined,
    dropsAnywhere,
    owed: -1,
    // The LKMM's forbidden sources assume each thread runs to its end, closing its read-side critical sections: one that waits forever does not.
    forbiddenSource: dropsAnywhere && !liveness ? model.forbiddenSources?.(prog) : undefined,
    liveness,
    graceMayBlock: liveness && graceMayBlock(prog),
    hang: undefined,
    latestRead: typeof model.latestReadKeepsConsistency === 'function' ? model.latestReadKeepsConsistency(prog) : model.latestReadKeepsConsistency === true,
  };
}

/**
 * Counts a branch dropped before its end. One function for every place
 * that drops one: V8 then knows the increment from the first of them, and
 * does not deoptimize a hot function whose own drop comes late.
 */
export function prune(s: ExploreState): void {
  s.counts.pruned++;
}

/** Stops the exploration once its time is up (checked every 1024 steps). */
export function tick(s: ExploreState): void {
  if ((++s.steps & 1023) === 0) s.deadline.check('the search');
}

/**
 * tick for register-only instructions (runLocal), which also bounds the
 * trail of their changes kept for undoing: a loop that runs long without
 * touching memory would otherwise grow it past the memory there is.
 */
export function tickLocal(s: ExploreState): void {
  if ((++s.steps & 1023) === 0) {
    s.deadline.check('the search');
    if (s.trail.length > LIMITS.localSteps) throw limit(`more than ${LIMITS.localSteps} register-only steps on one path of the search (a loop that runs long without touching memory)`);
  }
}

/** The fields of a new event that its primitive decides. */
export type EventFields = Pick<Event, 'kind' | 'loc' | 'value' | 'annot' | 'fence' | 'lock' | 'srcu'> &
  Partial<Pick<Event, 'isRmw' | 'addrDeps' | 'dataDeps'>> & { ins?: Instr };

/** Pushes a new event of `thread` (-1: an initial write) onto the stack. */
export function newEvent(s: ExploreState, thread: number, ts: ThreadState | null, f: EventFields): Event {
  const held = thread >= 0 && s.open[thread].length > 0 ? s.open[thread] : undefined;
  const e = eventRecord(s.events.length, thread, ts ? ts.po++ : -1, ts ? ts.pc : -1, ts ? ts.ctrl : 0n, held, f);
  s.events.push(e);
  if (e.loc >= 0 && e.kind !== 'F') s.byLoc[e.loc].push(e.id);
  return e;
}

/**
 * An event with every field set (one object shape for V8): the fields `f`
 * gives, and where it stands (its id, its thread and place in it, its
 * control dependencies and the critical sections it is in).
 */
export function eventRecord(id: number, thread: number, poIndex: number, pc: number, ctrlDeps: bigint, held: readonly number[] | undefined, f: EventFields): Event {
  const ins = f.ins as PrimInstr | undefined;
  return {
    id,
    thread,
    poIndex,
    kind: f.kind,
    loc: f.loc,
    value: f.value,
    annot: f.annot,
    fence: f.fence,
    lock: f.lock,
    srcu: f.srcu,
    isRmw: f.isRmw ?? false,
    rmwPartner: -1,
    addrDeps: f.addrDeps ?? 0n,
    dataDeps: f.dataDeps ?? 0n,
    ctrlDeps,
    rf: -1,
    pos: ins?.pos,
    text: ins?.name,
    pc,
    held,
    // Listed though unknown yet: every event then has one object shape for V8.
    shape: undefined,
  };
}

/** Pops e, the last event pushed. */
export function popEvent(s: ExploreState, e: Event): void {
  const last = s.events.pop();
  if (last !== e) throw new Error('explorer: event stack out of order');
  if (e.loc >= 0 && e.kind !== 'F') s.byLoc[e.loc].pop();
}

/** Runs k with a new event of thread t on the stack (then takes it off). */
export function withEvent(s: ExploreState, t: number, ts: ThreadState, f: EventFields, k: () => void): void {
  const saved = ts.po;
  const e = newEvent(s, t, ts, f);
  k();
  popEvent(s, e);
  ts.po = saved;
}

/** Removes list[i], moving the later elements down (splice, without the array of what it removed). */
export function removeAt<T>(list: T[], i: number): void {
  for (let j = i; j + 1 < list.length; j++) list[j] = list[j + 1];
  list.pop();
}

/** Inserts x at list[i], moving the later elements up (splice, without the array it returns). */
export function insertAt<T>(list: T[], i: number, x: T): void {
  list.push(x);
  for (let j = list.length - 1; j > i; j--) list[j] = list[j - 1];
  list[i] = x;
}
