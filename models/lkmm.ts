// The Linux-kernel memory model (LKMM), after the kernel's
// tools/memory-model: linux-kernel.bell (annotations, RCU/SRCU nesting,
// marked and plain accesses), lock.cat (spinlocks) and linux-kernel.cat (the
// axioms). Each `let` below is the model's definition of the same name;
// see src/relation/relation.ts for the operators.

import type { Execution } from '../src/model/execution.js';
import type { Model, Verdict } from '../src/model/model.js';
import { EventSet, fixpoint, Relation } from '../src/relation/relation.js';

/** Every relation the LKMM defines for one execution. */
export function lkmmRelations(x: Execution) {
  const { n } = x;
  const S = x.sets;
  const B = x.rel;
  const { po, rf, co, rmw, int, ext, id } = B;
  const M = S.M;
  const R = S.R;
  const W = S.W;
  const all = S.all;
  const fencerel = (s: EventSet) => po.seq(s.id()).seq(po);
  const cross = (a: EventSet, b: EventSet) => a.cross(b);

  // ---- linux-kernel.bell: semantic sets from syntactic tags
  const FailedRMW = S.RMW.minus(rmw.domain().or(rmw.range()));
  const Acquire = S.ACQUIRE.minus(W).minus(FailedRMW).or(S.LKR); // | LKR from lock.cat
  const Release = S.RELEASE.minus(R).minus(FailedRMW).or(S.UL); //  | UL from lock.cat
  const Mb = S.MB.minus(FailedRMW);
  const Noreturn = S.NORETURN.minus(W);
  const Marked = M.complement().or(S.IW, S.ONCE, S.RELEASE, S.ACQUIRE, S.MB, S.RMW)
    .or(S.LKR.or(S.LKW, S.UL, S.LF, S.RL, S.RU), S.SrcuLock.or(S.SrcuUnlock));
  const Plain = M.minus(Marked);

  // RCU read-side critical sections: innermost lock/unlock pairs first.
  const rcuRscs = matchNested(x, S.fence('rcu-lock'), S.fence('rcu-unlock'));

  // Dependencies are carried through plain (and marked) memory, not SRCU unlocks.
  const notSrcuUnlock = S.SrcuUnlock.complement();
  const rfi = rf.and(int);
  const carryDep = B.data.restrict(undefined, notSrcuUnlock).seq(rfi).star();
  const addr = carryDep.seq(B.addr);
  const ctrl = carryDep.seq(B.ctrl);
  const data = carryDep.seq(B.data);

  // SRCU critical sections: the lock's value flows into the unlock.
  const carrySrcuData = B.data.restrict(undefined, notSrcuUnlock).seq(rf).star();
  const srcuRscs = S.SrcuLock.id().seq(carrySrcuData).seq(B.data).restrict(undefined, S.SrcuUnlock).and(B.loc);

  // ---- lock.cat (rf and co of lock events are built by the explorer)
  const fr = rf.inv().seq(co);
  const rfe = rf.and(ext);
  const coe = co.and(ext);
  const fre = fr.and(ext);
  const lkRmw = S.LKR.id().seq(po.and(B.loc)).seq(S.LKW.id()).minus(po.seq(po));
  const rmwAll = rmw.or(lkRmw);
  const poLoc = po.and(B.loc);

  // ---- linux-kernel.cat: basic relations
  const acqPo = Acquire.id().seq(po).restrict(undefined, M);
  const poRel = po.restrict(M, Release);
  const poUnlockLockPo = po.seq(S.UL.id()).seq(po.or(rf)).seq(S.LKR.id()).seq(po);

  const R4rmb = R.minus(Noreturn);
  const rmb = fencerel(S.fence('rmb')).restrict(R4rmb, R4rmb);
  const wmb = fencerel(S.fence('wmb')).restrict(W, W);
  const RMW = S.RMW;
  const mb = fencerel(Mb).restrict(M, M)
    .or(po.seq(RMW.and(Mb).id()).seq(po).restrict(M, M))
    .or(po.restrict(W.and(RMW).and(Mb), M))
    .or(po.restrict(M, R.and(RMW).and(Mb)))
    .or(M.id().seq(fencerel(S.fence('before-atomic'))).seq(RMW.id()).seq(po.opt()).restrict(undefined, M))
    .or(M.id().seq(po.opt()).seq(RMW.id()).seq(fencerel(S.fence('after-atomic'))).restrict(undefined, M))
    .or(M.id().seq(po.opt()).seq(S.LKW.id()).seq(fencerel(S.fence('after-spinlock'))).restrict(undefined, M))
    .or(M.id().seq(po).seq(S.UL.id()).seq(co.or(po)).seq(S.LKW.id()).seq(fencerel(S.fence('after-unlock-lock'))).restrict(undefined, M));
  const SyncRcu = S.fence('sync-rcu');
  const gp = po.seq(SyncRcu.or(S.SyncSrcu).id()).seq(po.opt());
  const strongFence0 = mb.or(gp);
  const nonrwFence = strongFence0.or(poRel, acqPo);
  const fence0 = nonrwFence.or(wmb, rmb);
  const barrier = fencerel(
    S.fence('barrier').or(S.fence('rmb'), S.fence('wmb'), Mb, SyncRcu, S.SyncSrcu, S.fence('before-atomic'),
      S.fence('after-atomic'), Acquire, Release, S.fence('rcu-lock'), S.fence('rcu-unlock'), S.SrcuLock, S.SrcuUnlock),
  ).or(po.restrict(undefined, Release), po.restrict(Acquire, undefined));

  // ---- fundamental coherence ordering
  const com = rf.or(co, fr);

  // ---- instruction execution ordering
  const dep = addr.or(data);
  const rwdep = dep.or(ctrl).restrict(undefined, W);
  const overwrite = co.or(fr);
  const toW = rwdep.or(overwrite.and(int), addr.restrict(undefined, Plain).seq(wmb));
  const toR = addr.or(dep.restrict(undefined, Marked).seq(rfi));
  const ppo = toR.or(toW, fence0, poUnlockLockPo.and(int));

  const aCumul = (r: Relation) => rfe.restrict(undefined, Marked).opt().seq(r);
  const rmwSequence = rf.seq(rmwAll).star();
  const cumulFence = aCumul(strongFence0.or(poRel)).or(wmb, poUnlockLockPo).restrict(Marked, Marked).seq(rmwSequence);
  const prop = overwrite.and(ext).opt().restrict(Marked, undefined).seq(cumulFence.star())
    .seq(rfe.opt().restrict(Marked, Marked));
  const hb = ppo.or(rfe, prop.minus(id).and(int)).restrict(Marked, Marked);
  const hbStar = hb.star();
  const pb = prop.seq(strongFence0).seq(hbStar).restrict(undefined, Marked);
  const pbStar = pb.star();

  // ---- RCU
  const rcuGp = SyncRcu.id();
  const srcuGp = S.SyncSrcu.id();
  const rcuRscsi = rcuRscs.inv();
  const srcuRscsi = srcuRscs.inv();
  const rcuLink = po.opt().seq(hbStar).seq(pbStar).seq(prop).seq(po);
  const loc = B.loc;
  const rcuOrder = fixpoint(n, (ro) =>
    rcuGp.or(
      srcuGp,
      rcuGp.seq(rcuLink).seq(rcuRscsi),
      srcuGp.seq(rcuLink).seq(srcuRscsi).and(loc),
      rcuRscsi.seq(rcuLink).seq(rcuGp),
      srcuRscsi.seq(rcuLink).seq(srcuGp).and(loc),
      rcuGp.seq(rcuLink).seq(ro).seq(rcuLink).seq(rcuRscsi),
      srcuGp.seq(rcuLink).seq(ro).seq(rcuLink).seq(srcuRscsi).and(loc),
      rcuRscsi.seq(rcuLink).seq(ro).seq(rcuLink).seq(rcuGp),
      srcuRscsi.seq(rcuLink).seq(ro).seq(rcuLink).seq(srcuGp).and(loc),
      ro.seq(rcuLink).seq(ro),
    ),
  );
  const rcuFence = po.seq(rcuOrder).seq(po.opt());
  const fence = fence0.or(rcuFence);
  const strongFence = strongFence0.or(rcuFence);
  const rb = prop.seq(rcuFence).seq(hbStar).seq(pbStar).restrict(undefined, Marked);

  return {
    FailedRMW, Acquire, Release, Mb, Noreturn, Marked, Plain, rcuRscs, srcuRscs, addr, ctrl, data,
    fr, rfe, coe, fre, rfi, rmwAll, poLoc, acqPo, poRel, poUnlockLockPo, R4rmb, rmb, wmb, mb, gp,
    strongFence0, nonrwFence, fence0, barrier, com, ppo, cumulFence, prop, hb, pb, rcuLink, rcuOrder,
    rcuFence, fence, strongFence, rb, all, cross, rmwSequence,
  };
}

