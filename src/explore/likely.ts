// Where a witness is likely: the order in which a search that stops early
// (--speedcheck's decide, fast and reachable modes) tries the choices of a
// read and of a write. Each choice is still tried, so what is found is the
// same; only what is found first changes. An exhaustive count keeps the
// explorer's own order (its output, traces included, stays as it was).
//
// - A read first takes the latest write of its location (the last in
//   coherence order) and then a write still to come (it waits), then the
//   older writes, latest first: that is how a sequentially consistent run
//   reads, and such an execution is consistent under every model here. A
//   read whose value the condition wants (directly, or through plain copies
//   from register to memory to register) first takes the writes of that
//   value, then waits, then takes the others.
// - A write first goes last in coherence order, unless the condition wants
//   another final value at its location.
//
// The wanted values come from the condition's equalities, taken with the
// polarity the search looks for (true for exists and ~exists, false for
// forall), and flow backwards through copies: `loc=v` wants the stores to
// loc to store v, a store of a register wants that register to hold v, a
// load into it wants to read v, which wants the stores to its location to
// store v, and so on (a worklist, each value set bounded by MAX_WANTED).

import type { CondExpr, CondTerm } from '../parse/ast.js';
import type { Program } from '../program/program.js';
import type { ValueDomain } from './domain.js';

/** Values wanted (or avoided) per register or location past this many are not tracked (the order is only a preference). */
const MAX_WANTED = 8;

/** What the condition, as the search looks for it, asks of a value: those it wants, those it avoids. */
export interface Wants {
  readonly want: ReadonlySet<number>;
  readonly avoid: ReadonlySet<number>;
}

export interface WitnessOrder {
  /** thread -> instruction -> what the condition asks of the value a read there returns (undefined: nothing). */
  readonly readWants: (Wants | undefined)[][];
  /** location -> what the condition asks of its final value (undefined: nothing). */
  readonly finalWants: (Wants | undefined)[];
}

/** A node of the flow of wanted values: a location, or a register of a thread. */
type Node = { kind: 'loc'; loc: number } | { kind: 'reg'; thread: number; reg: number };

interface MutableWants {
  want: Set<number>;
  avoid: Set<number>;
}
const noWants = (): MutableWants => ({ want: new Set(), avoid: new Set() });
const asks = (w: Wants | undefined): w is Wants => w !== undefined && (w.want.size > 0 || w.avoid.size > 0);

/**
 * The witness order of a program for a search that looks for the condition
 * to come out `target`.
 */
