// Every kernel primitive a litmus test may call, and what it does, following
// the LKMM's linux-kernel.def. A table of primitives (PrimitiveTable) is the
// one place where a primitive's meaning lives: the built-in one below is the
// kernel's .def written out (test/def.test.ts proves it equal to the file),
// and src/events/def.ts makes one from a user's .def; each entry's `Effect` (effectOf) says what
// object it acts on, which events it makes, whether it reads, writes or is
// an RMW, the values it writes and returns, and how a call is written; the
// program layer (type checks), the explorer (src/explore/execute.ts), the
// value domain, the models, the audit and fix search and `litmus primitives`
// read that instead of switching on primitive names or kinds.
// Operations the .def lacks (the kernel's bit operations) are defined at the
// end by the .def primitives they stand for: see `Lowered`.

import type { Expr, Pos, Stmt } from '../parse/ast.js';
import { fail } from '../parse/errors.js';
import { binary32 } from '../program/arith.js';
import type { AccessTag, Annot, FenceKind, FenceTag, SrcuKind } from './event.js';

/** How an address argument is written: `READ_ONCE(*x)` or `smp_load_acquire(x)`. */
export type AddrStyle = 'lvalue' | 'pointer';

export type RmwOp = '+' | '-' | '&' | '|' | '^' | '&~';

/** When a conditional add does not add: the value read equals argument 2, is negative, is positive, or the sum would be negative. */
export type CondAddFails = 'equals-arg' | 'negative' | 'positive' | 'sum-negative';

const COND_ADD_FAILS: Record<CondAddFails, { test: (old: number, sum: number, args: readonly number[]) => boolean; words: string }> = {
  'equals-arg': { test: (old, _, a) => old === a[2], words: 'v is u' },
  negative: { test: (old) => old < 0, words: 'v is negative' },
  positive: { test: (old) => old > 0, words: 'v is positive' },
  'sum-negative': { test: (_, sum) => sum < 0, words: 'the result would be negative' },
};

export type Primitive =
  /** A load; returns the value read. */
  | { kind: 'load'; annot: AccessTag; addr: AddrStyle }
  /** A store of args[1] (no value). */
  | { kind: 'store'; annot: AccessTag; addr: AddrStyle; thenFence?: FenceTag }
  | { kind: 'fence'; fence: FenceTag }
  /** xchg(X, V): returns the old value. */
  | { kind: 'xchg'; annot: AccessTag }
  /** cmpxchg(X, old, new): returns the old value; writes only on a match. */
  | { kind: 'cmpxchg'; annot: AccessTag }
  /**
   * atomic_OP(V, X) and friends. `ret` says what is returned: nothing, the
   * new value, the old value; `test` post-processes the new value.
   */
  | { kind: 'atomic'; op: RmwOp; annot: AccessTag; ret: 'none' | 'new' | 'old'; test?: 'zero' | 'negative'; operand: 'arg' | number }
  /** atomic_add_unless(X, a, u): adds a unless the value is u; returns whether it added. */
  | { kind: 'add_unless'; annot: AccessTag }
  /**
   * The kernel's other conditional RMWs (atomic_t.txt): adds `delta` (argument
   * 1, or a constant) unless `fails` holds of the value read (or of the sum,
   * for 'sum-negative'); returns whether it added, the value read, or the sum
   * (whether or not it was written). One atomic RMW when it adds, a read when
   * it does not, as atomic_add_unless.
   */
  | { kind: 'cond_add'; annot: AccessTag; delta: 'arg' | number; fails: CondAddFails; ret: 'added' | 'old' | 'sum' }
  | { kind: 'spin_lock' }
  | { kind: 'spin_unlock' }
  | { kind: 'spin_trylock' }
  | { kind: 'spin_is_locked' }
  | { kind: 'srcu_lock' }
  | { kind: 'srcu_unlock' }
  | { kind: 'srcu_sync' };

/** What a primitive's address argument names. */
export type PrimObject = 'memory' | 'spinlock' | 'srcu' | 'none';

/**
 * The events a primitive makes: a memory access (a read, a write, or an RMW
 * pair, with the values below), a fence (an F event; SRCU's grace period is
 * one at its srcu_struct), or one of lock.cat's lock operations.
 */
export type EventShape = 'access' | 'fence' | 'lock' | 'unlock' | 'trylock' | 'is-locked';

/** What a primitive does, for every layer that needs to know (see effectOf). */
export interface Effect {
  object: PrimObject;
  shape: EventShape;
  /** The annotation of its access events (lock operations take lock.cat's own). */
  annot: AccessTag;
  /** The fence event it makes (after its write, for smp_store_mb). */
  fence?: FenceTag;
  /** SRCU's events: its read (srcu_read_lock), write (srcu_read_unlock) or fence (synchronize_srcu). */
  srcu?: SrcuKind;
  /** Whether it reads memory. */
  reads: boolean;
  /** Whether it may write memory (a store, an RMW that succeeds, a lock operation). */
  writes: boolean;
  /** Whether it is one atomic read-modify-write instruction (whether or not it writes). */
  rmw: boolean;
  /** Whether it may fail: read, not write, and return result(old, undefined). */
  mayFail: boolean;
  /**
   * The value written, from the value read (0 when it reads nothing) and
   * the arguments' values (by position, the address included); undefined
   * when it does not write (a load, a failed RMW).
   */
  write(old: number, args: readonly number[]): number | undefined;
  /** The value returned, from the value read and the value written. */
  result(old: number, written: number | undefined, args: readonly number[]): number;
  /** The arguments `write` and `result` use. */
  valueArgs: readonly number[];
  /** The arguments the written value depends on (its data dependencies), and whether it depends on the value read. */
  dataArgs: readonly number[];
  dataFromRead: boolean;
  /**
   * The inputs `write` computes with rather than copies (the value read,
   * arguments): herd leaves the equation of a symbolic value unsolved there.
   */
  computesWithRead: boolean;
  computesWith: readonly number[];
  /**
   * The argument a successful RMW's value read equals (a cmpxchg's old):
   * herd's equation of the success, which fixes the read's value whatever
   * it reads from (a load-buffering cycle through it is solved there).
   */
  equatesReadWith?: number;
  /** How its address argument is written: `READ_ONCE(*x)` (lvalue) or `smp_load_acquire(x)` (pointer). */
  addr: AddrStyle;
  /** Its arguments' names, in order, as `litmus primitives` writes a call. */
  params: readonly string[];
  /**
   * What an RMW computes, in words naming `params` (its value functions
   * cannot say it); `litmus primitives` says what the others do from the
   * fields above.
   */
  computes?: string;
}

