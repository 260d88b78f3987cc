// Sequential consistency: every execution is an interleaving. Program order
// and all communication (rf, co, fr) together are acyclic; RMWs are atomic;
// a grace period is a point of the interleaving that no read-side critical
// section it waits for contains (models/grace-periods.ts).

import type { Execution } from '../src/model/execution.js';
import type { Model, Verdict } from '../src/model/model.js';
import { graceConstraints, graceRespected } from './grace-periods.js';

export const sc: Model = {
  name: 'sc',
  description: 'sequential consistency (Lamport): acyclic(po | rf | co | fr), grace periods outside read-side critical sections',
  // Every read is ordered before its thread's later writes: no
  // load-buffering cycle.
  mayCycleThrough: () => false,
  // Successive critical sections of a lock are ordered, all their accesses
  // with them.
  lockOrders: () => true,
  check(x: Execution): Verdict {
    const { po, rf, co, rmw, ext } = x.rel;
    const fr = rf.inv().seq(co);
    if (!rmw.and(fr.and(ext).seq(co.and(ext))).isEmpty()) return { consistent: false, violated: 'atomic', flags: [] };
    const order = po.or(rf, co, fr);
    if (!order.acyclic()) return { consistent: false, violated: 'sc', flags: [] };
    if (!graceRespected(order, graceConstraints(x)).ok) return { consistent: false, violated: 'rcu', flags: [] };
    return { consistent: true, flags: [] };
  },
  preserved(x: Execution): [number, number][] {
    return x.rel.po.restrict(x.sets.M, x.sets.M).pairs();
  },
};
