// Executing a thread's next primitive: the events it makes (reads, writes,
// fences, lock and SRCU events) and the value it returns to its register.

import type { Primitive } from '../events/primitives.js';
import { binop, evalPure, isAddress, isSymbolic, LOC_BASE, type PrimInstr } from '../program/program.js';
import { lock, lockRead, unlock } from './locks.js';
import { read } from './reads.js';
import { depsOf, dropSymbolic, resume, usesSymbol } from './schedule.js';
import { withEvent, type ExploreState, type ThreadState } from './state.js';
import { rmwWrite, write } from './writes.js';

const BIT = (i: number): bigint => 1n << BigInt(i);

export function execPrim(s: ExploreState, t: number, ts: ThreadState, ins: PrimInstr): void {
  const p: Primitive = ins.prim;
  const done = () => resume(s, t, ts, -1, 0, 0n);
  if (p.kind === 'fence') {
    withEvent(s, t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: p.fence, ins }, done);
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
  const arg = (i: number) => evalPure(ins.args[i], ts.regs);
  const argDeps = (i: number) => depsOf(ins.args[i], ts);
  const base = { loc, addrDeps, ins };
  switch (p.kind) {
    case 'load':
      read(s, t, ts, { ...base, annot: p.annot }, (r) => resume(s, t, ts, ins.dst, r.value, BIT(r.id)));
      return;
    case 'srcu_lock':
      read(s, t, ts, { ...base, annot: 'ONCE', srcu: 'srcu-lock' }, (r) => resume(s, t, ts, ins.dst, r.value, BIT(r.id)));
      return;
    case 'store':
      write(s, t, ts, { ...base, annot: p.annot, value: arg(1), dataDeps: argDeps(1) }, () => {
        if (p.thenFence) {
          withEvent(s, t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: p.thenFence, ins }, done);
        } else done();
      });
      return;
    case 'srcu_unlock':
      write(s, t, ts, { ...base, annot: 'ONCE', srcu: 'srcu-unlock', value: arg(1), dataDeps: argDeps(1) }, done);
      return;
    case 'srcu_sync':
      withEvent(s, t, ts, { kind: 'F', loc, value: 0, annot: 'ONCE', srcu: 'sync-srcu', addrDeps, ins }, done);
      return;
    case 'xchg':
      read(s, t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
        rmwWrite(s, t, ts, r, arg(1), argDeps(1), () => resume(s, t, ts, ins.dst, r.value, BIT(r.id)));
      });
      return;
    case 'cmpxchg':
      read(s, t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
        if (isSymbolic(r.value) || isSymbolic(arg(1))) return void dropSymbolic(s);
        if (r.value === arg(1)) {
          rmwWrite(s, t, ts, r, arg(2), argDeps(2), () => resume(s, t, ts, ins.dst, r.value, BIT(r.id)));
        } else resume(s, t, ts, ins.dst, r.value, BIT(r.id));
      });
      return;
    case 'atomic': {
      // atomic_add(V, X): the operand is the first argument.
      const operand = p.operand === 'arg' ? arg(0) : p.operand;
      const opDeps = p.operand === 'arg' ? argDeps(0) : 0n;
      read(s, t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
        if (isSymbolic(r.value) || isSymbolic(operand)) return void dropSymbolic(s);
        const nv = binop(p.op, r.value, operand);
        rmwWrite(s, t, ts, r, nv, opDeps | BIT(r.id), () => {
          let ret = p.ret === 'old' ? r.value : nv;
          if (p.test === 'zero') ret = nv === 0 ? 1 : 0;
          if (p.test === 'negative') ret = nv < 0 ? 1 : 0;
          resume(s, t, ts, ins.dst, ret, BIT(r.id));
        });
      });
      return;
    }
    case 'add_unless':
      read(s, t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
        if (isSymbolic(r.value) || isSymbolic(arg(1)) || isSymbolic(arg(2))) return void dropSymbolic(s);
        if (r.value !== arg(2)) {
          rmwWrite(s, t, ts, r, r.value + arg(1), argDeps(1) | BIT(r.id), () => resume(s, t, ts, ins.dst, 1, BIT(r.id)));
        } else resume(s, t, ts, ins.dst, 0, BIT(r.id));
      });
      return;
    case 'spin_lock':
      lock(s, t, ts, loc, addrDeps, ins, done);
      return;
    case 'spin_unlock':
      unlock(s, t, ts, loc, addrDeps, ins, done);
      return;
    case 'spin_trylock':
      // Success: a lock; failure: an LF read of a held lock.
      lock(s, t, ts, loc, addrDeps, ins, (lkr) => resume(s, t, ts, ins.dst, 1, BIT(lkr.id)));
      lockRead(s, t, ts, loc, addrDeps, ins, 'LF', (r) => resume(s, t, ts, ins.dst, 0, BIT(r.id)));
      return;
    case 'spin_is_locked':
      lockRead(s, t, ts, loc, addrDeps, ins, 'RL', (r) => resume(s, t, ts, ins.dst, 1, BIT(r.id)));
      lockRead(s, t, ts, loc, addrDeps, ins, 'RU', (r) => resume(s, t, ts, ins.dst, 0, BIT(r.id)));
      return;
  }
}