/** Each atomic operation: what it computes from the old value and the operand (wrapping at 32 bits, as herd7), and how `litmus primitives` says it. */
export const RMW_OPS: Record<RmwOp, { apply: (a: number, b: number) => number; verb: string }> = {
  '+': { apply: (a, b) => binary32('+', a, b), verb: 'adds i to' },
  '-': { apply: (a, b) => binary32('-', a, b), verb: 'subtracts i from' },
  '&': { apply: (a, b) => binary32('&', a, b), verb: 'ANDs i into' },
  '|': { apply: (a, b) => binary32('|', a, b), verb: 'ORs i into' },
  '^': { apply: (a, b) => binary32('^', a, b), verb: 'XORs i into' },
  '&~': { apply: (a, b) => binary32('&~', a, b), verb: 'clears the bits of i in' },
};

const NO_ARGS: readonly number[] = [];
const NO_PARAMS: readonly string[] = [];
const none = (): undefined => undefined;
const oldValue = (old: number): number => old;

/** A memory access: the defaults of an Effect that others override. */
function access(annot: AccessTag, f: Partial<Effect>): Effect {
  return {
    object: 'memory', shape: 'access', annot, reads: false, writes: false, rmw: false, mayFail: false,
    write: none, result: oldValue, valueArgs: NO_ARGS, dataArgs: NO_ARGS, dataFromRead: false,
    computesWithRead: false, computesWith: NO_ARGS, addr: 'pointer', params: ['x'], computes: undefined, ...f,
  };
}

/** A store of argument 1. */
const storeOf = (annot: AccessTag, f: Partial<Effect> = {}): Effect =>
  access(annot, { writes: true, write: (_, a) => a[1], valueArgs: [1], dataArgs: [1], params: ['x', 'v'], ...f });

/** Lock operations on a spinlock: lock.cat's events, the lock word holding 1 while taken. */
const lockOf = (shape: EventShape, f: Partial<Effect>): Effect =>
  access('ONCE', { object: 'spinlock', shape, reads: true, params: ['l'], ...f });

/** The effect of each primitive, by its kind. */
function computeEffect(p: Primitive): Effect {
  switch (p.kind) {
    case 'load':
      return access(p.annot, { reads: true, addr: p.addr });
    case 'store':
      return storeOf(p.annot, { fence: p.thenFence, addr: p.addr });
    case 'fence':
      return access('ONCE', { object: 'none', shape: 'fence', fence: p.fence, params: NO_PARAMS });
    case 'xchg':
      return access(p.annot, {
        reads: true, writes: true, rmw: true, write: (_, a) => a[1], valueArgs: [1], dataArgs: [1],
        params: ['x', 'v'], computes: 'writes v to x and returns the old value, atomically',
      });
    case 'cmpxchg':
      return access(p.annot, {
        reads: true, writes: true, rmw: true, mayFail: true,
        write: (old, a) => (old === a[1] ? a[2] : undefined),
        valueArgs: [1, 2], dataArgs: [2], computesWithRead: true, computesWith: [1], equatesReadWith: 1,
        params: ['x', 'old', 'v'], computes: 'writes v to x if it holds old, returns the value found, atomically',
      });
    case 'atomic': {
      const op = RMW_OPS[p.op].apply;
      const byArg = p.operand === 'arg';
      const constant = p.operand === 'arg' ? 0 : p.operand;
      const test = p.test;
      const ret = p.ret;
      const verb = RMW_OPS[p.op].verb.replace(/\bi\b/, byArg ? 'i' : String(constant));
      const returns = test ? `whether the new value is ${test === 'zero' ? '0' : 'negative'}` : ret === 'none' ? 'nothing' : `the ${ret} value`;
      return access(p.annot, {
        reads: true, writes: true, rmw: true,
        write: byArg ? (old, a) => op(old, a[0]) : (old) => op(old, constant),
        result: (old, nv = 0) => (test === 'zero' ? (nv === 0 ? 1 : 0) : test === 'negative' ? (nv < 0 ? 1 : 0) : ret === 'old' ? old : nv),
        valueArgs: byArg ? [0] : NO_ARGS, dataArgs: byArg ? [0] : NO_ARGS, dataFromRead: true,
        computesWithRead: true, computesWith: byArg ? [0] : NO_ARGS,
        params: byArg ? ['i', 'v'] : ['v'], computes: `${verb} v atomically, returns ${returns}`,
      });
    }
    case 'add_unless':
      return condAdd({ kind: 'cond_add', annot: p.annot, delta: 'arg', fails: 'equals-arg', ret: 'added' });
    case 'cond_add':
      return condAdd(p);
    case 'spin_lock':
      return lockOf('lock', { writes: true, write: () => 1, result: () => 0 });
    case 'spin_unlock':
      return lockOf('unlock', { reads: false, writes: true, write: () => 0, result: () => 0 });
    case 'spin_trylock':
      return lockOf('trylock', { writes: true, mayFail: true, write: () => 1, result: (_, nv) => (nv === undefined ? 0 : 1) });
    case 'spin_is_locked':
      return lockOf('is-locked', { result: (old) => (old !== 0 ? 1 : 0) });
    case 'srcu_lock':
      return access('ONCE', { object: 'srcu', srcu: 'srcu-lock', reads: true, params: ['s'] });
    case 'srcu_unlock':
      return storeOf('ONCE', { object: 'srcu', srcu: 'srcu-unlock', params: ['s', 'idx'] });
    case 'srcu_sync':
      return access('ONCE', { object: 'srcu', shape: 'fence', srcu: 'sync-srcu', params: ['s'] });
  }
}

/**
 * A conditional add (atomic_add_unless and the kernel's other conditional
 * RMWs): reads v, and unless the condition says not to, writes v + delta in
 * the same atomic step; a failed one only reads.
 */
