// RCU and SRCU for models that order events in one global order (SC,
// x86-TSO): a grace period is a point of that order, and no read-side
// critical section it must wait for may contain it. So for each critical
// section [lock, unlock] and each grace period g of its flavour (every
// synchronize_rcu for RCU; synchronize_srcu of the same srcu_struct for
// SRCU), the order puts unlock before g or g before lock. Critical sections
// are matched as the LKMM's bell matches them (models/lkmm.ts).

import type { Execution } from '../src/model/execution.js';
import { type EventSet, Relation } from '../src/relation/relation.js';
import { readSideSections } from './lkmm.js';

/** A critical section [lock, unlock] and a grace period it may not contain. */
export interface GraceConstraint {
  lock: number;
  unlock: number;
  gp: number;
}

export function graceConstraints(x: Execution): GraceConstraint[] {
  const S = x.sets;
  const syncRcu = S.fence('sync-rcu');
  if (syncRcu.isEmpty() && S.SyncSrcu.isEmpty()) return [];
  const { rcu, srcu } = readSideSections(x);
  const out = rcuGraceConstraints(rcu, syncRcu);
  for (const [lock, unlock] of srcu.pairs()) {
    for (const gp of S.SyncSrcu.members()) if (x.events[gp].loc === x.events[lock].loc) out.push({ lock, unlock, gp });
  }
  return out;
}

/** RCU's part: every synchronize_rcu against every RCU critical section. */
export function rcuGraceConstraints(sections: Relation, syncRcu: EventSet): GraceConstraint[] {
  const out: GraceConstraint[] = [];
  for (const [lock, unlock] of sections.pairs()) for (const gp of syncRcu.members()) out.push({ lock, unlock, gp });
  return out;
}

export interface GraceResult {
  ok: boolean;
}

/**
 * Whether some total order extending `order` keeps every grace period out
 * of the critical sections it must wait for. Edges forced by what `order`
 * already implies are added first; the remaining choices are tried.
 */
export function graceRespected(order: Relation, constraints: readonly GraceConstraint[]): GraceResult {
  if (constraints.length === 0) return { ok: order.acyclic() };
  return solve(order, constraints);
}

function solve(order: Relation, constraints: readonly GraceConstraint[]): GraceResult {
  let rel = order;
  let open = constraints;
  for (;;) {
    const closure = rel.plus();
    if (!closure.irreflexive()) return { ok: false };
    const forced: [number, number][] = [];
    const undecided: GraceConstraint[] = [];
    for (const c of open) {
      if (closure.has(c.unlock, c.gp) || closure.has(c.gp, c.lock)) continue;
      if (closure.has(c.lock, c.gp)) forced.push([c.unlock, c.gp]);
      else if (closure.has(c.gp, c.unlock)) forced.push([c.gp, c.lock]);
      else undecided.push(c);
    }
    if (forced.length > 0) {
      rel = rel.or(Relation.fromPairs(rel.n, forced));
      open = undecided;
      continue;
    }
    if (undecided.length === 0) return { ok: true };
    const [c, ...rest] = undecided;
    for (const edge of [[c.unlock, c.gp], [c.gp, c.lock]] as [number, number][]) {
      if (solve(rel.or(Relation.fromPairs(rel.n, [edge])), rest).ok) return { ok: true };
    }
    return { ok: false };
  }
}
