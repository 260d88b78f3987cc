// The Linux-kernel memory model (LKMM), after the kernel's
// tools/memory-model: linux-kernel.bell (annotations, RCU/SRCU nesting,
// marked and plain accesses), lock.cat (spinlocks) and linux-kernel.cat (the
// axioms). Each `let` below is the model's definition of the same name;
// see src/relation/relation.ts for the operators.

import type { Execution } from '../src/model/execution.js';
import type { Event } from '../src/events/event.js';
import type { Model, Verdict } from '../src/model/model.js';
import { EventSet, fixpoint, lasting, Relation, scratch } from '../src/relation/relation.js';
import { rcuGraceConstraints } from './grace-periods.js';
import { findsInterleaving, interleavingShape, type InterleavingShape } from './interleaving.js';
import { mayCycleThrough } from './lkmm-load-buffering.js';
import { rcuForbiddenSources } from './lkmm-rcu-reads.js';

/**
 * The relations that program order and annotations alone decide (no rf, no
 * co). Candidate executions that differ only in rf/co share them, so they are
 * computed once per event structure (see Execution.structure).
 */
function staticRelations(x: Execution) {
  const S = x.sets;
  const B = x.rel;
  const { po, rmw } = B;
  const M = S.M;
  const R = S.R;
  const W = S.W;
  const fencerel = (s: EventSet) => (s.isEmpty() ? Relation.empty(x.n) : po.restrict(undefined, s).seq(po));

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
  const rcuRscs = S.fence('rcu-lock').isEmpty() ? Relation.empty(x.n) : matchNested(x, S.fence('rcu-lock'), S.fence('rcu-unlock'));

  // ---- lock.cat
  const poLoc = po.and(B.loc);
  const lkRmw = S.LKR.isEmpty() ? Relation.empty(x.n) : poLoc.restrict(S.LKR, S.LKW).minus(po.seq(po));
  const rmwAll = rmw.or(lkRmw);

  // ---- linux-kernel.cat: basic relations
  const acqPo = po.restrict(Acquire, M);
  const poRel = po.restrict(M, Release);
  const R4rmb = R.minus(Noreturn);
  const rmb = fencerel(S.fence('rmb')).restrict(R4rmb, R4rmb);
  const wmb = fencerel(S.fence('wmb')).restrict(W, W);
  const RMW = S.RMW;
  // mb, except its after-unlock-lock term (which needs rf): see below. Terms
  // whose fence or access kind does not occur in the test are empty.
  const none = Relation.empty(x.n);
  const term = (present: EventSet, f: () => Relation) => (present.isEmpty() ? none : f());
  const MbRMW = RMW.and(Mb);
  const mbPo = fencerel(Mb).restrict(M, M).or(
    term(MbRMW, () => po.seq(MbRMW.id()).seq(po).restrict(M, M)
      .or(po.restrict(W.and(MbRMW), M), po.restrict(M, R.and(MbRMW)))),
    term(S.fence('before-atomic'), () => M.id().seq(fencerel(S.fence('before-atomic'))).seq(RMW.id()).seq(po.opt()).restrict(undefined, M)),
    term(S.fence('after-atomic'), () => M.id().seq(po.opt()).seq(RMW.id()).seq(fencerel(S.fence('after-atomic'))).restrict(undefined, M)),
    term(S.fence('after-spinlock'), () => M.id().seq(po.opt()).seq(S.LKW.id()).seq(fencerel(S.fence('after-spinlock'))).restrict(undefined, M)),
    term(S.fence('after-srcu-read-unlock'), () =>
      M.id().seq(po.opt()).seq(S.SrcuUnlock.id()).seq(fencerel(S.fence('after-srcu-read-unlock'))).restrict(undefined, M)),
  );
  const SyncRcu = S.fence('sync-rcu');
  const gp = term(SyncRcu.or(S.SyncSrcu), () => po.restrict(undefined, SyncRcu.or(S.SyncSrcu)).seq(po.opt()));
  // barrier is only needed for the mixed-accesses flag: computed on demand.
  let barrierRel: Relation | undefined;
  const barrier = () =>
    (barrierRel ??= lasting(() => fencerel(
      S.fence('barrier').or(S.fence('rmb'), S.fence('wmb'), Mb, SyncRcu, S.SyncSrcu, S.fence('before-atomic'),
        S.fence('after-atomic'), Acquire, Release, S.fence('rcu-lock'), S.fence('rcu-unlock'), S.SrcuLock, S.SrcuUnlock),
    ).or(po.restrict(undefined, Release), po.restrict(Acquire, undefined))));
  const hasLocks = !S.UL.isEmpty() && !S.LKR.isEmpty();
  const poUnlockPoLockPo = hasLocks ? po.restrict(undefined, S.UL).seq(po.restrict(undefined, S.LKR)).seq(po) : none;
  const poToUnlock = po.restrict(undefined, S.UL);
  const lockToPo = po.restrict(S.LKR, undefined);
  const hasRcu = !SyncRcu.or(S.SyncSrcu).isEmpty();
  // lock.cat's lock-nest: a lock taken again, no unlock between, deadlocks.
  const lockNest = !S.LKR.isEmpty() &&
    !S.LKW.id().seq(poLoc).seq(S.LKR.id()).minus(poLoc.seq(S.UL.id()).seq(poLoc)).isEmpty();
  // When an interleaving is allowed, and the program-order edges any
  // relation below is made of (see "Why the LKMM allows an interleaving" below).
  const hasSrcu = !S.SrcuLock.isEmpty() || !S.SrcuUnlock.isEmpty() || !S.SyncSrcu.isEmpty();
  let interleaving: InterleavingShape | undefined;
  if (!lockNest && Plain.isEmpty() && !hasSrcu) {
    const graceMarks = SyncRcu.or(S.fence('rcu-lock'), S.fence('rcu-unlock'));
    const order = poLoc.or(rmwAll, B.addr, B.data, B.ctrl, mbPo, gp, rmb, wmb, acqPo, poRel)
      .or(poUnlockPoLockPo, poToUnlock, lockToPo, rcuRscs, po.restrict(undefined, graceMarks), po.restrict(graceMarks, undefined));
    interleaving = interleavingShape(order, Int32Array.from(rmwAll.pairs().flat()), rcuGraceConstraints(rcuRscs, SyncRcu));
  }
  return {
    rcuPrefix: SyncRcu.isEmpty() || rcuRscs.isEmpty() ? undefined : rcuPrefixParts(po, SyncRcu, rcuRscs, Marked),
    FailedRMW, Acquire, Release, Mb, Noreturn, Marked, Plain, rcuRscs, poLoc, lkRmw, rmwAll, acqPo, poRel,
    R4rmb, rmb, wmb, mbPo, SyncRcu, gp, barrier, poUnlockPoLockPo, hasRcu, fencerel, poToUnlock, lockToPo, hasLocks,
    hasRmw: !rmwAll.isEmpty(), hasPlain: !Plain.isEmpty(), lockNest, interleaving,
    // The flags' static part, computed now: it reads this execution's events,
    // which are valid only while this candidate is being judged.
    staticFlags: staticFlags(x, rcuRscs, lkRmw),
  };
}

