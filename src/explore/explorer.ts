// The explorer builds candidate executions one event at a time and asks the
// model about the complete ones (ARCHITECTURE.md has the overview).
//
// - The scheduler runs the first thread that can go on (advance).
// - A read takes each write that exists, or waits for one still to come; a
//   write is offered to the waiting reads (chooseSource, wait, offer). When
//   every thread waits, the first waiting read guesses a value that a later
//   write must match (breakDeadlock, matchPending) - unless no
//   load-buffering cycle is possible (cycles.ts). As in herd's equation
//   solving, a guess is matched only by a write whose value does not come
//   from the guess itself; a cycle of plain copies is instead matched by a
//   symbolic guess (SYM_BASE...), which herd leaves unsolved: it equals no
//   constant, and any computation on it drops the execution.
// - A write takes each place in its location's coherence order (placeInCo);
//   a lock follows the unlock last in that order, or waits (lock, attach).
// - Each choice is checked at once: coherence and atomicity at the location
//   (coherentAt), and the model's axioms on the prefix (prefixConsistent),
//   which only get worse as events and edges are added.

import type { Annot, Event, FenceKind, LockKind } from '../events/event.js';
import type { Primitive } from '../events/primitives.js';
import { LimitError } from '../parse/errors.js';
import { binop, evalPure, isAddress, isSymbolic, LOC_BASE, pureRegs, SYM_BASE, type Instr, type Program, type PureExpr } from '../program/program.js';
import { buildExecution, StructureNode, type Execution } from '../model/execution.js';
import { lasting, scratch } from '../relation/relation.js';
import type { Model } from '../model/model.js';
import { computeDomain, DOMAIN_CAP, type ValueDomain } from './domain.js';
import { orderedBeforeLaterWrites } from './cycles.js';

/** See prefixConsistent. */
const PREFIX_WINDOW = 256;
const PREFIX_STRIDE = 8;

export interface ExploreOptions {
  maxExecutions?: number;
  timeoutMs?: number;
  /** Keep one witnessing execution per final state that satisfies the condition (for traces). */
  keepWitnesses?: boolean;
  /**
   * Build incoherent candidates too, leaving coherence and atomicity to the
   * model's final judgement (for finding forbidden candidates to explain).
   */
  keepIncoherent?: boolean;
  /** Called with the forbidden candidate kept (see keepWitnesses); may throw to stop the exploration. */
  onForbidden?: (c: ForbiddenCandidate) => void;
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
  /** Executions rejected by each axiom (for explanations). */
  rejectedBy: Map<string, number>;
  /** The first rejected execution found that satisfies the condition (kept with keepWitnesses). */
  forbiddenWitness?: ForbiddenCandidate;
}

interface ThreadState {
  done: boolean;
  pc: number;
  regs: number[];
  deps: bigint[];
  ctrl: bigint;
  /** Control dependencies saved at the start of each enclosing if/while. */
  ctrlStack: bigint[];
  po: number;
}

const BIT = (i: number): bigint => 1n << BigInt(i);

/** A thread stopped at a read whose write is still to come. */
interface Waiting {
  t: number;
  r: Event;
  /** Goes on once r has its source (or a guessed value). */
  k: (r: Event) => void;
  /** Which writes r may read (lock reads are picky). */
  accept: (w: Event) => boolean;
  guessKind?: LockKind;
  ready: boolean;
}

export function explore(prog: Program, model: Model, opts: ExploreOptions = {}): ExploreResult {
  return new Explorer(prog, model, opts).run();
}

class Explorer {
  private events: Event[] = [];
  private co: number[][];
  private byLoc: number[][];
  private pending: number[] = [];
  /** Prefix checks made since the last one that rejected, and checks skipped. */
  private sinceReject = 0;
  private skipped = 0;
  private finalRegs: number[][] = [];
  private ts: ThreadState[] = [];
  private waiting: Waiting[] = [];
  /** The lock writes of the critical sections each thread is in. */
  private open: number[][] = [];
  /** The structure node of each prefix of the event stack. */
  private nodes: StructureNode[] = [new StructureNode()];
  private domain: ValueDomain;
  private outcomes = new Map<string, Outcome>();
  private flags = new Set<string>();
  private rejectedBy = new Map<string, number>();
  private forbidden?: ForbiddenCandidate;
  private candidates = 0;
  private pruned = 0;
  private cutPaths = 0;
  private positive = 0;
  private negative = 0;
  private steps = 0;
  private prefixChecks = 0;
  private prefixRejects = 0;
  private readonly deadline: number;
  private readonly maxExecutions: number;

  constructor(
    private readonly prog: Program,
    private readonly model: Model,
    private readonly opts: ExploreOptions,
  ) {
    const nLoc = prog.locations.length;
    this.co = Array.from({ length: nLoc }, () => []);
    this.byLoc = Array.from({ length: nLoc }, () => []);
    this.domain = computeDomain(prog);
    this.deadline = opts.timeoutMs ? Date.now() + opts.timeoutMs : Infinity;
    this.maxExecutions = opts.maxExecutions ?? 1_000_000;
  }

  run(): ExploreResult {
    if (!this.domain.bounded) {
      throw new LimitError(`the values this test can compute are unbounded (more than ${DOMAIN_CAP} per location); simplify the arithmetic`);
    }
    this.prog.locations.forEach((_, loc) => {
      const e = this.newEvent(-1, null, { kind: 'W', loc, value: this.prog.initValues[loc], annot: 'ONCE' });
      this.co[loc].push(e.id);
    });
    this.ts = this.prog.threads.map((_, t) => this.initThread(t));
    this.open = this.prog.threads.map(() => []);
    this.advance();
    const outcomes = [...this.outcomes.values()];
    return {
      outcomes,
      positive: this.positive,
      negative: this.negative,
      flags: [...this.flags].sort(),
      candidates: this.candidates,
      pruned: this.pruned,
      cutPaths: this.cutPaths,
      rejectedBy: this.rejectedBy,
      forbiddenWitness: this.forbidden,
      prefixChecks: this.prefixChecks,
      prefixRejects: this.prefixRejects,
    };
  }

