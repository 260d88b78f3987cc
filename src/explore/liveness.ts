// Waits, and whether one can go on forever. Where waits are read exactly
// (src/program/program.ts, WaitReading), a loop iteration that comes back
// to its head having changed nothing (an idle iteration: it only re-read
// memory) ends its path: the thread is stuck there, re-running that same
// iteration against whatever memory holds. A spin_lock() whose lock stays
// held, and a synchronize_rcu() or synchronize_srcu() whose grace period
// waits for a read-side critical section that never ends, stop a thread
// the same way.
//
// Under fair scheduling every write eventually reaches every CPU, so a
// waiter that keeps re-reading eventually reads the last write in
// coherence order of each location it reads. A thread can therefore wait
// forever iff some execution the model allows has every other thread
// finished or stuck, and each stuck thread's final pass reads the
// coherence-last writes and still goes round (a lock: the last write to
// the lock is a lock write, never unlocked; a grace period: some stuck
// thread is inside a read-side critical section it would wait for). That
// is the await reduction of GenMC's and Dat3M's liveness checks, made here
// on the explorer's own executions: judgeStuck builds the stuck execution
// and asks the model about it; nothing of it is counted in the final
// states. The model is asked only through Model.check, so this holds under
// every model.

import type { Event } from '../events/event.js';
import { effectOf } from '../events/primitives.js';
import type { Execution } from '../model/execution.js';
import { accessedLocation, evalPure, type PrimInstr, type Program } from '../program/program.js';
import { LimitError } from '../parse/errors.js';
import { snapshot } from './outcomes.js';
import { advance } from './schedule.js';
import { SearchDone } from './speedcheck.js';
import { AT_GRACE_PERIOD, NOT_STUCK, prune, type ExploreState, type ThreadState, type Waiting } from './state.js';

/** How a thread waits forever: in a loop's idle iteration, at a held lock, at a grace period. */
export type StuckKind = 'loop' | 'lock' | 'grace-period';

export interface StuckThread {
  thread: number;
  kind: StuckKind;
  /** The instruction it is stuck at: its loop's back jump, the spin_lock(), the synchronize_rcu(). */
  pc: number;
  /** For a loop: the thread's Thread.loops index. */
  loop: number;
  /** For a loop: where its final iteration starts in the thread's program order (its events from there on are that iteration's). */
  from: number;
  /** For a lock: the lock's location. */
  loc: number;
}

/** An execution in which some thread waits forever, as the model allows it. */
export interface Hang {
  /** The execution (without the lock operations that never complete). */
  exec: Execution;
  /** The threads that wait forever in it (the others have finished). */
  threads: StuckThread[];
}

/** What the exploration found about waits. */
export interface LivenessResult {
  /** Executions in which some thread waits forever, judged (stuck) and allowed by the model (hangs). */
  stuck: number;
  hangs: number;
  hang?: Hang;
}

/** Whether a program has waits: a loop (read exactly: Program.waits) or a spin_lock(). */
export function hasWaits(prog: Program): boolean {
  return prog.threads.some((th) => th.loops.length > 0 || th.code.some((ins) => ins.op === 'prim' && effectOf(ins.prim).shape === 'lock'));
}

/** Whether an instruction is a grace period: synchronize_rcu() or synchronize_srcu(). */
function isGracePeriod(ins: PrimInstr): boolean {
  const e = effectOf(ins.prim);
  return e.fence === 'sync-rcu' || e.srcu === 'sync-srcu';
}

/**
 * Whether a thread may block at a grace period forever: the program has a
 * grace period, and some thread has a wait (a loop, a lock, a grace
 * period) after a read-side lock in its code. (A cheap test of the code:
 * where it fails, no grace period is ever tried blocked.)
 */
export function graceMayBlock(prog: Program): boolean {
  const grace = prog.threads.some((th) => th.code.some((ins) => ins.op === 'prim' && isGracePeriod(ins)));
  if (!grace) return false;
  return prog.threads.some((th) => {
    const first = th.code.findIndex((ins) => ins.op === 'prim' && (effectOf(ins.prim).fence === 'rcu-lock' || effectOf(ins.prim).srcu === 'srcu-lock'));
    if (first < 0) return false;
    return th.code.some((ins, pc) => pc > first && (ins.op === 'head' || (ins.op === 'prim' && (effectOf(ins.prim).shape === 'lock' || isGracePeriod(ins)))));
  });
}

/** Whether some thread is stuck (ThreadState.stuck). */
export function anyStuck(s: ExploreState): boolean {
  for (const ts of s.ts) if (ts.stuck !== NOT_STUCK) return true;
  return false;
}