/*
 * Why the LKMM allows an interleaving (staticRelations' `interleaving`, see
 * models/interleaving.ts), and which program order it must keep. Every
 * relation of the axioms below but plain-coherence is made of rf, co, fr
 * and program-order edges of a few kinds, known from the events alone:
 * po-loc, rmw, dependencies, fences (smp_mb() and fully ordered RMWs, grace
 * periods, smp_rmb(), smp_wmb(), acquire, release), the edges through a
 * lock's unlock and next lock, and program order into and out of grace
 * periods and RCU read-side locks and unlocks (rcu-link and rcu-fence), with
 * each critical section's lock before its unlock. A total order extending
 * those and rf, co, fr keeps coherence, hb and pb acyclic. rcu-order runs
 * from a grace period or an rcu_read_unlock to a grace period or an
 * rcu_read_lock, each step forward in that order as long as no grace period
 * is inside a critical section it waits for; so rb, which starts with
 * prop ; po and ends in the order, is irreflexive. What remains: lock-nest,
 * decided statically; atomicity, checked by the search; plain accesses
 * (plain-coherence and data races need the whole model) and SRCU (its
 * critical sections follow values through memory) keep the full check.
 */

/**
 * The parts of rcuSurelyViolated that program order and the critical
 * sections decide. With rcu-link taken as po? ; [from] ; prop ; po ; [to]
 * (from: a grace period or a section's lock; to: a grace period or a
 * section's unlock) and rcu-order as its terms rcu-gp, rcu-gp ; rcu-link ;
 * rcu-rscs^-1 and rcu-rscs^-1 ; rcu-link ; rcu-gp, rcu-fence ; [Marked] =
 * po ; rcu-order ; po? ; [Marked] is gpFence | before1 ; prop ; after1 |
 * before2 ; prop ; after2, each factor here static.
 */