function condAdd(p: Extract<Primitive, { kind: 'cond_add' }>): Effect {
  const byArg = p.delta === 'arg';
  const delta = p.delta;
  const fails = COND_ADD_FAILS[p.fails];
  const usesU = p.fails === 'equals-arg';
  const sumOf = (old: number, a: readonly number[]): number => binary32('+', old, delta === 'arg' ? a[1] : delta);
  const valueArgs = [...(byArg ? [1] : []), ...(usesU ? [2] : [])];
  const params = ['v', ...(byArg ? ['a'] : []), ...(usesU ? ['u'] : [])];
  const adds = delta === 'arg' ? 'adds a to v' : delta < 0 ? `subtracts ${-delta} from v` : `adds ${delta} to v`;
  const sum = `v + ${byArg ? 'a' : String(delta)}`.replace('+ -', '- ');
  const returns = p.ret === 'added' ? 'whether it added' : p.ret === 'old' ? 'the value read' : `${sum} (also when it does not add)`;
  const ret = p.ret;
  return access(p.annot, {
    reads: true, writes: true, rmw: true, mayFail: true,
    write: (old, a) => (fails.test(old, sumOf(old, a), a) ? undefined : sumOf(old, a)),
    result: (old, nv, a) => (ret === 'added' ? (nv === undefined ? 0 : 1) : ret === 'old' ? old : sumOf(old, a)),
    valueArgs, dataArgs: byArg ? [1] : NO_ARGS, dataFromRead: true, computesWithRead: true, computesWith: valueArgs,
    params, computes: `${adds} unless ${fails.words}, returns ${returns}, atomically`,
  });
}

const effects = new WeakMap<Primitive, Effect>();

/** What primitive p does (computed once per table entry). */
export function effectOf(p: Primitive): Effect {
  let e = effects.get(p);
  if (!e) effects.set(p, (e = computeEffect(p)));
  return e;
}

/** The plain C accesses `r = *x` and `*x = v` (no macro), as primitives. */
export const PLAIN_LOAD: Primitive = { kind: 'load', annot: 'PLAIN', addr: 'pointer' };
export const PLAIN_STORE: Primitive = { kind: 'store', annot: 'PLAIN', addr: 'pointer' };

/**
 * Where the value of one of a primitive's argument slots (the positions its
 * Effect reads: address, value, old, new...) comes from: one of the call's
 * arguments, or a constant the macro wrote (`__store{ONCE}(X,1)`).
 */
export type ArgSource = { param: number } | { value: number };

/** Where a primitive read from a .def file was defined, and the tags it gives its events there. */
export interface MacroOrigin {
  file: string;
  pos: Pos;
  /** Each tag, and what carries it: an access, a fence, an SRCU event (srcu-lock, srcu-unlock, sync-srcu). */
  tags: { tag: string; pos: Pos; on: 'access' | 'fence' | 'srcu' }[];
}

export interface PrimitiveInfo {
  prim: Primitive;
  /** Number of arguments. */
  arity: number;
  /** Index of the address argument. */
  addrArg: number;
  /** Whether the call yields a value (may stand in an expression). */
  returns: boolean;
  /**
   * For each of the Effect's argument slots, in order, which call argument
   * (or constant) fills it; absent when the call's arguments are the slots
   * themselves, as in every built-in entry.
   */
  args?: readonly ArgSource[];
  /** The arguments' names when the .def's order differs from the Effect's. */
  params?: readonly string[];
  /** Set for a primitive read from a .def file. */
  origin?: MacroOrigin;
  /**
   * Where its meaning comes from, for an entry beyond the .def (the .def's
   * own entries come from the table's file: PrimitiveTable.sourceOf).
   */
  source?: string;
}

/**
 * A kernel operation that linux-kernel.def lacks, defined as the .def
 * primitives that implement it (as the kernel's generic code does). The
 * program layer compiles the expansion and `litmus export` prints it, so the
 * checker and herd7 judge the same program by construction.
 */
export interface Lowered {
  /**
   * The expansion of a call with these arguments: an expression, a
   * statement when the operation returns nothing, or a statement to run
   * and then the value the call yields (an operation with a loop).
   */
  lower: (args: Expr[], pos: Pos) => Expr | Stmt | RunThen;
  arity: number;
  /** Index of the address argument (last: op(nr, addr)). */
  addrArg: number;
  /** Its arguments' names, in order. */
  params: readonly string[];
  returns: boolean;
  /** The index of an argument that is a condition over VAL (smp_cond_load_acquire's), if one is. */
  cond?: number;
  /** Where its definition comes from (a kernel document or header, and its section). */
  source: string;
}

/**
 * A kernel primitive litmus refuses because the LKMM gives it no meaning,
 * with why, where that is said, and how a test can say the same with what
 * the LKMM has.
 */
export interface RefusedPrimitive {
  why: string;
  source: string;
}

/** A statement to run, then the value a call yields (a register the statement set). */
export interface RunThen {
  kind: 'run-then';
  run: Stmt;
  value: Expr;
}

export const isRunThen = (x: Expr | Stmt | RunThen): x is RunThen => x.kind === 'run-then';

/** A macro of a .def file that litmus cannot run, kept so that a test calling it is told why (herd7 would run it). */
export interface UnsupportedMacro {
  reason: string;
  file: string;
  pos: Pos;
}

/** The argument slot of a primitive's address (-1 for a fence): the call's layout in the built-in table. */
export function addressSlot(p: Primitive): number {
  if (p.kind === 'fence') return -1;
  return p.kind === 'atomic' && p.operand === 'arg' ? 1 : 0;
}

/** Which call argument (or constant) fills each of info's argument slots. */
export function argSources(info: PrimitiveInfo): readonly ArgSource[] {
  return info.args ?? Array.from({ length: info.arity }, (_, i) => ({ param: i }));
}

/**
 * Every primitive a test may call: the .def's macros (the built-in table's,
 * or a user's .def read by src/events/def.ts), the atomic_long_* forms of
 * the atomic_* ones, and the bit operations the .def lacks (`Lowered`,
 * defined by the .def primitives they stand for).
 */
export class PrimitiveTable {
  constructor(
    private readonly defs: ReadonlyMap<string, PrimitiveInfo>,
    private readonly loweredOps: ReadonlyMap<string, Lowered>,
    /** The .def file it was read from; undefined for the built-in table. */
    readonly source?: string,
    private readonly unsupported: ReadonlyMap<string, UnsupportedMacro> = new Map(),
    /** Entries beyond the .def, defined by the kernel's documentation (the conditional RMWs). */
    private readonly extensions: ReadonlyMap<string, PrimitiveInfo> = new Map(),
  ) {}

  lookup(name: string): PrimitiveInfo | Lowered | undefined {
    const long = name.startsWith('atomic_long_') ? 'atomic_' + name.slice(12) : undefined;
    return this.defs.get(name) ?? this.loweredOps.get(name) ?? this.extensions.get(name) ??
      (long ? this.defs.get(long) ?? this.loweredOps.get(long) ?? this.extensions.get(long) : undefined);
  }

