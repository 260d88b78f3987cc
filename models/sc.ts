// Sequential consistency: every execution is an interleaving. Program order
// and all communication (rf, co, fr) together are acyclic; RMWs are atomic.

import type { Execution } from '../src/model/execution.js';
import type { Highlight, Model, Verdict } from '../src/model/model.js';
import { scratch } from '../src/relation/relation.js';

export const sc: Model = {
  name: 'sc',
  mutualExclusion: true,
  loadBuffering: 'never',
  description: 'sequential consistency (Lamport): acyclic(po | rf | co | fr)',
  check(x: Execution): Verdict {
    const { po, rf, co, rmw, ext } = x.rel;
    const fr = rf.inv().seq(co);
    if (!rmw.and(fr.and(ext).seq(co.and(ext))).isEmpty()) return { consistent: false, violated: 'atomic', flags: [] };
    if (!po.or(rf, co, fr).acyclic()) return { consistent: false, violated: 'sc', flags: [] };
    return { consistent: true, flags: [] };
  },
  explain(x: Execution, axiom: string): Highlight | undefined {
    if (axiom !== 'sc') return undefined;
    return scratch(() => {
      const { po, rf, co } = x.rel;
      const fr = rf.inv().seq(co);
      const edges = po.or(rf, co, fr).cycle();
      if (!edges) return undefined;
      const labels = edges.map(([a, b]) => (po.has(a, b) ? 'po' : rf.has(a, b) ? 'rf' : co.has(a, b) ? 'co' : 'fr'));
      return { name: 'sc', edges, labels };
    });
  },
};
