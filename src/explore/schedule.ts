// Scheduling: which thread goes on next, and running the register-only
// instructions between primitives. The choice depends on the state alone,
// so each execution is built exactly once.

import { evalPure, INDEX_FLAG, isSymbolic, type PrimInstr, type PureExpr } from '../program/program.js';
import { execPrim } from './execute.js';
import { breakDeadlock, pendingStillPossible } from './guesses.js';
import { finish } from './outcomes.js';
import { paysOwed } from './prefix.js';
import { insertAt, NOT_STUCK, prune, removeAt, tick, tickLocal, type ExploreState, type ThreadState } from './state.js';
import { anyStuck, backJump, judgeStuck, noteHead } from './liveness.js';

export function initThread(s: ExploreState, t: number): ThreadState {
  const th = s.prog.threads[t];
  return { done: false, pc: 0, regs: th.initRegs.slice(), deps: th.initRegs.map(() => 0n), ctrl: 0n, ctrlStack: [], po: 0, stuck: NOT_STUCK };
}

/**
 * One step of the exploration. Every thread first runs its register-only
 * instructions. Then the first thread that is neither finished nor waiting
 * (or whose waiting read has been given a write) executes its next
 * primitive. When every unfinished thread waits, a read guesses its value
 * (breakDeadlock); when all have finished, the execution is judged.
 *
 * Every step leaves each thread finished or at a primitive, and a thread
 * moves on only by resume, which takes the next step at once: so only
 * `moved`, the thread resume moved (none when a read starts waiting; every
 * thread at the first step), can have register-only instructions to run.
 */
export function advance(s: ExploreState, moved: number | 'all' = -1): void {
  tick(s);
  const threads = s.prog.threads;
  const T = threads.length;
  // runLocal changes thread states in place; they are restored on return
  // (and so is the check owed, prefix.ts).
  const mark = s.trail.length;
  const owed = s.owed;
  try {
    if (moved === 'all') {
      for (let u = 0; u < T; u++) if (!settle(s, u)) return;
    } else if (moved >= 0 && !settle(s, moved)) return;
    // (A thread that waits forever has no final state: the condition cannot drop its execution.)
    if (!pendingStillPossible(s) || (s.search?.cannotMatter(s.ts, s.co, s.events) && !(s.liveness && anyStuck(s)))) {
      prune(s);
      return;
    }
    // The first thread that can go on: not finished, and not waiting
    // (or waiting with its read now satisfied).
    let unfinished = false;
    for (let u = 0; u < T; u++) {
      if (s.ts[u].done) continue;
      unfinished = true;
      const wi = waitingOf(s, u);
      if (wi < 0) {
        if (!paysOwed(s, u, false)) return prune(s);
        const ts = s.ts[u];
        execPrim(s, u, ts, threads[u].code[ts.pc] as PrimInstr);
        return;
      }
      const b = s.waiting[wi];
      if (!b.ready) continue;
      if (!paysOwed(s, u, true)) return prune(s);
      removeAt(s.waiting, wi);
      b.k(b.r);
      insertAt(s.waiting, wi, b);
      return;
    }
    if (!unfinished) {
      if (s.liveness && anyStuck(s)) judgeStuck(s);
      else finish(s);
    } else if (paysOwed(s, -1, false)) breakDeadlock(s);
    else prune(s);
  } finally {
    s.trail.undoTo(mark);
    s.owed = owed;
  }
}


/** Runs thread u's register-only instructions, if it is at one; false if the path is cut. */
function settle(s: ExploreState, u: number): boolean {
  const ts = s.ts[u];
  return ts.done || s.isPrim[u][ts.pc] || runLocal(s, u, ts);
}

/** The index in s.waiting of thread u's waiting read, or -1. */
function waitingOf(s: ExploreState, u: number): number {
  for (let i = 0; i < s.waiting.length; i++) if (s.waiting[i].t === u) return i;
  return -1;
}

