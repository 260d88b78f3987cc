// What each thread may still write, and where: the locations, read off the
// code where every address is fixed (else from the value analysis), which
// the explorer asks about at every step; and the values, found by running
// every thread over sets of values until nothing new appears, which the
// explorer needs only to guess the value of a read whose write comes later
// in its exploration order.

import { effectOf } from '../events/primitives.js';
import { LimitError } from '../parse/errors.js';
import { DIVIDES, unary32 } from '../program/arith.js';
import { accessedLocation, binaryValue, evalPure, hasLoops, IllegalOnAddress, isAddress, isVariableAddress, pureRegs, type Instr, type Program, type PureExpr, type Thread } from '../program/program.js';
import { Deadline } from '../limits.js';

/**
 * How many values a location may take before the test is refused. Chained
 * additions reach thousands (herd7 answers such tests); sums are computed
 * as shifted bitsets, so large sets stay cheap.
 */
export const DOMAIN_CAP = 1 << 16;

/**
 * Instructions times registers, summed over threads, past which
 * settledValues does not run the value analysis (it costs about that many
 * register sets per round): a test with 20,000 registers would take
 * minutes, for a pruning the search can do without.
 */
const SETTLED_VALUES_CELLS = 1 << 20;

/** Steps of one thread's pass of the value analysis before it is taken as not settling. */
const ANALYSIS_STEPS = 1_000_000;


export interface ValueDomain {
  /**
   * Values each thread may write to each location (thread -> loc -> values).
   * Only guessed reads need them: found when first read (a LimitError then
   * if they grow past DOMAIN_CAP), unless the addresses needed them first.
   */
  readonly mayWrite: Map<number, Set<number>>[];
  /** Locations a thread may still write from each instruction on (thread -> pc -> locs). */
  writesFrom: Set<number>[][];
  /** writesFrom as bits, for the explorer's question at every step (see mayStillWrite). */
  writesFromBits: Uint32Array[];
  locWords: number;
  /** Per thread, per lock location: its critical sections' part in what the thread may write (see LockGuard). */
  lockGuards: Map<number, LockGuard>[];
  /** Per thread, per instruction: the locations its address may be. */
  addresses: Set<number>[][];
  /** The value analysis where it settles within its bounds (found when first asked for), else undefined. */
  settledValues(): ValueAnalysis | undefined;
}

/**
 * What a thread may still write, from each instruction on (the lock not
 * held there), split by one lock's critical sections: the locations it may
 * write outside them, and the write instructions it may run inside them.
 * A read inside a critical section of that lock sees the latter only
 * through later critical sections, which the model may rule out
 * (Model.lockOrders).
 */
export interface LockGuard {
  outside: Set<number>[];
  /** As lists (the explorer walks them at every read inside a critical section). */
  inside: (readonly number[])[];
}

type AbsRegs = Set<number>[];

function absEval(e: PureExpr, regs: AbsRegs): Set<number> {
  switch (e.k) {
    case 'const':
      return new Set([e.v]);
    case 'reg':
      return regs[e.r];
    case 'un': {
      const out = new Set<number>();
      for (const a of absEval(e.a, regs)) out.add(unary32(e.op, a));
      return out;
    }
    case 'bin': {
      const out = new Set<number>();
      const as = absEval(e.a, regs);
      const bs = absEval(e.b, regs);
      if ((e.op === '+' || e.op === '-') && as.size * bs.size > 4096) {
        const sum = sumOfSets(as, bs, e.op === '-' ? -1 : 1);
        if (sum) return sum;
      }
      const divides = DIVIDES.has(e.op);
      for (const a of as) for (const b of bs) {
        // A division by zero has no value: the explorer reports it where it happens.
        if (divides && b === 0 && !isVariableAddress(a)) continue;
        // Nor has an operation herd7 refuses on an address.
        let v: number;
        try {
          v = binaryValue(e.op, a, b);
        } catch (x) {
          if (x instanceof IllegalOnAddress) continue;
          throw x;
        }
        out.add(v);
        if (out.size > DOMAIN_CAP) return out;
      }
      return out;
    }
  }
}

