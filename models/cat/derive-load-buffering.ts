// The load-buffering shortcut (Model.mayCycleThrough) derived from a
// compiled model's checks, for whatever model is loaded.
//
// When every unfinished thread waits at a read whose write is still to
// come, a completion needs a cycle r1 ->po w1 ->rf r2 ->po w2 ... ->rf r1:
// each waiting read, a later write of its thread, read by another waiting
// read (in another thread: a thread has one waiting read).
//
// The theorem. Let A be the relation of an enforced check `acyclic A`, and
// its lower bound a list of hops (models/cat/kinds.ts: patterns of pairs
// every execution's A contains). If, for each waiting read r and every
// write w its thread may still do (on every path of its code from r, in
// every form its instruction may take: an RMW that may fail, a trylock),
// some hop of A contains (r, w) - po between sets r and w are surely in,
// through the events a hop needs between them (passed on every path), at
// one location (the same address), or a data or address dependency on
// every path; or fr within a thread, for w at r's location, in a
// coherent candidate (r reads a write co-before w: else w co r's source,
// and r po w at one location closes a cycle of po-loc | rf | co | fr,
// which the explorer's coherence filter never builds) - and some hop of A
// contains (w, r') as rf between threads for every other waiting read r',
// then the cycle is a cycle of A: every completion breaks the check, and
// the deadlock is dropped. Otherwise the guess is explored (true).
//
// Only the writes a waiting read may take are steps of the cycle: rf is
// within a location, so a later write whose address is fixed (a parameter
// of its thread) and is none of the other waiting reads' addresses is read
// by none of them, and needs neither hop; nor is a lock write read by
// spin_lock()'s read, which the explorer builds reading the initial value
// or an unlock only (src/explore/locks.ts, as lock.cat's rf of lock reads).
//
// So a plain write after an acquire read, under the LKMM's happens-before
// ([Marked] ; (ppo | rfe | ...) ; [Marked]), is no hop of hb (a plain
// write is not Marked): the cycle through it stays open, as herd7 says.

import type { Event } from '../../src/events/event.js';
import { effectOf, type Effect } from '../../src/events/primitives.js';
import type { WaitingRead } from '../../src/model/model.js';
import type { PrimInstr, Program, PureExpr, Thread } from '../../src/program/program.js';
import { evalPure, pureRegs } from '../../src/program/program.js';
import type { CompiledCat } from './compile.js';
import { EventKinds, holds, lockLocationsWrittenByLocksOnly, type EventLike, type Hop } from './kinds.js';

/**
 * Model.mayCycleThrough for a compiled model. `coherent`: the model's own
 * checks reject every incoherent candidate of herd's base events
 * (models/cat/implied.ts), so a consistent completion has r fr w for a
 * read r and a later write w of its thread at its location.
 */