function rcuPrefixParts(po: Relation, syncRcu: EventSet, rcuRscs: Relation, marked: EventSet) {
  const rscsi = rcuRscs.inv();
  const gp = syncRcu.id();
  const linkFirst = po.opt().restrict(syncRcu.or(rscsi.range()));
  const linkLast = po.restrict(undefined, syncRcu.or(rscsi.domain()));
  const poOptMarked = po.opt().restrict(undefined, marked);
  return {
    gpFence: po.seq(gp).seq(poOptMarked),
    before1: po.seq(gp).seq(linkFirst),
    after1: linkLast.seq(rscsi).seq(poOptMarked),
    before2: po.seq(rscsi).seq(linkFirst),
    after2: linkLast.seq(gp).seq(poOptMarked),
  };
}

/**
 * A cheap proof that the rcu axiom fails (for prefix checks, and
 * candidates whose first broken axiom need not be named): rb built from
 * parts of its terms only (cumul-fence*, hb* and pb* taken as the
 * identity, rcu-order as its terms with one grace period and at most one
 * critical section: rcuPrefixParts), so each relation here is contained in
 * the model's own and a cycle here is a cycle of rb. The grace period
 * against a critical section that a prefix breaks is found so, without
 * computing hb, pb and rcu-order's fixpoint; false says nothing.
 */
function rcuSurelyViolated(x: Execution, st: StaticLkmm): boolean {
  const q = st.rcuPrefix!;
  const { rf, co, ext } = x.rel;
  const Marked = st.Marked;
  const fr = rf.inv().seq(co);
  const prop = co.or(fr).and(ext).opt().restrict(Marked, undefined).seq(rf.and(ext).opt().restrict(Marked, Marked));
  const tail = q.gpFence.or(q.before1.seq(prop).seq(q.after1), q.before2.seq(prop).seq(q.after2));
  // rb = prop ; tail is reflexive: some prop edge a -> b with tail b -> a.
  let broken = false;
  prop.forEach((a, b) => {
    if (!broken && tail.has(b, a)) broken = true;
  });
  return broken;
}

type StaticLkmm = ReturnType<typeof staticRelations>;
const staticCache = new WeakMap<object, StaticLkmm>();

function staticOf(x: Execution): StaticLkmm {
  let st = staticCache.get(x.structure);
  if (!st) staticCache.set(x.structure, (st = lasting(() => staticRelations(x))));
  return st;
}

