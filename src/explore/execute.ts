// Executing a thread's next primitive: the events its Effect (the primitive
// table, src/events/primitives.ts) says it makes, and the value it returns
// to its register.

import type { Event } from '../events/event.js';
import { effectOf, type Effect } from '../events/primitives.js';
import { evalPure, isAddress, isSymbolic, LOC_BASE, type PrimInstr } from '../program/program.js';
import { lock, lockRead, unlock } from './locks.js';
import { read } from './reads.js';
import { depsOf, dropSymbolic, resume, usesSymbol } from './schedule.js';
import { withEvent, type ExploreState, type ThreadState } from './state.js';
import { rmwWrite, write } from './writes.js';

/** A read's bit in a dependency set: its position in its thread's program order. */
const BIT = (r: Event): bigint => 1n << BigInt(r.poIndex);

export function execPrim(s: ExploreState, t: number, ts: ThreadState, ins: PrimInstr): void {
  const e = effectOf(ins.prim);
  const done = () => resume(s, t, ts, -1, 0, 0n);
  if (e.object === 'none') {
    withEvent(s, t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: e.fence, ins }, done);
    return;
  }
  const addrVal = evalPure(ins.addr, ts.regs);
  if (!isAddress(addrVal) || addrVal - LOC_BASE >= s.prog.locations.length) {
    // Only a guessed value can lead here; such a guess is never matched.
    s.counts.pruned++;
    return;
  }
  const loc = addrVal - LOC_BASE;
  if (ins.args.some((a) => a.k !== 'reg' && usesSymbol(a, ts))) {
    dropSymbolic(s);
    return;
  }
  const addrDeps = depsOf(ins.addr, ts);
  const returned = (value: number) => (r: Event) => resume(s, t, ts, ins.dst, value, BIT(r));
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
      lock(s, t, ts, loc, addrDeps, ins, returned(1));
      lockRead(s, t, ts, loc, addrDeps, ins, 'LF', returned(0));
      return;
    case 'is-locked':
      lockRead(s, t, ts, loc, addrDeps, ins, 'RL', returned(1));
      lockRead(s, t, ts, loc, addrDeps, ins, 'RU', returned(0));
      return;
  }
}

/** A memory access: a read, a write (then its fence, if any), or an RMW's read and, unless it fails, its write. */
function access(s: ExploreState, t: number, ts: ThreadState, ins: PrimInstr, e: Effect, loc: number, addrDeps: bigint): void {
  const args = ins.args.map((a) => evalPure(a, ts.regs));
  let dataDeps = 0n;
  for (const i of e.dataArgs) dataDeps |= depsOf(ins.args[i], ts);
  const done = () =>
    e.fence ? withEvent(s, t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: e.fence, ins }, () => resume(s, t, ts, -1, 0, 0n)) : resume(s, t, ts, -1, 0, 0n);
  if (!e.reads) {
    const value = e.write(0, args) ?? 0;
    write(s, t, ts, { kind: 'W', loc, value, annot: e.annot, fence: undefined, lock: undefined, srcu: e.srcu, isRmw: false, addrDeps, dataDeps, ins }, done);
    return;
  }
  read(s, t, ts, { kind: 'R', loc, value: 0, annot: e.annot, fence: undefined, lock: undefined, srcu: e.srcu, isRmw: e.rmw, addrDeps, dataDeps: 0n, ins }, (r) => {
    if (computesWithSymbol(e, r.value, args)) return void dropSymbolic(s);
    const nv = e.write(r.value, args);
    const ret = e.result(r.value, nv, args);
    if (nv === undefined) return resume(s, t, ts, ins.dst, ret, BIT(r));
    const deps = e.dataFromRead ? dataDeps | BIT(r) : dataDeps;
    rmwWrite(s, t, ts, r, nv, deps, () => resume(s, t, ts, ins.dst, ret, BIT(r)));
  });
}

/** Whether the access computes with a symbolic value (see breakDeadlock): herd leaves its equation unsolved. */
function computesWithSymbol(e: Effect, old: number, args: readonly number[]): boolean {
  if (e.computesWithRead && isSymbolic(old)) return true;
  for (const i of e.computesWith) if (isSymbolic(args[i])) return true;
  return false;
}