/** A loop's head: notes the program-order index and the live registers the iteration starts from (LoopInfo). */
export function noteHead(s: ExploreState, u: number, ts: ThreadState, loop: number): void {
  const L = s.prog.threads[u].loops[loop];
  s.trail.register(ts, L.mark);
  ts.regs[L.mark] = ts.po;
  for (let i = 0; i < L.live.length; i++) {
    s.trail.register(ts, L.shadows[i]);
    ts.regs[L.shadows[i]] = ts.regs[L.live[i]];
  }
}

/**
 * A loop's back jump: 'stuck' after an idle iteration whose reads still
 * read the last writes (the thread ends there, waiting), 'drop' after an
 * idle one that read an older write (it can never be the final pass: a
 * write after it exists), else 'on' (the loop's own check bounds it).
 */
export function backJump(s: ExploreState, u: number, ts: ThreadState, loop: number): 'on' | 'stuck' | 'drop' {
  if (!idleIteration(s, u, ts, loop)) return 'on';
  if (!readsLatest(s, u, ts.regs[s.prog.threads[u].loops[loop].mark])) {
    prune(s);
    return 'drop';
  }
  ts.done = true;
  ts.stuck = loop;
  return 'stuck';
}

/**
 * Whether thread u's iteration of loop `loop`, now at its back jump,
 * changed nothing: its live registers hold what they held at the head, and
 * its events are reads (a failed RMW, trylock or spin_is_locked() too) and
 * fences other than grace periods, RCU read-side locks and unlocks
 * balanced (no write, no lock taken or released, no SRCU operation).
 */
function idleIteration(s: ExploreState, u: number, ts: ThreadState, loop: number): boolean {
  const L = s.prog.threads[u].loops[loop];
  for (let i = 0; i < L.live.length; i++) if (ts.regs[L.live[i]] !== ts.regs[L.shadows[i]]) return false;
  const from = ts.regs[L.mark];
  if (ts.po === from) return true;
  let sections = 0;
  for (let i = s.events.length - 1; i >= 0; i--) {
    const e = s.events[i];
    if (e.thread !== u) continue;
    if (e.poIndex < from) break;
    if (!idleEvent(e)) return false;
    if (e.fence === 'rcu-lock') sections++;
    else if (e.fence === 'rcu-unlock') sections--;
  }
  return sections === 0;
}

/** An event an idle iteration may make. */
function idleEvent(e: Event): boolean {
  if (e.srcu !== undefined) return false;
  if (e.kind === 'R') return e.lock === undefined || e.lock === 'LF' || e.lock === 'RL' || e.lock === 'RU';
  return e.kind === 'F' && e.fence !== 'sync-rcu';
}

/** Thread u's reads from program-order index `from` on, each read of the last write of its location so far (a read not yet given its source passes). */
function readsLatest(s: ExploreState, u: number, from: number): boolean {
  for (let i = s.events.length - 1; i >= 0; i--) {
    const e = s.events[i];
    if (e.thread !== u) continue;
    if (e.poIndex < from) break;
    if (e.kind !== 'R' || e.rf < 0) continue;
    const co = s.co[e.loc];
    if (co[co.length - 1] !== e.rf) return false;
  }
  return true;
}

/**
 * Whether a write placed at index `at` of loc's coherence order would come
 * after the source of a read of a stuck thread's final iteration (which
 * must stay the last write: backJump). Asked only where liveness is judged.
 */
export function breaksStuckWait(s: ExploreState, loc: number, at: number): boolean {
  for (let t = 0; t < s.ts.length; t++) {
    const ts = s.ts[t];
    if (ts.stuck < 0) continue;
    const from = ts.regs[s.prog.threads[t].loops[ts.stuck].mark];
    for (let i = s.events.length - 1; i >= 0; i--) {
      const e = s.events[i];
      if (e.thread !== t) continue;
      if (e.poIndex < from) break;
      if (e.kind === 'R' && e.loc === loc && e.rf >= 0 && s.co[loc].indexOf(e.rf) < at) return true;
    }
  }
  return false;
}

/** Whether a waiting lock read's lock is held and may stay so: the last write to it is a lock write. */
export function lockHeld(s: ExploreState, loc: number): boolean {
  const co = s.co[loc];
  return s.events[co[co.length - 1]].lock === 'LKW';
}

/**
 * Whether a lock read is a spin_lock()'s, which waits (a spin_trylock()
 * that succeeds is a lock too, but never waits: where it cannot be placed
 * it fails, another branch).
 */
export function spinLockRead(s: ExploreState, r: Event): boolean {
  return r.lock === 'LKR' && effectOf((s.prog.threads[r.thread].code[r.pc] as PrimInstr).prim).shape === 'lock';
}

/**
 * A thread (ts) blocks at the grace period it is at, forever: the other threads
 * go on without it. (judgeStuck keeps the execution only if a thread waits
 * forever inside a read-side critical section that grace period waits for.)
 */