/** Bits per word of the bitsets of sumOfSets. */
const WORD = 32;

/**
 * { a + sign*b }, as the union over a of the bitset of b shifted by a, when
 * every value is a small integer (else undefined: the caller goes pairwise).
 */
export function sumOfSets(as: Set<number>, bs: Set<number>, sign: 1 | -1): Set<number> | undefined {
  const bvals = [...bs].map((b) => sign * b);
  const all = [...as, ...bvals];
  if (!all.every((v) => Number.isInteger(v) && Math.abs(v) < 1 << 24 && !isAddress(Math.abs(v)))) return undefined;
  const bmin = Math.min(...bvals);
  const bspan = Math.max(...bvals) - bmin + 1;
  const amin = Math.min(...as);
  const span = Math.max(...as) - amin + bspan;
  if (span > 1 << 22) return undefined;
  // bits[i] set <=> amin + bmin + i is in the result.
  const bits = new Uint32Array(Math.ceil((span + WORD) / WORD));
  const bw = new Uint32Array(Math.ceil(bspan / WORD));
  for (const b of bvals) bw[(b - bmin) >>> 5] |= 1 << ((b - bmin) & 31);
  for (const a of as) {
    const shift = a - amin;
    const word = shift >>> 5;
    const bit = shift & 31;
    for (let i = 0; i < bw.length; i++) {
      const w = bw[i];
      if (w === 0) continue;
      bits[word + i] |= w << bit;
      if (bit !== 0) bits[word + i + 1] |= w >>> (WORD - bit);
    }
  }
  const out = new Set<number>();
  for (let i = 0; i < bits.length; i++) {
    let w = bits[i];
    while (w !== 0) {
      const low = w & -w;
      out.add(amin + bmin + i * WORD + (31 - Math.clz32(low)));
      w ^= low;
    }
  }
  return out;
}

const newSet = () => new Set<number>();
const newMap = () => new Map<number, Set<number>>();

/** m's entry for key, made first if there is none. */
function getOrMake<K, V>(m: Map<K, V>, key: K, make: () => V): V {
  let v = m.get(key);
  if (v === undefined) m.set(key, (v = make()));
  return v;
}

/** regs with register dst (if any, >= 0) holding vals; regs is not changed. */
function withRegister(regs: AbsRegs, dst: number, vals: Set<number>): AbsRegs {
  const r = regs.slice();
  if (dst >= 0) r[dst] = vals;
  return r;
}

/** a ∪ b: a itself when b adds nothing, else a new set (neither is changed). */
function unionIfLarger(a: Set<number>, b: Set<number>): Set<number> {
  if (a === b) return a;
  let out: Set<number> | undefined;
  for (const v of b) {
    if (a.has(v)) continue;
    out ??= new Set(a);
    out.add(v);
  }
  return out ?? a;
}

/**
 * Calls f with every combination of the values the arguments at `positions`
 * may hold (the others 0), in one reused array of `n` values.
 */
function forEachArgs(positions: readonly number[], n: number, valuesOf: (i: number) => Set<number>, f: (args: readonly number[]) => void): void {
  const args: number[] = new Array(n).fill(0);
  const sets = positions.map(valuesOf);
  const go = (k: number): void => {
    if (k === positions.length) return f(args);
    for (const v of sets[k]) {
      args[positions[k]] = v;
      go(k + 1);
    }
  };
  go(0);
}

/**
 * The registers of a thread that may hold a value read from memory (or
 * computed from one), flow-insensitively.
 */
function readDerived(th: Thread): Set<number> {
  const out = new Set<number>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const ins of th.code) {
      let dst = -1;
      if (ins.op === 'prim' && ins.dst >= 0) dst = ins.dst;
      else if (ins.op === 'set' && pureRegs(ins.e).some((r) => out.has(r))) dst = ins.dst;
      if (dst >= 0 && !out.has(dst)) {
        out.add(dst);
        changed = true;
      }
    }
  }
  return out;
}

