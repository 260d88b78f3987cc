// herd7's names of symbolic values (`S23`). herd7 builds each thread's
// events with a fresh solver variable for every register read and every
// memory read (and for an operation on a variable that it cannot reduce:
// `r == 1`, `r + 2`, but not `r + 0`), numbering them from 1 for each test:
// thread after thread, and in a thread in the order its monad runs the
// code: an `if`'s condition, its then-branch, its else-branch, then what
// follows once for each side the `if` ends in, in the order of herd's list
// of them (a statement's list of sides comes out reversed each time it is
// sequenced with what follows, or joined after a condition); a while loop
// unrolled to the bound, a cut pass building nothing after it. Solving an
// execution equates the variables that copy one another; an out-of-thin-air
// value is left unsolved, and printed as the greatest variable of its class
// (herd/eventsMonad.ml, herd/CSem.ml, lib/symbValue.ml; checked against
// herd7 7.58 on generated programs: scripts/fuzz-shapes.ts, kind oota).
//
// litmus names a symbolic value after the read that starts its cycle
// (guesses.ts). Here each execution's symbolic values get herd7's numbers:
// the thread's code is replayed along the path the execution took (its
// reads' values deciding the branches), every variable herd7 would make
// numbered, and each symbolic value named after the greatest variable that
// holds it. Where the code has what this replay does not follow (helper
// functions, loops other than while, primitives other than loads, stores,
// exchanges, fences, spin_lock and spin_unlock), litmus's own names stay.

import type { Event } from '../events/event.js';
import { effectOf } from '../events/primitives.js';
import type { Expr, Stmt } from '../parse/ast.js';
import { binaryValue, isSymbolic, SYM_BASE, type Program } from '../program/program.js';
import { unary32 } from '../program/arith.js';

/** A symbolic value's herd7 name, by the value litmus gives it in this execution; undefined where the replay cannot follow. */
export function herdSymbolNames(prog: Program, events: readonly Event[]): Map<number, number> | undefined {
  const test = prog.test;
  if ((test.functions ?? []).length > 0) return undefined;
  const held = new Map<number, number>();
  const replay = new Replay(prog);
  for (let t = 0; t < test.processes.length; t++) {
    const own = events.filter((e) => e.thread === t && e.kind !== 'F' && e.lock === undefined).sort((a, b) => a.poIndex - b.poIndex);
    if (!replay.thread(t, test.processes[t].body, own, held)) return undefined;
  }
  const out = new Map<number, number>();
  for (const e of events) {
    if (!isSymbolic(e.value) || out.has(e.value)) continue;
    const n = held.get(e.value);
    if (n === undefined) return undefined;
    out.set(e.value, SYM_BASE + n);
  }
  return out;
}

class CannotFollow extends Error {}

/** One path of a thread's code: whether the execution took it, and (if so) its registers and next event. */
interface Side {
  taken: boolean;
  regs: Map<string, number>;
  next: number;
}

class Replay {
  /** The last variable numbered. */
  private n = 0;
  private events: readonly Event[] = [];
  private held = new Map<number, number>();

  constructor(private readonly prog: Program) {}

  /** Numbers every variable of thread t's code; false where the replay cannot follow it. */
  thread(t: number, body: Stmt[], events: readonly Event[], held: Map<number, number>): boolean {
    this.events = events;
    this.held = held;
    const th = this.prog.threads[t];
    const regs = new Map<string, number>(th.regs.map((r, i) => [r, th.initRegs[i] ?? 0]));
    try {
      const taken = this.list(body, { taken: true, regs, next: 0 }).filter((s) => s.taken);
      return taken.length === 1 && taken[0].next === events.length;
    } catch (e) {
      if (e instanceof CannotFollow) return false;
      throw e;
    }
  }

  /** A fresh variable, holding `value` on the taken path. */
  private fresh(side: Side, value: number | undefined): number {
    this.n++;
    if (side.taken && value !== undefined && isSymbolic(value)) this.held.set(value, Math.max(this.held.get(value) ?? 0, this.n));
    return this.n;
  }