/** Stage 1: communication, dependencies carried through memory, fences. */
function communication(x: Execution, st: StaticLkmm) {
  const S = x.sets;
  const B = x.rel;
  const { po, rf, co, int, ext } = B;
  const M = S.M;

  // Dependencies are carried through plain (and marked) memory, not SRCU unlocks.
  const notSrcuUnlock = S.SrcuUnlock.complement();
  const rfi = rf.and(int);
  const dataToMemory = B.data.restrict(undefined, notSrcuUnlock);
  const carried = dataToMemory.seq(rfi);
  const carryDep = carried.isEmpty() ? null : carried.star();
  const addr = carryDep ? carryDep.seq(B.addr) : B.addr;
  const ctrl = carryDep ? carryDep.seq(B.ctrl) : B.ctrl;
  const data = carryDep ? carryDep.seq(B.data) : B.data;

  const { carrySrcuData, srcuRscs } = srcuSections(x, dataToMemory);

  // lock.cat: rf and co of lock events are built by the explorer.
  const fr = rf.inv().seq(co);
  const rfe = rf.and(ext);
  const coe = co.and(ext);
  const fre = fr.and(ext);
  const com = rf.or(co, fr);

  const poUnlockLockPo = st.hasLocks
    ? st.poUnlockPoLockPo.or(st.poToUnlock.seq(rf.restrict(S.UL, S.LKR)).seq(st.lockToPo))
    : st.poUnlockPoLockPo;
  const aul = S.fence('after-unlock-lock');
  const mb = aul.isEmpty()
    ? st.mbPo
    : st.mbPo.or(poUnlockLockPo.restrict(M, aul).seq(po).restrict(undefined, M));
  const strongFence0 = mb.or(st.gp);
  const nonrwFence = strongFence0.or(st.poRel, st.acqPo);
  const fence0 = nonrwFence.or(st.wmb, st.rmb);
  return { rfi, addr, ctrl, data, carrySrcuData, srcuRscs, fr, rfe, coe, fre, com, poUnlockLockPo, mb, strongFence0, nonrwFence, fence0 };
}
type Communication = ReturnType<typeof communication>;

/**
 * The bell's srcu-rscs: an SRCU lock's value (its cookie) flows, through
 * registers and memory, into the unlock of the same srcu_struct.
 */
function srcuSections(x: Execution, dataToMemory: Relation) {
  const S = x.sets;
  const B = x.rel;
  const carrySrcuData = S.SrcuLock.isEmpty() ? B.id : dataToMemory.seq(B.rf).star();
  const srcuRscs = S.SrcuLock.isEmpty()
    ? Relation.empty(x.n)
    : S.SrcuLock.id().seq(carrySrcuData).seq(B.data).restrict(undefined, S.SrcuUnlock).and(B.loc);
  return { carrySrcuData, srcuRscs };
}

/**
 * Read-side critical sections as the bell matches them (rcu-rscs: nested
 * rcu_read_lock/unlock; srcu-rscs: cookie flow), for other models to honour.
 */
export function readSideSections(x: Execution): { rcu: Relation; srcu: Relation } {
  const rcu = staticOf(x).rcuRscs;
  const srcu = srcuSections(x, x.rel.data.restrict(undefined, x.sets.SrcuUnlock.complement())).srcuRscs;
  return { rcu, srcu };
}

/** Stage 2: preserved program order, propagation, happens-before. */
function happensBefore(x: Execution, st: StaticLkmm, c: Communication) {
  const { co, rf, int, ext, id } = x.rel;
  const { R, W } = x.sets;
  const { Marked, Plain, wmb, poRel, rmwAll } = st;
  const { addr, data, ctrl, fr, rfi, rfe, fence0, strongFence0, poUnlockLockPo } = c;
  const dep = addr.or(data);
  const rwdep = dep.or(ctrl).restrict(undefined, W);
  const overwrite = co.or(fr);
  const toW = st.hasPlain ? rwdep.or(overwrite.and(int), addr.restrict(undefined, Plain).seq(wmb)) : rwdep.or(overwrite.and(int));
  const toR = addr.restrict(undefined, R).or(dep.restrict(undefined, Marked).seq(rfi));
  const ppo = toR.or(toW, fence0, poUnlockLockPo.and(int));

  const aCumul = (r: Relation) => rfe.restrict(undefined, Marked).opt().seq(r);
  // rmw-sequence = (rf ; rmw)*, the identity when there is no RMW.
  const rmwSequence = st.hasRmw ? rf.seq(rmwAll).star() : null;
  const cumulFence0 = aCumul(strongFence0.or(poRel)).or(wmb, poUnlockLockPo).restrict(Marked, Marked);
  const cumulFence = rmwSequence ? cumulFence0.seq(rmwSequence) : cumulFence0;
  const prop = overwrite.and(ext).opt().restrict(Marked, undefined).seq(cumulFence.star())
    .seq(rfe.opt().restrict(Marked, Marked));
  const hb = ppo.or(rfe, prop.minus(id).and(int)).restrict(Marked, Marked);
  return { toR, ppo, rmwSequence: rmwSequence ?? id, cumulFence, prop, hb };
}
type HappensBefore = ReturnType<typeof happensBefore>;