  private initThread(t: number): ThreadState {
    const th = this.prog.threads[t];
    return { done: false, pc: 0, regs: th.initRegs.slice(), deps: th.initRegs.map(() => 0n), ctrl: 0n, ctrlStack: [], po: 0 };
  }

  private clone(ts: ThreadState): ThreadState {
    return { done: ts.done, pc: ts.pc, regs: ts.regs.slice(), deps: ts.deps.slice(), ctrl: ts.ctrl, ctrlStack: ts.ctrlStack.slice(), po: ts.po };
  }

  private tick(): void {
    if ((++this.steps & 1023) === 0 && Date.now() > this.deadline) {
      throw new LimitError(`exploration stopped after ${this.opts.timeoutMs} ms (--timeout)`);
    }
  }

  // ------------------------------------------------------------- events
  private newEvent(
    thread: number,
    ts: ThreadState | null,
    f: { kind: Event['kind']; loc: number; value: number; annot: Annot; fence?: FenceKind; lock?: LockKind; srcu?: Event['srcu']; isRmw?: boolean; addrDeps?: bigint; dataDeps?: bigint; ins?: Instr },
  ): Event {
    const ins = f.ins as Extract<Instr, { op: 'prim' }> | undefined;
    const e: Event = {
      id: this.events.length,
      thread,
      poIndex: ts ? ts.po++ : -1,
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
      ctrlDeps: ts ? ts.ctrl : 0n,
      rf: -1,
      pos: ins?.pos,
      text: ins?.name,
      pc: ts ? ts.pc : -1,
      held: thread >= 0 && this.open[thread].length > 0 ? this.open[thread].slice() : undefined,
    };
    this.events.push(e);
    if (StructureNode.count > StructureNode.MAX_NODES) {
      for (const n of this.nodes) n.prune();
      StructureNode.count = 0;
    }
    this.nodes.push(this.nodes[this.nodes.length - 1].child(e));
    if (e.loc >= 0 && e.kind !== 'F') this.byLoc[e.loc].push(e.id);
    return e;
  }

  private popEvent(e: Event): void {
    const last = this.events.pop();
    if (last !== e) throw new Error('explorer: event stack out of order');
    this.nodes.pop();
    if (e.loc >= 0 && e.kind !== 'F') this.byLoc[e.loc].pop();
  }

  // ------------------------------------------------------------ threads
  /**
   * One step of the exploration. Every thread first runs its register-only
   * instructions. Then the first thread that is neither finished nor waiting
   * (or whose waiting read has been given a write) executes its next
   * primitive. The choice depends on the state alone, so each execution is
   * built exactly once.
   */
  private advance(): void {
    this.tick();
    const T = this.prog.threads.length;
    const saved: [number, ThreadState][] = [];
    try {
      for (let u = 0; u < T; u++) {
        const cur = this.ts[u];
        if (cur.done || this.prog.threads[u].code[cur.pc]?.op === 'prim') continue;
        const next = this.clone(cur);
        saved.push([u, cur]);
        this.ts[u] = next;
        if (!this.runLocal(u, next)) return;
      }
      if (!this.pendingStillPossible()) {
        this.pruned++;
        return;
      }
      // The first thread that can go on: not finished, and not waiting
      // (or waiting with its read now satisfied).
      let unfinished = false;
      for (let u = 0; u < T; u++) {
        if (this.ts[u].done) continue;
        unfinished = true;
        const wi = this.waiting.findIndex((b) => b.t === u);
        if (wi < 0) {
          const ts = this.ts[u];
          this.execPrim(u, ts, this.prog.threads[u].code[ts.pc] as Extract<Instr, { op: 'prim' }>);
          return;
        }
        const b = this.waiting[wi];
        if (!b.ready) continue;
        this.waiting.splice(wi, 1);
        b.k(b.r);
        this.waiting.splice(wi, 0, b);
        return;
      }
      if (unfinished) this.breakDeadlock();
      else this.finish();
    } finally {
      for (let i = saved.length - 1; i >= 0; i--) this.ts[saved[i][0]] = saved[i][1];
    }
  }

  /** Runs thread u's register-only instructions; false if the path is cut. */
  private runLocal(u: number, ts: ThreadState): boolean {
    const code = this.prog.threads[u].code;
    for (;;) {
      if (ts.pc >= code.length) {
        ts.done = true;
        this.finalRegs[u] = ts.regs;
        return true;
      }
      const ins = code[ts.pc];
      switch (ins.op) {
        case 'set':
          if (ins.e.k !== 'reg' && this.usesSymbol(ins.e, ts)) return this.dropSymbolic();
          ts.regs[ins.dst] = evalPure(ins.e, ts.regs);
          ts.deps[ins.dst] = this.depsOf(ins.e, ts);
          ts.pc++;
          break;
        case 'jump':
          ts.pc = ins.target;
          break;
        case 'branch': {
          if (this.usesSymbol(ins.cond, ts)) return this.dropSymbolic();
          const c = evalPure(ins.cond, ts.regs);
          ts.ctrl |= this.depsOf(ins.cond, ts);
          ts.pc = c !== 0 ? ts.pc + 1 : ins.ifFalse;
          break;
        }
        case 'loopcheck':
          if (ts.regs[ins.counter] >= ins.bound) {
            this.cutPaths++;
            return false;
          }
          ts.pc++;
          break;
        case 'ctrlpush':
          ts.ctrlStack.push(ts.ctrl);
          ts.pc++;
          break;
        case 'ctrlpop':
          ts.ctrl = ts.ctrlStack.pop() ?? 0n;
          ts.pc++;
          break;
        case 'prim':
          return true;
      }
    }
  }