/**
 * The explorer's ValueDomain of a program. The addresses come from the
 * values only where they must (an address or a branch computed in
 * registers); otherwise they are read off the code, and the values are
 * found when first asked for: most tests never guess a read's value.
 */
export function computeDomain(prog: Program, deadline = Deadline.none): ValueDomain {
  const fixed = fixedAddresses(prog);
  const values = fixed ? undefined : boundedValues(prog, deadline);
  const addresses = fixed ?? values!.addresses;
  const nLoc = prog.locations.length;
  const writesFrom = prog.threads.map((th) => {
    const here = th.code.map((ins, pc) => (ins.op === 'prim' && effectOf(ins.prim).writes ? addresses[th.index][pc] : new Set<number>()));
    return reachableUnion(th.code, here, deadline);
  });
  const lockLocs = new Set<number>();
  prog.threads.forEach((th) => th.code.forEach((ins, pc) => {
    if (ins.op === 'prim' && effectOf(ins.prim).object === 'spinlock') for (const l of addresses[th.index][pc]) lockLocs.add(l);
  }));
  const lockGuards = prog.threads.map((th) => new Map([...lockLocs].map((l) => [l, lockGuard(th.code, addresses[th.index], l, deadline)])));
  const locWords = Math.max(1, Math.ceil(nLoc / 32));
  const writesFromBits = writesFrom.map((from) => {
    const bits = new Uint32Array(from.length * locWords);
    from.forEach((locs, pc) => locs.forEach((l) => (bits[pc * locWords + (l >>> 5)] |= 1 << (l & 31))));
    return bits;
  });
  return new Domain(prog, deadline, values, writesFrom, writesFromBits, locWords, lockGuards, addresses);
}

/**
 * A ValueDomain whose values are found when first asked for. A class, not
 * an object literal with a getter: V8 keeps such a literal's properties in
 * a dictionary, and the explorer reads them at every step.
 */
class Domain implements ValueDomain {
  constructor(
    private readonly prog: Program,
    private readonly deadline: Deadline,
    private values: ValueAnalysis | undefined,
    readonly writesFrom: Set<number>[][],
    readonly writesFromBits: Uint32Array[],
    readonly locWords: number,
    readonly lockGuards: Map<number, LockGuard>[],
    readonly addresses: Set<number>[][],
  ) {}
  /** Whether the value analysis was run and did not settle, or is too large to run for settledValues. */
  private unsettled = false;
  get mayWrite(): Map<number, Set<number>>[] {
    this.values ??= boundedValues(this.prog, this.deadline);
    return this.values.mayWrite;
  }
  settledValues(): ValueAnalysis | undefined {
    if (this.values || this.unsettled) return this.values?.reachesUnnamed ? undefined : this.values;
    // The analysis keeps a vector of every register's values per instruction: past a bound, it is not worth its cost here.
    const cells = this.prog.threads.reduce((n, th) => n + th.code.length * Math.max(1, th.regs.length), 0);
    if (cells > SETTLED_VALUES_CELLS) {
      this.unsettled = true;
      return undefined;
    }
    const v = analyseValues(this.prog, this.deadline);
    // What an address that is no location yet holds is not known: no value is settled.
    if (v.bounded && !v.reachesUnnamed) this.values = v;
    else this.unsettled = true;
    return this.values;
  }
}

/** analyseValues, refused (a LimitError) when a location's values grew past DOMAIN_CAP. */
function boundedValues(prog: Program, deadline: Deadline): ValueAnalysis {
  const v = analyseValues(prog, deadline);
  if (!v.bounded) throw new LimitError(`limit: the values this test can compute are unbounded (more than ${DOMAIN_CAP} per location, or a thread's analysis past ${ANALYSIS_STEPS} steps); simplify the arithmetic or the loops`);
  return v;
}