/** Stage 3: propagation order. */
function propagation(x: Execution, st: StaticLkmm, c: Communication, h: HappensBefore) {
  // Without a strong fence pb is empty, and hb* (needed only by pb and RCU)
  // is not computed.
  if (c.strongFence0.isEmpty() && !st.hasRcu) {
    const none = Relation.empty(x.n);
    return { hbStar: null, pb: none, pbStar: x.rel.id };
  }
  const hbStar: Relation | null = h.hb.star();
  const pb = h.prop.seq(c.strongFence0).seq(hbStar).restrict(undefined, st.Marked);
  return { hbStar, pb, pbStar: pb.star() };
}
type Propagation = ReturnType<typeof propagation>;

/** Stage 4: RCU grace periods against read-side critical sections. */
function rcu(x: Execution, st: StaticLkmm, c: Communication, h: HappensBefore, p: Propagation) {
  const { n } = x;
  const { po, loc } = x.rel;
  const S = x.sets;
  if (!st.hasRcu) {
    // Without grace periods rcu-order is empty (every term starts or ends with one).
    const none = Relation.empty(n);
    return { rcuLink: none, rcuOrder: none, rcuFence: none, fence: c.fence0, strongFence: c.strongFence0, rbTail: none, rb: () => none };
  }
  const rcuGp = st.SyncRcu.id();
  const srcuGp = S.SyncSrcu.id();
  const rcuRscsi = st.rcuRscs.inv();
  const srcuRscsi = c.srcuRscs.inv();
  // rcu-link, only where rcu-order can use it: from a grace period or the
  // start of a critical section, to a grace period or the end of one (the
  // range and domain of rcu-order). Restricting the first factor keeps the
  // compositions small.
  const gps = st.SyncRcu.or(S.SyncSrcu);
  const linkFrom = gps.or(rcuRscsi.range(), srcuRscsi.range());
  const linkTo = gps.or(rcuRscsi.domain(), srcuRscsi.domain());
  const hbStar = p.hbStar!; // computed whenever there are grace periods
  const rcuLink = po.opt().restrict(linkFrom).seq(hbStar).seq(p.pbStar).seq(h.prop).seq(po).restrict(undefined, linkTo);
  // rcu-order: grace periods and critical sections linked by rcu-link, a
  // grace period matched by a critical section on either side, recursively.
  // The factors that do not involve rcu-order itself are composed once.
  const gpThen = rcuGp.seq(rcuLink);
  const thenRscs = rcuLink.seq(rcuRscsi);
  const rscsThen = rcuRscsi.seq(rcuLink);
  const thenGp = rcuLink.seq(rcuGp);
  const hasSrcu = !S.SyncSrcu.isEmpty(); // every SRCU term starts or ends with srcu-gp
  const srcuGpThen = hasSrcu ? srcuGp.seq(rcuLink) : undefined;
  const thenSrcuRscs = hasSrcu ? rcuLink.seq(srcuRscsi) : undefined;
  const srcuRscsThen = hasSrcu ? srcuRscsi.seq(rcuLink) : undefined;
  const thenSrcuGp = hasSrcu ? rcuLink.seq(srcuGp) : undefined;
  const base = [rcuGp, gpThen.seq(rcuRscsi), rscsThen.seq(rcuGp)];
  if (hasSrcu) base.push(srcuGp, srcuGpThen!.seq(srcuRscsi).and(loc), srcuRscsThen!.seq(srcuGp).and(loc));
  const rcuOrderBase = Relation.empty(n).or(...base);
  const rcuOrder = fixpoint(n, (ro) => {
    const terms = [gpThen.seq(ro).seq(thenRscs), rscsThen.seq(ro).seq(thenGp), ro.seq(rcuLink).seq(ro)];
    if (hasSrcu) terms.push(srcuGpThen!.seq(ro).seq(thenSrcuRscs!).and(loc), srcuRscsThen!.seq(ro).seq(thenSrcuGp!).and(loc));
    return rcuOrderBase.or(...terms);
  });
  const rcuFence = po.seq(rcuOrder).seq(po.opt());
  const fence = c.fence0.or(rcuFence);
  const strongFence = c.strongFence0.or(rcuFence);
  // rb = prop ; rbTail. The axiom (rb irreflexive) only needs prop and
  // rbTail^-1 to be disjoint; rb itself is composed when asked for.
  const rbTail = rcuFence.seq(hbStar).seq(p.pbStar).restrict(undefined, st.Marked);
  return { rcuLink, rcuOrder, rcuFence, fence, strongFence, rbTail, rb: () => h.prop.seq(rbTail) };
}