export function mayCycleThroughOf(
  cat: CompiledCat,
  variants: ReadonlySet<string>,
  skipChecks: ReadonlySet<string>,
  coherent: boolean,
): (reads: readonly WaitingRead[], p?: Program) => boolean {
  const kinds = new EventKinds(cat, variants);
  const all: Hop[][] = [];
  for (const ci of cat.instrs) {
    const ins = ci.instr;
    if (ins.kind !== 'test' || ins.role !== 'check' || ins.negated || ins.test !== 'acyclic') continue;
    if (ins.name !== undefined && skipChecks.has(ins.name)) continue;
    all.push(kinds.hopsOf(ins.expr).filter((h) => h.rel === 'po' || h.rel === 'addr' || h.rel === 'data' || h.rel === 'fr' || h.rel === 'rf'));
  }
  // The hops a program may use: those resting on F1 only where it holds (kinds.ts), each check that has rf between threads.
  const usable = (f1: boolean) => all.map((hops) => (f1 ? hops : hops.filter((h) => !h.F1))).filter((hops) => hops.some((h) => h.rel === 'rf' && h.scope !== 'int'));
  const byF1 = [usable(false), usable(true)];
  const f1Of = new WeakMap<Program, boolean>();
  // Per thread, check and read (its place and location): the writes it may still do, each with whether it is ordered after the read.
  const known = new WeakMap<Thread, Map<string, LaterWrite[] | null>>();
  // Per program, the answer for each set of waiting reads (the explorer meets the same deadlocks again and again).
  const answers = new WeakMap<Program, Map<string, boolean>>();
  const decide = (reads: readonly WaitingRead[], p?: Program): boolean => {
    let f1 = false;
    if (p) {
      const k = f1Of.get(p);
      if (k === undefined) f1Of.set(p, (f1 = lockLocationsWrittenByLocksOnly(p)));
      else f1 = k;
    }
    const checks = byF1[f1 ? 1 : 0];
    for (let k = 0; k < checks.length; k++) {
      const hops = checks[k];
      let all = true;
      const later: LaterWrite[][] = [];
      for (const w of reads) {
        const key = `${f1 ? 1 : 0}:${k}:${w.pc}:${w.address}`;
        let mine = known.get(w.thread);
        if (!mine) known.set(w.thread, (mine = new Map()));
        let ws = mine.get(key);
        if (ws === undefined) mine.set(key, (ws = laterWrites(w, hops, coherent)));
        // The writes one of the other reads may take (at its address, or at one the code does not fix): each ordered.
        const taken = ws?.filter((x) => x.address === undefined || reads.some((o) => o !== w && o.address === x.address));
        if (!taken || !taken.every((x) => x.ordered)) {
          all = false;
          break;
        }
        later.push(taken);
      }
      if (!all) continue;
      // Each of those writes read by another waiting read: a hop of rf between threads.
      const rfHops = hops.filter((h) => h.rel === 'rf' && h.scope !== 'int');
      const forms = reads.map((o) => readForms(o.read, effectOf(o.ins.prim)));
      const closed = reads.every((_, i) =>
        later[i].every((wr) => forms.every((os, j) => j === i || !mayTake(reads[j], wr) || rfHops.some((h) => holds(h.P, wr.form) && os.every((o) => holds(h.Q, o))))));
      if (closed) return false;
    }
    return true;
  };
  return (reads, p) => {
    if (!p) return decide(reads);
    let mine = answers.get(p);
    if (!mine) answers.set(p, (mine = new Map()));
    // What the answer reads of each read: its thread, place and address, and the fields of its event the hops test.
    const key = reads.map(({ read: r, pc, address }) => `${r.thread}:${pc}:${address}:${r.kind}:${r.annot}:${r.lock ?? ''}:${r.srcu ?? ''}:${r.fence ?? ''}:${r.isRmw ? 1 : 0}:${r.rmwPartner >= 0 ? 1 : 0}`).join(' ');
    let answer = mine.get(key);
    if (answer === undefined) mine.set(key, (answer = decide(reads, p)));
    return answer;
  };
}

/** A write a waiting read's thread may still do: one form of its event, its address where the code fixes it, and whether some hop orders the read before it. */
interface LaterWrite {
  form: EventLike;
  address: number | undefined;
  ordered: boolean;
}

/** Whether waiting read r may take write w in some candidate (see the header: rf within a location, spin_lock()'s sources). */
function mayTake(r: WaitingRead, w: LaterWrite): boolean {
  if (w.address !== undefined && w.address !== r.address) return false;
  return !(r.read.lock === 'LKR' && w.form.lock === 'LKW');
}

/** An event of one of the forms an instruction's events may take (its thread's; the rest is not read). */
function proto(kind: Event['kind'], f: Partial<EventLike>): EventLike {
  return { kind, thread: 0, annot: 'ONCE', fence: undefined, lock: undefined, srcu: undefined, isRmw: false, rmwPartner: -1, ...f };
}

