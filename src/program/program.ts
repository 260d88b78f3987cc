// From the syntax tree to a program: shared locations, threads of straight-line
// instructions with jumps, registers by number, and the final condition as a
// predicate. Names are resolved and checked here, so that every error a user
// can make in a test is reported with its position before exploring.

import { isStmt, jumpsOutOfLoop, walkStmt, type CondExpr, type CondTerm, type Expr, type InitValue, type LitmusTest, type Pos, type Process, type Stmt, type StructDef } from '../parse/ast.js';
import { inlineFunctions } from './inline.js';
import { byteSize, fieldOf, leaves, MAX_BYTES, pointee, SCALAR, sharedVariables, sizeOf, typeName, type CType } from './types.js';
import { fail, LitmusError, UnknownPrimitiveError } from '../parse/errors.js';
import { limit, LIMITS } from '../limits.js';
import { printExpr } from '../parse/printer.js';
import { binary32, DIVIDES, unary32 } from './arith.js';
import { addressSlot, argSources, BUILTIN_PRIMITIVES, effectOf, isRunThen, PLAIN_LOAD, PLAIN_STORE, type PrimitiveTable, type Primitive, type RunThen } from '../events/primitives.js';

/**
 * Values are numbers; addresses start at LOC_BASE. Each variable has a block
 * of VAR_STRIDE addresses, its first at LOC_BASE + VAR_STRIDE * k: an offset
 * from one variable (`y + 1`, `y - 1`) never lands on another's address, but
 * on an address of no declared location, which herd7 takes as a location of
 * its own (named `y+1`, `y+-1`; see addLocationAt).
 */
export const LOC_BASE = 0x40000000;
export const VAR_STRIDE = 1 << 12;
const ADDRESS_SPAN = 0x1000000;
export const isAddress = (v: number): boolean => v >= LOC_BASE - VAR_STRIDE / 2 && v < LOC_BASE + ADDRESS_SPAN;
/** The location whose address v is, or -1 when v is none of the program's. */
export function locationOf(prog: Pick<Program, 'locationAt'>, v: number): number {
  return prog.locationAt.get(v) ?? -1;
}
/** The address of location l. */
export function addressOf(prog: Pick<Program, 'addresses'>, l: number): number {
  return prog.addresses[l];
}

/** An address that is no location of the program, met while exploring: the explorer starts again with it named (addLocationAt). */
export class UnnamedAddress extends Error {
  constructor(readonly address: number, readonly pos: Pos) {
    super('an address that is no location');
  }
}

/** How many such addresses a test may reach before it is refused. */
export const MAX_UNNAMED_ADDRESSES = 64;

/**
 * Names address v (an offset from a variable's address that is no location)
 * as herd7 does, `y+1` or `y+-1`, and adds it as a location holding 0.
 * herd7 7.58 with the LKMM reads it as a location of its own: writes to it
 * are ordinary writes; a read of it with no write to read from rejects the
 * whole test ("mixed-size test rejected (symbol [y+1])").
 */
export function addLocationAt(prog: Program, v: number, pos: Pos): number {
  const name = unnamedAddressName(prog, v);
  if (name === undefined || prog.locations.length - prog.unnamedFrom >= MAX_UNNAMED_ADDRESSES) {
    fail(`this access reaches an address that is no location (${name === undefined ? 'no variable near it' : `more than ${MAX_UNNAMED_ADDRESSES} such addresses`})`, pos);
  }
  const l = prog.locations.length;
  prog.locations.push(name);
  prog.addresses.push(v);
  prog.locationAt.set(v, l);
  prog.initValues.push(0);
  return l;
}
/** herd7's name of address v, an offset from a variable that is no location of it (`y+1`, `a+5`), or undefined when no variable is near. */
export function unnamedAddressName(prog: Program, v: number): string | undefined {
  const block = Math.round((v - LOC_BASE) / VAR_STRIDE);
  const owner = prog.locations.findIndex((_, l) => Math.round((prog.addresses[l] - LOC_BASE) / VAR_STRIDE) === block && prog.unnamedFrom > l);
  if (owner < 0) return undefined;
  return `${prog.locations[owner].replace(/\[.*$|\..*$/, '')}+${v - (LOC_BASE + block * VAR_STRIDE)}`;
}

/**
 * The location an access at value v acts on: v's location, or for v = 0 the
 * location herd7 makes of address 0 when a process writes or locks through
 * a name it does not declare (see Program.zeroLocation); else -1.
 */
export function accessedLocation(prog: Pick<Program, 'locationAt' | 'zeroLocation'>, v: number): number {
  return v === 0 ? prog.zeroLocation : locationOf(prog, v);
}
/**
 * A value herd leaves symbolic: what a read in a cycle of plain copies
 * reads, determined by no constant. SYM_BASE + a number naming the read.
 */
export const SYM_BASE = 2 ** 44;
export const isSymbolic = (v: number): boolean => v >= SYM_BASE;

/** A side-effect-free expression over registers. */
export type PureExpr =
  | { k: 'const'; v: number }
  | { k: 'reg'; r: number }
  | { k: 'un'; op: '-' | '!' | '~'; a: PureExpr }
  /** pos: where a division is, for the error when its divisor is 0. */
  | { k: 'bin'; op: string; a: PureExpr; b: PureExpr; pos?: Pos };

export type Instr =
  | { op: 'set'; dst: number; e: PureExpr }
  | { op: 'prim'; prim: Primitive; name: string; dst: number; addr: PureExpr; args: PureExpr[]; pos: Pos }
  /**
   * `nodep`: the branch gives the model no control dependency (litmus
   * audit's copy with that dependency cut: the same values and paths, as if
   * the code were rewritten so that nothing after the branch depends on it).
   */
  | { op: 'branch'; cond: PureExpr; ifFalse: number; nodep?: boolean }
  /** `loop`: the back jump of loop `loop` of its thread (Thread.loops), where waits are read exactly: an iteration that changed nothing ends there (see LoopInfo). */
  | { op: 'jump'; target: number; loop?: number }
  | { op: 'loopcheck'; counter: number; bound: number; pos: Pos }
  /**
   * The head of loop `loop` of its thread, where waits are read exactly:
   * what an iteration starts from is noted there (LoopInfo's shadows and
   * mark), for its back jump to tell whether it changed anything.
   */
  | { op: 'head'; loop: number }
  /** `a[i]` with i computed: an index outside 0..size-1 drops the execution, flagged INDEX_FLAG. */
  | { op: 'bound'; index: PureExpr; size: number; pos: Pos }
  /**
   * Control dependencies reach only the events inside an if's branches (or
   * a loop's iterations), not those after it: ctrlpush saves the current
   * control dependencies before the construct, ctrlpop restores them after.
   */
  | { op: 'ctrlpush' }
  | { op: 'ctrlpop' };

/** The flag of an execution dropped for an index out of its array's bounds (Instr 'bound'). */
export const INDEX_FLAG = 'index-out-of-bounds';

/** A call of a kernel primitive. */
export type PrimInstr = Extract<Instr, { op: 'prim' }>;