/** Every relation the LKMM defines for one execution (for explanations). */
export function lkmmRelations(x: Execution) {
  const st = staticOf(x);
  const c = communication(x, st);
  const h = happensBefore(x, st, c);
  const p = propagation(x, st, c, h);
  const r = rcu(x, st, c, h, p);
  return { ...st, ...c, ...h, ...p, hbStar: p.hbStar ?? h.hb.star(), ...r, rb: r.rb() };
}

/**
 * The LKMM's lock order (Model.lockOrders): lock.cat's rf from unlock to
 * lock, with release/acquire cumulativity, orders the marked accesses of
 * successive critical sections (an hb cycle otherwise; the theorem, for
 * any model, is in models/cat/derive-lock-order.ts); plain accesses are
 * left to the final judgement.
 */
export function lockOrdersMarked(a: Event, b: Event): boolean {
  return a.annot !== 'PLAIN' && b.annot !== 'PLAIN';
}

/** The axioms, in the order the model states them. */
export const LKMM_AXIOMS = ['coherence', 'atomic', 'happens-before', 'propagation', 'rcu', 'plain-coherence'] as const;

export const lkmm: Model = {
  name: 'lkmm',
  description: 'Linux-kernel memory model (tools/memory-model: linux-kernel.cat, .bell, lock.cat)',
  // A cycle needs some waiting read out of ppo with its thread's later
  // writes (rf between marked accesses is in hb).
  mayCycleThrough,
  lockOrders: lockOrdersMarked,
  // Every relation of the axioms is made of po, rf, co, fr (rf^-1 ; co),
  // the static orders of program order (forward), and the critical
  // sections' unlock-to-lock steps (from an unlock, not a read).
  latestReadKeepsConsistency: true,
  // A read of an RCU read-side critical section that would have the
  // section see one side of a grace period and miss the other (the rcu
  // axiom, see models/lkmm-rcu-reads.ts).
  forbiddenSources: rcuForbiddenSources,
  check(x: Execution, opts?: { prefix?: boolean; anyAxiom?: boolean; axiomsOnly?: boolean }): Verdict {
    const st = staticOf(x);
    const prefix = opts?.prefix ?? false;
    if (opts?.axiomsOnly) return scratch(() => checkAxioms(x, st, prefix));
    const anyAxiom = prefix || (opts?.anyAxiom ?? false);
    return scratch(() => {
      // A prefix is checked where the explorer expects a rejection more
      // than elsewhere (prefix.ts): the cheap rcu proof first there, as a
      // failed interleaving search costs more than it.
      if (prefix && st.rcuPrefix !== undefined && rcuSurelyViolated(x, st)) return { consistent: false, violated: 'rcu', flags: [] };
      // An interleaving is allowed (see "Why the LKMM allows an interleaving"): only its flags are left to find.
      if (st.interleaving && findsInterleaving(x, st.interleaving)) return { consistent: true, flags: prefix ? [] : structuralFlags(x, st) };
      // Enough where any axiom may be named; else the axioms before rcu are still checked.
      const rcuBroken = !prefix && st.rcuPrefix !== undefined && rcuSurelyViolated(x, st);
      if (anyAxiom && rcuBroken) return { consistent: false, violated: 'rcu', flags: [] };
      return checkAxioms(x, st, prefix, rcuBroken);
    });
  },
  preserved(x: Execution): [number, number][] {
    return scratch(() => lkmmRelations(x).ppo.pairs());
  },
};

/**
 * The axioms one by one, without the shortcut for interleavings: what the
 * shortcut must agree with (test/properties.test.ts checks that it does).
 */