export function blockAtGracePeriod(s: ExploreState, ts: ThreadState, ins: PrimInstr): void {
  if (!s.graceMayBlock || !isGracePeriod(ins)) return;
  ts.done = true;
  ts.stuck = AT_GRACE_PERIOD;
  try {
    advance(s);
  } finally {
    ts.done = false;
    ts.stuck = NOT_STUCK;
  }
}

/** A whole execution, judged: as in outcomes.ts, an inconsistent one's verdict may name any axiom. */
const ANY_AXIOM = { anyAxiom: true } as const;

/**
 * Every thread has finished or waits forever (stuck in an idle iteration,
 * at a held lock, at a grace period), and at least one waits. The
 * execution counts as a hang if each stuck iteration read the last writes,
 * each held lock's last write is a lock write, each blocked grace period
 * waits for a read-side critical section that a waiting thread is inside,
 * and the model allows it. No final state is counted for it.
 */
export function judgeStuck(s: ExploreState): void {
  if (s.pending.length > 0) return prune(s);
  const threads: StuckThread[] = [];
  const locked: Waiting[] = [];
  for (let t = 0; t < s.ts.length; t++) {
    const ts = s.ts[t];
    if (ts.stuck >= 0) {
      const from = ts.regs[s.prog.threads[t].loops[ts.stuck].mark];
      if (!readsLatest(s, t, from)) return prune(s);
      threads.push({ thread: t, kind: 'loop', pc: ts.pc, loop: ts.stuck, from, loc: -1 });
    } else if (ts.stuck === AT_GRACE_PERIOD) {
      threads.push({ thread: t, kind: 'grace-period', pc: ts.pc, loop: -1, from: -1, loc: graceLocation(s, ts, t) });
    } else if (!ts.done) {
      const b = s.waiting.find((w) => w.t === t);
      if (!b || b.ready || !spinLockRead(s, b.r) || !lockHeld(s, b.r.loc)) return prune(s);
      locked.push(b);
      threads.push({ thread: t, kind: 'lock', pc: ts.pc, loop: -1, from: -1, loc: b.r.loc });
    }
  }
  for (const g of threads) {
    if (g.kind === 'grace-period' && !threads.some((o) => insideSection(s, o.thread, g.loc))) return prune(s);
  }
  const c = s.counts;
  if (c.candidates + c.stuck >= s.maxExecutions) throw new LimitError(`more than ${s.maxExecutions} candidate executions (--max-executions)`);
  c.stuck++;
  const exec = stuckExecution(s, locked);
  if (!s.model.check(exec, ANY_AXIOM).consistent) return;
  c.hangs++;
  s.hang ??= { exec: snapshot(exec), threads };
  if (s.opts.stopAtHang) throw new SearchDone();
}

/** The srcu_struct a grace period of thread t waits for (its location), or -1 for RCU's. */
function graceLocation(s: ExploreState, ts: ThreadState, t: number): number {
  const ins = s.prog.threads[t].code[ts.pc] as PrimInstr;
  if (effectOf(ins.prim).srcu !== 'sync-srcu') return -1;
  return accessedLocation(s.prog, evalPure(ins.addr, ts.regs));
}

/** Whether thread t's events leave it inside a read-side critical section: RCU's (loc -1), or SRCU's of srcu_struct loc. */
function insideSection(s: ExploreState, t: number, loc: number): boolean {
  let depth = 0;
  for (const e of s.events) {
    if (e.thread !== t) continue;
    if (loc < 0) depth += e.fence === 'rcu-lock' ? 1 : e.fence === 'rcu-unlock' ? -1 : 0;
    else if (e.loc === loc) depth += e.srcu === 'srcu-lock' ? 1 : e.srcu === 'srcu-unlock' ? -1 : 0;
  }
  return depth > 0;
}

/**
 * The stuck execution as the model sees it: the events built, without the
 * lock and lock-write pairs of the spin_lock()s that never complete (each
 * the last events of its thread), renumbered.
 */
function stuckExecution(s: ExploreState, locked: readonly Waiting[]): Execution {
  if (locked.length === 0) return s.structures.execution(s.prog, s.events, s.co);
  const drop = new Set<number>();
  for (const b of locked) drop.add(b.r.id).add(b.r.rmwPartner);
  const newId = new Array<number>(s.events.length).fill(-1);
  let k = 0;
  for (const e of s.events) if (!drop.has(e.id)) newId[e.id] = k++;
  const map = (id: number) => (id >= 0 ? newId[id] : -1);
  const events: Event[] = s.events
    .filter((e) => !drop.has(e.id))
    .map((e) => ({ ...e, id: newId[e.id], rf: map(e.rf), rmwPartner: map(e.rmwPartner), held: e.held?.map(map) }));
  const co = s.co.map((l) => l.filter((id) => !drop.has(id)).map(map));
  return s.structures.execution(s.prog, events, co);
}