export interface Thread {
  index: number;
  code: Instr[];
  /** Register names by number (temporaries start with '$'). */
  regs: string[];
  /** Initial register values (parameters hold their location's address). */
  initRegs: number[];
  /** Registers that are parameters: never assigned, they always hold their address. */
  paramRegs: number[];
  /** Its loops, by the index their `head` and back `jump` name (none where waits are unrolled: Program.waits). */
  loops: LoopInfo[];
  /**
   * Dependencies the model is not given (litmus audit's copy with an
   * address or data dependency cut): the explorer runs the same code, with
   * the same values and paths, and the execution the model judges has no
   * such edge from the events of instruction `read` to those of `access`.
   */
  depCuts?: readonly DependencyCut[];
}

/** An address or data dependency from the read at instruction `read` to the access at `access`, cut (Thread.depCuts). */
export interface DependencyCut {
  kind: 'addr' | 'data';
  read: number;
  access: number;
}

/**
 * How loops are read. 'unrolled' is herd7's reading: every loop unrolled
 * --unroll times, a path past the bound cut and not counted. 'exact' reads
 * waits exactly: an iteration that comes back to its loop's head having
 * made no write, taken no lock and changed no register that the code after
 * the head reads (an idle iteration: it only re-read memory) leaves the
 * thread where it was, so a later iteration is the same code against later
 * values. Such an iteration ends its path as a wait that may go on forever
 * (the explorer judges it for liveness and counts no final state for it),
 * and the executions counted are those in which no loop went round idle.
 * --unroll bounds the iterations as herd7's does (with --unroll 0 no loop
 * body runs, so a wait is judged from --unroll 1 on); an iteration that
 * changed something goes round, and past the bound is cut, as in herd7.
 */
export type WaitReading = 'exact' | 'unrolled';

/** A loop of a thread, where waits are read exactly (WaitReading). */
export interface LoopInfo {
  /** The loop statement's position (`while`, `for`, `do`, or the call it was lowered from). */
  pos: Pos;
  /** Its iteration counter (a temporary register). */
  counter: number;
  /** The registers live at its head (read before written on some path from it), its own bookkeeping left out. */
  live: number[];
  /** Where the head copies each of `live` (same order), for the back jump to compare. */
  shadows: number[];
  /** Where the head notes the thread's program-order index: the iteration's events are those from there on. */
  mark: number;
}

export interface FinalCheck {
  quantifier: 'exists' | 'forall' | '~exists';
  /** Evaluates the condition on a final state. */
  holds: (fs: FinalState) => boolean;
  filter?: (fs: FinalState) => boolean;
  /**
   * The condition over what is known of a state so far: true or false once
   * the values it depends on are settled, undefined while they may change
   * (Kleene's three-valued logic; on a final state, the same as holds).
   */
  decide: (v: StateView) => boolean | undefined;
  decideFilter?: (v: StateView) => boolean | undefined;
}

/** What is known of a state: a register's or location's value, or undefined while it may still change. */
export interface StateView {
  reg(thread: number, reg: number): number | undefined;
  mem(loc: number): number | undefined;
  /**
   * For a value not known yet (undefined above): whether it may still end
   * as v (false only where that is certain; absent: it may). An equality
   * whose left side cannot end as its right side's value is then false.
   */
  regMay?(thread: number, reg: number, v: number): boolean;
  memMay?(loc: number, v: number): boolean;
}

/** A final state, where everything is known. */
function viewOf(fs: FinalState): StateView {
  return { reg: (t, r) => fs.regs[t][r], mem: (l) => fs.mem[l] };
}

export interface FinalState {
  regs: number[][];
  mem: number[];
}

/** What herd prints in each state, in its order. */
export type Observed = { kind: 'reg'; thread: number; reg: number; name: string } | { kind: 'mem'; loc: number; name: string };

/**
 * How herd7 names an observed register or location in a state: `0:r1`,
 * `[x]` for a variable, `a[1]` (no brackets) for an element of an array
 * (litmus's fields too: `v.f`).
 */
export function observedName(o: Observed): string {
  return o.kind === 'reg' ? `${o.thread}:${o.name}` : isPath(o.name) ? o.name : `[${o.name}]`;
}

export interface Program {
  name: string;
  /** Location names by id, as herd prints them. */
  locations: string[];
  /** The address of each location (see LOC_BASE). */
  addresses: number[];
  /** Which location each address is. */
  locationAt: Map<number, number>;
  /** Locations from this id on are addresses no variable declares (`y+1`, see addLocationAt). */
  unnamedFrom: number;
  initValues: number[];
  threads: Thread[];
  final: FinalCheck;
  observed: Observed[];
  unroll: number;
  /** How loops are read (see WaitReading). */
  waits: WaitReading;
  /**
   * The location at address 0 ("0"), or -1. A name a process neither takes
   * as a parameter nor declares is, to herd7, one of its registers, holding
   * 0 unless the initial state gives it a value; herd7 refuses a memory
   * access through it (a read here, when the thread is built; a write or an
   * SRCU lock when a path reaches it, src/explore/execute.ts) but locks
   * location 0, which has no initial write (a lock read there reads only a
   * lock or unlock).
   */
  zeroLocation: number;
  /** Locations whose type says they are locks, for messages. */
  test: LitmusTest;
  /** The primitives its calls were compiled with (the fix search and the audit swap within it). */
  primitives: PrimitiveTable;
}

/** A shared variable: its first address and its type (a scalar, an array, a struct). */
export interface SharedVar {
  base: number;
  type: CType;
}

/** What the threads' code may name besides registers: the shared variables and the struct types. */
interface SharedScope {
  vars: ReadonlyMap<string, SharedVar>;
  structs: readonly StructDef[];
}