export function checkEveryAxiom(x: Execution, opts?: { prefix?: boolean }): Verdict {
  const st = staticOf(x);
  return scratch(() => checkAxioms(x, st, opts?.prefix ?? false));
}

/** `rcuBroken`: the rcu axiom is known to fail (rcuSurelyViolated), the axioms before it decide the verdict. */
function checkAxioms(x: Execution, st: StaticLkmm, prefix: boolean, rcuBroken = false): Verdict {
  {
    // The axioms are checked in order, each computing only what it needs.
    const S = x.sets;
    const B = x.rel;
    const c = communication(x, st);
    // Sequential consistency per variable; atomic read-modify-write. (The
    // explorer keeps every prefix coherent and atomic location by location,
    // so a prefix check may skip them.)
    if (!prefix) {
      if (!st.poLoc.or(c.com).acyclic()) return { consistent: false, violated: 'coherence', flags: [] };
      if (!st.rmwAll.and(c.fre.seq(c.coe)).isEmpty()) return { consistent: false, violated: 'atomic', flags: [] };
    }
    if (st.lockNest) return { consistent: false, violated: 'lock-nest', flags: [] };
    const h = happensBefore(x, st, c);
    if (!h.hb.acyclic()) return { consistent: false, violated: 'happens-before', flags: [] };
    const p = propagation(x, st, c, h);
    if (!p.pb.acyclic()) return { consistent: false, violated: 'propagation', flags: [] };
    if (rcuBroken) return { consistent: false, violated: 'rcu', flags: [] };
    const r = rcu(x, st, c, h, p);
    if (!h.prop.and(r.rbTail.inv()).isEmpty()) return { consistent: false, violated: 'rcu', flags: [] };
    if (prefix) return { consistent: true, flags: [] };
    const structural = structuralFlags(x, st, c);
    if (st.Plain.isEmpty()) return { consistent: true, flags: structural };
    const L = { ...st, ...c, ...h, ...p, ...r };

    // Plain accesses and data races.
    const rb = r.rb();
    const { Marked, Plain, hb, pb, cumulFence, strongFence, fence, nonrwFence, rfe, addr, R4rmb, Noreturn, rmwSequence } = L;
    const M = S.M;
    const W = S.W;
    const rmbRel = L.fencerel(S.fence('rmb'));
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
    const flags: string[] = structural;
    if (!Plain.isEmpty()) {
      const wrIncoh = preRace.and(B.rf).and(rwXbstar.inv());
      const rwIncoh = preRace.and(L.fr).and(wrVis.inv());
      const wwIncoh = preRace.and(B.co).and(wwVis.inv());
      if (!wrIncoh.or(rwIncoh, wwIncoh).isEmpty()) return { consistent: false, violated: 'plain-coherence', flags: [] };
      const wwNonrace = wwVis.and(Marked.cross(W).or(rwXbstar)).and(W.cross(Marked).or(wrVis));
      const wwRace = preRace.and(B.co).minus(wwNonrace);
      const wrRace = preRace.and(B.co.opt().seq(B.rf)).minus(wrVis).minus(rwXbstar.inv());
      const rwRace = preRace.and(L.fr).minus(rwXbstar);
      if (!wwRace.or(wrRace, rwRace).isEmpty()) flags.push('data-race');
      const poLocNoBarrier = L.poLoc.minus(L.barrier());
      const PlainW = Plain.and(W);
      const mixed = poLocNoBarrier.restrict(PlainW, Marked).or(poLocNoBarrier.restrict(Marked, PlainW));
      if (!mixed.isEmpty()) flags.push('mixed-accesses');
    }
    return { consistent: true, flags: [...new Set(flags)].sort() };
  }
}

/**
 * The bell's and lock.cat's flags about how a test uses RCU, SRCU and locks
 * (as herd prints them, on consistent executions). Names are those of the
 * current linux-kernel.bell and lock.cat (LKMM_FLAGS lists every one).
 */