  /**
   * The statements from one side: the sides they end in, in herd's order.
   * herd sequences a statement and the rest (CSem's build_semantics_list,
   * the monad's >>>) by running the rest from each side the statement ends
   * in, in its list's order, and consing what they end in: the list comes
   * out reversed, also from a single side.
   */
  private list(stmts: readonly Stmt[], side: Side): Side[] {
    if (stmts.length === 0) return [side];
    const [s, ...rest] = stmts;
    const out: Side[] = [];
    for (const x of this.stmt(s, side)) for (const y of this.list(rest, x)) out.unshift(y);
    return out;
  }

  private stmt(s: Stmt, side: Side): Side[] {
    switch (s.kind) {
      case 'empty':
        return [side];
      case 'block':
        return this.list(s.body, side);
      case 'decl':
        if (s.init) this.setReg(side, s.name, this.expr(s.init, side));
        return [side];
      case 'assign':
        if (s.target.kind === 'name') {
          this.setReg(side, s.target.name, this.expr(s.value, side));
          return [side];
        }
        if (s.target.kind !== 'deref') throw new CannotFollow();
        // A plain store: its address, then its value.
        this.expr(s.target.arg, side);
        this.expr(s.value, side);
        this.event(side, 'W');
        return [side];
      case 'expr':
        if (s.expr.kind !== 'call') throw new CannotFollow();
        this.call(s.expr, side);
        return [side];
      case 'if': {
        // The condition, then the branches (herd's choiceT: then first), the
        // list of both reversed by the >>>> that follows the condition.
        const c = this.cond(s.cond, side);
        const branch = (b: Stmt | undefined, x: Side): Side[] => (b ? this.stmt(b, x) : [x]);
        if (c.constant !== undefined) return branch(c.constant ? s.then : s.else, side).reverse();
        const then = branch(s.then, { ...side, regs: new Map(side.regs), taken: side.taken && c.value === true });
        const other = branch(s.else, { ...side, regs: new Map(side.regs), taken: side.taken && c.value === false });
        return [...then, ...other].reverse();
      }
      case 'while':
        return this.loop(s, side, 0);
      default:
        throw new CannotFollow();
    }
  }

  /**
   * Pass n of a while loop (herd's While(c, body, n)): the condition, then
   * the body and pass n + 1 (past the unroll bound a cut path, which no
   * execution counted takes and after which herd builds nothing), and the
   * loop's exit; the list of both reversed as an if's.
   */
  private loop(s: Extract<Stmt, { kind: 'while' }>, side: Side, n: number): Side[] {
    const c = this.cond(s.cond, side);
    const again = (from: Side): Side[] => {
      if (n >= this.prog.unroll) {
        if (from.taken) throw new CannotFollow(); // an execution past the bound: not herd's
        return [];
      }
      const out: Side[] = [];
      for (const x of this.stmt(s.body, from)) for (const y of this.loop(s, x, n + 1)) out.unshift(y);
      return out;
    };
    if (c.constant !== undefined) return (c.constant ? again(side) : [side]).reverse();
    const then = again({ ...side, regs: new Map(side.regs), taken: side.taken && c.value === true });
    const exit = { ...side, regs: new Map(side.regs), taken: side.taken && c.value === false };
    return [...then, exit].reverse();
  }

  /** An `if`'s condition: a comparison as it is, anything else compared with 0 (herd's build_cond). */
  private cond(e: Expr, side: Side): { constant?: boolean; value?: boolean } {
    const cmp = e.kind === 'binary' && ['==', '!=', '<', '<=', '>', '>='].includes(e.op);
    const v = cmp ? this.expr(e, side) : this.op('!=', this.expr(e, side), { v: 0 }, side);
    if (v.variable === undefined) return { constant: v.v !== 0 };
    return { value: v.v === undefined ? undefined : v.v !== 0 };
  }

  private setReg(side: Side, name: string, v: Value): void {
    if (side.taken && v.v !== undefined) side.regs.set(name, v.v);
  }