  /** Whether name is an entry beyond the .def that herd7 does not have (litmus gives it the meaning its source does). */
  isExtension(name: string): boolean {
    const long = name.startsWith('atomic_long_') ? 'atomic_' + name.slice(12) : name;
    return !this.defs.has(name) && !this.defs.has(long) && (this.extensions.has(name) || this.extensions.has(long));
  }

  /** Where the meaning of a name the table has comes from. */
  sourceOf(name: string): string | undefined {
    const info = this.lookup(name);
    if (!info) return undefined;
    if ('lower' in info) return info.source;
    return info.source ?? (this.source ?? 'tools/memory-model/linux-kernel.def');
  }

  /** Why a kernel primitive the LKMM gives no meaning is refused, if name is one. */
  refusal(name: string): RefusedPrimitive | undefined {
    return this.lookup(name) ? undefined : REFUSED_PRIMITIVES.get(name);
  }

  /** The .def's own entries (atomic_long_* and bit operations not included). */
  macros(): IterableIterator<[string, PrimitiveInfo]> {
    return this.defs.entries();
  }

  /** Why a macro of the .def cannot be run, if it is one litmus cannot run. */
  unsupportedMacro(name: string): UnsupportedMacro | undefined {
    return this.unsupported.get(name);
  }

  /** The name the .def gives this primitive (atomic_long_X is atomic_X there), or undefined if it has none. */
  defName(name: string): string | undefined {
    if (this.defs.has(name)) return name;
    return name.startsWith('atomic_long_') && this.defs.has('atomic_' + name.slice(12)) ? 'atomic_' + name.slice(12) : undefined;
  }

  /** Every name a test may call, the atomic_long_* forms of the atomic_* ones included. */
  names(): string[] {
    const defs = [...this.defs.keys(), ...this.extensions.keys()];
    const longs = [...defs, ...this.loweredOps.keys()].filter((n) => n.startsWith('atomic_')).map((n) => `atomic_long_${n.slice(7)}`);
    return [...new Set([...defs, ...this.loweredOps.keys(), ...longs])].sort();
  }

  /** The known name closest to a misspelt one (edit distance, ignoring case), if one is close enough. */
  closest(name: string): string | undefined {
    const want = name.toLowerCase();
    let best: string | undefined;
    let bestDist = Math.max(2, Math.floor(name.length / 3)) + 1;
    for (const n of this.names()) {
      const d = editDistance(want, n.toLowerCase());
      if (d < bestDist) {
        best = n;
        bestDist = d;
      }
    }
    return best;
  }

  /**
   * The same operation with another ordering annotation, from this table: the
   * entry of the same kind and operation, in the same family (atomic_ or not),
   * annotated `annot`, preferring the same naming (rcu_ or not), then the same way of passing the address.
   * READ_ONCE → smp_load_acquire, WRITE_ONCE → smp_store_release,
   * xchg_relaxed → xchg_acquire, atomic_fetch_add → atomic_fetch_add_relaxed,
   * smp_store_release → WRITE_ONCE. Undefined when the table has none.
   */
  withOrdering(name: string, annot: Annot): string | undefined {
    const own = this.defName(name);
    const info = own ? this.defs.get(own) : undefined;
    const p = info?.prim;
    if (!own || !info || !p || !('annot' in p) || p.annot === annot || (p.kind === 'store' && p.thenFence)) return undefined;
    const shape = (e: PrimitiveInfo) => JSON.stringify({ ...e.prim, annot: undefined, addr: undefined, thenFence: undefined, args: e.args });
    const family = (n: string) => n.startsWith('atomic_');
    const addrOf = (q: Primitive) => ('addr' in q ? q.addr : undefined);
    const rcu = (n: string) => n.startsWith('rcu_');
    const found = [...this.defs.entries()]
      .filter(([n, e]) => family(n) === family(own) && 'annot' in e.prim && e.prim.annot === annot && e.arity === info.arity && shape(e) === shape(info))
      .sort(([a, ea], [b, eb]) => Number(rcu(b) === rcu(own)) - Number(rcu(a) === rcu(own)) ||
        Number(addrOf(eb.prim) === addrOf(p)) - Number(addrOf(ea.prim) === addrOf(p)) || a.length - b.length || (a < b ? -1 : 1));
    return found[0]?.[0];
  }

  /** A .def name for an instruction's primitive (its own name, or the first entry with the same meaning). */
  defNameOf(name: string, prim: Primitive): string | undefined {
    const own = this.defName(name);
    if (own) return own;
    const want = JSON.stringify(prim);
    return [...this.defs.entries()].find(([, e]) => !e.args && JSON.stringify(e.prim) === want)?.[0];
  }

  /** The names of this table's fences of a kind (smp_mb for MB in the kernel's .def). */
  fencesOfKind(kind: FenceTag): string[] {
    return [...this.defs.entries()].filter(([, e]) => e.prim.kind === 'fence' && e.prim.fence === kind).map(([n]) => n);
  }

  /**
   * The fences a developer may put at a place to order what is before it
   * with what is after it (reads: [some read before, some read after];
   * writes likewise): smp_rmb() between reads, smp_wmb() between writes
   * (an RMW's read and write count), smp_mb() between anything; the
   * narrower first. Only names this table gives those fences.
   */
  fencesBetween(reads: readonly [boolean, boolean], writes: readonly [boolean, boolean]): { name: string; orders: FenceOrders }[] {
    const fits = (orders: FenceOrders) => orders === 'all' || (orders === 'reads' && reads[0] && reads[1]) || (orders === 'writes' && writes[0] && writes[1]);
    return FENCES
      .filter(([name, kind, orders]) => fits(orders) && this.fencesOfKind(kind).includes(name))
      .map(([name, , orders]) => ({ name, orders }))
      .sort((a, b) => Number(a.orders === 'all') - Number(b.orders === 'all'));
  }

