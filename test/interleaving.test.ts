import { describe, expect, it } from 'vitest';
import type { Event } from '../src/events/event.js';
import { buildExecution } from '../src/model/execution.js';
import type { Program } from '../src/program/program.js';
import { findsInterleaving, interleavingShape } from '../models/interleaving.js';
import { checkEveryAxiom, lkmm } from '../models/lkmm.js';

/** An event of a hand-built execution (ids are given in order). */
function ev(id: number, thread: number, poIndex: number, kind: Event['kind'], loc: number, value: number, more: Partial<Event> = {}): Event {
  return {
    id, thread, poIndex, kind, loc, value, annot: 'ONCE', isRmw: false, rmwPartner: -1,
    addrDeps: 0n, dataDeps: 0n, ctrlDeps: 0n, rf: -1, pc: poIndex, ...more,
  };
}

const program = { locations: ['x', 'y'] } as Program;
const none = new Int32Array(0);


describe('finding an interleaving', () => {
  it('finds one for message passing read in order, none for store buffering reading both initial values', () => {
    // P0: x=1; y=1   P1: r0=y (1); r1=x (1)
    const mp = [ev(0, -1, 0, 'W', 0, 0), ev(1, -1, 0, 'W', 1, 0), ev(2, 0, 0, 'W', 0, 1), ev(3, 0, 1, 'W', 1, 1),
      ev(4, 1, 0, 'R', 1, 1, { rf: 3 }), ev(5, 1, 1, 'R', 0, 1, { rf: 2 })];
    const x = buildExecution(program, mp, [[0, 2], [1, 3]]);
    expect(findsInterleaving(x, interleavingShape(x.rel.po, none, []))).toBe(true);
    // P0: x=1; r0=y (0)   P1: y=1; r1=x (0)
    const sb = [ev(0, -1, 0, 'W', 0, 0), ev(1, -1, 0, 'W', 1, 0), ev(2, 0, 0, 'W', 0, 1), ev(3, 0, 1, 'R', 1, 0, { rf: 1 }),
      ev(4, 1, 0, 'W', 1, 1), ev(5, 1, 1, 'R', 0, 0, { rf: 0 })];
    const y = buildExecution(program, sb, [[0, 2], [1, 4]]);
    expect(findsInterleaving(y, interleavingShape(y.rel.po, none, []))).toBe(false);
    // With no program order to keep, there is one.
    expect(findsInterleaving(y, interleavingShape(y.rel.po.minus(y.rel.po), none, []))).toBe(true);
  });

  it('refuses an RMW another thread writes into, though po | com is acyclic; the LKMM calls it atomic', () => {
    // P0: r0 = xchg(x, 1) reading the initial 0   P1: x=2, coherence-between the two halves
    const events = [ev(0, -1, 0, 'W', 0, 0), ev(1, 0, 0, 'R', 0, 0, { rf: 0, isRmw: true, rmwPartner: 2, annot: 'MB' }),
      ev(2, 0, 1, 'W', 0, 1, { isRmw: true, rmwPartner: 1, annot: 'MB' }), ev(3, 1, 0, 'W', 0, 2)];
    const x = buildExecution(program, events, [[0, 3, 2], []]);
    expect(findsInterleaving(x, interleavingShape(x.rel.po, Int32Array.of(1, 2), []))).toBe(false);
    expect(findsInterleaving(x, interleavingShape(x.rel.po, none, []))).toBe(true); // the order alone has no cycle
    expect(lkmm.check(x)).toEqual(checkEveryAxiom(x));
    expect(lkmm.check(x).violated).toBe('atomic');
  });

  it('places a grace period before a critical section that would otherwise contain it', () => {
    // P0: rcu_read_lock; r0=x (1); rcu_read_unlock   P1: synchronize_rcu; x=1
    // Ready at once: P0's lock and P1's grace period; taking the lock first
    // would leave the grace period waiting for an unlock that waits for it.
    const events = [ev(0, -1, 0, 'W', 0, 0), ev(1, 0, 0, 'F', -1, 0, { fence: 'rcu-lock' }), ev(2, 0, 1, 'R', 0, 1, { rf: 5 }),
      ev(3, 0, 2, 'F', -1, 0, { fence: 'rcu-unlock' }), ev(4, 1, 0, 'F', -1, 0, { fence: 'sync-rcu' }), ev(5, 1, 1, 'W', 0, 1)];
    const x = buildExecution(program, events, [[0, 5], []]);
    expect(findsInterleaving(x, interleavingShape(x.rel.po, none, [{ lock: 1, unlock: 3, gp: 4 }]))).toBe(true);
    expect(lkmm.check(x)).toEqual(checkEveryAxiom(x));
    expect(lkmm.check(x).consistent).toBe(true);
  });
});
