// x86-TSO (Owens, Sarkar, Sewell), as the kernel's primitives compile on x86:
// a store may be delayed past later loads (store buffering); everything else
// keeps program order. Full barriers (smp_mb, synchronize_*), locked RMW
// instructions and lock operations drain the store buffer. smp_rmb/smp_wmb
// and RCU read-side markers are only compiler barriers there.

import type { Execution } from '../src/model/execution.js';
import type { Model, Verdict } from '../src/model/model.js';

export const x86tso: Model = {
  name: 'x86-tso',
  mutualExclusion: true,
  loadBuffering: 'never',
  description: 'x86-TSO: program order except store->load, plus full fences and locked RMWs',
  check(x: Execution): Verdict {
    const S = x.sets;
    const { po, rf, co, rmw, ext, loc } = x.rel;
    const M = S.M;
    const fr = rf.inv().seq(co);
    const com = rf.or(co, fr);
    if (!po.and(loc).or(com).acyclic()) return { consistent: false, violated: 'coherence', flags: [] };
    if (!rmw.and(fr.and(ext).seq(co.and(ext))).isEmpty()) return { consistent: false, violated: 'atomic', flags: [] };
    // Locked: RMW instructions and lock operations.
    const locked = S.RMW.or(S.LKR, S.LKW, S.UL, S.LF);
    const full = S.fence('mb').or(S.fence('sync-rcu'), S.SyncSrcu);
    const ppo = po.restrict(M, M).minus(S.W.cross(S.R));
    const fenced = po.seq(full.id()).seq(po).restrict(M, M)
      .or(po.restrict(locked, M), po.restrict(M, locked));
    const ghb = ppo.or(fenced, rf.and(ext), co, fr);
    if (!ghb.acyclic()) return { consistent: false, violated: 'tso', flags: [] };
    return { consistent: true, flags: [] };
  },
};