  /**
   * The table's primitive for the operation of an instruction (named `name`,
   * meaning `prim`) with ordering `annot`: withOrdering's, or for an atomic
   * that returns nothing (which has no ordered forms), its atomic_fetch_ form
   * with that ordering, the value dropped. `def` says whether the
   * instruction is written as that table entry's family (not a lowered
   * operation such as test_bit()).
   */
  orderedForm(name: string, prim: Primitive, annot: Annot): { name: string; def: boolean } | undefined {
    const own = this.defNameOf(name, prim);
    if (!own) return undefined;
    let to = this.withOrdering(own, annot);
    if (!to && prim.kind === 'atomic' && prim.ret === 'none' && annot !== 'NORETURN') {
      const want = JSON.stringify({ ...prim, ret: 'old', annot });
      const args = JSON.stringify(this.defs.get(own)?.args);
      to = [...this.defs.entries()].find(([n, e]) => !n.startsWith('atomic_long_') && JSON.stringify(e.prim) === want && JSON.stringify(e.args) === args)?.[0];
    }
    return to ? { name: to, def: own === name } : undefined;
  }

  /** The .def calls a lowered operation expands to, in order, and its loops (`#do`, `#while`), where they start. */
  private expansionCalls(name: string): string[] | undefined {
    const l = this.loweredOps.get(name);
    if (!l) return undefined;
    const pos = { line: 0, col: 0 };
    const names: string[] = [];
    const walk = (v: unknown): void => {
      if (!v || typeof v !== 'object') return;
      const o = v as { kind?: string; name?: string };
      if (o.kind === 'call' && typeof o.name === 'string') names.push(o.name);
      if (o.kind === 'do' || o.kind === 'while') names.push(`#${o.kind}`);
      for (const k of Object.values(o)) walk(k);
    };
    walk(l.lower([num(0, pos), { kind: 'name', name: 'x', pos }], pos));
    return names;
  }

  /**
   * The lowered operation that is `name` with one of its calls replaced by
   * the table primitive `to` (clear_bit with atomic_fetch_andnot_release is
   * clear_bit_unlock; test_bit with smp_load_acquire is test_bit_acquire).
   */
  loweredWithOrdering(name: string, to: { name: string }): string | undefined {
    const mine = this.expansionCalls(name);
    if (!mine) return undefined;
    const returns = this.loweredOps.get(name)!.returns;
    // Of operations that expand alike (smp_cond_load_acquire, atomic_cond_read_acquire), the one named most like `name`.
    let best: string | undefined;
    const common = (a: string) => { const i = [...a].findIndex((c, k) => c !== name[k]); return i < 0 ? a.length : i; };
    for (const other of this.loweredOps.keys()) {
      const theirs = this.expansionCalls(other)!;
      if (other === name || theirs.length !== mine.length || this.loweredOps.get(other)!.returns !== returns) continue;
      // Every call that differs is one of the same call, now `to`.
      const diff = theirs.map((c, i) => (c !== mine[i] ? i : -1)).filter((i) => i >= 0);
      if (diff.length >= 1 && diff.every((i) => theirs[i] === to.name && mine[i] === mine[diff[0]])) {
        if (best === undefined || common(other) > common(best)) best = other;
      }
    }
    return best;
  }

  /** Fences of this table that order a subset of what this kind orders (smp_mb → smp_wmb, smp_rmb). */
  weakerFences(kind: FenceTag): string[] {
    if (fenceOrders(kind) !== 'all') return [];
    return FENCES.filter(([name, k, orders]) => (orders === 'writes' || orders === 'reads') && this.fencesOfKind(k).includes(name)).map(([name]) => name);
  }
}

// Fences, with what each orders as the fix search and the audit reason
// about it (the model decides what is ordered; every fix or weakening they
// propose is checked again): `all` accesses before against all after,
// `reads` before reads, `writes` before writes, `around` only with a
// neighbouring operation (an RMW, a lock, an SRCU unlock); `compiler` and
// `rcu` (read-side markers and grace periods) are not ordering devices.
export type FenceOrders = 'all' | 'reads' | 'writes' | 'around' | 'compiler' | 'rcu';
const FENCES: readonly (readonly [string, FenceKind, FenceOrders])[] = [
  ['smp_mb', 'MB', 'all'], ['smp_rmb', 'rmb', 'reads'], ['smp_wmb', 'wmb', 'writes'], ['barrier', 'barrier', 'compiler'],
  ['smp_mb__before_atomic', 'before-atomic', 'around'], ['smp_mb__after_atomic', 'after-atomic', 'around'],
  ['smp_mb__after_spinlock', 'after-spinlock', 'around'], ['smp_mb__after_unlock_lock', 'after-unlock-lock', 'around'],
  ['smp_mb__after_srcu_read_unlock', 'after-srcu-read-unlock', 'around'],
  ['rcu_read_lock', 'rcu-lock', 'rcu'], ['rcu_read_unlock', 'rcu-unlock', 'rcu'],
  ['synchronize_rcu', 'sync-rcu', 'rcu'], ['synchronize_rcu_expedited', 'sync-rcu', 'rcu'],
];

/** What a kind of fence orders (see FenceOrders); undefined for a tag the LKMM does not have. */
export function fenceOrders(kind: FenceTag): FenceOrders | undefined {
  return FENCES.find(([, k]) => k === kind)?.[2];
}

