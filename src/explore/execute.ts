// Executing a thread's next primitive: the events its Effect (the primitive
// table, src/events/primitives.ts) says it makes, and the value it returns
// to its register.

import type { Event } from '../events/event.js';
import { effectOf, type Effect } from '../events/primitives.js';
import { fail } from '../parse/errors.js';
import { accessedLocation, evalPure, isAddress, isSymbolic, UnnamedAddress, type PrimInstr, type Program } from '../program/program.js';
import { lock, lockRead, unlock } from './locks.js';
import { read } from './reads.js';
import { depsOf, dropSymbolic, resume, unionOfDeps, usesSymbol } from './schedule.js';
import { prune, withEvent, type ExploreState, type ThreadState } from './state.js';
import { rmwWrite, write } from './writes.js';
import { blockAtGracePeriod } from './liveness.js';

/** A read's bit in a dependency set: its position in its thread's program order. */
const BIT = (r: Event): bigint => (r.poIndex < SMALL_BITS.length ? SMALL_BITS[r.poIndex] : 1n << BigInt(r.poIndex));

/** The bits of the first 64 positions, made once (a bigint is allocated each time one is computed). */
const SMALL_BITS: readonly bigint[] = Array.from({ length: 64 }, (_, i) => 1n << BigInt(i));

export function execPrim(s: ExploreState, t: number, ts: ThreadState, ins: PrimInstr): void {
  const e = effectOf(ins.prim);
  // A grace period may never end: the thread may block at it (liveness.ts), or go past it.
  if (s.graceMayBlock) blockAtGracePeriod(s, ts, ins);
  const done = () => resume(s, t, ts, -1, 0, 0n);
  if (e.object === 'none') {
    withEvent(s, t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: e.fence, ins }, done);
    return;
  }
  const address = evalPure(ins.addr, ts.regs);
  const readsMemory = e.object === 'memory' && e.reads;
  // A read at 0 is one through a name the process does not declare (refused when built, unless a write may come there: see program.ts).
  const loc = readsMemory && !isAddress(address) && !(address === 0 && depsOf(ins.addr, ts) === 0n) ? -1 : accessedLocation(s.prog, address);
  if (loc < 0) {
    // An offset from a variable (`y + 1`): herd7's location of its own, named before exploring again.
    if (isAddress(address)) throw new UnnamedAddress(address, ins.pos);
    // herd7 refuses a memory read at a number that no read decided (not a
    // symbolic address); one that a guessed read computed is never matched.
    if (!isSymbolic(address) && depsOf(ins.addr, ts) === 0n) {
      if (readsMemory) fail(`${ins.name} reads at address ${address}, which is no shared variable's (herd7 refuses a read at a number)`, ins.pos);
      // herd7 makes a location of any number written to; litmus only of 0 (an undeclared name): refused rather than dropped.
      fail(`${ins.name} acts on address ${address}, which is no location (litmus takes only 0, an undeclared name, for one)`, ins.pos);
    }
    // A write at a number a read computed: herd7 refuses the test once an execution it builds has one (unless the
    // number came from a guess still to be matched, which may be no execution at all).
    if (!isSymbolic(address) && e.object === 'memory' && !e.reads && s.pending.length === 0) {
      fail(`${ins.name} writes at address ${address}, computed from what was read: herd7 refuses a write at a number ("Non-symbolic memory access found on '[${address}]'")`, ins.pos);
    }
    prune(s);
    return;
  }
  // A read there waits for a write to it (reads.ts): any write there is refused, so such an execution never completes.
  if (loc === s.prog.zeroLocation && !readsMemory && (e.object === 'memory' || (e.object === 'srcu' && e.shape !== 'fence'))) {
    const computed = depsOf(ins.addr, ts) !== 0n;
    if (!computed) refuseZeroAccess(s, t, ins);
    if (s.pending.length === 0) {
      fail(`${ins.name} writes at address 0, computed from what was read: herd7 refuses a write at a number ("Non-symbolic memory access found on '[0]'")`, ins.pos);
    }
    prune(s);
    return;
  }
  if (loc >= s.prog.unnamedFrom && e.reads && e.object !== 'memory') {
    const name = s.prog.locations[loc];
    fail(`this reads ${name}, an address no variable declares: refused (herd7 rejects such a read that has no write to read from: "mixed-size test rejected (symbol [${name}])")`, ins.pos);
  }
  if (computesWithRegisterSymbol(ins, ts)) {
    dropSymbolic(s);
    return;
  }
  const addrDeps = depsOf(ins.addr, ts);
  switch (e.shape) {
    case 'access':
      access(s, t, ts, ins, e, loc, addrDeps);
      return;
    case 'fence':
      withEvent(s, t, ts, { kind: 'F', loc, value: 0, annot: e.annot, fence: e.fence, srcu: e.srcu, addrDeps, ins }, done);
      return;
    case 'lock':
      lock(s, t, ts, loc, addrDeps, ins, done);
      return;
    case 'unlock':
      unlock(s, t, ts, loc, addrDeps, ins, done);
      return;
    case 'trylock':
      // Success: a lock; failure: an LF read of a held lock.
      lock(s, t, ts, loc, addrDeps, ins, returned(s, t, ts, ins, 1));
      lockRead(s, t, ts, loc, addrDeps, ins, 'LF', returned(s, t, ts, ins, 0));
      return;
    case 'is-locked':
      lockRead(s, t, ts, loc, addrDeps, ins, 'RL', returned(s, t, ts, ins, 1));
      lockRead(s, t, ts, loc, addrDeps, ins, 'RU', returned(s, t, ts, ins, 0));
      return;
  }
}