/** Whether a location's name is an element's or a field's (`a[1]`, `v.f`). */
const isPath = (name: string): boolean => /[[.]/.test(name);
/** The variable a leaf's name starts with. */
const rootOf = (name: string): string => /^[^[.]*/.exec(name)![0];

export interface BuildOptions {
  unroll?: number;
  /** How loops are read: 'exact' (the default) or herd7's 'unrolled' (see WaitReading). */
  waits?: WaitReading;
  /** The primitive table calls are looked up in (a .def read by src/events/def.ts); the built-in one by default. */
  primitives?: PrimitiveTable;
}

export function buildProgram(written: LitmusTest, opts: BuildOptions = {}): Program {
  // Helper functions are inlined at each call; the program is that of the test so written.
  const test = inlineFunctions(written);
  const unroll = opts.unroll ?? 2;
  const waits = opts.waits ?? 'exact';
  const structs = test.structs ?? [];
  const primitives = opts.primitives ?? BUILTIN_PRIMITIVES;
  const locIds = new Map<string, number>();
  const locations: string[] = [];
  const addresses: number[] = [];
  const locationAt = new Map<number, number>();
  const vars = new Map<string, SharedVar>();
  // Addresses are in the order of the variables' names, as herd7 orders its symbolic addresses
  // (`x - y` is -1, 0 or 1: see onAddresses); a name met later comes after them.
  const shared = sharedVariables(test);
  const rank = new Map([...shared.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((n, i) => [n, i]));
  let later = rank.size;
  /** A shared variable: a block of addresses, one location per leaf (an element, a field), named as the test writes it. */
  const declare = (name: string, type: CType): SharedVar => {
    const known = vars.get(name);
    if (known) return known;
    if (locations.length + sizeOf(type) > LIMITS.locations) {
      throw limit(`more than ${LIMITS.locations} shared locations (each is an event of every execution)`, declaredAt(test, name));
    }
    const v: SharedVar = { base: LOC_BASE + VAR_STRIDE * (rank.get(name) ?? later++), type };
    vars.set(name, v);
    for (const leaf of leaves(type)) {
      const id = locations.length;
      locIds.set(name + leaf.path, id);
      locations.push(name + leaf.path);
      addresses.push(v.base + leaf.offset);
      locationAt.set(v.base + leaf.offset, id);
    }
    return v;
  };
  /** The location a name is: a scalar variable (declared if new) or a leaf (`a[1]`, `v.f`); -1 for a leaf no variable has. */
  const locOf = (name: string): number => locIds.get(name) ?? (isPath(name) ? -1 : (declare(name, SCALAR), locIds.get(name)!));
  /** The address a name stands for: a variable's first address, or a leaf's. */
  const addr = (name: string): number => (isPath(name) ? addresses[locOf(name)] : declare(name, SCALAR).base);
  const leafOf = (name: string, pos: Pos): number => {
    const l = locOf(name);
    if (l < 0) fail(`no location "${name}": ${vars.has(rootOf(name)) ? `${rootOf(name)} has no such element or field` : `no variable "${rootOf(name)}"`}`, pos);
    return l;
  };
  // Shared locations: the init block, then process parameters.
  for (const [name, type] of shared) declare(name, type);
  for (const it of test.init) for (const v of [it.value, ...(it.values ?? [])]) if (v?.kind === 'loc') addr(v.name);

  const initValues: number[] = [];
  const registerInits: { thread: number; name: string; value: number; pos: Pos }[] = [];
  const valueOf = (v: InitValue | undefined) => (v === undefined ? 0 : v.kind === 'num' ? v.value : addr(v.name));
  for (const it of test.init) {
    if (it.thread !== null) {
      registerInits.push({ thread: it.thread, name: it.name, value: valueOf(it.value), pos: it.pos });
      continue;
    }
    const v = vars.get(it.name);
    if (it.values) {
      const ls = v ? leaves(v.type) : [];
      if (!v || it.values.length > ls.length) fail(`${it.values.length} initial values for ${ls.length} location${ls.length === 1 ? '' : 's'}`, it.pos);
      it.values.forEach((x, i) => (initValues[locIds.get(it.name + ls[i].path)!] = valueOf(x)));
    } else if (v && sizeOf(v.type) > 1) {
      if (it.value) fail(`${it.name} is ${typeName(v.type)}: give its values as a list {1, 2, ...}`, it.pos);
    } else initValues[leafOf(it.name, it.pos)] = valueOf(it.value);
  }

  // Processes must be P0..Pn-1.
  const procs = [...test.processes].sort((a, b) => a.index - b.index);
  procs.forEach((p, i) => {
    if (p.index !== i) fail(p.index < i ? `process P${p.index} is defined twice` : `process P${i} is missing`, p.pos);
  });

  reportUnknownPrimitives(procs, primitives);

  const initRegNames = (t: number) => registerInits.filter((ri) => ri.thread === t).map((ri) => ri.name);
  const builders = procs.map((p) => new ThreadBuilder(p.index, { vars, structs }, unroll, waits, primitives, initRegNames(p.index)));
  const threads = builders.map((b, i) => b.build(procs[i].params, procs[i].body));
  refuseTooManyPrimitives(threads);
  refuseUnwritableZeroReads(builders, threads);
  // Location 0, which no name reaches (see Program.zeroLocation): a variable
  // named "0", which no identifier can name.
  let zeroLocation = -1;
  if (builders.some((b) => b.accessesZero)) {
    declare('0', SCALAR);
    zeroLocation = locIds.get('0')!;
  }
  for (const ri of registerInits) {
    const th = threads[ri.thread];
    if (!th) fail(`no process P${ri.thread} for this register`, ri.pos);
    let r = th.regs.indexOf(ri.name);
    if (r < 0) {
      r = th.regs.length;
      th.regs.push(ri.name);
    }
    th.initRegs[r] = ri.value;
  }
  for (const th of threads) for (let r = 0; r < th.regs.length; r++) th.initRegs[r] ??= 0;

  // The final condition and what the states show.
  const observed: Observed[] = [];
  const seenObs = new Set<string>();
  const observe = (o: Observed) => {
    const key = o.kind === 'reg' ? `${o.thread}:${o.name}` : `[${o.name}]`;
    if (!seenObs.has(key)) {
      seenObs.add(key);
      observed.push(o);
    }
  };
  const regRef = (thread: number, name: string, pos: Pos): Observed => {
    const th = threads[thread];
    if (!th) fail(`no process P${thread} in this test`, pos);
    let r = th.regs.indexOf(name);
    if (r < 0) {
      // A register the process never uses keeps its initial value, 0 (herd7 answers so).
      r = th.regs.length;
      th.regs.push(name);
      th.initRegs.push(0);
    }
    return { kind: 'reg', thread, reg: r, name };
  };
  // A location no process names holds its initial value, 0 (herd7 answers so).
  const memRef = (name: string, pos: Pos): Observed => {
    const v = vars.get(name);
    // herd7 shows a whole array as its values, `a={0,5,0}`: litmus does not yet.
    if (v && (v.type.k === 'array' || v.type.k === 'struct')) fail(`${name} is ${typeName(v.type)}: litmus cannot show or compare a whole array or struct (herd7 shows an array as {v0,v1,...}): name its elements (${name}[0], ...)`, pos);
    return { kind: 'mem', loc: leafOf(name, pos), name };
  };
  for (const lr of test.locations) observe(lr.thread === null ? memRef(lr.name, lr.pos) : regRef(lr.thread, lr.name, lr.pos));
  // herd's states show what the final condition and `locations` name, not
  // what only the filter names: `shown` is false while compiling the filter.
  // Whether the left side of an equality may still end as a value (StateView.regMay, memMay).
  const compileMay = (t: CondTerm): ((v: StateView, value: number) => boolean) => {
    if (t.kind === 'reg') {
      const o = regRef(t.thread, t.name, t.pos) as Extract<Observed, { kind: 'reg' }>;
      return (v, value) => v.regMay?.(o.thread, o.reg, value) ?? true;
    }
    if (t.kind === 'mem') {
      const o = memRef(t.name, t.pos) as Extract<Observed, { kind: 'mem' }>;
      return (v, value) => v.memMay?.(o.loc, value) ?? true;
    }
    return () => true;
  };
  const compileTerm = (t: CondTerm, isRhs: boolean, shown: boolean): ((v: StateView) => number | undefined) => {
    if (t.kind === 'num') return () => t.value;
    if (t.kind === 'reg') {
      const o = regRef(t.thread, t.name, t.pos) as Extract<Observed, { kind: 'reg' }>;
      if (shown) observe(o);
      return (v) => v.reg(o.thread, o.reg);
    }
    if (isRhs && !t.deref) {
      // On the right of `=`, a location name is its address (`1:r2=x0`); `[x]` is its value.
      if (isPath(t.name)) leafOf(t.name, t.pos);
      const a = addr(t.name);
      return () => a;
    }
    const o = memRef(t.name, t.pos) as Extract<Observed, { kind: 'mem' }>;
    if (shown) observe(o);
    return (v) => v.mem(o.loc);
  };
  // Kleene's logic: undefined is "not known yet".
  const compileCond = (c: CondExpr, shown: boolean): ((v: StateView) => boolean | undefined) => {
    switch (c.kind) {
      case 'true':
        return () => true;
      case 'false':
        return () => false;
      case 'not': {
        const a = compileCond(c.arg, shown);
        return (v) => {
          const x = a(v);
          return x === undefined ? undefined : !x;
        };
      }
      case 'and': {
        const a = compileCond(c.left, shown);
        const b = compileCond(c.right, shown);
        return (v) => {
          const x = a(v);
          if (x === false) return false;
          const y = b(v);
          return y === false ? false : x && y;
        };
      }
      case 'or': {
        const a = compileCond(c.left, shown);
        const b = compileCond(c.right, shown);
        return (v) => {
          const x = a(v);
          if (x === true) return true;
          const y = b(v);
          return y === true ? true : x === undefined || y === undefined ? undefined : false;
        };
      }
      case 'implies': {
        const a = compileCond(c.left, shown);
        const b = compileCond(c.right, shown);
        return (v) => {
          const x = a(v);
          if (x === false) return true;
          const y = b(v);
          return y === true ? true : x === undefined || y === undefined ? undefined : false;
        };
      }
      case 'eq': {
        const l = compileTerm(c.lhs, false, shown);
        const r = compileTerm(c.rhs, true, shown);
        const may = compileMay(c.lhs);
        return (v) => {
          const x = l(v);
          const y = r(v);
          if (x === undefined && y !== undefined && !may(v, y)) return c.negated;
          return x === undefined || y === undefined ? undefined : (x === y) !== c.negated;
        };
      }
    }
  };
  const decide = compileCond(test.condition, true);
  const decideFilter = test.filter ? compileCond(test.filter, false) : undefined;
  for (let l = 0; l < locations.length; l++) initValues[l] ??= 0;
  const holds = (fs: FinalState) => decide(viewOf(fs)) === true;
  const filter = decideFilter && ((fs: FinalState) => decideFilter(viewOf(fs)) === true);
  return {
    name: test.name,
    locations,
    addresses,
    locationAt,
    unnamedFrom: locations.length,
    initValues,
    threads,
    final: { quantifier: test.quantifier, holds, filter, decide, decideFilter },
    observed,
    unroll,
    waits,
    zeroLocation,
    test,
    primitives,
  };
}

/** Where a shared variable is first declared: in the initial state, else as a parameter. */
function declaredAt(test: LitmusTest, name: string): Pos | undefined {
  return test.init.find((it) => it.thread === null && it.name === name)?.pos ?? test.processes.flatMap((p) => p.params).find((p) => p.name === name)?.pos;
}

/** What herd7's refusal of a read at address 0 through `name`, a name process `thread` does not declare, means. */
export function zeroReadMessage(name: string, thread: number): string {
  return `"${name}" is not a parameter of P${thread}: herd7 takes it for a register holding 0 and refuses to read at address 0 ` +
    `(a process reaches a shared variable only through its parameters: add "int *${name}" to P${thread}'s)`;
}

/**
 * A read through a name its process does not declare reads address 0,
 * where herd7 has no initial write. If no write of the test may be at 0
 * (none through such a name, none at an address computed by the code),
 * herd7 refuses the test ("Non symbolic location with no initial write");
 * else the read waits for such a write, which is refused where a path
 * reaches it (src/explore/execute.ts); an execution whose read gets none is
 * no execution (herd7's "States 0") when a write of it is at a computed
 * address, else refused as herd7 refuses it (src/explore/guesses.ts).
 */
function refuseUnwritableZeroReads(builders: readonly ThreadBuilder[], threads: readonly Thread[]): void {
  if (builders.every((b) => b.zeroReads.length === 0)) return;
  // The writes that may be at 0: through an undeclared name, or at an address the code computes.
  const writes = threads.flatMap((th, i) => {
    const computed = new Set<number>(builders[i].undeclaredRegs);
    for (const ins of th.code) if ((ins.op === 'set' || ins.op === 'prim') && ins.dst >= 0) computed.add(ins.dst);
    return th.code.filter((ins): ins is PrimInstr => {
      if (ins.op !== 'prim') return false;
      const e = effectOf(ins.prim);
      return e.object === 'memory' && e.writes && pureRegs(ins.addr).some((r) => computed.has(r));
    });
  });
  // Each read needs one besides itself (an RMW's own write comes after its read).
  for (const b of builders) for (const z of b.zeroReads) if (!writes.some((w) => w !== z.ins)) fail(z.message, z.pos);
}

/** LIMITS.primitives: refused at the first primitive call past it. */
function refuseTooManyPrimitives(threads: Thread[]): void {
  let n = 0;
  for (const th of threads) {
    for (const ins of th.code) {
      if (ins.op === 'prim' && ++n > LIMITS.primitives) {
        throw limit(`more than ${LIMITS.primitives} primitive calls in the test (each is an event of the search, which recurses once per event)`, ins.pos);
      }
    }
  }
}

class ThreadBuilder {
  private code: Instr[] = [];
  private regs: string[] = [];
  /** Each register's index in regs (indexOf would be quadratic in a thread of 20,000 registers). */
  private regIds = new Map<string, number>();
  private initRegs: number[] = [];
  private declared = new Set<string>();
  private assigned = new Set<string>();
  private params = new Set<string>();
  private paramTypes = new Map<string, string>();
  /** The loops being compiled, innermost last: where their `break`s and `continue`s jump. */
  private loops: { breaks: number[]; continues: number[] }[] = [];
  /** Where waits are read exactly: each loop's head instruction, counter and position, by index (see loopInfos). */
  private loopHeads: { head: number; counter: number; pos: Pos }[] = [];
  /** Registers' declared types (what a pointer register points to, for `p->f` and `p[i]`). */
  private declTypes = new Map<string, string>();
  private temps = 0;
  /** Registers named by a name the process neither takes nor declares (see Program.zeroLocation). */
  private undeclared = new Set<number>();
  /** Whether an access goes through one of them (to location 0). */
  accessesZero = false;
  /** The memory reads through one of them, each with what herd7 says when nothing may write at 0 (see zeroReadRefused). */
  readonly zeroReads: { message: string; pos: Pos; ins?: PrimInstr }[] = [];

  /** The registers named by names the process does not declare. */
  get undeclaredRegs(): ReadonlySet<number> {
    return this.undeclared;
  }

  constructor(
    private readonly index: number,
    /** The shared variables and struct types. */
    private readonly scope: SharedScope,
    private readonly unroll: number,
    private readonly waits: WaitReading,
    private readonly primitives: PrimitiveTable,
    /** Registers given a value in the initial state (`0:r1=x;`): declared there. */
    initialised: string[] = [],
  ) {
    for (const r of initialised) this.declared.add(r);
  }

  /** The address of a shared variable, undefined for a name that is none. */
  private addrOf(name: string): number | undefined {
    return this.scope.vars.get(name)?.base;
  }

  build(params: { name: string; pos: Pos }[], body: Stmt[]): Thread {
    for (const p of params) {
      if (this.params.has(p.name)) fail(`parameter "${p.name}" appears twice`, p.pos);
      const type = (p as { type?: string }).type ?? '';
      if (!type.includes('*')) {
        fail(`parameter "${p.name}" must be a pointer (e.g. "${type || 'int'} *${p.name}"): processes take shared variables by address`, p.pos);
      }
      this.params.add(p.name);
      this.paramTypes.set(p.name, (p as { type?: string }).type ?? '');
      const r = this.reg(p.name);
      this.initRegs[r] = this.addrOf(p.name)!;
    }
    // Registers assigned anywhere in the body may be used without a
    // declaration, as herd allows; a name never assigned must be declared.
    collectAssigned(body, this.assigned);
    for (const s of body) this.stmt(s);
    const paramRegs = [...this.params].map((p) => this.regs.indexOf(p));
    return { index: this.index, code: this.code, regs: this.regs, initRegs: this.initRegs, paramRegs, loops: this.loopInfos() };
  }

  /**
   * The loops' infos, once the code is complete: each loop's live
   * registers at its head (a backward analysis of the whole thread; every
   * register but the temporaries is live at its end, where the final
   * condition may read it), and the registers its head copies them to.
   */
  private loopInfos(): LoopInfo[] {
    if (this.loopHeads.length === 0) return [];
    const own = new Set(this.loopHeads.flatMap((l) => [l.counter]));
    const liveIn = liveRegisters(this.code, this.regs);
    return this.loopHeads.map((l) => {
      const live = liveIn ? [...liveIn[l.head]].filter((r) => !own.has(r)) : this.regs.map((_, r) => r).filter((r) => !own.has(r));
      return { pos: l.pos, counter: l.counter, live, shadows: live.map(() => this.temp()), mark: this.temp() };
    });
  }

  private reg(name: string): number {
    let r = this.regIds.get(name);
    if (r === undefined) {
      r = this.regs.length;
      this.regs.push(name);
      this.regIds.set(name, r);
    }
    return r;
  }

  private temp(): number {
    return this.reg(`$t${this.temps++}`);
  }

  private emit(i: Instr): number {
    this.code.push(i);
    return this.code.length - 1;
  }

  private stmt(s: Stmt): void {
    switch (s.kind) {
      case 'empty':
        return;
      case 'block':
        for (const b of s.body) this.stmt(b);
        return;
      case 'decl': {
        if (this.params.has(s.name)) fail(`"${s.name}" is already a parameter of P${this.index}`, s.pos);
        this.declared.add(s.name);
        this.declTypes.set(s.name, s.type);
        const r = this.reg(s.name);
        if (s.init) this.emit({ op: 'set', dst: r, e: this.expr(s.init) });
        return;
      }
      case 'assign': {
        if (s.target.kind === 'name') {
          const name = s.target.name;
          if (this.params.has(name)) {
            fail(`cannot assign to "${name}": it is a shared location (write "*${name} = ..." or WRITE_ONCE(*${name}, ...))`, s.target.pos);
          }
          const e = this.expr(s.value);
          this.emit({ op: 'set', dst: this.reg(name), e });
          return;
        }
        // `*p = e`, `a[i] = e`, `v.f = e`: a plain store.
        const addr = this.accessed(this.lvalue(s.target).addr, false, s.target);
        const value = this.expr(s.value);
        this.emit({
          op: 'prim', prim: PLAIN_STORE, name: 'store', dst: -1,
          addr, args: [addr, value], pos: s.pos,
        });
        return;
      }
      case 'expr': {
        if (s.expr.kind === 'call') {
          this.call(s.expr, false);
          return;
        }
        this.expr(s.expr);
        return;
      }
      case 'if': {
        // An if that jumps out (break, continue) keeps its control dependency to the loop's end (see loop).
        const structured = !jumpsOutOfLoop(s);
        if (structured) this.emit({ op: 'ctrlpush' });
        const cond = this.expr(s.cond);
        const br = this.emit({ op: 'branch', cond, ifFalse: -1 });
        this.stmt(s.then);
        if (s.else) {
          const j = this.emit({ op: 'jump', target: -1 });
          (this.code[br] as { ifFalse: number }).ifFalse = this.code.length;
          this.stmt(s.else);
          (this.code[j] as { target: number }).target = this.code.length;
        } else {
          (this.code[br] as { ifFalse: number }).ifFalse = this.code.length;
        }
        if (structured) this.emit({ op: 'ctrlpop' });
        return;
      }
      case 'while':
        this.loop(s.cond, s.body, undefined, false, s.pos);
        return;
      case 'for':
        if (s.init) this.stmt(s.init);
        this.loop(s.cond, s.body, s.step, false, s.pos);
        return;
      case 'do':
        this.loop(s.cond, s.body, undefined, true, s.pos);
        return;
      case 'break':
      case 'continue': {
        const loop = this.loops[this.loops.length - 1];
        if (!loop) fail(`"${s.kind}" outside a loop`, s.pos);
        (s.kind === 'break' ? loop.breaks : loop.continues).push(this.emit({ op: 'jump', target: -1 }));
        return;
      }
      case 'return':
        fail('"return" outside a helper function', s.pos);
    }
  }

  /**
   * A loop: `while (cond) body`, with `step` after the body (a for loop's,
   * where `continue` goes) and, for `do`, the body once before (`do s while
   * (c)` is `s; while (c) s`). Unrolled, iteration k is nested in the ifs of
   * iterations 1..k-1: its events depend on all their conditions; what
   * follows the loop on none of them. Past --unroll iterations the path is
   * cut (herd's "Loop"), never counted. `break` jumps past the loop,
   * `continue` to the step; an `if` that holds either keeps its condition's
   * control dependency to the iteration's end (what follows it runs only
   * as that condition allows).
   */
  private loop(cond: Expr | undefined, body: Stmt, step: Stmt | undefined, bodyFirst: boolean, pos: Pos): void {
    if (this.waits === 'exact') {
      this.exactLoop(cond, body, step, bodyFirst, pos);
      return;
    }
    this.emit({ op: 'ctrlpush' });
    const counter = this.temp();
    this.emit({ op: 'set', dst: counter, e: { k: 'const', v: 0 } });
    const patch = (jumps: number[], target: number) => {
      for (const j of jumps) (this.code[j] as { target: number }).target = target;
    };
    const exits: number[] = [];
    if (bodyFirst) {
      const first = { breaks: exits, continues: [] as number[] };
      this.loops.push(first);
      this.stmt(body);
      this.loops.pop();
      patch(first.continues, this.code.length);
    }
    const head = this.code.length;
    const br = this.emit({ op: 'branch', cond: cond ? this.expr(cond) : { k: 'const', v: 1 }, ifFalse: -1 });
    this.emit({ op: 'loopcheck', counter, bound: this.unroll, pos });
    const ctx = { breaks: exits, continues: [] as number[] };
    this.loops.push(ctx);
    this.stmt(body);
    this.loops.pop();
    patch(ctx.continues, this.code.length);
    if (step) this.stmt(step);
    this.emit({ op: 'set', dst: counter, e: { k: 'bin', op: '+', a: { k: 'reg', r: counter }, b: { k: 'const', v: 1 } } });
    this.emit({ op: 'jump', target: head });
    (this.code[br] as { ifFalse: number }).ifFalse = this.code.length;
    patch(exits, this.code.length);
    this.emit({ op: 'ctrlpop' });
  }

  /**
   * A loop where waits are read exactly (WaitReading): the same events,
   * dependencies, bound and cut paths as the unrolled loop above, with a
   * `head` that notes what each iteration starts from and a back jump that
   * tells an idle iteration; a do loop's body is compiled once, inside the
   * loop (`head: body; if (!cond) exit; loopcheck; counter++; jump head`:
   * as many passes as `body; while (cond) body` makes), so that its first
   * pass is an iteration too.
   */
  private exactLoop(cond: Expr | undefined, body: Stmt, step: Stmt | undefined, bodyFirst: boolean, pos: Pos): void {
    this.emit({ op: 'ctrlpush' });
    const counter = this.temp();
    this.emit({ op: 'set', dst: counter, e: { k: 'const', v: 0 } });
    const index = this.loopHeads.length;
    const head = this.emit({ op: 'head', loop: index });
    this.loopHeads.push({ head, counter, pos });
    const patch = (jumps: number[], target: number) => {
      for (const j of jumps) (this.code[j] as { target: number }).target = target;
    };
    const ctx = { breaks: [] as number[], continues: [] as number[] };
    const test = () => this.emit({ op: 'branch', cond: cond ? this.expr(cond) : { k: 'const', v: 1 }, ifFalse: -1 });
    let br: number;
    if (bodyFirst) {
      this.loops.push(ctx);
      this.stmt(body);
      this.loops.pop();
      patch(ctx.continues, this.code.length);
      br = test();
      this.emit({ op: 'loopcheck', counter, bound: this.unroll, pos });
    } else {
      br = test();
      this.emit({ op: 'loopcheck', counter, bound: this.unroll, pos });
      this.loops.push(ctx);
      this.stmt(body);
      this.loops.pop();
      patch(ctx.continues, this.code.length);
      if (step) this.stmt(step);
    }
    this.emit({ op: 'set', dst: counter, e: { k: 'bin', op: '+', a: { k: 'reg', r: counter }, b: { k: 'const', v: 1 } } });
    this.emit({ op: 'jump', target: head, loop: index });
    (this.code[br] as { ifFalse: number }).ifFalse = this.code.length;
    patch(ctx.breaks, this.code.length);
    this.emit({ op: 'ctrlpop' });
  }

  /** Lowers an expression; memory accesses inside it become instructions. */
  private expr(e: Expr): PureExpr {
    switch (e.kind) {
      case 'num':
        return { k: 'const', v: e.value };
      case 'name': {
        if (this.params.has(e.name) || this.declared.has(e.name) || this.assigned.has(e.name)) {
          return { k: 'reg', r: this.reg(e.name) };
        }
        // herd7's scoping: a name the process neither takes as a parameter
        // nor declares is one of its registers, 0 unless initialised (even
        // when another process or the initial state has a variable of that
        // name: a process reaches shared variables only through its parameters).
        const r = this.reg(e.name);
        this.undeclared.add(r);
        return { k: 'reg', r };
      }
      case 'deref': {
        // `*p` as a value: a plain load.
        const addr = this.accessed(this.expr(e.arg), true, e.arg);
        const dst = this.temp();
        this.emit({ op: 'prim', prim: PLAIN_LOAD, name: 'load', dst, addr, args: [addr], pos: e.pos });
        return { k: 'reg', r: dst };
      }
      case 'addr': {
        if (e.arg.kind === 'name') {
          const a = this.addrOf(e.arg.name);
          if (a !== undefined) return { k: 'const', v: a };
        }
        if (e.arg.kind === 'deref' || e.arg.kind === 'index' || e.arg.kind === 'field') return this.lvalue(e.arg).addr;
        fail('"&" applies only to a shared variable here', e.pos);
      }
      case 'unary':
        return { k: 'un', op: e.op, a: this.expr(e.arg) };
      case 'binary': {
        const a = this.expr(e.left);
        const b = this.expr(e.right);
        // herd7 takes `v + 0` and `v | 0` for v itself (lib/symbValue.ml): a copy, not a computation, also of an unsolved value.
        if (e.op === '+' || e.op === '|') {
          if (a.k === 'const' && a.v === 0) return b;
          if (b.k === 'const' && b.v === 0) return a;
        }
        return { k: 'bin', op: e.op, a, b, pos: e.pos };
      }
      case 'cast':
        return this.expr(e.arg);
      case 'call':
        return this.call(e, true);
      case 'index':
      case 'field': {
        // An element or a field as a value: a plain load (an array's name alone is its address, as in C).
        const lv = this.lvalue(e);
        if (lv.type?.k === 'array') return lv.addr;
        if (lv.type?.k === 'struct') fail(`${printExpr(e)} is a struct: use one of its fields`, e.pos);
        const dst = this.temp();
        this.emit({ op: 'prim', prim: PLAIN_LOAD, name: 'load', dst, addr: lv.addr, args: [lv.addr], pos: e.pos });
        return { k: 'reg', r: dst };
      }
    }
  }

  /** What a name points to: a parameter's shared variable's type (the parameter holds its address), a pointer register's declared target. */
  private pointsTo(name: string, pos: Pos): CType | undefined {
    if (this.params.has(name)) {
      const v = this.scope.vars.get(name);
      if (v) return v.type;
    }
    const t = this.declTypes.get(name);
    return t === undefined ? undefined : pointee(t, this.scope.structs, pos);
  }

  /**
   * The address of a location written as an lvalue (`*p`, `a[i]`, `v.f`,
   * `p->f`, nested) and its type when known. \`v.f\` with v a parameter is
   * its variable's field, as \`v->f\` is.
   */
  private lvalue(e: Expr): { addr: PureExpr; type: CType | undefined } {
    switch (e.kind) {
      case 'deref':
        return { addr: this.expr(e.arg), type: e.arg.kind === 'name' ? this.pointsTo(e.arg.name, e.pos) : undefined };
      case 'index': {
        const { ptr, elem, bound } = this.arrayOf(e.base);
        const size = byteSize(elem);
        const i = this.expr(e.index);
        if (i.k === 'const') {
          if (bound !== undefined && (i.v < 0 || i.v >= bound)) fail(`index ${i.v} is out of bounds: ${printExpr(e.base)} has ${bound} element${bound === 1 ? '' : 's'}`, e.index.pos);
          return { addr: i.v === 0 ? ptr : { k: 'bin', op: '+', a: ptr, b: { k: 'const', v: i.v * size } }, type: elem };
        }
        if (bound !== undefined) this.emit({ op: 'bound', index: i, size: bound, pos: e.index.pos });
        const offset: PureExpr = size === 1 ? i : { k: 'bin', op: '*', a: i, b: { k: 'const', v: size } };
        return { addr: { k: 'bin', op: '+', a: ptr, b: offset }, type: elem };
      }
      case 'field': {
        const base = e.arrow || e.base.kind === 'name' ? this.pointerTo(e.base) : this.lvalue(e.base);
        if (base.type?.k !== 'struct') fail(`${printExpr(e.base)} is no struct${base.type ? ` (it is ${typeName(base.type)})` : ' whose type is known'}: it has no field "${e.field}"`, e.pos);
        const f = fieldOf(base.type, e.field);
        if (!f) fail(`struct ${base.type.def.name} has no field "${e.field}"`, e.pos);
        return { addr: f.offset === 0 ? base.addr : { k: 'bin', op: '+', a: base.addr, b: { k: 'const', v: f.offset } }, type: f.type };
      }
      default:
        break;
    }
    fail(`${printExpr(e)} is not a location`, e.pos);
  }

  /** A pointer's value and what it points to (`p` in `p->f`; `v` in `v.f`, a shared variable). */
  private pointerTo(e: Expr): { addr: PureExpr; type: CType | undefined } {
    // An array or a struct (litmus's, beyond herd7's C) may be named in code
    // without being a parameter: `a[i]`, `v.f` are its elements and fields.
    // (A scalar name a process does not declare stays herd7's register, 0.)
    if (e.kind === 'name' && !this.params.has(e.name) && !this.declared.has(e.name) && !this.assigned.has(e.name)) {
      const v = this.scope.vars.get(e.name);
      if (v && v.type.k !== 'scalar') return { addr: { k: 'const', v: v.base }, type: v.type };
    }
    return { addr: this.expr(e), type: e.kind === 'name' ? this.pointsTo(e.name, e.pos) : undefined };
  }

  /** What `base[i]` indexes: the address of element 0, the elements' type, and how many there are when known. */
  private arrayOf(base: Expr): { ptr: PureExpr; elem: CType; bound?: number } {
    if (base.kind === 'index' || base.kind === 'field') {
      const lv = this.lvalue(base);
      if (lv.type?.k === 'array') return { ptr: lv.addr, elem: lv.type.elem, bound: lv.type.n };
      // A pointer stored in an element or a field: its value.
      return { ptr: this.expr(base), elem: SCALAR };
    }
    const p = this.pointerTo(base);
    if (p.type?.k === 'array') return { ptr: p.addr, elem: p.type.elem, bound: p.type.n };
    if (p.type) return { ptr: p.addr, elem: p.type, bound: base.kind === 'name' && this.params.has(base.name) ? 1 : undefined };
    return { ptr: p.addr, elem: SCALAR };
  }

  private call(e: Extract<Expr, { kind: 'call' }>, needValue: boolean): PureExpr {
    const info = this.primitives.lookup(e.name);
    if (!info) fail(`unknown primitive "${e.name}"`, e.pos);
    if (e.args.length !== info.arity) {
      fail(`${e.name} takes ${info.arity} argument${info.arity === 1 ? '' : 's'}, not ${e.args.length}`, e.pos);
    }
    if (needValue && !info.returns) fail(`${e.name} does not return a value`, e.pos);
    if ('lower' in info) return this.lowered(e.name, info.lower(e.args, e.pos));
    const prim = info.prim;
    const effect = effectOf(prim);
    let addr: PureExpr = { k: 'const', v: 0 };
    // The Effect's argument slots, each from the call argument (or the
    // macro's constant) the table says; an argument the macro does not use
    // is not evaluated, as in herd's expansion.
    const addrSlot = addressSlot(prim);
    const args: PureExpr[] = argSources(info).map((src, slot) => {
      if ('value' in src) return { k: 'const', v: src.value };
      const a = e.args[src.param];
      if (slot !== addrSlot) return this.expr(a);
      addr = this.accessed(this.address(a, effect.addr, e.name, effect.reads && !effect.writes ? 'load' : 'store'), effect.object === 'memory' && effect.reads, a);
      return addr;
    });
    const dst = info.returns ? this.temp() : -1;
    const reads = this.zeroReads.length;
    const ins: PrimInstr = { op: 'prim', prim, name: e.name, dst, addr, args, pos: e.pos };
    this.emit(ins);
    // A read through an undeclared name was met in this call's address: it is this instruction's.
    for (let i = reads - 1; i >= 0 && this.zeroReads[i].ins === undefined; i--) this.zeroReads[i].ins = ins;
    return dst >= 0 ? { k: 'reg', r: dst } : { k: 'const', v: 0 };
  }

  /**
   * An access's address, checked as herd7 checks it: through an undeclared
   * name (a register holding 0), a memory read is refused and anything else
   * acts on location 0.
   */
  private accessed(addr: PureExpr, readsMemory: boolean, at: Expr): PureExpr {
    if (addr.k !== 'reg' || !this.undeclared.has(addr.r)) return addr;
    const name = this.regs[addr.r];
    if (readsMemory) {
      this.zeroReads.push({ message: zeroReadMessage(name, this.index), pos: at.pos });
    }
    this.accessesZero = true;
    return addr;
  }

  /** Compiles an operation's expansion (see `Lowered`); its instructions carry the operation's name. */
  private lowered(name: string, expansion: Expr | Stmt | RunThen): PureExpr {
    const start = this.code.length;
    let value: PureExpr = { k: 'const', v: 0 };
    if (isRunThen(expansion)) {
      // The registers the statement sets (VAL) are the thread's, as if written in the body.
      collectAssigned([expansion.run], this.assigned);
      this.stmt(expansion.run);
      value = this.expr(expansion.value);
    } else if (isStmt(expansion)) this.stmt(expansion);
    else value = this.expr(expansion);
    for (let i = start; i < this.code.length; i++) {
      const ins = this.code[i];
      if (ins.op === 'prim') ins.name = name;
    }
    return value;
  }

  /**
   * The address a primitive acts on. READ_ONCE and WRITE_ONCE take the
   * location itself (`*x`): herd7 refuses `WRITE_ONCE(x, 1)` ("Bad __store
   * argument"), `READ_ONCE(x)` ("Bad __load argument"), and so does litmus.
   */
  private address(a: Expr, style: 'lvalue' | 'pointer', name: string, access: 'load' | 'store'): PureExpr {
    if (style === 'lvalue') {
      if (a.kind === 'deref' || a.kind === 'index' || a.kind === 'field') return this.lvalue(a).addr;
      const hint = a.kind === 'name' ? ` such as "*${a.name}"` : ' such as "*x"';
      fail(`${name} needs a location${hint}, not an address (herd7: "Bad __${access} argument")`, a.pos);
    }
    if (a.kind === 'addr' && a.arg.kind === 'name' && this.params.has(a.arg.name)) return this.expr(a.arg);
    return this.expr(a);
  }
}

/** The registers a body assigns by name, anywhere in it. */
function collectAssigned(body: Stmt[], out: Set<string>): void {
  const stmt = (s: Stmt) => {
    if (s.kind === 'assign' && s.target.kind === 'name') out.add(s.target.name);
  };
  for (const s of body) walkStmt(s, { stmt });
}

/** Whether any thread has a loop (unrolled, with a loopcheck at its bound: herd's "Loop" when a path reaches it). */
export function hasLoops(prog: Program): boolean {
  return prog.threads.some((th) => th.code.some((ins) => ins.op === 'loopcheck'));
}

/** e's value in 32-bit arithmetic (./arith.ts); a division by zero is an error at its position. */
export function evalPure(e: PureExpr, regs: ArrayLike<number>): number {
  switch (e.k) {
    case 'const':
      return e.v;
    case 'reg':
      return regs[e.r];
    case 'un':
      return unary32(e.op, evalPure(e.a, regs));
    case 'bin': {
      const a = evalPure(e.a, regs);
      const b = evalPure(e.b, regs);
      if (b === 0 && DIVIDES.has(e.op) && !isVariableAddress(a)) {
        fail(`division by zero: the right side of "${e.op}" is 0 here (herd7 stops on it)`, e.pos ?? { line: 0, col: 0 });
      }
      try {
        return binaryValue(e.op, a, b);
      } catch (x) {
        if (x instanceof IllegalOnAddress) fail(x.message, e.pos ?? { line: 0, col: 0 });
        throw x;
      }
    }
  }
}

/**
 * Whether v is the address of a variable or one of its elements and fields
 * (less than MAX_BYTES from its block's start): the values herd7 keeps
 * symbolic. Narrower than isAddress, so that a number a test computes near
 * LOC_BASE (INT_MAX / 2 is LOC_BASE - 1) is taken for a number.
 */
export function isVariableAddress(v: number): boolean {
  return v >= LOC_BASE && v < LOC_BASE + ADDRESS_SPAN && (v - LOC_BASE) % VAR_STRIDE < MAX_BYTES;
}

/** An operation herd7 refuses on an address ("Illegal operation"), or that makes it stop. */
export class IllegalOnAddress extends Error {}

/**
 * op on a and b where one is an address, as herd7 computes on its symbolic
 * addresses: an offset (`x + 1`, `x - 1`) is an address; adding or or-ing 0
 * changes nothing; two addresses subtract to -1, 0 or 1 (their order, by
 * name) and xor to 0 when equal; an address equals no number; it is greater
 * than 0 and not less. Anything else throws IllegalOnAddress, as does an
 * offset too far for litmus's addresses. Undefined when neither is an address.
 */
export function onAddresses(op: string, a: number, b: number): number | undefined {
  const A = isVariableAddress(a);
  const B = isVariableAddress(b);
  if (!A && !B) return undefined;
  const illegal = (): never => {
    throw new IllegalOnAddress(`herd7 refuses "${op}" on ${A && B ? 'two addresses' : 'an address and a number'} ("Illegal operation ${op}"; it computes only offsets, comparisons and a difference of addresses)`);
  };
  // An offset stays within its variable's block of addresses, or it would be taken for another address or a number.
  const offset = (addr: number, k: number): number => {
    const base = LOC_BASE + Math.round((addr - LOC_BASE) / VAR_STRIDE) * VAR_STRIDE;
    if (Math.abs(addr + k - base) >= VAR_STRIDE / 2) {
      throw new IllegalOnAddress(`an offset of ${addr + k - base} from an address: litmus keeps offsets within ${VAR_STRIDE / 2 - 1} either way (herd7 answers with the symbol and its offset); refused rather than answered wrong`);
    }
    return addr + k;
  };
  switch (op) {
    case '+':
      if (a === 0) return b;
      if (b === 0) return a;
      return A && B ? illegal() : A ? offset(a, b) : offset(b, a);
    case '-':
      if (A && B) return a === b ? 0 : a < b ? -1 : 1;
      return A ? offset(a, -b) : illegal();
    case '|':
      if (a === 0) return b;
      if (b === 0) return a;
      return illegal();
    case '^':
      return a === b ? 0 : illegal();
    case '==':
      return A && B ? (a === b ? 1 : 0) : 0;
    case '!=':
      return A && B ? (a !== b ? 1 : 0) : 1;
    case '<':
      if (A && !B && b === 0) return 0;
      if (B && !A && a === 0) return 1;
      return illegal();
    case '>':
      if (B && !A && a === 0) return 0;
      if (A && !B && b === 0) return 1;
      return illegal();
    case '&&':
    case '||':
      return undefined;
    default:
      return illegal();
  }
}

/** op on a and b as herd7 computes it: on addresses as onAddresses says, else in 32 bits (binary32). */
export function binaryValue(op: string, a: number, b: number): number {
  return onAddresses(op, a, b) ?? binary32(op, a, b);
}

/** The registers an expression reads. */
export function pureRegs(e: PureExpr, out: number[] = []): number[] {
  switch (e.k) {
    case 'reg':
      out.push(e.r);
      break;
    case 'un':
      pureRegs(e.a, out);
      break;
    case 'bin':
      pureRegs(e.a, out);
      pureRegs(e.b, out);
      break;
    default:
      break;
  }
  return out;
}

/**
 * Every call of an unknown primitive in the test (not just the first), each
 * with the closest known name; a macro of the .def that litmus cannot run
 * says why, and where it is.
 */
function reportUnknownPrimitives(procs: Process[], table: PrimitiveTable): void {
  const errors: LitmusError[] = [];
  const statementCalls = new Set<Expr>();
  const stmt = (s: Stmt): void => {
    if (s.kind === 'expr' && s.expr.kind === 'call') statementCalls.add(s.expr);
  };
  const expr = (e: Expr): void => {
    if (e.kind !== 'call' || table.lookup(e.name)) return;
    const cannot = table.unsupportedMacro(e.name);
    if (cannot) {
      errors.push(new LitmusError(`litmus cannot run the macro ${e.name} of ${cannot.file}:${cannot.pos.line}:${cannot.pos.col}: ${cannot.reason}`, e.pos));
      return;
    }
    const refused = table.refusal(e.name);
    const near = refused ? undefined : table.closest(e.name);
    const message = refused
      ? `${e.name}() has no meaning in the LKMM: ${refused.why} (${refused.source})`
      : `unknown primitive "${e.name}"${near ? ` (did you mean "${near}"?)` : ''}`;
    errors.push(new UnknownPrimitiveError(message, e.pos, e.name, statementCalls.has(e)));
  };
  for (const p of procs) for (const st of p.body) walkStmt(st, { stmt, expr });
  if (errors.length === 0) return;
  const [first, ...others] = errors;
  if (others.length) first.others = others;
  throw first;
}

/** Past this many instructions times registers, liveRegisters does not run (every register is then taken as live). */
const LIVENESS_CAP = 1 << 22;

/**
 * The registers live at each instruction of a thread's code (read before
 * written on some path from it), by a backward analysis to a fixpoint; at
 * the end of the code every register but the temporaries (`$...`, which no
 * condition names) is live. Undefined past LIVENESS_CAP.
 */
export function liveRegisters(code: readonly Instr[], regs: readonly string[]): Set<number>[] | undefined {
  const n = code.length;
  if (n * regs.length > LIVENESS_CAP) return undefined;
  let atEnd = 0n;
  regs.forEach((name, r) => {
    if (!name.startsWith('$')) atEnd |= 1n << BigInt(r);
  });
  const bits = (rs: number[]) => rs.reduce((a, r) => a | (1n << BigInt(r)), 0n);
  const uses: bigint[] = [];
  const defs: bigint[] = [];
  const next: number[][] = [];
  code.forEach((ins, pc) => {
    let u: number[] = [];
    let d = -1;
    let succ = [pc + 1];
    switch (ins.op) {
      case 'set':
        u = pureRegs(ins.e);
        d = ins.dst;
        break;
      case 'prim':
        u = [...pureRegs(ins.addr), ...ins.args.flatMap((a) => pureRegs(a))];
        d = ins.dst;
        break;
      case 'branch':
        u = pureRegs(ins.cond);
        succ = [pc + 1, ins.ifFalse];
        break;
      case 'jump':
        succ = [ins.target];
        break;
      case 'loopcheck':
        u = [ins.counter];
        break;
      case 'bound':
        u = pureRegs(ins.index);
        break;
      default:
        break;
    }
    uses.push(bits(u));
    defs.push(d >= 0 ? 1n << BigInt(d) : 0n);
    next.push(succ);
  });
  const live = new Array<bigint>(n + 1).fill(0n);
  live[n] = atEnd;
  for (let changed = true; changed; ) {
    changed = false;
    for (let pc = n - 1; pc >= 0; pc--) {
      let out = 0n;
      for (const s of next[pc]) out |= live[Math.min(s, n)];
      const v = uses[pc] | (out & ~defs[pc]);
      if (v !== live[pc]) {
        live[pc] = v;
        changed = true;
      }
    }
  }
  return live.slice(0, n).map((v) => {
    const set = new Set<number>();
    for (let r = 0; v !== 0n; v >>= 1n, r++) if (v & 1n) set.add(r);
    return set;
  });
}
