// Condition-directed search (herd7's -speedcheck): the explorer drops a
// partial execution as soon as the final condition, evaluated three-valued
// over the values already settled, says that no completion can matter, and
// stops once the answer is known. Without speedcheck, a test's filter clause
// drops partial executions the same way (its rejected executions are not
// counted), the count staying exhaustive.
//
// A register's final value is settled when its thread has finished, or when
// no instruction its thread can still reach assigns it; a location's, when no
// unfinished thread can still write it (its last write in coherence order is
// then final). Everything else is unknown, and the condition (Kleene's logic,
// FinalCheck.decide) is true, false, or not yet known. With speedcheck, an
// equality over an unknown value is also false where the value analysis
// (domain.ts) says the value cannot end so: a register's values at its
// thread's end, a location's last write and what the threads that may still
// write it may write. The analysis over-approximates every execution, so
// what it rules out no execution has: a Never or Always stays a proof.

import type { Event } from '../events/event.js';
import type { CondExpr, CondTerm } from '../parse/ast.js';
import { hasLoops, type Instr, type Program, type StateView } from '../program/program.js';
import { reachableUnion, type ValueDomain } from './domain.js';

/**
 * - `decide` (`litmus check --speedcheck`): the Observation (Never,
 *   Sometimes, Always) without counting: look for one execution on each side
 *   of the condition, dropping partial executions whose side has been seen;
 *   stop when both are.
 * - `true` (herd7 `-speedcheck true`): count only the executions the
 *   condition looks for (satisfying it for exists and ~exists, violating it
 *   for forall), dropping the others as early as they are known.
 * - `fast` (herd7 `-speedcheck fast`): as `true`, stopping at the first.
 * - `reachable` (fix search: is the outcome reachable?): only executions
 *   that satisfy the condition, whatever its quantifier; stop at the first.
 */
export type SpeedMode = 'decide' | 'true' | 'fast' | 'reachable';

/** Whether a search in this mode stops before building every execution it looks for (then likely.ts orders it). */
export function stopsEarly(mode: SpeedMode | undefined): boolean {
  return mode === 'decide' || mode === 'fast' || mode === 'reachable';
}

/**
 * What the search does: a speedcheck mode, or (`filter`, the default
 * exhaustive count of a test with a filter clause) only dropping partial
 * executions the filter already rejects. herd7 counts no execution the
 * filter rejects, so the counts, states and flags stay exact, provided no
 * dropped branch would have been cut by the loop bound (herd's "Loop"):
 * see filterPrunes.
 */
type SearchMode = SpeedMode | 'filter';

/** Whether an exhaustive count may drop what the filter rejects early: a filter, and no loop to cut. */
export function filterPrunes(prog: Program): boolean {
  return prog.final.decideFilter !== undefined && !hasLoops(prog);
}

/** Thrown by the explorer when the search has its answer. */
export class SearchDone extends Error {
  constructor() {
    super('speedcheck: answer found');
  }
}

/** What the search reads of a thread. */
export interface ThreadView {
  done: boolean;
  pc: number;
  regs: number[];
}

export class ConditionSearch {
  /** thread -> pc -> registers that an instruction reachable from pc assigns. */
  private readonly regsFrom: Set<number>[][];
  /** Whether a counted execution satisfied the condition (index 1) or not (0). */
  private readonly seen = [false, false];

  constructor(
    private readonly prog: Program,
    private readonly domain: ValueDomain,
    private readonly mode: SearchMode,
  ) {
    // Only the registers the condition and filter read: a set per instruction of every register would grow as their product.
    const named = conditionRegisters(prog);
    this.regsFrom = prog.threads.map((th, t) => reachableUnion(th.code, th.code.map((ins) => assigned(ins, named[t]))));
  }

  /**
   * Whether no completion of the execution built so far can matter: the
   * filter is already false, or the condition already has a value the
   * search does not look for.
   */
  cannotMatter(threads: readonly ThreadView[], co: readonly number[][], events: readonly Event[]): boolean {
    const view = this.view(threads, co, events);
    const final = this.prog.final;
    if (final.decideFilter?.(view) === false) return true;
    if (this.mode === 'filter') return false;
    const c = final.decide(view);
    return c !== undefined && !this.wanted(c);
  }

  /** Records a counted execution; true when the search has its answer. */
  found(positive: boolean): boolean {
    if (this.mode === 'filter') return false;
    this.seen[positive ? 1 : 0] = true;
    if (this.mode === 'decide') return this.seen[0] && this.seen[1];
    return (this.mode === 'fast' || this.mode === 'reachable') && this.wanted(positive);
  }

  private wanted(positive: boolean): boolean {
    if (this.mode === 'decide') return !this.seen[positive ? 1 : 0];
    if (this.mode === 'reachable') return positive;
    return positive === (this.prog.final.quantifier !== 'forall');
  }

  private view(threads: readonly ThreadView[], co: readonly number[][], events: readonly Event[]): StateView {
    const known: StateView = {
      reg: (t, r) => {
        const ts = threads[t];
        return ts.done || !this.regsFrom[t][ts.pc]?.has(r) ? ts.regs[r] : undefined;
      },
      mem: (loc) => {
        for (let v = 0; v < threads.length; v++) {
          if (!threads[v].done && this.domain.writesFrom[v][threads[v].pc]?.has(loc)) return undefined;
        }
        const list = co[loc];
        return events[list[list.length - 1]].value;
      },
    };
    // An exhaustive count with a filter keeps to what is settled (no value analysis for it).
    if (this.mode === 'filter') return known;
    return {
      ...known,
      // What the value analysis allows: a register's values where its thread
      // may end; a location's last write or a value a thread that may still
      // write it may write (symbolic values equal no constant either way).
      regMay: (t, r, value) => this.domain.settledValues()?.finalRegs[t][r]?.has(value) ?? true,
      memMay: (loc, value) => {
        const values = this.domain.settledValues();
        if (!values) return true;
        const list = co[loc];
        if (events[list[list.length - 1]].value === value) return true;
        for (let v = 0; v < threads.length; v++) {
          if (!threads[v].done && this.domain.writesFrom[v][threads[v].pc]?.has(loc) && values.mayWrite[v].get(loc)?.has(value)) return true;
        }
        return false;
      },
    };
  }
}

/** The register an instruction assigns, if any and among `wanted`. */
function assigned(ins: Instr, wanted: Set<number>): Set<number> {
  const out = new Set<number>();
  if ((ins.op === 'set' || ins.op === 'prim') && ins.dst >= 0 && wanted.has(ins.dst)) out.add(ins.dst);
  return out;
}

/** Per thread, the registers that the final condition and the filter name. */
function conditionRegisters(prog: Program): Set<number>[] {
  const out = prog.threads.map(() => new Set<number>());
  const term = (t: CondTerm) => {
    if (t.kind !== 'reg') return;
    const r = prog.threads[t.thread]?.regs.indexOf(t.name) ?? -1;
    if (r >= 0) out[t.thread].add(r);
  };
  // An explicit stack: a condition may be nested as deep as the parser allows.
  const todo: CondExpr[] = [prog.test.condition, ...(prog.test.filter ? [prog.test.filter] : [])];
  for (let c = todo.pop(); c; c = todo.pop()) {
    if (c.kind === 'eq') {
      term(c.lhs);
      term(c.rhs);
    } else if (c.kind === 'not') todo.push(c.arg);
    else if (c.kind === 'and' || c.kind === 'or' || c.kind === 'implies') todo.push(c.left, c.right);
  }
  return out;
}