/**
 * herd7 refuses an execution with a memory access (a write, or SRCU's read-side
 * lock and unlock) at address 0, what a name the process does not declare holds:
 * "Non-symbolic memory access found on '[0]'". Locks and grace periods there are
 * answered. Refused when a path reaches it, as herd7 checks the executions it builds.
 */
function refuseZeroAccess(s: ExploreState, t: number, ins: PrimInstr): never {
  zeroAccessRefused(s.prog, t, ins);
}

/** herd7's refusal of a memory access at address 0 (see refuseZeroAccess). */
export function zeroAccessRefused(prog: Program, t: number, ins: PrimInstr): never {
  const name = ins.addr.k === 'reg' ? prog.threads[t].regs[ins.addr.r] : undefined;
  const who = name !== undefined ? `"${name}" is not a parameter of P${t}: herd7 takes it for a register holding 0 and ` : 'herd7 ';
  fail(
    `${who}refuses this ${ins.name} at address 0 ("Non-symbolic memory access found on '[0]'")` +
      (name !== undefined ? ` (a process reaches a shared variable only through its parameters: add "int *${name}" to P${t}'s)` : ''),
    ins.pos,
  );
}

/** Goes on after lock read r, the instruction returning `value` (dependent on r). */
function returned(s: ExploreState, t: number, ts: ThreadState, ins: PrimInstr, value: number): (r: Event) => void {
  return (r) => resume(s, t, ts, ins.dst, value, BIT(r));
}

/** The values of the instruction's arguments. */
function argValues(ins: PrimInstr, ts: ThreadState): number[] {
  const out = new Array<number>(ins.args.length);
  for (let i = 0; i < out.length; i++) out[i] = evalPure(ins.args[i], ts.regs);
  return out;
}

/** Whether an argument other than a plain register copy computes with a symbolic value (see dropSymbolic). */
function computesWithRegisterSymbol(ins: PrimInstr, ts: ThreadState): boolean {
  for (const a of ins.args) if (a.k !== 'reg' && usesSymbol(a, ts)) return true;
  return false;
}

/** A memory access: a read, a write (then its fence, if any), or an RMW's read and, unless it fails, its write. */
function access(s: ExploreState, t: number, ts: ThreadState, ins: PrimInstr, e: Effect, loc: number, addrDeps: bigint): void {
  const args = argValues(ins, ts);
  let dataDeps = 0n;
  for (const i of e.dataArgs) dataDeps = unionOfDeps(dataDeps, depsOf(ins.args[i], ts));
  if (!e.reads) {
    const value = e.write(0, args) ?? 0;
    const done = () =>
      e.fence ? withEvent(s, t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: e.fence, ins }, () => resume(s, t, ts, -1, 0, 0n)) : resume(s, t, ts, -1, 0, 0n);
    write(s, t, ts, { kind: 'W', loc, value, annot: e.annot, fence: undefined, lock: undefined, srcu: e.srcu, isRmw: false, addrDeps, dataDeps, ins }, done);
    return;
  }
  read(s, t, ts, { kind: 'R', loc, value: 0, annot: e.annot, fence: undefined, lock: undefined, srcu: e.srcu, isRmw: e.rmw, addrDeps, dataDeps: 0n, ins }, (r) => {
    if (computesWithSymbol(e, r.value, args)) return void dropSymbolic(s);
    const nv = e.write(r.value, args);
    const ret = e.result(r.value, nv, args);
    if (nv === undefined) return resume(s, t, ts, ins.dst, ret, BIT(r));
    const deps = e.dataFromRead ? unionOfDeps(dataDeps, BIT(r)) : dataDeps;
    rmwWrite(s, t, ts, r, nv, deps, () => resume(s, t, ts, ins.dst, ret, BIT(r)));
  });
}

/** Whether the access computes with a symbolic value (see breakDeadlock): herd leaves its equation unsolved. */
function computesWithSymbol(e: Effect, old: number, args: readonly number[]): boolean {
  if (e.computesWithRead && isSymbolic(old)) return true;
  for (const i of e.computesWith) if (isSymbolic(args[i])) return true;
  return false;
}