/** The kernel's linux-kernel.def, written out: what `litmus check` uses when no .def is given. */
function builtinDefs(): Map<string, PrimitiveInfo> {
  const table = new Map<string, PrimitiveInfo>();
  const def = (name: string, prim: Primitive, arity: number, addrArg: number, returns: boolean): void => {
    table.set(name, { prim, arity, addrArg, returns });
  };
  // ONCE, acquire/release and friends.
  def('READ_ONCE', { kind: 'load', annot: 'ONCE', addr: 'lvalue' }, 1, 0, true);
  def('WRITE_ONCE', { kind: 'store', annot: 'ONCE', addr: 'lvalue' }, 2, 0, false);
  def('smp_load_acquire', { kind: 'load', annot: 'ACQUIRE', addr: 'pointer' }, 1, 0, true);
  def('smp_store_release', { kind: 'store', annot: 'RELEASE', addr: 'pointer' }, 2, 0, false);
  def('rcu_dereference', { kind: 'load', annot: 'ONCE', addr: 'lvalue' }, 1, 0, true);
  def('rcu_assign_pointer', { kind: 'store', annot: 'RELEASE', addr: 'lvalue' }, 2, 0, false);
  def('smp_store_mb', { kind: 'store', annot: 'ONCE', addr: 'lvalue', thenFence: 'MB' }, 2, 0, false);
  def('atomic_read', { kind: 'load', annot: 'ONCE', addr: 'pointer' }, 1, 0, true);
  def('atomic_set', { kind: 'store', annot: 'ONCE', addr: 'pointer' }, 2, 0, false);
  def('atomic_read_acquire', { kind: 'load', annot: 'ACQUIRE', addr: 'pointer' }, 1, 0, true);
  def('atomic_set_release', { kind: 'store', annot: 'RELEASE', addr: 'pointer' }, 2, 0, false);

  for (const [name, fence] of FENCES) def(name, { kind: 'fence', fence }, 0, -1, false);

  // Exchange. The suffix picks the annotation; no suffix means a full barrier.
  const orders: [string, Annot][] = [['', 'MB'], ['_relaxed', 'ONCE'], ['_acquire', 'ACQUIRE'], ['_release', 'RELEASE']];
  for (const [sfx, annot] of orders) {
    for (const pre of ['', 'atomic_']) {
      def(`${pre}xchg${sfx}`, { kind: 'xchg', annot }, 2, 0, true);
      def(`${pre}cmpxchg${sfx}`, { kind: 'cmpxchg', annot }, 3, 0, true);
    }
  }

  // The atomic_t family.
  const ops: [string, RmwOp][] = [['add', '+'], ['sub', '-'], ['and', '&'], ['or', '|'], ['xor', '^'], ['andnot', '&~']];
  for (const [name, op] of ops) {
    def(`atomic_${name}`, { kind: 'atomic', op, annot: 'NORETURN', ret: 'none', operand: 'arg' }, 2, 1, false);
    for (const [sfx, annot] of orders) {
      if (name === 'add' || name === 'sub') {
        def(`atomic_${name}_return${sfx}`, { kind: 'atomic', op, annot, ret: 'new', operand: 'arg' }, 2, 1, true);
      }
      def(`atomic_fetch_${name}${sfx}`, { kind: 'atomic', op, annot, ret: 'old', operand: 'arg' }, 2, 1, true);
    }
  }
  def('atomic_inc', { kind: 'atomic', op: '+', annot: 'NORETURN', ret: 'none', operand: 1 }, 1, 0, false);
  def('atomic_dec', { kind: 'atomic', op: '-', annot: 'NORETURN', ret: 'none', operand: 1 }, 1, 0, false);
  for (const [sfx, annot] of orders) {
    def(`atomic_inc_return${sfx}`, { kind: 'atomic', op: '+', annot, ret: 'new', operand: 1 }, 1, 0, true);
    def(`atomic_dec_return${sfx}`, { kind: 'atomic', op: '-', annot, ret: 'new', operand: 1 }, 1, 0, true);
    def(`atomic_fetch_inc${sfx}`, { kind: 'atomic', op: '+', annot, ret: 'old', operand: 1 }, 1, 0, true);
    def(`atomic_fetch_dec${sfx}`, { kind: 'atomic', op: '-', annot, ret: 'old', operand: 1 }, 1, 0, true);
    def(`atomic_add_negative${sfx}`, { kind: 'atomic', op: '+', annot, ret: 'new', test: 'negative', operand: 'arg' }, 2, 1, true);
  }
  def('atomic_sub_and_test', { kind: 'atomic', op: '-', annot: 'MB', ret: 'new', test: 'zero', operand: 'arg' }, 2, 1, true);
  def('atomic_dec_and_test', { kind: 'atomic', op: '-', annot: 'MB', ret: 'new', test: 'zero', operand: 1 }, 1, 0, true);
  def('atomic_inc_and_test', { kind: 'atomic', op: '+', annot: 'MB', ret: 'new', test: 'zero', operand: 1 }, 1, 0, true);
  def('atomic_add_unless', { kind: 'add_unless', annot: 'MB' }, 3, 0, true);

  // Spinlocks.
  def('spin_lock', { kind: 'spin_lock' }, 1, 0, false);
  def('spin_unlock', { kind: 'spin_unlock' }, 1, 0, false);
  def('spin_trylock', { kind: 'spin_trylock' }, 1, 0, true);
  def('spin_is_locked', { kind: 'spin_is_locked' }, 1, 0, true);

  // SRCU.
  def('srcu_read_lock', { kind: 'srcu_lock' }, 1, 0, true);
  def('srcu_down_read', { kind: 'srcu_lock' }, 1, 0, true);
  def('srcu_read_unlock', { kind: 'srcu_unlock' }, 2, 0, false);
  def('srcu_up_read', { kind: 'srcu_unlock' }, 2, 0, false);
  def('synchronize_srcu', { kind: 'srcu_sync' }, 1, 0, false);
  def('synchronize_srcu_expedited', { kind: 'srcu_sync' }, 1, 0, false);
  return table;
}