  /** The next event of the thread on the taken path, which must be of this kind. */
  private event(side: Side, kind: 'R' | 'W'): Event | undefined {
    if (!side.taken) return undefined;
    const e = this.events[side.next++];
    if (!e || e.kind !== kind || e.lock !== undefined) throw new CannotFollow();
    return e;
  }

  private call(e: Extract<Expr, { kind: 'call' }>, side: Side): Value {
    const info = this.prog.primitives.lookup(e.name);
    if (!info || 'lower' in info) throw new CannotFollow();
    const eff = effectOf(info.prim);
    if (eff.shape === 'fence' && e.args.length === 0) return { v: 0 };
    if (eff.object === 'spinlock' && (eff.shape === 'lock' || eff.shape === 'unlock')) {
      // spin_lock(), spin_unlock(): herd reads the lock's pointer; its lock events make no variable (thread() skips them).
      const at = e.args[info.addrArg];
      this.expr(at.kind === 'deref' ? at.arg : at, side);
      return { v: 0 };
    }
    if (eff.object !== 'memory' || eff.shape !== 'access' || (eff.rmw && eff.mayFail)) throw new CannotFollow();
    const arg = e.args[info.addrArg];
    // `*x` or `x`: herd reads the pointer x, then the location.
    this.expr(arg.kind === 'deref' ? arg.arg : arg, side);
    if (eff.rmw) {
      // An exchange that always succeeds (herd's linux_exch): the address, the value, then the read.
      for (const i of eff.dataArgs) this.expr(e.args[i], side);
      const r = this.event(side, 'R');
      const variable = this.fresh(side, r?.value);
      this.event(side, 'W');
      return { v: r?.value, variable };
    }
    if (eff.reads) {
      const r = this.event(side, 'R');
      return { v: r?.value, variable: this.fresh(side, r?.value) };
    }
    for (const i of eff.dataArgs) this.expr(e.args[i], side);
    this.event(side, 'W');
    return { v: 0 };
  }

  private expr(e: Expr, side: Side): Value {
    switch (e.kind) {
      case 'num':
        return { v: e.value };
      case 'name': {
        const v = side.taken ? side.regs.get(e.name) ?? 0 : undefined;
        return { v, variable: this.fresh(side, v) };
      }
      case 'deref': {
        this.expr(e.arg, side);
        const r = this.event(side, 'R');
        return { v: r?.value, variable: this.fresh(side, r?.value) };
      }
      case 'cast':
        return this.expr(e.arg, side);
      case 'call':
        return this.call(e, side);
      case 'binary': {
        if (e.op === '&&' || e.op === '||') throw new CannotFollow();
        const a = this.expr(e.left, side);
        const b = this.expr(e.right, side);
        return this.op(e.op, a, b, side);
      }
      case 'unary': {
        const a = this.expr(e.arg, side);
        if (a.variable === undefined) return { v: unary32(e.op, a.v!) };
        return { v: a.v === undefined || isSymbolic(a.v) ? undefined : unary32(e.op, a.v), variable: this.fresh(side, undefined) };
      }
      default:
        throw new CannotFollow();
    }
  }

  /** An operation: a constant of constants; a variable's own value plus or or 0; else a fresh variable (herd's equation). */
  private op(op: string, a: Value, b: Value, side: Side): Value {
    const value = a.v === undefined || b.v === undefined || isSymbolic(a.v) || isSymbolic(b.v) ? undefined : binaryValue(op, a.v, b.v);
    if (a.variable === undefined && b.variable === undefined) return { v: value };
    if (op === '+' || op === '|') {
      if (a.variable === undefined && a.v === 0) return b;
      if (b.variable === undefined && b.v === 0) return a;
    }
    return { v: value, variable: this.fresh(side, undefined) };
  }
}

/** A value the replay computes: what it is on the taken path (undefined elsewhere) and its variable, if herd makes one. */
interface Value {
  v: number | undefined;
  variable?: number;
}
