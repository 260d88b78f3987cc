// Sequential consistency: every execution is an interleaving. Program order
// and all communication (rf, co, fr) together are acyclic; RMWs are atomic;
// a grace period is a point of the interleaving that no read-side critical
// section it waits for contains (models/grace-periods.ts).

import type { Execution } from '../src/model/execution.js';
import type { Highlight, Model, Ordering, Verdict } from '../src/model/model.js';
import { scratch } from '../src/relation/relation.js';
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
  explain(x: Execution, axiom: string): Highlight | undefined {
    if (axiom !== 'sc' && axiom !== 'rcu') return undefined;
    return scratch(() => {
      const { po, rf, co } = x.rel;
      const fr = rf.inv().seq(co);
      const order = po.or(rf, co, fr);
      const all = axiom === 'sc' ? order : graceRespected(order, graceConstraints(x)).forced;
      const edges = all?.cycle();
      if (!edges) return undefined;
      const labels = edges.map(([a, b]) => (po.has(a, b) ? 'po' : rf.has(a, b) ? 'rf' : co.has(a, b) ? 'co' : fr.has(a, b) ? 'fr' : 'gp'));
      return { name: axiom, edges, labels };
    });
  },
  orderOf(): Ordering {
    return { how: 'program order (sequential consistency)', relation: 'po', cumulative: true };
  },
};