  /** Whether e reads a register that holds a symbolic value. */
  private usesSymbol(e: PureExpr, ts: ThreadState): boolean {
    for (const r of pureRegs(e)) if (isSymbolic(ts.regs[r])) return true;
    return false;
  }

  /**
   * A symbolic value (see breakDeadlock) used in a computation, a branch or
   * a comparison: herd's equation for it stays unsolved, and it drops the
   * candidate. Copies are the only use that keeps it.
   */
  private dropSymbolic(): false {
    this.pruned++;
    return false;
  }

  /** Whether no load-buffering cycle can go through the waiting reads (see cycles.ts). */
  private noCycleThrough(): boolean {
    if (this.model.loadBuffering === 'never') return true;
    if (this.model.loadBuffering === 'any') return false;
    return this.waiting.every((b) => {
      const r = b.r;
      if (r.annot === 'PLAIN') return false;
      const ts = this.ts[b.t];
      const ins = this.prog.threads[b.t].code[ts.pc] as Extract<Instr, { op: 'prim' }>;
      const k = ins.prim.kind;
      // A read that may belong to a failed RMW (cmpxchg, add_unless) may
      // order nothing: the bell's Acquire and Mb leave out FailedRMW.
      const mayFail = k === 'cmpxchg' || k === 'add_unless';
      const strong = r.lock === 'LKR' || (!mayFail && r.annot === 'ACQUIRE') || (r.annot === 'MB' && (k === 'xchg' || k === 'atomic'));
      // An exchange's own write does not depend on its read.
      if (!strong && (k === 'xchg' || k === 'cmpxchg')) return false;
      return orderedBeforeLaterWrites(this.prog.threads[b.t], ts.pc, ins.dst, strong, r.loc);
    });
  }

  /** Whether a thread other than u may still write loc (from where it stands). */
  private othersMayWrite(u: number, loc: number, value?: number): boolean {
    for (let v = 0; v < this.ts.length; v++) {
      if (v === u || this.ts[v].done) continue;
      if (!this.domain.writesFrom[v][this.ts[v].pc]?.has(loc)) continue;
      if (value === undefined || this.domain.mayWrite[v].get(loc)?.has(value)) return true;
    }
    return false;
  }

  private depsOf(e: PureExpr, ts: ThreadState): bigint {
    let d = 0n;
    for (const r of pureRegs(e)) d |= ts.deps[r];
    return d;
  }

  /** Continues thread t after an instruction that produced `value` (with deps). */
  private resume(t: number, ts: ThreadState, dst: number, value: number, deps: bigint): void {
    const next = this.clone(ts);
    if (dst >= 0) {
      next.regs[dst] = value;
      next.deps[dst] = deps;
    }
    next.pc++;
    this.ts[t] = next;
    this.advance();
    this.ts[t] = ts;
  }