// Bit operations (the kernel's Documentation/atomic_bitops.txt), on bit nr
// of the word at addr: op(nr, addr). RMWs without a return value are
// unordered; test_and_*_bit() are fully ordered (also when the bit was
// already as asked: the kernel implements them with atomic_fetch_*(), which
// always writes); test_and_set_bit_lock() is an acquire (taken as one also
// when it fails), clear_bit_unlock() a release; test_bit() is a READ_ONCE(),
// test_bit_acquire() an smp_load_acquire(). The __ forms are not atomic:
// a plain (or, for __clear_bit_unlock, ONCE) read, then a store of the word.
function bitOperations(): Map<string, Lowered> {
  const ops = new Map<string, Lowered>();
  const add = (name: string, returns: boolean, lower: (args: Expr[], pos: Pos) => Expr | Stmt): void => {
    ops.set(name, { lower, arity: 2, addrArg: 1, params: ['nr', 'x'], returns, source: 'Documentation/atomic_bitops.txt' });
  };
  const bitRmws: [string, string][] = [['set_bit', 'atomic_or'], ['clear_bit', 'atomic_andnot'], ['change_bit', 'atomic_xor']];
  for (const [name, op] of bitRmws) {
    add(name, false, ([nr, addr], pos) => exprStmt(call(op, [mask(nr, pos), addr], pos)));
  }
  // The .def has no release RMW without a value: the value is dropped, with
  // `(void)` as herd7 wants for a value-returning macro used as a statement.
  add('clear_bit_unlock', false, ([nr, addr], pos) =>
    exprStmt({ kind: 'cast', type: 'void', arg: call('atomic_fetch_andnot_release', [mask(nr, pos), addr], pos), pos }));
  const bitTestRmws: [string, string][] = [
    ['test_and_set_bit', 'atomic_fetch_or'], ['test_and_clear_bit', 'atomic_fetch_andnot'],
    ['test_and_change_bit', 'atomic_fetch_xor'], ['test_and_set_bit_lock', 'atomic_fetch_or_acquire'],
  ];
  for (const [name, op] of bitTestRmws) {
    add(name, true, ([nr, addr], pos) => bitOf(call(op, [mask(nr, pos), addr], pos), nr, pos));
  }
  add('test_bit', true, ([nr, addr], pos) => bitOf(call('READ_ONCE', [deref(addr)], pos), nr, pos));
  add('test_bit_acquire', true, ([nr, addr], pos) => bitOf(call('smp_load_acquire', [addr], pos), nr, pos));
  add('__clear_bit_unlock', false, ([nr, addr], pos) =>
    exprStmt(call('smp_store_release', [reusable(addr), bin('&', call('READ_ONCE', [deref(addr)], pos), notMask(nr, pos))], pos)));
  add('__set_bit', false, ([nr, addr], pos) =>
    ({ kind: 'assign', target: deref(reusable(addr)), value: bin('|', deref(addr), mask(nr, pos)), pos }));
  add('__clear_bit', false, ([nr, addr], pos) =>
    ({ kind: 'assign', target: deref(reusable(addr)), value: bin('&', deref(addr), notMask(nr, pos)), pos }));
  // smp_cond_load_relaxed(ptr, cond) and smp_cond_load_acquire(ptr, cond), as
  // the kernel defines them: load *ptr into VAL until cond (an expression over
  // VAL) holds, then return VAL; the acquire form orders that last load before
  // what follows. The loop is `do VAL = load; while (!cond)` (herd7's reading:
  // `VAL = load; while (!cond) VAL = load;`, bounded by --unroll; read exactly,
  // a pass that reads a value failing cond goes round idle: a wait). Each load
  // of the acquire form is an smp_load_acquire() (as arm64 does it): the
  // generic code's control dependency and smp_rmb() give the same ordering in
  // the kernel, but in the LKMM a control dependency does not reach past the
  // loop. atomic_cond_read_relaxed(v, cond) and atomic_cond_read_acquire(v,
  // cond) are the same on an atomic_t (the kernel's smp_cond_load_*() of
  // &v->counter).
  const condLoads = [
    ['smp_cond_load_relaxed', 'READ_ONCE', 'ptr'], ['smp_cond_load_acquire', 'smp_load_acquire', 'ptr'],
    ['atomic_cond_read_relaxed', 'READ_ONCE', 'v'], ['atomic_cond_read_acquire', 'smp_load_acquire', 'v'],
  ] as const;
  for (const [name, load, param] of condLoads) {
    ops.set(name, {
      arity: 2, addrArg: 0, params: [param, 'cond'], returns: true, cond: 1,
      source: param === 'ptr'
        ? 'include/asm-generic/barrier.h (smp_cond_load_relaxed, smp_cond_load_acquire)'
        : 'include/linux/atomic.h (atomic_cond_read_relaxed, atomic_cond_read_acquire: smp_cond_load_*() of &v->counter)',
      lower: ([ptr, cond], pos) => {
        const val: Expr = { kind: 'name', name: 'VAL', pos };
        const read: Stmt = { kind: 'assign', target: val, value: call(load, [load === 'READ_ONCE' ? deref(ptr) : ptr], pos), pos };
        // `(cond) == 0`: herd7's C has no `!`.
        const spin: Stmt = { kind: 'do', body: read, cond: bin('==', cond, num(0, pos)), pos };
        return { kind: 'run-then', run: spin, value: val };
      },
    });
  }
  // atomic_inc_not_zero(v) is the kernel's atomic_add_unless(v, 1, 0) (its
  // generic fallback defines it so), which the .def has.
  ops.set('atomic_inc_not_zero', {
    arity: 1, addrArg: 0, params: ['v'], returns: true,
    source: 'Documentation/atomic_t.txt (API: reference count); the kernel defines it as atomic_add_unless(v, 1, 0)',
    lower: ([v], pos) => call('atomic_add_unless', [v, num(1, pos), num(0, pos)], pos),
  });
  return ops;
}

const call = (name: string, args: Expr[], pos: Pos): Expr => ({ kind: 'call', name, args, pos });
const exprStmt = (expr: Expr): Stmt => ({ kind: 'expr', expr, pos: expr.pos });
const deref = (arg: Expr): Expr => ({ kind: 'deref', arg, pos: arg.pos });
const bin = (op: '&' | '|' | '!=' | '==' | '<<', left: Expr, right: Expr): Expr => ({ kind: 'binary', op, left, right, pos: left.pos });
const num = (value: number, pos: Pos): Expr => ({ kind: 'num', value, pos });

/** Bit numbers a word holds (values are 32-bit integers here). */
const MAX_BIT = 30;

/** `1 << nr`, folded to a constant when nr is one (herd7's C has no shifts). */
function mask(nr: Expr, pos: Pos): Expr {
  if (nr.kind !== 'num') return bin('<<', num(1, pos), nr);
  if (!Number.isInteger(nr.value) || nr.value < 0 || nr.value > MAX_BIT) fail(`bit number ${nr.value} is out of range 0..${MAX_BIT}`, nr.pos);
  return num(1 << nr.value, nr.pos);
}

function notMask(nr: Expr, pos: Pos): Expr {
  const m = mask(nr, pos);
  return m.kind === 'num' ? num(~m.value, pos) : { kind: 'unary', op: '~', arg: m, pos };
}

/** Whether bit nr of word is set: `(word & mask) != 0`. */
function bitOf(word: Expr, nr: Expr, pos: Pos): Expr {
  return bin('!=', bin('&', word, mask(nr, pos)), num(0, pos));
}

/** An address used twice in an expansion must not read memory itself. */
function reusable(addr: Expr): Expr {
  const pure = (e: Expr): boolean =>
    e.kind === 'num' || e.kind === 'name' || (e.kind === 'addr' && pure(e.arg)) || (e.kind === 'cast' && pure(e.arg));
  if (!pure(addr)) fail('a non-atomic bit operation needs its address as a variable (it reads and writes it)', addr.pos);
  return addr;
}


/** The names of a primitive's arguments, in order (`litmus primitives` and kernel.d.ts write calls with them). */
export function paramsOf(info: PrimitiveInfo | Lowered): readonly string[] {
  return 'prim' in info ? info.params ?? effectOf(info.prim).params : info.params;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}


const ATOMIC_T_TXT = 'Documentation/atomic_t.txt (ORDERING: a conditional RMW is unordered when it fails, fully ordered when it succeeds) and scripts/atomic/atomics.tbl';

