// The LKMM's pruning of load-buffering cycles (Model.mayCycleThrough): can
// a waiting read take part in one?
//
// When every unfinished thread waits on a read whose write is still to come,
// each of those writes is program-order after some waiting read: the
// completion needs a cycle of "waiting read, later write of its thread, read
// from by another waiting read". A model that keeps every such read-to-write
// pair in order (and sees rf between marked accesses) forbids the cycle, so
// such a deadlock has no consistent completion and need not be guessed out.
//
// This file decides, conservatively and per the LKMM's preserved program
// order, whether a read is ordered before every write its thread may still
// do: the read is an acquire (or a lock, or a full-barrier RMW that always
// succeeds), or each later write is marked and is a release, follows a full
// fence, writes the read's location, or depends (data, address) on the read
// on every path.

import type { WaitingRead } from '../src/model/model.js';
import type { Instr, PureExpr, Thread } from '../src/program/program.js';
import { evalPure, LOC_BASE, pureRegs } from '../src/program/program.js';

/**
 * Whether a load-buffering cycle may go through these waiting reads: not
 * if each of them is ordered before every write its thread may still do.
 */
export function mayCycleThrough(reads: readonly WaitingRead[]): boolean {
  return !reads.every(orderedBeforeItsLaterWrites);
}

function orderedBeforeItsLaterWrites({ read: r, thread, pc, ins }: WaitingRead): boolean {
  if (r.annot === 'PLAIN') return false;
  const k = ins.prim.kind;
  // A read that may belong to a failed RMW (cmpxchg, add_unless) may
  // order nothing: the bell's Acquire and Mb leave out FailedRMW.
  const mayFail = k === 'cmpxchg' || k === 'add_unless';
  const strong = r.lock === 'LKR' || (!mayFail && r.annot === 'ACQUIRE') || (r.annot === 'MB' && (k === 'xchg' || k === 'atomic'));
  // An exchange's own write does not depend on its read.
  if (!strong && (k === 'xchg' || k === 'cmpxchg')) return false;
  return orderedBeforeLaterWrites(thread, pc, ins.dst, strong, r.loc);
}

interface Must {
  /** Registers that hold a value computed from the read, on every path. */
  tainted: Set<number>;
  /** Every path passed a full fence. */
  ordered: boolean;
}

const FULL_FENCES = new Set(['mb', 'sync-rcu']);

function uses(e: PureExpr, regs: Set<number>): boolean {
  return pureRegs(e).some((r) => regs.has(r));
}

function isWrite(ins: Instr): boolean {
  if (ins.op !== 'prim') return false;
  const k = ins.prim.kind;
  return k === 'store' || k === 'xchg' || k === 'cmpxchg' || k === 'atomic' || k === 'add_unless' ||
    k === 'spin_lock' || k === 'spin_unlock' || k === 'spin_trylock' || k === 'srcu_unlock';
}

/** Whether a write instruction is ordered after everything before it (a release, a full-barrier RMW, a lock). */
function selfOrdered(ins: Extract<Instr, { op: 'prim' }>): boolean {
  const p = ins.prim;
  if (p.kind === 'spin_unlock' || p.kind === 'spin_lock' || p.kind === 'spin_trylock') return true;
  if ('annot' in p) return p.annot === 'RELEASE' || p.annot === 'MB';
  return false;
}

/** The argument that becomes the written value (not cmpxchg's expected value). */
function valueArg(ins: Extract<Instr, { op: 'prim' }>): PureExpr | undefined {
  const p = ins.prim;
  switch (p.kind) {
    case 'store':
    case 'xchg':
    case 'add_unless':
    case 'srcu_unlock':
      return ins.args[1];
    case 'cmpxchg':
      return ins.args[2];
    case 'atomic':
      return p.operand === 'arg' ? ins.args[0] : undefined;
    default:
      return undefined;
  }
}

function marked(ins: Extract<Instr, { op: 'prim' }>): boolean {
  const p = ins.prim;
  return !('annot' in p) || p.annot !== 'PLAIN';
}

/**
 * Whether the read at `pc` of `th` (result in register `dst`; `strong` when
 * it is an acquire, a lock, or a full-barrier RMW that always succeeds) comes
 * before every write the thread may do after it, under the LKMM's ppo.
 */
function orderedBeforeLaterWrites(th: Thread, pc: number, dst: number, strong: boolean, readLoc: number): boolean {
  if (strong) return true;
  const params = new Set(th.paramRegs);
  // A write to the read's own location, later in program order, is always
  // after it (coherence puts it co-after the read's source: fr & int).
  const sameLocation = (e: PureExpr): boolean => {
    const regs = pureRegs(e);
    if (!regs.every((r) => params.has(r))) return false;
    return evalPure(e, th.initRegs) === LOC_BASE + readLoc;
  };
  const code = th.code;
  const n = code.length;
  const states: (Must | undefined)[] = new Array(n + 1);
  const start: Must = { tainted: new Set(dst >= 0 ? [dst] : []), ordered: false };
  const work: number[] = [];
  const meet = (at: number, m: Must) => {
    if (at > n) return;
    const cur = states[at];
    if (!cur) {
      states[at] = { tainted: new Set(m.tainted), ordered: m.ordered };
      work.push(at);
      return;
    }
    let changed = false;
    for (const r of [...cur.tainted]) {
      if (!m.tainted.has(r)) {
        cur.tainted.delete(r);
        changed = true;
      }
    }
    if (cur.ordered && !m.ordered) {
      cur.ordered = false;
      changed = true;
    }
    if (changed) work.push(at);
  };
  meet(pc + 1, start);
  let steps = 0;
  while (work.length > 0) {
    if (++steps > 20000) return false;
    const at = work.pop()!;
    if (at >= n) continue;
    const m = states[at]!;
    const ins = code[at];
    const out: Must = { tainted: new Set(m.tainted), ordered: m.ordered };
    switch (ins.op) {
      case 'set':
        if (uses(ins.e, m.tainted)) out.tainted.add(ins.dst);
        else out.tainted.delete(ins.dst);
        meet(at + 1, out);
        break;
      case 'jump':
        meet(ins.target, out);
        break;
      case 'branch':
        // A control dependency reaches only the branches' events; not
        // tracking its extent, the analysis does not count on it.
        meet(at + 1, out);
        meet(ins.ifFalse, out);
        break;
      case 'ctrlpush':
      case 'ctrlpop':
        meet(at + 1, out);
        break;
      case 'loopcheck':
        meet(at + 1, out);
        break;
      case 'prim': {
        if (isWrite(ins)) {
          if (!marked(ins)) return false;
          const v = valueArg(ins);
          const dep = uses(ins.addr, m.tainted) || (v !== undefined && uses(v, m.tainted));
          if (!(m.ordered || dep || selfOrdered(ins) || sameLocation(ins.addr))) return false;
        }
        if (ins.prim.kind === 'fence' && FULL_FENCES.has(ins.prim.fence)) out.ordered = true;
        if ((ins.prim.kind === 'xchg' || ins.prim.kind === 'atomic') && ins.prim.annot === 'MB') out.ordered = true;
        if (ins.dst >= 0) out.tainted.delete(ins.dst);
        meet(at + 1, out);
        break;
      }
    }
  }
  return true;
}