/** The events an instruction makes, in program order, in each form it may take (an RMW that fails, a trylock that fails). */
function eventsOf(e: Effect): EventLike[][] {
  switch (e.shape) {
    case 'fence':
      return [[proto('F', { annot: e.annot, fence: e.fence, srcu: e.srcu })]];
    case 'lock':
      return [[proto('R', { annot: 'ACQUIRE', lock: 'LKR', rmwPartner: 1 }), proto('W', { lock: 'LKW', rmwPartner: 0 })]];
    case 'unlock':
      return [[proto('W', { annot: 'RELEASE', lock: 'UL' })]];
    case 'trylock':
      return [[proto('R', { annot: 'ACQUIRE', lock: 'LKR', rmwPartner: 1 }), proto('W', { lock: 'LKW', rmwPartner: 0 })], [proto('R', { lock: 'LF' })]];
    case 'is-locked':
      return [[proto('R', { lock: 'RL' })], [proto('R', { lock: 'RU' })]];
    case 'access': {
      if (e.object === 'none') return [[proto('F', { annot: e.annot, fence: e.fence, srcu: e.srcu })]];
      if (!e.reads) return [[proto('W', { annot: e.annot, srcu: e.srcu }), ...(e.fence ? [proto('F', { fence: e.fence })] : [])]];
      if (!e.rmw) return [[proto('R', { annot: e.annot, srcu: e.srcu })]];
      const ok = [proto('R', { annot: e.annot, isRmw: true, rmwPartner: 1 }), proto('W', { annot: e.annot, isRmw: true, rmwPartner: 0 })];
      return e.mayFail ? [ok, [proto('R', { annot: e.annot, isRmw: true })]] : [ok];
    }
  }
}

/** The read's own forms: an RMW's read with its write, or without where it may fail. */
function readForms(r: Event, e: Effect): EventLike[] {
  if (!e.rmw || r.lock) return [r];
  const ok = { ...r, isRmw: true, rmwPartner: 1 };
  return e.mayFail ? [ok, { ...r, isRmw: true, rmwPartner: -1 }] : [ok];
}

interface Must {
  /** Registers that hold a value computed from the read, on every path. */
  tainted: Set<number>;
  /** Per hop, how many of the events it needs between were passed, in order, on every path. */
  passed: number[];
}

/**
 * The writes the read's thread may still do (their forms, on every path
 * of its code), each with whether some hop orders the read before it;
 * null where the code is too long to follow, or a write out of order has
 * an address the code does not fix.
 */
function laterWrites(w: WaitingRead, hops: readonly Hop[], coherent: boolean): LaterWrite[] | null {
  const { read: r, thread: th, pc, ins } = w;
  const e = effectOf(ins.prim);
  const rs = readForms(r, e);
  const params = new Set(th.paramRegs);
  // The address an expression has whatever the registers hold, if it has one.
  const fixed = (a: PureExpr): number | undefined => (pureRegs(a).every((x) => params.has(x)) ? evalPure(a, th.initRegs) : undefined);
  const writes: LaterWrite[] = [];
  /** Whether some hop orders the read before a write of these forms. */
  const ordered = (forms: readonly EventLike[], at: Must, dep: { addr: boolean; data: boolean }, sameLoc: boolean): boolean =>
    hops.some((h, k) => {
      if (!rs.every((x) => holds(h.P, x)) || !forms.every((x) => holds(h.Q, x))) return false;
      if (h.scope === 'ext') return false;
      switch (h.rel) {
        case 'po':
          return at.passed[k] >= h.via.length && (!h.loc || sameLoc);
        case 'addr':
          return dep.addr && (!h.loc || sameLoc) && h.via.length === 0;
        case 'data':
          return dep.data && (!h.loc || sameLoc) && h.via.length === 0;
        case 'fr':
          return coherent && sameLoc && h.via.length === 0;
        default:
          return false;
      }
    });
  const start: Must = { tainted: new Set(ins.dst >= 0 ? [ins.dst] : []), passed: hops.map(() => 0) };
  // The read's own instruction: its write, if it writes (an RMW), comes after it.
  for (const form of eventsOf(e)) {
    const own = form.slice(1);
    const ws = own.filter((x) => x.kind === 'W');
    if (ws.length === 0) continue;
    const first = ordered(ws, start, { addr: false, data: e.dataFromRead }, true);
    writes.push(...ws.map((form) => ({ form, address: w.address, ordered: first })));
  }
  // Events of its own instruction after the read count as between the read and later events.
  const after = advance(start, eventsOf(e).map((f) => f.slice(1)), hops);
  return walk(th, pc, after, hops, (instr, m, forms) => {
    const ie = effectOf(instr.prim);
    const dep = { addr: pureRegs(instr.addr).some((x) => m.tainted.has(x)), data: ie.dataArgs.some((i) => pureRegs(instr.args[i]).some((x) => m.tainted.has(x))) };
    const address = fixed(instr.addr);
    const sameLoc = address === w.address;
    // Each form's writes, with what its own earlier events passed.
    for (const form of forms) {
      for (let i = 0; i < form.length; i++) {
        if (form[i].kind !== 'W') continue;
        const before = advance(m, [form.slice(0, i)], hops);
        const ok = ordered([form[i]], before, dep, sameLoc);
        // A write out of order at an address the code does not fix may be any read's source: no set of reads is closed.
        if (!ok && address === undefined) return false;
        writes.push({ form: form[i], address, ordered: ok });
      }
    }
    return true;
  }) ? writes : null;
}