export function witnessOrder(prog: Program, domain: ValueDomain, target: boolean): WitnessOrder {
  const nLoc = prog.locations.length;
  const locWants: MutableWants[] = Array.from({ length: nLoc }, noWants);
  const regWants: MutableWants[][] = prog.threads.map((th) => th.regs.map(noWants));
  const finalWants: MutableWants[] = Array.from({ length: nLoc }, noWants);
  const wantsOf = (n: Node): MutableWants => (n.kind === 'loc' ? locWants[n.loc] : regWants[n.thread][n.reg]);
  const todo: Node[] = [];
  const ask = (n: Node, v: number, wanted: boolean): void => {
    const w = wantsOf(n);
    const set = wanted ? w.want : w.avoid;
    if (set.has(v) || set.size >= MAX_WANTED) return;
    set.add(v);
    todo.push(n);
  };

  // The condition's equalities, each wanted true or false for the target.
  const nodeOf = (t: CondTerm): Node | undefined => {
    if (t.kind === 'reg') {
      const reg = prog.threads[t.thread]?.regs.indexOf(t.name) ?? -1;
      return reg >= 0 ? { kind: 'reg', thread: t.thread, reg } : undefined;
    }
    if (t.kind === 'mem') {
      const loc = prog.locations.indexOf(t.name);
      return loc >= 0 ? { kind: 'loc', loc } : undefined;
    }
    return undefined;
  };
  const valueOf = (t: CondTerm): number | undefined => {
    if (t.kind === 'num') return t.value;
    if (t.kind === 'mem' && !t.deref) {
      const loc = prog.locations.indexOf(t.name);
      return loc >= 0 ? prog.addresses[loc] : undefined;
    }
    return undefined;
  };
  const stack: { c: CondExpr; wanted: boolean }[] = [{ c: prog.test.condition, wanted: target }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { c, wanted } = top;
    if (c.kind === 'not') stack.push({ c: c.arg, wanted: !wanted });
    else if (c.kind === 'and' || c.kind === 'or') stack.push({ c: c.left, wanted }, { c: c.right, wanted });
    else if (c.kind === 'implies') stack.push({ c: c.left, wanted: !wanted }, { c: c.right, wanted });
    else if (c.kind === 'eq') {
      const n = nodeOf(c.lhs);
      const v = valueOf(c.rhs);
      if (n === undefined || v === undefined) continue;
      const equal = wanted !== c.negated;
      if (n.kind === 'loc') (equal ? finalWants[n.loc].want : finalWants[n.loc].avoid).add(v);
      ask(n, v, equal);
    }
  }

  // The copies, as edges from a node to the nodes its wants flow to.
  const locIntoReg: Node[][] = Array.from({ length: nLoc }, () => []);
  const regInto: Node[][][] = prog.threads.map((th) => th.regs.map(() => []));
  const readsInto: { pc: number; reg: number }[][] = prog.threads.map(() => []);
  prog.threads.forEach((th, t) => {
    th.code.forEach((ins, pc) => {
      if (ins.op === 'set') {
        if (ins.e.k === 'reg') regInto[t][ins.dst].push({ kind: 'reg', thread: t, reg: ins.e.r });
        return;
      }
      if (ins.op !== 'prim') return;
      const kind = ins.prim.kind;
      const locs = domain.addresses[t][pc];
      const stored = kind === 'store' || kind === 'xchg' ? ins.args[1] : undefined;
      if (stored?.k === 'reg') for (const loc of locs) locIntoReg[loc].push({ kind: 'reg', thread: t, reg: stored.r });
      if ((kind === 'load' || kind === 'xchg') && ins.dst >= 0) {
        readsInto[t].push({ pc, reg: ins.dst });
        for (const loc of locs) regInto[t][ins.dst].push({ kind: 'loc', loc });
      }
    });
  });
  for (let n = todo.pop(); n; n = todo.pop()) {
    const w = wantsOf(n);
    const next = n.kind === 'loc' ? locIntoReg[n.loc] : regInto[n.thread][n.reg];
    for (const m of next) {
      for (const v of w.want) ask(m, v, true);
      for (const v of w.avoid) ask(m, v, false);
    }
  }

  const readWants = prog.threads.map((th, t) => {
    const at: (Wants | undefined)[] = th.code.map(() => undefined);
    for (const { pc, reg } of readsInto[t]) if (asks(regWants[t][reg])) at[pc] = regWants[t][reg];
    return at;
  });
  return { readWants, finalWants: finalWants.map((w) => (asks(w) ? w : undefined)) };
}

/** Whether a value is one the condition asks for: it wants it, or (wanting none) does not avoid it. */
function isWanted(w: Wants, value: number): boolean {
  return w.want.size > 0 ? w.want.has(value) : !w.avoid.has(value);
}

/** readOrder's mark for "wait for a write still to come". */
export const WAIT = -1;

/**
 * The order in which a read of instruction pc of thread t tries its
 * sources: indexes into `writes` (each viable now) and, if `wait`, WAIT (a
 * write still to come). `coPos` gives a write's place in the location's
 * coherence order.
 */
export function readOrder(order: WitnessOrder, t: number, pc: number, writes: readonly { id: number; value: number }[], wait: boolean, coPos: (id: number) => number): number[] {
  const wants = order.readWants[t]?.[pc];
  const latestFirst = writes.map((_, i) => i).sort((a, b) => coPos(writes[b].id) - coPos(writes[a].id));
  const out: number[] = [];
  if (wants) {
    for (const i of latestFirst) if (isWanted(wants, writes[i].value)) out.push(i);
    if (wait) out.push(WAIT);
    for (const i of latestFirst) if (!isWanted(wants, writes[i].value)) out.push(i);
    return out;
  }
  if (latestFirst.length > 0) out.push(latestFirst[0]);
  if (wait) out.push(WAIT);
  for (let i = 1; i < latestFirst.length; i++) out.push(latestFirst[i]);
  return out;
}

/** Whether waiting read r should first take write value `value` offered to it (else first let it pass). */
export function takesFirst(order: WitnessOrder, t: number, pc: number, value: number): boolean {
  const wants = order.readWants[t]?.[pc];
  return wants === undefined || isWanted(wants, value);
}

/** Whether a write of `value` at loc should try the last place in coherence order first. */
export function lastFirst(order: WitnessOrder, loc: number, value: number): boolean {
  const wants = order.finalWants[loc];
  return wants === undefined || isWanted(wants, value);
}