/** Runs thread u's register-only instructions (recorded in s.trail); false if the path is cut. */
function runLocal(s: ExploreState, u: number, ts: ThreadState): boolean {
  const code = s.prog.threads[u].code;
  s.trail.start(ts);
  for (;;) {
    tickLocal(s);
    if (ts.pc >= code.length) {
      ts.done = true;
      s.finalRegs[u] = ts.regs;
      return true;
    }
    const ins = code[ts.pc];
    switch (ins.op) {
      case 'set':
        if (ins.e.k !== 'reg' && usesSymbol(ins.e, ts)) return dropSymbolic(s);
        s.trail.register(ts, ins.dst);
        ts.regs[ins.dst] = evalPure(ins.e, ts.regs);
        ts.deps[ins.dst] = depsOf(ins.e, ts);
        ts.pc++;
        break;
      case 'jump':
        if (ins.loop !== undefined) {
          // The back jump of a loop where waits are read exactly: an idle iteration ends the path (liveness.ts).
          const go = backJump(s, u, ts, ins.loop);
          if (go !== 'on') return go === 'stuck';
        }
        ts.pc = ins.target;
        break;
      case 'head':
        noteHead(s, u, ts, ins.loop);
        ts.pc++;
        break;
      case 'branch': {
        if (usesSymbol(ins.cond, ts)) return dropSymbolic(s);
        const c = evalPure(ins.cond, ts.regs);
        if (!ins.nodep) ts.ctrl = unionOfDeps(ts.ctrl, depsOf(ins.cond, ts));
        ts.pc = c !== 0 ? ts.pc + 1 : ins.ifFalse;
        break;
      }
      case 'loopcheck':
        if (ts.regs[ins.counter] >= ins.bound) {
          s.counts.cutPaths++;
          return false;
        }
        ts.pc++;
        break;
      case 'bound': {
        if (usesSymbol(ins.index, ts)) return dropSymbolic(s);
        const i = evalPure(ins.index, ts.regs);
        if (i < 0 || i >= ins.size) {
          // Flagged unless a guess still to be matched chose the index (such a branch may never complete).
          if (s.pending.length === 0) s.flags.add(INDEX_FLAG);
          prune(s);
          return false;
        }
        ts.pc++;
        break;
      }
      case 'ctrlpush':
        s.trail.pushed(ts);
        ts.ctrlStack.push(ts.ctrl);
        ts.pc++;
        break;
      case 'ctrlpop':
        if (ts.ctrlStack.length > 0) s.trail.popped(ts, ts.ctrlStack[ts.ctrlStack.length - 1]);
        ts.ctrl = ts.ctrlStack.pop() ?? 0n;
        ts.pc++;
        break;
      case 'prim':
        return true;
    }
  }
}

/**
 * Continues thread t after an instruction that produced `value` (with deps)
 * in register dst. ts, the thread's state (s.ts[t]), is changed in place and
 * restored on return.
 */
export function resume(s: ExploreState, t: number, ts: ThreadState, dst: number, value: number, deps: bigint): void {
  const oldValue = dst >= 0 ? ts.regs[dst] : 0;
  const oldDeps = dst >= 0 ? ts.deps[dst] : 0n;
  if (dst >= 0) {
    ts.regs[dst] = value;
    ts.deps[dst] = deps;
  }
  ts.pc++;
  try {
    advance(s, t);
  } finally {
    ts.pc--;
    if (dst >= 0) {
      ts.regs[dst] = oldValue;
      ts.deps[dst] = oldDeps;
    }
  }
}

/** Whether e reads a register that holds a symbolic value. */
export function usesSymbol(e: PureExpr, ts: ThreadState): boolean {
  switch (e.k) {
    case 'reg':
      return isSymbolic(ts.regs[e.r]);
    case 'un':
      return usesSymbol(e.a, ts);
    case 'bin':
      return usesSymbol(e.a, ts) || usesSymbol(e.b, ts);
    default:
      return false;
  }
}

/**
 * A symbolic value (see breakDeadlock) used in a computation, a branch or
 * a comparison: herd's equation for it stays unsolved, and it drops the
 * candidate. Copies are the only use that keeps it.
 */
export function dropSymbolic(s: ExploreState): false {
  prune(s);
  return false;
}

/** The reads the value of e depends on. */
export function depsOf(e: PureExpr, ts: ThreadState): bigint {
  switch (e.k) {
    case 'reg':
      return ts.deps[e.r];
    case 'un':
      return depsOf(e.a, ts);
    case 'bin':
      return unionOfDeps(depsOf(e.a, ts), depsOf(e.b, ts));
    default:
      return 0n;
  }
}

/** a | b, without making a new bigint when either is empty (the common case). */
export function unionOfDeps(a: bigint, b: bigint): bigint {
  return b === 0n ? a : a === 0n ? b : a | b;
}