export interface ValueAnalysis {
  mayWrite: Map<number, Set<number>>[];
  addresses: Set<number>[][];
  /** Per thread and register, the values it may hold when the thread ends. */
  finalRegs: Set<number>[][];
  /** False when a set grew past DOMAIN_CAP (the others are then incomplete). */
  bounded: boolean;
  /**
   * Whether an access may reach an address that is no location yet (`a+1`):
   * the explorer names it when it gets there (addLocationAt) and starts
   * again; until then, what is read or written there is not in the sets.
   */
  reachesUnnamed: boolean;
  /** Whether a write (or SRCU access) may be at address 0 (herd7 refuses such a candidate, see execute.ts). */
  mayWriteZero: boolean;
}

/** Every thread run over sets of values, round after round, until nothing new is written. */
export function analyseValues(prog: Program, deadline = Deadline.none): ValueAnalysis {
  const values: Set<number>[] = prog.initValues.map((v) => new Set([v]));
  // Lock and SRCU words hold small flags.
  const mayWrite: Map<number, Set<number>>[] = prog.threads.map(() => new Map());
  let bounded = true;
  // Rounds are Jacobi steps: a value written in round k is read from round
  // k+1 on (reads see `seen`, what was written before the round). A value is
  // computed through a chain of distinct write events, and an execution has
  // at most `maxWrites` of them, so that many rounds suffice. (Reading this
  // round's writes too lets a chain pass every thread in one round: a
  // counter incremented under a lock by 8 threads took 264 values in 32
  // rounds, where this takes 25 in 25.)
  let fresh: Set<number>[] = values.map(() => new Set());
  // What each thread writes where, by instruction: a read cannot see a
  // write of its own thread that comes later in program order (coherence,
  // in every model here), so it sees the initial value, other threads'
  // writes, and its own earlier ones (all of its own in a thread with loops).
  const ownAt: Map<number, Map<number, Set<number>>>[] = prog.threads.map(() => new Map());
  const add = (t: number, loc: number, v: number, pc: number): boolean => {
    getOrMake(mayWrite[t], loc, newSet).add(v);
    const here = getOrMake(getOrMake(ownAt[t], loc, newMap), pc, newSet);
    const isNew = !here.has(v);
    here.add(v);
    if (isNew) writtenThisRound.push({ t, loc, pc, v });
    if (!values[loc].has(v) && !fresh[loc].has(v)) {
      fresh[loc].add(v);
      if (values[loc].size + fresh[loc].size > DOMAIN_CAP) bounded = false;
    }
    return isNew;
  };
  const loops = prog.threads.map((th) => th.code.some((ins, pc) => (ins.op === 'jump' && ins.target <= pc) || (ins.op === 'branch' && ins.ifFalse <= pc)));
  // What reads see: what earlier rounds wrote (`seen`, grown at each round's
  // start by what the last one wrote).
  const seen = { mayWrite: prog.threads.map(() => new Map<number, Set<number>>()), ownAt: prog.threads.map(() => new Map<number, Map<number, Set<number>>>()) };
  let writtenThisRound: { t: number; loc: number; pc: number; v: number }[] = [];
  // The locations each thread read in its last pass, and those the last
  // round wrote anew: a thread none of whose locations changed would make
  // the same pass again, and is skipped.
  const readLocs = prog.threads.map(() => new Set<number>());
  const published = new Set<number>();
  const publish = (): void => {
    published.clear();
    for (const { t, loc, pc, v } of writtenThisRound) {
      published.add(loc);
      getOrMake(seen.mayWrite[t], loc, newSet).add(v);
      getOrMake(getOrMake(seen.ownAt[t], loc, newMap), pc, newSet).add(v);
    }
    writtenThisRound = [];
  };
  const readable = (t: number, loc: number, pc: number, out: Set<number>): void => {
    readLocs[t].add(loc);
    out.add(prog.initValues[loc]);
    seen.mayWrite.forEach((m, u) => {
      if (u !== t || loops[t]) for (const v of m.get(loc) ?? []) out.add(v);
    });
    if (loops[t]) return;
    for (const [wpc, vs] of seen.ownAt[t].get(loc) ?? []) if (wpc < pc) for (const v of vs) out.add(v);
  };
  const lastStates: Map<string, { pc: number; regs: AbsRegs }>[] = prog.threads.map(() => new Map());
  const hasLoop = hasLoops(prog);
  const writeInstrs = prog.threads.reduce((a, th) => a + th.code.filter((i) => i.op === 'prim' && effectOf(i.prim).writes).length, 0);
  const maxWrites = writeInstrs * (hasLoop ? prog.unroll + 1 : 1);
  let reachesUnnamed = false;
  let mayWriteZero = false;
  const locsOf = (s: Set<number>): number[] => {
    const out: number[] = [];
    for (const v of s) {
      const loc = accessedLocation(prog, v);
      if (loc >= 0) out.push(loc);
      else if (isAddress(v)) reachesUnnamed = true;
    }
    return out;
  };
  // States are kept apart by the values of loop counters (always single
  // values), so that loops unroll exactly as bounded and no further.
  const countersOf = prog.threads.map((th) => [...new Set(th.code.flatMap((i) => (i.op === 'loopcheck' ? [i.counter] : [])))]);
  // A branch on a value read from memory goes both ways: herd's equation
  // solving lets a read take a value that is only written on the path
  // that value selects (a value justified by itself through a cycle).
  const fromMemoryOf = prog.threads.map(readDerived);
  const initialRegs: AbsRegs[] = prog.threads.map((th) => th.initRegs.map((v) => new Set([v])));
  for (let round = 0; round <= maxWrites && bounded; round++) {
    let changed = false;
    publish();
    for (const th of prog.threads) {
      deadline.check('the value analysis');
      if (round > 0 && ![...readLocs[th.index]].some((l) => published.has(l))) continue;
      readLocs[th.index].clear();
      const n = th.code.length;
      const counters = countersOf[th.index];
      const fromMemory = fromMemoryOf[th.index];
      const keyOf = (pc: number, regs: AbsRegs) =>
        counters.length === 0 ? String(pc) : `${pc}|${counters.map((c) => [...regs[c]].join('/')).join(',')}`;
      // A register's set is never changed once made (states share them): a
      // join that adds values makes the union a new set.
      const states = new Map<string, { pc: number; regs: AbsRegs }>();
      const join = (pc: number, regs: AbsRegs) => {
        const key = keyOf(pc, regs);
        const cur = states.get(key);
        if (!cur) {
          states.set(key, { pc, regs: regs.slice() });
          work.push(key);
          return;
        }
        let grew = false;
        for (let i = 0; i < regs.length; i++) {
          const union = unionIfLarger(cur.regs[i], regs[i]);
          if (union === cur.regs[i]) continue;
          cur.regs[i] = union;
          grew = true;
          if (union.size > DOMAIN_CAP) bounded = false;
        }
        if (grew) work.push(key);
      };
      const work: string[] = [];
      lastStates[th.index] = states;
      join(0, initialRegs[th.index]);
      let steps = 0;
      while (work.length > 0 && bounded) {
        // A pass that does not settle is not cut short silently: its values would be incomplete.
        if (++steps > ANALYSIS_STEPS) {
          bounded = false;
          break;
        }
        if ((steps & 1023) === 0) deadline.check('the value analysis');
        const st = states.get(work.pop()!)!;
        const pc = st.pc;
        if (pc >= n) continue;
        const regs = st.regs;
        const ins = th.code[pc];
        switch (ins.op) {
          case 'set':
            join(pc + 1, withRegister(regs, ins.dst, absEval(ins.e, regs)));
            break;
          case 'jump':
            join(ins.target, regs);
            break;
          case 'ctrlpush':
          case 'ctrlpop':
          case 'head':
            join(pc + 1, regs);
            break;
          case 'branch': {
            const c = absEval(ins.cond, regs);
            const either = pureRegs(ins.cond).some((r) => fromMemory.has(r));
            if (either || [...c].some((v) => v !== 0)) join(pc + 1, regs);
            if (either || c.has(0)) join(ins.ifFalse, regs);
            break;
          }
          case 'bound':
            join(pc + 1, regs);
            break;
          case 'loopcheck': {
            // Only iterations below the unrolling bound go on.
            const r = regs.slice();
            r[ins.counter] = new Set([...regs[ins.counter]].filter((v) => v < ins.bound));
            if (r[ins.counter].size > 0) join(pc + 1, r);
            break;
          }
          case 'prim': {
            const e = effectOf(ins.prim);
            const at = absEval(ins.addr, regs);
            if (!e.reads && at.has(0) && (e.object === 'memory' || (e.object === 'srcu' && e.shape !== 'fence'))) mayWriteZero = true;
            const locs = locsOf(at);
            const olds = new Set<number>(e.reads ? [] : [0]);
            if (e.reads) for (const l of locs) readable(th.index, l, pc, olds);
            // A successful cmpxchg's equation may fix its read to its old, whatever it reads from (guesses.ts).
            if (e.equatesReadWith !== undefined) for (const v of absEval(ins.args[e.equatesReadWith], regs)) olds.add(v);
            const result = new Set<number>();
            forEachArgs(e.valueArgs, ins.args.length, (i) => absEval(ins.args[i], regs), (args) => {
              for (const old of olds) {
                const nv = e.write(old, args);
                if (nv !== undefined) for (const l of locs) changed = add(th.index, l, nv, pc) || changed;
                result.add(e.result(old, nv, args));
                if (e.mayFail && nv !== undefined) result.add(e.result(old, undefined, args));
              }
            });
            join(pc + 1, withRegister(regs, ins.dst, result));
            break;
          }
        }
      }
    }
    fresh.forEach((f, loc) => f.forEach((v) => values[loc].add(v)));
    fresh = values.map(() => new Set());
    if (!changed) break;
  }
  // The locations each instruction's address may be, over every state found.
  const addresses = prog.threads.map((th) => {
    const at: Set<number>[] = th.code.map(() => new Set<number>());
    for (const { pc, regs } of lastStates[th.index].values()) {
      const ins = th.code[pc];
      if (ins?.op === 'prim') for (const l of locsOf(absEval(ins.addr, regs))) at[pc].add(l);
    }
    return at;
  });
  const finalRegs = prog.threads.map((th) => {
    const out = th.regs.map(() => new Set<number>());
    for (const { pc, regs } of lastStates[th.index].values()) {
      if (pc >= th.code.length) regs.forEach((vals, r) => vals.forEach((v) => out[r]?.add(v)));
    }
    return out;
  });
  return { mayWrite, addresses, finalRegs, bounded, reachesUnnamed, mayWriteZero };
}

