// Checked fixes for an allowed outcome: the changes a kernel developer
// makes to order two accesses (an acquire load, a release store, an RMW's
// ordering variant, or an smp_rmb()/smp_wmb()/smp_mb() between them), each
// set of changes applied to the program and checked again under the same
// model and limits. Only minimal sets are reported (no subset forbids the
// outcome), cheapest first.
//
// Cost order (per change, summed over a set): acquire or release variant 1;
// smp_rmb() or smp_wmb() 2; fully ordered RMW 3; smp_mb() 4. Acquire and
// release order one direction at one access (on arm64 a single LDAR/STLR);
// rmb/wmb order one kind of access on both sides; a full barrier orders
// everything and is the most expensive on weakly ordered CPUs (a fully
// ordered RMW has one built in, but replaces an instruction instead of adding
// one).

import { defNameOf, effectOf, fencesBetween, withOrdering } from '../events/primitives.js';
import type { Annot } from '../events/event.js';
import { explore } from '../explore/explorer.js';
import type { Model } from '../model/model.js';
import { LimitError } from '../parse/errors.js';
import { applyEdits, type Edit } from '../program/edit.js';
import type { Instr, Program } from '../program/program.js';

export interface Limits {
  maxExecutions?: number;
  timeoutMs?: number;
}

/** One change a fix may make. */
export interface Change {
  edit: Edit;
  /** How a developer would say it: "smp_rmb() between P1.1 (line 23) and P1.2 (line 24)". */
  text: string;
  cost: number;
  /** Changes with the same site are alternatives (at most one per fix). */
  site: string;
}

/** A program-order step of an explanation: from one instruction to a later one of the same thread. */
export interface PoStep {
  thread: number;
  from: { pc: number; kind: 'R' | 'W' | 'RMW'; step: string; line?: number };
  to: { pc: number; kind: 'R' | 'W' | 'RMW'; step: string; line?: number };
}

export const COST = { acquireRelease: 1, rmbWmb: 2, fullRmw: 3, mb: 4 } as const;

/** The candidate changes that order the given program-order steps. */
export function candidateChanges(prog: Program, steps: readonly PoStep[]): Change[] {
  const out = new Map<string, Change>();
  const add = (c: Change) => out.set(`${c.site}/${c.text}`, c);
  const at = (s: PoStep['from']) => `${s.step}${s.line ? ` (line ${s.line})` : ''}`;
  for (const st of steps) {
    const gap = `gap:${st.thread}:${st.from.pc}:${st.to.pc}`;
    const between = `between ${at(st.from)} and ${at(st.to)}`;
    const fence = (name: string, cost: number) =>
      add({ edit: { op: 'insert-fence', thread: st.thread, pc: st.from.pc, name }, text: `${name}() ${between}`, cost, site: gap });
    for (const f of fencesBetween(st.from.kind, st.to.kind)) fence(f.name, f.orders === 'all' ? COST.mb : COST.rmbWmb);
    // An acquire on the earlier access if it reads, a release on the later one if it writes.
    if (st.from.kind !== 'W') strengthen(prog, st.thread, st.from, 'ACQUIRE', add);
    if (st.to.kind !== 'R') strengthen(prog, st.thread, st.to, 'RELEASE', add);
    if (st.from.kind === 'RMW') strengthen(prog, st.thread, st.from, 'MB', add);
    if (st.to.kind === 'RMW') strengthen(prog, st.thread, st.to, 'MB', add);
  }
  return [...out.values()];
}

function strengthen(prog: Program, thread: number, s: PoStep['from'], annot: Annot, add: (c: Change) => void): void {
  const ins = prog.threads[thread].code[s.pc];
  if (ins?.op !== 'prim') return;
  const own = effectOf(ins.prim).annot;
  // Only towards stronger: relaxed to acquire/release, anything to fully ordered.
  if (own === annot || own === 'MB' || own === 'PLAIN' || own === 'NORETURN' || (annot !== 'MB' && own !== 'ONCE')) return;
  const def = defNameOf(ins.name, ins.prim);
  const to = def && withOrdering(def, annot);
  if (!to) return;
  const as = def === ins.name ? to : `${to} semantics`;
  add({
    edit: { op: 'replace', thread, pc: s.pc, name: to },
    text: `${ins.name} → ${as} at ${s.step}${s.line ? ` (line ${s.line})` : ''}`,
    cost: annot === 'MB' ? COST.fullRmw : COST.acquireRelease,
    site: `access:${thread}:${s.pc}`,
  });
}

/** Whether some execution satisfies the condition; undefined when a limit stopped the check. */
export function satisfiable(prog: Program, model: Model, limits: Limits): boolean | undefined {
  try {
    return explore(prog, model, { ...limits, speedcheck: 'reachable' }).positive > 0;
  } catch (e) {
    if (e instanceof LimitError) return undefined;
    throw e;
  }
}

export interface FixSearch {
  /** Minimal sets of changes that make the condition unreachable, cheapest first. */
  fixes: Change[][];
  /** Why the search stopped early, if it did. */
  stopped?: string;
}

/** At most this many fixes are looked for, among sets of at most MAX_CHANGES changes. */
export const MAX_FIXES = 3;
export const MAX_CHANGES = 3;
/** At most this many candidate sets are checked (each is a full check). */
export const MAX_CHECKS = 60;

/**
 * Minimal sets of changes that forbid the condition, cheapest first: sets
 * are tried in order of cost (then size), so every proper subset of a set
 * (cheaper) was tried before it; a set containing a fix already found is
 * skipped.
 */
export function findFixes(prog: Program, model: Model, changes: readonly Change[], limits: Limits): FixSearch {
  const sets = combinations(changes).sort((a, b) => total(a) - total(b) || a.length - b.length);
  const fixes: Change[][] = [];
  let checks = 0;
  for (const set of sets) {
    if (fixes.some((f) => f.every((c) => set.includes(c)))) continue;
    if (checks === MAX_CHECKS) return { fixes, stopped: `after ${MAX_CHECKS} candidate fixes` };
    checks++;
    const reach = satisfiable(applyEdits(prog, set.map((c) => c.edit)), model, limits);
    if (reach === undefined) return { fixes, stopped: 'a check reached the --max-executions/--timeout limits' };
    if (!reach) {
      fixes.push(set);
      if (fixes.length === MAX_FIXES) break;
    }
  }
  return { fixes };
}

const total = (set: Change[]) => set.reduce((n, c) => n + c.cost, 0);

/** Every set of up to MAX_CHANGES changes with distinct sites. */
function combinations(changes: readonly Change[]): Change[][] {
  const out: Change[][] = [];
  const grow = (from: number, cur: Change[]) => {
    if (cur.length > 0) out.push(cur);
    if (cur.length === MAX_CHANGES) return;
    for (let i = from; i < changes.length; i++) {
      if (cur.some((c) => c.site === changes[i].site)) continue;
      grow(i + 1, [...cur, changes[i]]);
    }
  };
  grow(0, []);
  return out;
}

/** The kind of access an instruction is, for choosing fences. */
export function accessKind(ins: Instr | undefined, fallback: 'R' | 'W'): 'R' | 'W' | 'RMW' {
  if (ins?.op !== 'prim') return fallback;
  return effectOf(ins.prim).rmw ? 'RMW' : fallback;
}