/** The state after events of every form (a hop passes an event only if it does so in every form). */
function advance(m: Must, forms: readonly (readonly EventLike[])[], hops: readonly Hop[]): Must {
  const passed = new Array<number>(hops.length);
  for (let k = 0; k < hops.length; k++) {
    const via = hops[k].via;
    const from = m.passed[k];
    let least = Infinity;
    for (const form of forms) {
      let p = from;
      for (let i = 0; i < form.length && p < via.length; i++) if (via[p](form[i]) === true) p++;
      if (p < least) least = p;
    }
    passed[k] = least;
  }
  return { tainted: m.tainted, passed };
}

/**
 * Every path of the thread's code from the instruction after `pc`: `visit`
 * judges each primitive (its forms, the state before it); false stops the
 * walk. The state is a must-analysis: merged by intersection and minimum.
 */
function walk(th: Thread, pc: number, start: Must, hops: readonly Hop[], visit: (ins: PrimInstr, m: Must, forms: EventLike[][]) => boolean): boolean {
  const code = th.code;
  const n = code.length;
  const states: (Must | undefined)[] = new Array(n + 1);
  const work: number[] = [];
  const meet = (at: number, m: Must) => {
    if (at > n) return;
    const cur = states[at];
    if (!cur) {
      states[at] = { tainted: new Set(m.tainted), passed: [...m.passed] };
      work.push(at);
      return;
    }
    let changed = false;
    for (const x of [...cur.tainted]) {
      if (!m.tainted.has(x)) {
        cur.tainted.delete(x);
        changed = true;
      }
    }
    for (let k = 0; k < cur.passed.length; k++) {
      if (m.passed[k] < cur.passed[k]) {
        cur.passed[k] = m.passed[k];
        changed = true;
      }
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
    switch (ins.op) {
      case 'set': {
        const tainted = new Set(m.tainted);
        if (pureRegs(ins.e).some((x) => m.tainted.has(x))) tainted.add(ins.dst);
        else tainted.delete(ins.dst);
        meet(at + 1, { tainted, passed: m.passed });
        break;
      }
      case 'jump':
        meet(ins.target, m);
        break;
      case 'branch':
        meet(at + 1, m);
        meet(ins.ifFalse, m);
        break;
      case 'prim': {
        const forms = eventsOf(effectOf(ins.prim));
        if (!visit(ins, m, forms)) return false;
        const out = advance(m, forms, hops);
        const tainted = new Set(m.tainted);
        if (ins.dst >= 0) tainted.delete(ins.dst);
        meet(at + 1, { tainted, passed: out.passed });
        break;
      }
      default:
        meet(at + 1, m);
    }
  }
  return true;
}