/**
 * The locations each instruction's address may be, read off the code: the
 * instructions analyseValues reaches, each address evaluated on registers
 * no instruction writes (pointer parameters, constants). Undefined where
 * that is not enough: a thread with a loop, an address in a register the
 * code writes, or a branch on a computed value not read from memory (a
 * branch on one read from memory goes both ways, as in analyseValues).
 */
export function fixedAddresses(prog: Program): Set<number>[][] | undefined {
  if (hasLoops(prog)) return undefined;
  const out: Set<number>[][] = [];
  for (const th of prog.threads) {
    const written = new Set<number>();
    for (const ins of th.code) if ((ins.op === 'set' || ins.op === 'prim') && ins.dst >= 0) written.add(ins.dst);
    const fixed = (e: PureExpr) => pureRegs(e).every((r) => !written.has(r));
    const fromMemory = readDerived(th);
    const at: Set<number>[] = th.code.map(() => new Set<number>());
    const reached = new Set<number>();
    const work = [0];
    while (work.length > 0) {
      const pc = work.pop()!;
      if (pc >= th.code.length || reached.has(pc)) continue;
      reached.add(pc);
      const ins = th.code[pc];
      if (ins.op === 'jump') work.push(ins.target);
      else if (ins.op === 'branch') {
        if (pureRegs(ins.cond).some((r) => fromMemory.has(r))) work.push(pc + 1, ins.ifFalse);
        else if (!fixed(ins.cond)) return undefined;
        else work.push(evalPure(ins.cond, th.initRegs) !== 0 ? pc + 1 : ins.ifFalse);
      } else {
        if (ins.op === 'prim') {
          if (!fixed(ins.addr)) return undefined;
          const loc = accessedLocation(prog, evalPure(ins.addr, th.initRegs));
          if (loc >= 0) at[pc].add(loc);
        }
        work.push(pc + 1);
      }
    }
    out.push(at);
  }
  return out;
}