function structuralFlags(x: Execution, st: StaticLkmm, c?: Communication): string[] {
  const S = x.sets;
  const sf = st.staticFlags;
  const flags = sf.rcu.slice();
  if (!S.SrcuLock.isEmpty() || !S.SrcuUnlock.isEmpty()) {
    const srcu = (c ?? communication(x, st)).srcuRscs;
    if (!S.SrcuLock.minus(srcu.domain()).isEmpty()) flags.push('unmatched-srcu-lock');
    if (!S.SrcuUnlock.minus(srcu.range()).isEmpty()) flags.push('unmatched-srcu-unlock');
    if (!srcu.inv().seq(srcu).minus(x.rel.id).isEmpty()) flags.push('multiple-srcu-matches');
    // different-values(srcu-rscs): a lock and its unlock carry different values.
    let bad = false;
    srcu.forEach((a, b) => {
      if (x.events[a].value !== x.events[b].value) bad = true;
    });
    if (bad) flags.push('srcu-bad-value-match');
  }
  if (sf.allLocks.isEmpty()) return flags;
  flags.push(...sf.locks);
  // The final value of a spinlock (or SRCU structure) should not be tested.
  // Which locations FW covers (those the final state shows) is the same for
  // every candidate of the test, so this is decided once per structure.
  sf.lockFinal ??= !S.FW.id().seq(x.rel.loc).restrict(undefined, sf.allLocks).isEmpty();
  if (sf.lockFinal) flags.push('lock-final');
  if (sf.unmatchedUnlock) flags.push('unmatched-unlock');
  return flags;
}

/**
 * The parts of structuralFlags that program order and annotations alone
 * decide (computed once per structure, with staticRelations).
 */
function staticFlags(x: Execution, rcuRscs: Relation, lkRmw: Relation) {
  const S = x.sets;
  const rcuFlags: string[] = [];
  const rcuLock = S.fence('rcu-lock');
  const rcuUnlock = S.fence('rcu-unlock');
  if (!rcuLock.isEmpty() || !rcuUnlock.isEmpty()) {
    if (!rcuLock.minus(rcuRscs.domain()).isEmpty()) rcuFlags.push('unmatched-rcu-lock');
    if (!rcuUnlock.minus(rcuRscs.range()).isEmpty()) rcuFlags.push('unmatched-rcu-unlock');
    if (!rcuRscs.and(x.rel.po.restrict(undefined, S.SyncSrcu).seq(x.rel.po)).isEmpty()) rcuFlags.push('invalid-sleep');
  }
  // lock.cat: ALL-LOCKS, the events of spinlocks and SRCU structures.
  const allLocks = S.LKR.or(S.LKW, S.UL, S.LF, S.RL, S.RU).or(S.SrcuLock, S.SrcuUnlock, S.SyncSrcu);
  const lockFlags: string[] = [];
  let unmatchedUnlock = false;
  // lock.cat's lock-final, once known (structuralFlags).
  const lockFinal = undefined as boolean | undefined;
  if (allLocks.isEmpty()) return { rcu: rcuFlags, allLocks, locks: lockFlags, unmatchedUnlock, lockFinal };
  // Ordinary accesses to a lock or an SRCU structure.
  if (!S.M.minus(S.IW).minus(allLocks).id().seq(x.rel.loc).restrict(undefined, allLocks).isEmpty()) lockFlags.push('mixed-lock-accesses');
  if (!S.LKW.minus(lkRmw.range()).isEmpty()) lockFlags.push('unpaired-LKW');
  if (!S.LKR.minus(lkRmw.domain()).isEmpty()) lockFlags.push('unpaired-LKR');
  // critical = ([LKW] ; po-loc ; [UL]) \ (po-loc ; [LKW | UL] ; po-loc): an
  // unlock with no lock of its own thread open before it is unmatched.
  for (const u of S.UL.members()) {
    const e = x.events[u];
    let open = false;
    for (const v of x.events) {
      if (v.thread !== e.thread || v.loc !== e.loc || v.poIndex >= e.poIndex) continue;
      if (v.lock === 'LKW') open = true;
      if (v.lock === 'UL') open = false;
    }
    if (!open) {
      unmatchedUnlock = true;
      break;
    }
  }
  return { rcu: rcuFlags, allLocks, locks: lockFlags, unmatchedUnlock, lockFinal };
}

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
