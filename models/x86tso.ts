// x86-TSO (Owens, Sarkar, Sewell), as the kernel's primitives compile on x86:
// a store may be delayed past later loads (store buffering); everything else
// keeps program order. Full barriers (smp_mb, synchronize_*), locked RMW
// instructions and lock operations drain the store buffer. smp_rmb/smp_wmb
// and RCU read-side markers are only compiler barriers there; a grace period
// is a point of the global order that no read-side critical section it waits
// for contains (models/grace-periods.ts): a critical section's accesses are
// after its rcu_read_lock and before its rcu_read_unlock in that order.

import type { Execution } from '../src/model/execution.js';
import type { Model, Verdict } from '../src/model/model.js';
import { scratch } from '../src/relation/relation.js';
import { graceConstraints, graceRespected } from './grace-periods.js';

export const x86tso: Model = {
  name: 'x86-tso',
  description: 'x86-TSO: program order except store->load, plus full fences and locked RMWs; grace periods outside read-side critical sections',
  // Every read is ordered before its thread's later writes: no
  // load-buffering cycle.
  mayCycleThrough: () => false,
  // Successive critical sections of a lock are ordered, all their accesses
  // with them.
  lockOrders: () => true,
  check(x: Execution): Verdict {
    const { po, loc, rmw, ext } = x.rel;
    const { co, fr, com, ghb } = tsoRelations(x);
    if (!po.and(loc).or(com).acyclic()) return { consistent: false, violated: 'coherence', flags: [] };
    if (!rmw.and(fr.and(ext).seq(co.and(ext))).isEmpty()) return { consistent: false, violated: 'atomic', flags: [] };
    if (!ghb.acyclic()) return { consistent: false, violated: 'tso', flags: [] };
    if (!graceRespected(ghb, graceConstraints(x)).ok) return { consistent: false, violated: 'rcu', flags: [] };
    return { consistent: true, flags: [] };
  },
  preserved(x: Execution): [number, number][] {
    return scratch(() => tsoRelations(x).ppo.pairs());
  },
};

/** x86-TSO's relations: global happens-before is ppo | fenced | rfe | co | fr. */
function tsoRelations(x: Execution) {
  const S = x.sets;
  const { po, rf, co, ext } = x.rel;
  const M = S.M;
  const fr = rf.inv().seq(co);
  const com = rf.or(co, fr);
  // Locked: RMW instructions and lock operations.
  const locked = S.RMW.or(S.LKR, S.LKW, S.UL, S.LF);
  // smp_mb__after_srcu_read_unlock() is a full barrier there (srcu_read_unlock
  // is not a locked instruction).
  const full = S.fence('MB').or(S.fence('sync-rcu'), S.SyncSrcu, S.fence('after-srcu-read-unlock'));
  const ppo = po.restrict(M, M).minus(S.W.cross(S.R));
  // Grace periods and RCU markers as points of the order: a critical
  // section's accesses between its markers, a grace period after what
  // precedes it and before what follows.
  const opens = S.fence('rcu-lock').or(S.fence('sync-rcu'), S.SyncSrcu);
  const closes = S.fence('rcu-unlock').or(S.fence('sync-rcu'), S.SyncSrcu);
  const fenced = po.seq(full.id()).seq(po).restrict(M, M)
    .or(po.restrict(locked, M), po.restrict(M, locked), po.restrict(opens, M.or(closes)), po.restrict(M, closes));
  const ghb = ppo.or(fenced, rf.and(ext), co, fr);
  return { rf, co, fr, com, ppo, fenced, ghb };
}