/** Whether thread v may still write loc from instruction pc on (writesFrom[v][pc].has(loc)). */
export function mayStillWrite(d: ValueDomain, v: number, pc: number, loc: number): boolean {
  const i = pc * d.locWords + (loc >>> 5);
  const bits = d.writesFromBits[v];
  return i < bits.length && ((bits[i] >>> (loc & 31)) & 1) === 1;
}

/**
 * The LockGuard of one thread and lock location L: a backward pass over the
 * control-flow graph, each instruction in two states (L held or not), until
 * nothing changes. A lock operation whose address may be L but need not be
 * leads to both states; a lock operation's own write counts as outside.
 */
function lockGuard(code: Instr[], addresses: Set<number>[], L: number, deadline: Deadline): LockGuard {
  const n = code.length;
  const sets = () => Array.from({ length: n + 1 }, () => new Set<number>());
  // [not held, held]
  const outside = [sets(), sets()];
  const inside = [sets(), sets()];
  for (let changed = true; changed; ) {
    changed = false;
    deadline.check('the lock analysis');
    for (let pc = n - 1; pc >= 0; pc--) {
      const ins = code[pc];
      const e = ins.op === 'prim' ? effectOf(ins.prim) : undefined;
      const mayBeL = e !== undefined && addresses[pc].has(L);
      const onlyL = mayBeL && addresses[pc].size === 1;
      for (const h of [0, 1]) {
        const out = outside[h][pc];
        const ins_ = inside[h][pc];
        const before = out.size + ins_.size;
        if (e?.writes) {
          if (e.shape === 'access' && h === 1) ins_.add(pc);
          else for (const l of addresses[pc]) out.add(l);
        }
        const next: [number, number][] =
          ins.op === 'jump' ? [[ins.target, h]]
          : ins.op === 'branch' ? [[pc + 1, h], [ins.ifFalse, h]]
          : e && mayBeL && (e.shape === 'lock' || e.shape === 'trylock') ? (onlyL && e.shape === 'lock' ? [[pc + 1, 1]] : [[pc + 1, h], [pc + 1, 1]])
          : e && mayBeL && e.shape === 'unlock' ? (onlyL ? [[pc + 1, 0]] : [[pc + 1, h], [pc + 1, 0]])
          : [[pc + 1, h]];
        for (const [q, hq] of next) {
          for (const l of outside[hq][q]) out.add(l);
          for (const w of inside[hq][q]) ins_.add(w);
        }
        if (out.size + ins_.size !== before) changed = true;
      }
    }
  }
  return { outside: outside[0], inside: inside[0].map((pcs) => [...pcs]) };
}

/** Adds every member of `from` (if any) to `to`. */
function addAll(to: Set<number>, from: Set<number> | undefined): void {
  if (from) for (const x of from) to.add(x);
}

/**
 * For each instruction of a thread (and its end, code.length), the union of
 * `here` over every instruction reachable from it, itself included: a
 * backward pass over the control-flow graph until nothing changes.
 */
export function reachableUnion(code: Instr[], here: Set<number>[], deadline = Deadline.none): Set<number>[] {
  const n = code.length;
  const from: Set<number>[] = Array.from({ length: n + 1 }, () => new Set<number>());
  for (let changed = true; changed; ) {
    changed = false;
    deadline.check('the write analysis');
    for (let pc = n - 1; pc >= 0; pc--) {
      const ins = code[pc];
      const set = from[pc];
      const before = set.size;
      for (const x of here[pc]) set.add(x);
      if (ins.op !== 'jump') addAll(set, from[pc + 1]);
      if (ins.op === 'jump') addAll(set, from[ins.target]);
      else if (ins.op === 'branch') addAll(set, from[ins.ifFalse]);
      if (set.size !== before) changed = true;
    }
  }
  return from;
}
