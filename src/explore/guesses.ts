// Waiting reads that no write can satisfy yet: when every unfinished thread
// waits, the first waiting read guesses a value that a later write must
// match (load buffering). As in herd's equation solving, a guess is matched
// only by a write whose value does not come from the guess itself; a cycle
// of plain copies is instead matched by a symbolic guess (SYM_BASE...),
// which herd leaves unsolved: it equals no constant, and any computation on
// it drops the execution. No guess is made where no load-buffering cycle is
// possible (Model.mayCycleThrough).

import type { Event, LockKind } from '../events/event.js';
import type { WaitingRead } from '../model/model.js';
import { addressOf, evalPure, isSymbolic, pureRegs, SYM_BASE, zeroReadMessage, type PrimInstr, type Thread } from '../program/program.js';
import { effectOf } from '../events/primitives.js';
import { fail } from '../parse/errors.js';
import { coherentRead } from './coherence.js';
import { prefixConsistent } from './prefix.js';
import { othersMayWrite } from './reads.js';
import { prune, type ExploreState } from './state.js';
import { judgeStuck, lockHeld, spinLockRead } from './liveness.js';

/**
 * Every unfinished thread waits for a write that only a waiting thread can
 * make: some read takes its value from a write still to come (a
 * load-buffering cycle). The first waiting read guesses that value; a
 * later write must match it (matchPending).
 */
export function breakDeadlock(s: ExploreState): void {
  // A read of a location without initial write (address 0, an address no variable declares) is judged once
  // every other thread is done (noInitReadUnmatched); until then it guesses nothing.
  const atZero = (b: { r: Event }) => !b.r.lock && (b.r.loc === s.prog.zeroLocation || b.r.loc >= s.prog.unnamedFrom);
  const zeroRead = s.waiting.find(atZero);
  if (zeroRead && s.ts.every((ts, u) => ts.done || s.waiting.some((b) => b.t === u && atZero(b)))) {
    noInitReadUnmatched(s, zeroRead.t, zeroRead.r);
    return;
  }
  // Only locks wait, and none can be taken any more: the threads at them may wait forever (liveness.ts).
  if (s.liveness && s.waiting.every((b) => b.r.lock === 'LKR')) {
    judgeStuck(s);
    return;
  }
  if (noCycleThrough(s)) {
    prune(s);
    return;
  }
  const i = s.waiting.findIndex((b) => !b.ready && b.r.lock !== 'LKR' && !atZero(b));
  if (i < 0) {
    prune(s); // only locks wait: a deadlock
    return;
  }
  const b = s.waiting[i];
  s.waiting.splice(i, 1);
  const values = guessableValues(s, b.t, b.r.loc, b.guessKind);
  // Besides the values other threads may write, symbolic ones: herd keeps
  // a cycle of plain copies with its value left unsolved. The read may
  // copy a symbolic value already guessed (the same unsolved variable,
  // when several reads of the cycle wait), or start a new one.
  if (!b.guessKind) {
    const symbols = new Set<number>();
    for (const e of s.events) if (isSymbolic(e.value)) symbols.add(e.value);
    symbols.add(SYM_BASE + b.t * 1000 + b.r.poIndex);
    values.push(...[...symbols].sort((x, y) => x - y));
  }
  for (const v of values) {
    b.r.value = v;
    s.pending.push(b.r.id);
    b.k(b.r);
    s.pending.pop();
  }
  b.r.value = 0;
  s.waiting.splice(i, 0, b);
}

/**
 * A read of a location herd7 gives no initial write that no write can
 * satisfy. At address 0 (through a name its process does not declare):
 * herd7 gives such a read the writes whose address it has not determined
 * yet as its possible sources, and refuses the test when there is none
 * ("Non symbolic location with no initial write"); with one, the execution
 * is unsolvable (a write at 0 itself is refused), and so it is no
 * execution. At an address no variable declares (`a+1`): herd7 refuses the
 * test when the read has no write at all to read from in the execution's
 * events (not its own thread's later ones), none there and none at an
 * address computed from a read ("mixed-size test rejected"); with one it
 * could not take, this is no execution.
 */
export function noInitReadUnmatched(s: ExploreState, t: number, r: Event): void {
  const computedWrite = s.events.some((w) => w.kind === 'W' && w.thread >= 0 && w.id !== r.id && w.addrDeps !== 0n);
  const unnamed = r.loc !== s.prog.zeroLocation;
  const written = unnamed && s.events.some((w) => w.kind === 'W' && w.thread >= 0 && w.loc === r.loc && w.id !== r.id);
  const laterComputed = s.ts.some((ts, u) => (u === t ? laterComputedWrite(s.prog.threads[t], r.pc) : !ts.done && laterComputedWrite(s.prog.threads[u], ts.pc - 1)));
  if (computedWrite || written || laterComputed) {
    prune(s);
    return;
  }
  const ins = s.prog.threads[t].code[r.pc] as PrimInstr;
  if (unnamed) {
    const name = s.prog.locations[r.loc];
    fail(`this reads ${name}, an address no variable declares, and no write of the test can give it a value: herd7 refuses the test ("mixed-size test rejected (symbol [${name}])")`, ins.pos);
  }
  const name = ins.addr.k === 'reg' ? s.prog.threads[t].regs[ins.addr.r] : '0';
  fail(zeroReadMessage(name, t), ins.pos);
}