/**
 * The kernel's conditional RMWs that the .def lacks (atomic_t.txt lists them
 * among the RMWs; scripts/atomic/atomics.tbl gives their arguments and what
 * they return; none has ordering variants). Each is one atomic RMW when it
 * adds and a read when it does not, ordered as the table's atomic_add_unless
 * is (fully, in the kernel's .def); a table without atomic_add_unless has
 * none of them.
 */
function conditionalRmws(addUnless: PrimitiveInfo | undefined): Map<string, PrimitiveInfo> {
  const out = new Map<string, PrimitiveInfo>();
  if (!addUnless || addUnless.prim.kind !== 'add_unless') return out;
  const annot = addUnless.prim.annot;
  const add = (name: string, delta: 'arg' | number, fails: CondAddFails, ret: 'added' | 'old' | 'sum'): void => {
    const prim: Primitive = { kind: 'cond_add', annot, delta, fails, ret };
    out.set(name, { prim, arity: effectOf(prim).params.length, addrArg: 0, returns: true, source: ATOMIC_T_TXT });
  };
  add('atomic_fetch_add_unless', 'arg', 'equals-arg', 'old');
  add('atomic_inc_unless_negative', 1, 'negative', 'added');
  add('atomic_dec_unless_positive', -1, 'positive', 'added');
  add('atomic_dec_if_positive', -1, 'sum-negative', 'sum');
  return out;
}

const LIMITATIONS = 'tools/memory-model/Documentation/litmus-tests.txt, LIMITATIONS';

/** The kernel primitives the LKMM gives no meaning, each with why (see RefusedPrimitive). */
function refusedPrimitives(): Map<string, RefusedPrimitive> {
  const out = new Map<string, RefusedPrimitive>();
  const asyncCallback = 'its callback runs later, after a grace period, in no process of the test, and the LKMM has no such events; ' +
    'write the callback as a process of its own that calls synchronize_rcu() first, reached from the call site by a release-acquire pair';
  for (const name of ['call_rcu', 'call_srcu', 'kfree_rcu', 'kvfree_rcu', 'call_rcu_hurry']) out.set(name, { why: asyncCallback, source: LIMITATIONS });
  const barrier = 'it waits for the callbacks of earlier call_rcu()s, which the LKMM does not model; ' +
    'with each callback written as a process, have each end with a release that the barrier\'s site acquires';
  for (const name of ['rcu_barrier', 'srcu_barrier']) out.set(name, { why: barrier, source: LIMITATIONS });
  const rwlock = 'the LKMM models only exclusive locks (lock.cat: spin_lock and friends), not reader-writer locks, whose readers share the lock; ' +
    'write the lock with atomic RMWs (a reader count and a writer flag, say)';
  for (const op of ['read_lock', 'read_unlock', 'write_lock', 'write_unlock', 'read_trylock', 'write_trylock']) {
    for (const sfx of ['', '_bh', '_irq']) if (!(op.endsWith('trylock') && sfx)) out.set(op + sfx, { why: rwlock, source: LIMITATIONS });
  }
  const tryCmpxchg = 'it writes the value found through a pointer to a local variable, which a litmus test cannot make (a register has no address); ' +
    'write r = atomic_cmpxchg(v, old, new) and compare r with old';
  for (const sfx of ['', '_relaxed', '_acquire', '_release']) {
    out.set(`atomic_try_cmpxchg${sfx}`, { why: tryCmpxchg, source: 'Documentation/atomic_t.txt (API: swap)' });
    out.set(`try_cmpxchg${sfx}`, { why: tryCmpxchg, source: 'Documentation/atomic_t.txt (API: swap)' });
  }
  out.set('smp_acquire__after_ctrl_dep', {
    why: 'linux-kernel.def does not define it; the kernel defines it as smp_rmb(), which with the control dependency before it orders the read the ' +
      'dependency starts from before every later access (the control dependency orders the writes, smp_rmb() the reads), as an acquire would: ' +
      'write smp_rmb() in its place, or that read as smp_load_acquire() (a loop waiting on it as smp_cond_load_acquire())',
    source: 'include/asm-generic/barrier.h',
  });
  out.set('data_race', {
    why: 'it marks an access whose data race is intended, for KCSAN, and constrains the compiler no more than a plain access does; ' +
      'linux-kernel.def does not define it (herd7: "Unknown macro"): write the access plain (the LKMM then flags the race, which data_race() ' +
      'only documents), or READ_ONCE()/WRITE_ONCE() where its value matters (data_race(READ_ONCE(x)) is READ_ONCE(x) to the compiler)',
    source: 'tools/memory-model/Documentation/access-marking.txt',
  });
  return out;
}

const REFUSED_PRIMITIVES: ReadonlyMap<string, RefusedPrimitive> = refusedPrimitives();

/** The bit operations, shared by every table (they are defined by .def names, looked up in the table at hand). */
const BIT_OPERATIONS: ReadonlyMap<string, Lowered> = bitOperations();

/** A table from a .def's primitives, with the bit operations and atomic_long_* forms every table has. */
export function primitiveTable(defs: ReadonlyMap<string, PrimitiveInfo>, source?: string, unsupported?: ReadonlyMap<string, UnsupportedMacro>): PrimitiveTable {
  return new PrimitiveTable(defs, BIT_OPERATIONS, source, unsupported, conditionalRmws(defs.get('atomic_add_unless')));
}

/**
 * No primitives at all: herd7's C when a model is named without a macros
 * file (`-model sc.cat`, a .cfg with no `macros` line). Plain accesses
 * (`*x`, `*x = v`) are the language's own; every kernel primitive is unknown.
 */
export const NO_PRIMITIVES: PrimitiveTable = new PrimitiveTable(new Map(), new Map(), 'no macros file');

/** The built-in table: the kernel's linux-kernel.def, written out. */
export const BUILTIN_PRIMITIVES: PrimitiveTable = primitiveTable(builtinDefs());

// The built-in table's answers, for the callers that have no other table.
export const lookupPrimitive = (name: string, table: PrimitiveTable = BUILTIN_PRIMITIVES) => table.lookup(name);
export const defName = (name: string, table: PrimitiveTable = BUILTIN_PRIMITIVES) => table.defName(name);
export const primitiveNames = (table: PrimitiveTable = BUILTIN_PRIMITIVES) => table.names();
export const closestPrimitive = (name: string, table: PrimitiveTable = BUILTIN_PRIMITIVES) => table.closest(name);