  private execPrim(t: number, ts: ThreadState, ins: Extract<Instr, { op: 'prim' }>): void {
    const p: Primitive = ins.prim;
    if (p.kind === 'fence') {
      this.withEvent(t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: p.fence, ins }, () => this.resume(t, ts, -1, 0, 0n));
      return;
    }
    const addrVal = evalPure(ins.addr, ts.regs);
    if (!isAddress(addrVal) || addrVal - LOC_BASE >= this.prog.locations.length) {
      // Only a guessed value can lead here; such a guess is never matched.
      this.pruned++;
      return;
    }
    const loc = addrVal - LOC_BASE;
    if (ins.args.some((a) => a.k !== 'reg' && this.usesSymbol(a, ts))) {
      this.dropSymbolic();
      return;
    }
    const addrDeps = this.depsOf(ins.addr, ts);
    const arg = (i: number) => evalPure(ins.args[i], ts.regs);
    const argDeps = (i: number) => this.depsOf(ins.args[i], ts);
    const base = { loc, addrDeps, ins };
    switch (p.kind) {
      case 'load':
        this.read(t, ts, { ...base, annot: p.annot }, (r) => this.resume(t, ts, ins.dst, r.value, BIT(r.id)));
        return;
      case 'srcu_lock':
        this.read(t, ts, { ...base, annot: 'ONCE', srcu: 'srcu-lock' }, (r) => this.resume(t, ts, ins.dst, r.value, BIT(r.id)));
        return;
      case 'store':
        this.write(t, ts, { ...base, annot: p.annot, value: arg(1), dataDeps: argDeps(1) }, () => {
          if (p.thenFence) {
            this.withEvent(t, ts, { kind: 'F', loc: -1, value: 0, annot: 'ONCE', fence: p.thenFence, ins }, () => this.resume(t, ts, -1, 0, 0n));
          } else this.resume(t, ts, -1, 0, 0n);
        });
        return;
      case 'srcu_unlock':
        this.write(t, ts, { ...base, annot: 'ONCE', srcu: 'srcu-unlock', value: arg(1), dataDeps: argDeps(1) }, () => this.resume(t, ts, -1, 0, 0n));
        return;
      case 'srcu_sync':
        this.withEvent(t, ts, { kind: 'F', loc, value: 0, annot: 'ONCE', srcu: 'sync-srcu', addrDeps, ins }, () => this.resume(t, ts, -1, 0, 0n));
        return;
      case 'xchg':
        this.read(t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
          this.rmwWrite(t, ts, r, arg(1), argDeps(1), () => this.resume(t, ts, ins.dst, r.value, BIT(r.id)));
        });
        return;
      case 'cmpxchg':
        this.read(t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
          if (isSymbolic(r.value) || isSymbolic(arg(1))) return void this.dropSymbolic();
          if (r.value === arg(1)) {
            this.rmwWrite(t, ts, r, arg(2), argDeps(2), () => this.resume(t, ts, ins.dst, r.value, BIT(r.id)));
          } else this.resume(t, ts, ins.dst, r.value, BIT(r.id));
        });
        return;
      case 'atomic': {
        // atomic_add(V, X): the operand is the first argument.
        const operand = p.operand === 'arg' ? arg(0) : p.operand;
        const opDeps = p.operand === 'arg' ? argDeps(0) : 0n;
        this.read(t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
          if (isSymbolic(r.value) || isSymbolic(operand)) return void this.dropSymbolic();
          const nv = binop(p.op, r.value, operand);
          this.rmwWrite(t, ts, r, nv, opDeps | BIT(r.id), () => {
            let ret = p.ret === 'old' ? r.value : nv;
            if (p.test === 'zero') ret = nv === 0 ? 1 : 0;
            if (p.test === 'negative') ret = nv < 0 ? 1 : 0;
            this.resume(t, ts, ins.dst, ret, BIT(r.id));
          });
        });
        return;
      }
      case 'add_unless':
        this.read(t, ts, { ...base, annot: p.annot, isRmw: true }, (r) => {
          if (isSymbolic(r.value) || isSymbolic(arg(1)) || isSymbolic(arg(2))) return void this.dropSymbolic();
          if (r.value !== arg(2)) {
            this.rmwWrite(t, ts, r, r.value + arg(1), argDeps(1) | BIT(r.id), () => this.resume(t, ts, ins.dst, 1, BIT(r.id)));
          } else this.resume(t, ts, ins.dst, 0, BIT(r.id));
        });
        return;
      case 'spin_lock':
        this.lock(t, ts, loc, addrDeps, ins, () => this.resume(t, ts, -1, 0, 0n));
        return;
      case 'spin_unlock':
        this.unlock(t, ts, loc, addrDeps, ins, () => this.resume(t, ts, -1, 0, 0n));
        return;
      case 'spin_trylock':
        // Success: a lock; failure: an LF read of a held lock.
        this.lock(t, ts, loc, addrDeps, ins, (lkr) => this.resume(t, ts, ins.dst, 1, BIT(lkr.id)));
        this.lockRead(t, ts, loc, addrDeps, ins, 'LF', (r) => this.resume(t, ts, ins.dst, 0, BIT(r.id)));
        return;
      case 'spin_is_locked':
        this.lockRead(t, ts, loc, addrDeps, ins, 'RL', (r) => this.resume(t, ts, ins.dst, 1, BIT(r.id)));
        this.lockRead(t, ts, loc, addrDeps, ins, 'RU', (r) => this.resume(t, ts, ins.dst, 0, BIT(r.id)));
        return;
    }
  }

  private withEvent(t: number, ts: ThreadState, f: Parameters<Explorer['newEvent']>[2], k: () => void): void {
    const saved = ts.po;
    const e = this.newEvent(t, ts, f);
    k();
    this.popEvent(e);
    ts.po = saved;
  }

  // -------------------------------------------------------------- reads
  private read(
    t: number,
    ts: ThreadState,
    f: { loc: number; annot: Annot; addrDeps: bigint; ins: Instr; isRmw?: boolean; srcu?: Event['srcu'] },
    k: (r: Event) => void,
  ): void {
    const saved = ts.po;
    const r = this.newEvent(t, ts, { kind: 'R', value: 0, ...f });
    this.chooseSource(t, r, () => true, k);
    this.popEvent(r);
    ts.po = saved;
  }

  /**
   * Gives read r each possible source in turn: the writes that exist now;
   * then, if another thread may still write the location, a write to come:
   * the thread waits until a write is offered to it (or, if every thread
   * ends up waiting, until its value is guessed: see breakDeadlock).
   */
  private chooseSource(t: number, r: Event, accept: (w: Event) => boolean, k: (r: Event) => void, guessKind?: LockKind): void {
    const loc = r.loc;
    const ids = this.byLoc[loc];
    // The writes r may read: cheap tests first (lock order, coherence at loc).
    const viable: Event[] = [];
    for (let i = 0; i < ids.length; i++) {
      const w = this.events[ids[i]];
      if (w.kind !== 'W' || w.id === r.id || !accept(w)) continue;
      if (this.lockForbidsRead(r, w)) {
        this.pruned++;
        continue;
      }
      r.rf = w.id;
      if (this.coherentAt(loc)) viable.push(w);
      else this.pruned++;
    }
    const willWait = this.othersMayWrite(t, loc);
    // A choice that is the only one left need not be shown to the model now:
    // the next check (or the final one) sees it anyway.
    const forced = viable.length === 1 && !willWait;
    for (const w of viable) {
      r.rf = w.id;
      r.value = w.value;
      if (forced || w.thread === t || (w.thread < 0 && this.co[loc].length === 1) || this.prefixConsistent()) k(r);
      else this.pruned++;
    }
    r.rf = -1;
    r.value = 0;
    if (willWait) this.wait({ t, r, k, accept, guessKind, ready: false });
  }

  /** Thread w.t waits at read w.r for a write to come; the others go on. */
  private wait(w: Waiting): void {
    this.waiting.push(w);
    this.advance();
    this.waiting.pop();
  }

  /**
   * Lets each waiting read that write w can satisfy take it (it becomes
   * ready to go on), or not: every subset, each once.
   */
  private offer(w: Event, from: number, k: () => void): void {
    for (let i = from; i < this.waiting.length; i++) {
      const b = this.waiting[i];
      const r = b.r;
      if (b.ready || r.lock === 'LKR' || r.loc !== w.loc || r.thread === w.thread || !b.accept(w)) continue;
      if (this.lockForbidsRead(r, w)) continue;
      b.ready = true;
      r.rf = w.id;
      r.value = w.value;
      if (this.coherentAt(w.loc)) this.offer(w, i + 1, k); // the model sees it at the next check
      else this.pruned++;
      b.ready = false;
      r.rf = -1;
      r.value = 0;
    }
    k();
  }

  /**
   * Every unfinished thread waits for a write that only a waiting thread can
   * make: some read takes its value from a write still to come (a
   * load-buffering cycle). The first waiting read guesses that value; a
   * later write must match it (matchPending).
   */
  private breakDeadlock(): void {
    if (this.noCycleThrough()) {
      this.pruned++;
      return;
    }
    const i = this.waiting.findIndex((b) => !b.ready && b.r.lock !== 'LKR');
    if (i < 0) {
      this.pruned++; // only locks wait: a deadlock
      return;
    }
    const b = this.waiting[i];
    this.waiting.splice(i, 1);
    const values = this.guessableValues(b.t, b.r.loc, b.guessKind);
    // Besides the values other threads may write, symbolic ones: herd keeps
    // a cycle of plain copies with its value left unsolved. The read may
    // copy a symbolic value already guessed (the same unsolved variable,
    // when several reads of the cycle wait), or start a new one.
    if (!b.guessKind) {
      const symbols = new Set<number>();
      for (const e of this.events) if (isSymbolic(e.value)) symbols.add(e.value);
      symbols.add(SYM_BASE + b.t * 1000 + b.r.poIndex);
      values.push(...[...symbols].sort((x, y) => x - y));
    }
    for (const v of values) {
      b.r.value = v;
      this.pending.push(b.r.id);
      b.k(b.r);
      this.pending.pop();
    }
    b.r.value = 0;
    this.waiting.splice(i, 0, b);
  }

  private guessableValues(t: number, loc: number, kind?: LockKind): number[] {
    const out = new Set<number>();
    for (let u = 0; u < this.ts.length; u++) {
      if (u === t || this.ts[u].done || !this.domain.writesFrom[u][this.ts[u].pc]?.has(loc)) continue;
      const vs = this.domain.mayWrite[u].get(loc);
      if (vs) for (const v of vs) out.add(v);
    }
    if (kind === 'LKW') return out.has(1) ? [1] : [];
    if (kind === 'UL') return out.has(0) ? [0] : [];
    return [...out].sort((a, b) => a - b);
  }

  /** Whether every guessed read can still be matched by a write to come. */
  private pendingStillPossible(): boolean {
    for (const id of this.pending) {
      const r = this.events[id];
      if (!this.othersMayWrite(r.thread, r.loc, isSymbolic(r.value) ? undefined : r.value)) return false;
    }
    for (const b of this.waiting) if (!b.ready && !this.othersMayWrite(b.t, b.r.loc)) return false;
    return true;
  }

  // ------------------------------------------------------------- writes
  private write(
    t: number,
    ts: ThreadState,
    f: { loc: number; annot: Annot; value: number; addrDeps: bigint; dataDeps: bigint; ins?: Instr; isRmw?: boolean; srcu?: Event['srcu']; lock?: LockKind },
    k: (w: Event) => void,
    partner?: Event,
  ): void {
    const saved = ts.po;
    const w = this.newEvent(t, ts, { kind: 'W', ...f });
    if (partner && !f.ins) {
      w.pos = partner.pos;
      w.text = partner.text;
    }
    if (partner) {
      partner.rmwPartner = w.id;
      w.rmwPartner = partner.id;
    }
    this.placeInCo(w, () => this.matchPending(w, 0, () => this.offer(w, 0, () => k(w))));
    if (partner) partner.rmwPartner = -1;
    this.popEvent(w);
    ts.po = saved;
  }

  private rmwWrite(t: number, ts: ThreadState, r: Event, value: number, dataDeps: bigint, k: () => void): void {
    this.write(t, ts, { loc: r.loc, annot: r.annot, value, addrDeps: r.addrDeps, dataDeps, isRmw: true }, () => k(), r);
  }

  /** Tries each position of w in the coherence order of its location. */
  private placeInCo(w: Event, k: () => void): void {
    const list = this.co[w.loc];
    // The positions w may take: cheap tests first (not inside a critical
    // section's lock/unlock pair, lock order, coherence at the location).
    const viable: number[] = [];
    for (let at = 1; at <= list.length; at++) {
      if (this.events[list[at - 1]].lock === 'LKW') continue;
      if (this.lockForbidsCoBefore(w, list, at)) {
        this.pruned++;
        continue;
      }
      list.splice(at, 0, w.id);
      if (this.coherentAt(w.loc)) viable.push(at);
      else this.pruned++;
      list.splice(at, 1);
    }
    const forced = viable.length === 1;
    for (const at of viable) {
      list.splice(at, 0, w.id);
      // Placed last, w adds co edges only from earlier writes: no new cycle
      // unless some read saw one of those (then fr edges point to w).
      const last = at === list.length - 1;
      if (forced || (last && !this.readsSawAny(w.loc)) || this.prefixConsistent()) k();
      else this.pruned++;
      list.splice(at, 1);
    }
  }

  // ---------------------------------------------------- mutual exclusion
  /**
   * Whether a's critical section comes before b's in the order of a lock
   * both hold (both marked accesses; see Model.mutualExclusion).
   */
  private lockOrdered(a: Event, b: Event): boolean {
    if (!a.held || !b.held || a.annot === 'PLAIN' || b.annot === 'PLAIN') return false;
    for (const la of a.held) {
      for (const lb of b.held) {
        if (la === lb) continue;
        const loc = this.events[la].loc;
        if (this.events[lb].loc !== loc) continue;
        const list = this.co[loc];
        const ia = list.indexOf(la);
        const ib = list.indexOf(lb);
        if (ia >= 0 && ib >= 0 && ia < ib) return true;
      }
    }
    return false;
  }

  /** Read r may not take w: w is in a later critical section, or an earlier one wrote over w. */
  private lockForbidsRead(r: Event, w: Event): boolean {
    if (!this.model.mutualExclusion || !r.held) return false;
    if (this.lockOrdered(r, w)) return true;
    const list = this.co[r.loc];
    const at = list.indexOf(w.id);
    if (at < 0) return false;
    for (let i = at + 1; i < list.length; i++) if (this.lockOrdered(this.events[list[i]], r)) return true;
    return false;
  }

  /** Write w may not go at position `at`: a write of an earlier critical section would come after it. */
  private lockForbidsCoBefore(w: Event, list: number[], at: number): boolean {
    if (!this.model.mutualExclusion || !w.held) return false;
    for (let i = at; i < list.length; i++) if (this.lockOrdered(this.events[list[i]], w)) return true;
    return false;
  }

  /** Whether some read of loc from another thread already has its source. */
  private readsSawAny(loc: number): boolean {
    for (const id of this.byLoc[loc]) if (this.events[id].kind === 'R' && this.events[id].rf >= 0) return true;
    return false;
  }

  /** The lock write of thread t at loc not yet closed by an unlock (before event `before`). */
  private openLockWrite(t: number, loc: number, before: number): number {
    const ids = this.byLoc[loc];
    for (let i = ids.length - 1; i >= 0; i--) {
      const e = this.events[ids[i]];
      if (e.id >= before || e.thread !== t) continue;
      if (e.lock === 'UL') return -1;
      if (e.lock === 'LKW') return e.id;
    }
    return -1;
  }

  /** Lets each guessed read that w can satisfy read from w, or keep waiting. */
  private matchPending(w: Event, from: number, k: () => void): void {
    for (let i = from; i < this.pending.length; i++) {
      const r = this.events[this.pending[i]];
      if (r.loc !== w.loc || r.value !== w.value || r.lock === 'LKR') continue;
      // A value computed from the guess itself: herd cannot solve r's
      // equation (a copy leaves it symbolic: the symbolic guess has it).
      if (!isSymbolic(r.value) && this.valueDependsOn(w, r)) continue;
      if (r.lock === 'LF' || r.lock === 'RL') {
        if (w.lock !== 'LKW') continue;
      } else if (r.lock === 'RU') {
        if (w.lock !== 'UL') continue;
      }
      // Branch: r reads from w ...
      this.pending.splice(i, 1);
      r.rf = w.id;
      if (this.coherentAt(w.loc) && this.prefixConsistent()) this.matchPending(w, i, k);
      else this.pruned++;
      r.rf = -1;
      this.pending.splice(i, 0, r.id);
      // ... or from a later write.
    }
    k();
  }

  /** Whether write w's value is computed from read r's (data dependencies, through rf). */
  private valueDependsOn(w: Event, r: Event): boolean {
    const seen = new Set<number>();
    const todo = [w];
    while (todo.length > 0) {
      const x = todo.pop()!;
      for (let deps = x.dataDeps, i = 0; deps !== 0n; deps >>= 1n, i++) {
        if (!(deps & 1n) || seen.has(i)) continue;
        seen.add(i);
        if (i === r.id) return true;
        const src = this.events[i].rf;
        if (src >= 0 && this.events[src].thread >= 0) todo.push(this.events[src]);
      }
    }
    return false;
  }

  // -------------------------------------------------------------- locks
  /**
   * spin_lock: an LKR/LKW pair. The lock's place in the order of critical
   * sections is decided by the LKR's source, the unlock (or initial write)
   * that it follows in coherence order: the one last in that order now, or
   * an unlock yet to come (then the pair waits, like a guessed read, and is
   * attached when that unlock is last). Critical sections thus join the
   * coherence order only at its end, each exactly once.
   */
  private lock(t: number, ts: ThreadState, loc: number, addrDeps: bigint, ins: Instr, k: (lkr: Event) => void): void {
    // A lock taken again inside its own critical section deadlocks.
    if (this.openLockWrite(t, loc, this.events.length) >= 0) {
      this.pruned++;
      return;
    }
    const saved = ts.po;
    const lkr = this.newEvent(t, ts, { kind: 'R', loc, value: 0, annot: 'ACQUIRE', lock: 'LKR', addrDeps, ins });
    const lkw = this.newEvent(t, ts, { kind: 'W', loc, value: 1, annot: 'ONCE', lock: 'LKW', addrDeps, ins });
    lkr.rmwPartner = lkw.id;
    lkw.rmwPartner = lkr.id;
    const go = () =>
      this.matchPending(lkw, 0, () =>
        this.offer(lkw, 0, () => {
          this.open[t].push(lkw.id);
          k(lkr);
          this.open[t].pop();
        }),
      );
    const list = this.co[loc];
    const last = this.events[list[list.length - 1]];
    if (last.thread === -1 || last.lock === 'UL') {
      lkr.rf = last.id;
      list.push(lkw.id);
      if (this.coherentAt(loc)) go();
      else this.pruned++;
      list.pop();
      lkr.rf = -1;
    }
    // Or wait until an unlock of another thread is last (attach).
    if (this.othersMayWrite(t, loc)) this.wait({ t, r: lkr, k: () => go(), accept: () => false, ready: false });
    this.popEvent(lkw);
    this.popEvent(lkr);
    ts.po = saved;
  }

  private unlock(t: number, ts: ThreadState, loc: number, addrDeps: bigint, ins: Instr, k: () => void): void {
    const saved = ts.po;
    const ul = this.newEvent(t, ts, { kind: 'W', loc, value: 0, annot: 'RELEASE', lock: 'UL', addrDeps, ins });
    const lkw = this.openLockWrite(t, loc, ul.id);
    const list = this.co[loc];
    const held = this.open[t];
    const go = () =>
      this.matchPending(ul, 0, () =>
        this.offer(ul, 0, () => {
          const at = held.indexOf(lkw);
          if (at >= 0) held.splice(at, 1);
          k();
          if (at >= 0) held.splice(at, 0, lkw);
        }),
      );
    if (lkw >= 0 && list[list.length - 1] === lkw) {
      list.push(ul.id);
      if (this.coherentAt(loc)) this.attach(loc, go);
      else this.pruned++;
      list.pop();
    } else {
      // The critical section waits to be attached (or the unlock matches no lock).
      go();
    }
    this.popEvent(ul);
    ts.po = saved;
  }

  /**
   * The last write of loc's coherence order is an unlock: either no waiting
   * lock follows it now, or one does (its thread is then ready to go on).
   */
  private attach(loc: number, k: () => void): void {
    k();
    const list = this.co[loc];
    const last = this.events[list[list.length - 1]];
    for (const b of this.waiting) {
      const lkr = b.r;
      if (b.ready || lkr.lock !== 'LKR' || lkr.loc !== loc) continue;
      b.ready = true;
      lkr.rf = last.id;
      list.push(lkr.rmwPartner);
      if (this.coherentAt(loc)) k(); // the model sees the new order at the next check
      else this.pruned++;
      list.pop();
      lkr.rf = -1;
      b.ready = false;
    }
  }

  /** LF (failed trylock), RL (is_locked true) and RU (is_locked false) reads. */
  private lockRead(t: number, ts: ThreadState, loc: number, addrDeps: bigint, ins: Instr, kind: LockKind, k: (r: Event) => void): void {
    const open = this.openLockWrite(t, loc, this.events.length);
    if (kind === 'RU' && open >= 0) {
      this.pruned++; // is_locked() inside its own critical section is true
      return;
    }
    const saved = ts.po;
    const r = this.newEvent(t, ts, { kind: 'R', loc, value: 0, annot: 'ONCE', lock: kind, addrDeps, ins });
    if (open >= 0) {
      // Inside its own critical section: reads its own lock write.
      r.rf = open;
      r.value = 1;
      if (this.coherentAt(loc)) k(r);
      r.rf = -1;
    } else if (kind === 'RU') {
      const lastOwnUL = this.lastOwnUnlock(t, loc, r.id);
      this.chooseSource(t, r, (w) => (w.thread === -1 || (w.lock === 'UL' && (w.thread !== t || w.id === lastOwnUL))), k, 'UL');
    } else {
      this.chooseSource(t, r, (w) => w.lock === 'LKW' && w.thread !== t, k, 'LKW');
    }
    this.popEvent(r);
    ts.po = saved;
  }

  private lastOwnUnlock(t: number, loc: number, before: number): number {
    const ids = this.byLoc[loc];
    for (let i = ids.length - 1; i >= 0; i--) {
      const e = this.events[ids[i]];
      if (e.id < before && e.thread === t && e.lock === 'UL') return e.id;
    }
    return -1;
  }

  // ---------------------------------------------------------- coherence
  /**
   * Coherence (po-loc | rf | co | fr acyclic) and RMW atomicity at one
   * location, over what is decided so far.
   */
  private coherentAt(loc: number): boolean {
    if (this.opts.keepIncoherent) return true;
    const ids = this.byLoc[loc];
    const list = this.co[loc];
    const n = ids.length;
    if (n <= 1) return true;
    // Scratch, indexed by event id: the access's position in `ids` and its
    // place in coherence order, valid where `stamp` holds this call's mark.
    const sc = this.cohScratch(this.events.length, n);
    const mark = ++sc.mark;
    for (let i = 0; i < n; i++) {
      sc.stamp[ids[i]] = mark;
      sc.index[ids[i]] = i;
      sc.coPos[ids[i]] = -1;
    }
    for (let j = 0; j < list.length; j++) sc.coPos[list[j]] = j;
    const at = (id: number): number => (sc.stamp[id] === mark ? sc.index[id] : -1);
    // Edges: program order per thread, rf, fr (to the next write in co), co.
    let m = 0;
    const from = sc.from;
    const to = sc.to;
    const lastOfThread = sc.last;
    lastOfThread.fill(-1, 0, this.ts.length + 1);
    for (let i = 0; i < n; i++) {
      const e = this.events[ids[i]];
      if (e.thread >= 0) {
        const prev = lastOfThread[e.thread];
        if (prev >= 0) (from[m] = prev), (to[m++] = i);
        lastOfThread[e.thread] = i;
      }
      if (e.kind === 'R' && e.rf >= 0) {
        const wi = at(e.rf);
        if (wi >= 0) (from[m] = wi), (to[m++] = i);
        const p = wi >= 0 ? sc.coPos[e.rf] : -1;
        if (p >= 0 && p + 1 < list.length) (from[m] = i), (to[m++] = sc.index[list[p + 1]]);
        // Atomicity: nothing external between an RMW's source and its write.
        if (e.rmwPartner >= 0 && p >= 0) {
          const q = at(e.rmwPartner) >= 0 ? sc.coPos[e.rmwPartner] : -1;
          for (let j = p + 1; j < q; j++) {
            if (this.events[list[j]].thread !== e.thread) return false;
          }
        }
      }
    }
    for (let j = 0; j + 1 < list.length; j++) (from[m] = sc.index[list[j]]), (to[m++] = sc.index[list[j + 1]]);
    // Acyclic iff a topological order takes every node (Kahn).
    const indeg = sc.indeg;
    const head = sc.head;
    const adj = sc.adj;
    indeg.fill(0, 0, n);
    head.fill(0, 0, n + 1);
    for (let k = 0; k < m; k++) indeg[to[k]]++, head[from[k] + 1]++;
    for (let i = 0; i < n; i++) head[i + 1] += head[i];
    const fill = sc.queue; // borrowed as the fill cursor per node
    for (let i = 0; i < n; i++) fill[i] = head[i];
    for (let k = 0; k < m; k++) adj[fill[from[k]]++] = to[k];
    const queue = sc.queue;
    let qh = 0;
    let qt = 0;
    for (let i = 0; i < n; i++) if (indeg[i] === 0) queue[qt++] = i;
    while (qh < qt) {
      const v = queue[qh++];
      for (let k = head[v]; k < head[v + 1]; k++) if (--indeg[adj[k]] === 0) queue[qt++] = adj[k];
    }
    return qt === n;
  }

  private cohBuffers = {
    mark: 0,
    stamp: new Int32Array(0),
    index: new Int32Array(0),
    coPos: new Int32Array(0),
    from: new Int32Array(0),
    to: new Int32Array(0),
    last: new Int32Array(0),
    indeg: new Int32Array(0),
    queue: new Int32Array(0),
    head: new Int32Array(0),
    adj: new Int32Array(0),
  };

  /** Scratch arrays for coherentAt, grown to fit `events` ids and `n` accesses. */
  private cohScratch(events: number, n: number) {
    const b = this.cohBuffers;
    if (b.stamp.length < events) {
      const size = Math.max(64, events * 2);
      b.stamp = new Int32Array(size);
      b.index = new Int32Array(size);
      b.coPos = new Int32Array(size);
      b.mark = 0;
    }
    if (b.indeg.length < n) {
      const size = Math.max(64, n * 2);
      b.indeg = new Int32Array(size);
      b.queue = new Int32Array(size);
      b.head = new Int32Array(size + 1);
      b.from = new Int32Array(size * 4);
      b.to = new Int32Array(size * 4);
      b.adj = new Int32Array(size * 4);
    }
    if (b.last.length < this.ts.length + 1) b.last = new Int32Array(this.ts.length + 8);
    if (b.mark > 1 << 30) {
      b.stamp.fill(0);
      b.mark = 0;
    }
    return b;
  }

  // ------------------------------------------------------------- judging
  /**
   * Whether the execution built so far can still be consistent. The models'
   * axioms (acyclic, irreflexive, empty) only lose when events and edges are
   * added, so an inconsistent prefix has no consistent completion. Guessed
   * reads and lock reads (whose source is fixed only at the end) contribute
   * no rf edge here, which keeps the prefix a subset of every completion.
   */
  /**
   * Whether the model accepts the execution built so far. This only prunes
   * (every complete execution is judged in full), so where checks have
   * stopped paying - no rejection among the last PREFIX_WINDOW - only every
   * PREFIX_STRIDE-th is made, until one rejects again.
   */
  private prefixConsistent(): boolean {
    if (this.sinceReject >= PREFIX_WINDOW && ++this.skipped % PREFIX_STRIDE !== 0) return true;
    this.sinceReject++;
    this.prefixChecks++;
    const ok = scratch(() => {
      const exec = buildExecution(this.prog, this.events, this.co, this.top());
      return this.model.check(exec, { prefix: true }).consistent;
    });
    if (!ok) {
      this.prefixRejects++;
      this.sinceReject = 0;
    }
    return ok;
  }

  private finish(): void {
    if (this.pending.length > 0) {
      this.pruned++;
      return;
    }
    this.judge();
  }

  private top(): StructureNode {
    return this.nodes[this.nodes.length - 1];
  }

  private judge(): void {
    scratch(() => this.judgeHere());
  }

  private judgeHere(): void {
    this.candidates++;
    if (this.candidates > this.maxExecutions) {
      throw new LimitError(`more than ${this.maxExecutions} candidate executions (--max-executions)`);
    }
    const exec = buildExecution(this.prog, this.events, this.co, this.top());
    const verdict = this.model.check(exec);
    const fs = { regs: this.finalRegs, mem: this.co.map((l) => this.events[l[l.length - 1]].value) };
    const values = this.prog.observed.map((o) => (o.kind === 'reg' ? fs.regs[o.thread][o.reg] : fs.mem[o.loc]));
    const key = values.join(',');
    if (this.prog.final.filter && !this.prog.final.filter(fs)) return;
    const pos = this.prog.final.holds(fs);
    if (!verdict.consistent) {
      const ax = verdict.violated ?? 'model';
      this.rejectedBy.set(ax, (this.rejectedBy.get(ax) ?? 0) + 1);
      if (this.opts.keepWitnesses && pos && !this.forbidden) {
        this.forbidden = { exec: snapshot(exec), axiom: ax, values };
        this.opts.onForbidden?.(this.forbidden);
      }
      return;
    }
    for (const f of verdict.flags) this.flags.add(f);
    if (pos) this.positive++;
    else this.negative++;
    let o = this.outcomes.get(key);
    if (!o) {
      o = { values, positive: pos, count: 0 };
      if (this.opts.keepWitnesses && pos) o.witness = snapshot(exec);
      this.outcomes.set(key, o);
    }
    o.count++;
  }
}

/** A copy of an execution that later exploration will not change. */
function snapshot(x: Execution): Execution {
  return lasting(() => {
    const events = x.events.map((e) => ({ ...e }));
    const co = x.co.map((l) => l.slice());
    return { ...buildExecution({ locations: x.locations } as Program, events, co), structure: x.structure };
  });
}