/** The axioms, in the order the model states them. */
export const LKMM_AXIOMS = ['coherence', 'atomic', 'happens-before', 'propagation', 'rcu', 'plain-coherence'] as const;

export const lkmm: Model = {
  name: 'lkmm',
  description: 'Linux-kernel memory model (tools/memory-model: linux-kernel.cat, .bell, lock.cat)',
  check(x: Execution): Verdict {
    const L = lkmmRelations(x);
    const S = x.sets;
    const B = x.rel;
    // Sequential consistency per variable.
    if (!L.poLoc.or(L.com).acyclic()) return { consistent: false, violated: 'coherence', flags: [] };
    // Atomic read-modify-write.
    if (!L.rmwAll.and(L.fre.seq(L.coe)).isEmpty()) return { consistent: false, violated: 'atomic', flags: [] };
    // lock.cat: nested locks deadlock; is_locked() inside a critical section is true.
    const ulBetween = L.poLoc.seq(S.UL.id()).seq(L.poLoc);
    if (!S.LKW.id().seq(L.poLoc).seq(S.LKR.id()).minus(ulBetween).isEmpty()) return { consistent: false, violated: 'lock-nest', flags: [] };
    if (!L.hb.acyclic()) return { consistent: false, violated: 'happens-before', flags: [] };
    if (!L.pb.acyclic()) return { consistent: false, violated: 'propagation', flags: [] };
    if (!L.rb.irreflexive()) return { consistent: false, violated: 'rcu', flags: [] };

    // Plain accesses and data races.
    const { Marked, Plain, hb, pb, rb, cumulFence, strongFence, fence, nonrwFence, rfe, addr, R4rmb, Noreturn, rmwSequence } = L;
    const M = S.M;
    const W = S.W;
    const po = B.po;
    const fencerel = (s: EventSet) => po.seq(s.id()).seq(po);
    const rmbRel = fencerel(S.fence('rmb'));
    const notNoreturn = Noreturn.complement();
    const xbstar = hb.or(pb, rb).star();
    const vis = cumulFence.star().seq(rfe.opt()).restrict(undefined, Marked)
      .seq(strongFence.restrict(undefined, Marked).seq(xbstar).or(xbstar.and(B.int)));
    const wPreBounded = addr.or(fence).opt().restrict(Marked, undefined);
    const rPreBounded = addr.or(nonrwFence, rmbRel.restrict(R4rmb, notNoreturn)).opt().restrict(Marked, undefined);
    const wPostBounded = fence.opt().restrict(undefined, Marked).seq(rmwSequence);
    const rPostBounded = nonrwFence.or(rmbRel.restrict(notNoreturn, R4rmb)).opt().restrict(undefined, Marked);
    const wwVis = fence.or(strongFence.seq(xbstar).seq(wPreBounded), wPostBounded.seq(vis).seq(wPreBounded));
    const wrVis = fence.or(strongFence.seq(xbstar).seq(rPreBounded), wPostBounded.seq(vis).seq(rPreBounded));
    const rwXbstar = fence.or(rPostBounded.seq(xbstar).seq(wPreBounded));
    const preRace = B.ext.and(Plain.cross(M).or(M.minus(S.IW).cross(Plain)));
    const flags: string[] = [];
    if (!Plain.isEmpty()) {
      const wrIncoh = preRace.and(B.rf).and(rwXbstar.inv());
      const rwIncoh = preRace.and(L.fr).and(wrVis.inv());
      const wwIncoh = preRace.and(B.co).and(wwVis.inv());
      if (!wrIncoh.or(rwIncoh, wwIncoh).isEmpty()) return { consistent: false, violated: 'plain-coherence', flags: [] };
      const wwNonrace = wwVis.and(Marked.cross(W).or(rwXbstar)).and(W.cross(Marked).or(wrVis));
      const wwRace = preRace.and(B.co).minus(wwNonrace);
      const wrRace = preRace.and(B.co.opt().seq(B.rf)).minus(wrVis);
      const rwRace = preRace.and(L.fr).minus(rwXbstar);
      if (!wwRace.or(wrRace, rwRace).isEmpty()) flags.push('data-race');
      const poLocNoBarrier = L.poLoc.minus(L.barrier);
      const PlainW = Plain.and(W);
      const mixed = poLocNoBarrier.restrict(PlainW, Marked).or(poLocNoBarrier.restrict(Marked, PlainW));
      if (!mixed.isEmpty()) flags.push('mixed-accesses');
    }
    return { consistent: true, flags };
  },
};

/**
 * Matches nested lock/unlock fences of each thread (the bell's rcu-rscs):
 * each unlock closes the innermost open lock before it.
 */
function matchNested(x: Execution, locks: EventSet, unlocks: EventSet): Relation {
  const r = new Relation(x.n);
  const byThread = new Map<number, number[]>();
  for (const e of x.events) {
    if (!locks.has(e.id) && !unlocks.has(e.id)) continue;
    const l = byThread.get(e.thread) ?? [];
    l.push(e.id);
    byThread.set(e.thread, l);
  }
  for (const ids of byThread.values()) {
    ids.sort((a, b) => x.events[a].poIndex - x.events[b].poIndex);
    const stack: number[] = [];
    for (const id of ids) {
      if (locks.has(id)) stack.push(id);
      else if (stack.length > 0) r.add(stack.pop()!, id);
    }
  }
  return r;
}