/** Whether thread th's code after pc has a write at an address the code computes (herd7 counts the reading thread's own later writes too). */
function laterComputedWrite(th: Thread, pc: number): boolean {
  const computed = new Set<number>();
  for (const ins of th.code) if ((ins.op === 'set' || ins.op === 'prim') && ins.dst >= 0) computed.add(ins.dst);
  return th.code.slice(pc + 1).some((ins) => {
    if (ins.op !== 'prim') return false;
    const e = effectOf(ins.prim);
    return e.object === 'memory' && e.writes && pureRegs(ins.addr).some((x) => computed.has(x));
  });
}

/**
 * Whether the model rules out a load-buffering cycle through the waiting
 * reads. Not in a program some of whose dependencies the model is not given
 * (Thread.depCuts): the models' shortcut reads dependencies from the code,
 * so there the guesses are explored.
 */
function noCycleThrough(s: ExploreState): boolean {
  if (s.prog.threads.some((th) => th.depCuts?.length)) return false;
  const reads: WaitingRead[] = s.waiting.map((b) => {
    const pc = s.ts[b.t].pc;
    const thread = s.prog.threads[b.t];
    return { read: b.r, thread, pc, ins: thread.code[pc] as PrimInstr, address: addressOf(s.prog, b.r.loc) };
  });
  return !s.model.mayCycleThrough(reads, s.prog);
}

/** The values a read of loc by thread t may guess: what other threads may still write there. */
function guessableValues(s: ExploreState, t: number, loc: number, kind?: LockKind): number[] {
  const out = new Set<number>();
  for (let u = 0; u < s.ts.length; u++) {
    if (u === t || s.ts[u].done || !s.domain.writesFrom[u][s.ts[u].pc]?.has(loc)) continue;
    const vs = s.domain.mayWrite[u].get(loc);
    if (vs) for (const v of vs) out.add(v);
  }
  if (kind === 'LKW') return out.has(1) ? [1] : [];
  if (kind === 'UL') return out.has(0) ? [0] : [];
  return [...out].sort((a, b) => a - b);
}

/** Whether every guessed read can still be matched by a write to come. */
export function pendingStillPossible(s: ExploreState): boolean {
  for (const id of s.pending) {
    const r = s.events[id];
    if (!othersMayWrite(s, r.thread, r.loc, isSymbolic(r.value) ? undefined : r.value)) return false;
  }
  // A read at address 0 waits for the others to finish whatever they may write (zeroReadUnmatched).
  // (A lock held by a thread that will not release it may be waited for forever, where liveness is judged.)
  for (const b of s.waiting) {
    if (b.ready || b.r.loc === s.prog.zeroLocation || othersMayWrite(s, b.t, b.r.loc)) continue;
    if (!(s.liveness && spinLockRead(s, b.r) && lockHeld(s, b.r.loc))) return false;
  }
  return true;
}

/** Lets each guessed read that w can satisfy read from w, or keep waiting. */
export function matchPending(s: ExploreState, w: Event, from: number, k: () => void): void {
  for (let i = from; i < s.pending.length; i++) {
    const r = s.events[s.pending[i]];
    if (r.loc !== w.loc || r.value !== w.value || r.lock === 'LKR') continue;
    // A value computed from the guess itself: herd cannot solve r's
    // equation (a copy leaves it symbolic: the symbolic guess has it).
    if (!isSymbolic(r.value) && valueDependsOn(s, w, r)) continue;
    if (r.lock === 'LF' || r.lock === 'RL') {
      if (w.lock !== 'LKW') continue;
    } else if (r.lock === 'RU') {
      if (w.lock !== 'UL') continue;
    }
    // Branch: r reads from w ...
    s.pending.splice(i, 1);
    r.rf = w.id;
    if (coherentRead(s, r) && prefixConsistent(s)) matchPending(s, w, i, k);
    else prune(s);
    r.rf = -1;
    s.pending.splice(i, 0, r.id);
    // ... or from a later write.
  }
  k();
}

/**
 * Whether write w's value is computed from read r's (data dependencies,
 * through rf). A read whose value an equation fixes to a constant (a
 * successful cmpxchg's, equal to its old) passes nothing on: herd solves
 * the cycle there (cmpxchg_relaxed(x, 0, 3) reading x from a copy of its
 * own result).
 */
function valueDependsOn(s: ExploreState, w: Event, r: Event): boolean {
  const seen = new Set<Event>();
  const todo = [w];
  while (todo.length > 0) {
    const x = todo.pop()!;
    // Dependencies are positions in x's thread (see Event.addrDeps).
    for (let deps = x.dataDeps, i = 0; deps !== 0n; deps >>= 1n, i++) {
      if (!(deps & 1n)) continue;
      const d = s.events.find((e) => e.thread === x.thread && e.poIndex === i);
      if (!d || seen.has(d)) continue;
      seen.add(d);
      if (fixedByEquation(s, d)) continue;
      if (d === r) return true;
      if (d.rf >= 0 && s.events[d.rf].thread >= 0) todo.push(s.events[d.rf]);
    }
  }
  return false;
}

/** Whether read d is a successful RMW's whose equation fixes its value to a constant (Effect.equatesReadWith). */
function fixedByEquation(s: ExploreState, d: Event): boolean {
  if (d.kind !== 'R' || !d.isRmw || d.pc < 0) return false;
  const th = s.prog.threads[d.thread];
  const ins = th.code[d.pc];
  if (ins?.op !== 'prim') return false;
  const at = effectOf(ins.prim).equatesReadWith;
  if (at === undefined) return false;
  // A constant: no register but the parameters, which always hold their address.
  const expected = ins.args[at];
  if (!pureRegs(expected).every((reg) => th.paramRegs.includes(reg))) return false;
  return evalPure(expected, th.initRegs) === d.value;
}
