// The relation algebra's shortcuts (src/relation/relation.ts) against
// their definitions, on random relations: r ; s (one word a row up to 32
// events), r^-1, r+ (Warshall skipping
// events without successors), r ⊆ x within a set, and "a strict total
// order of S" read off the out-degrees.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EventSet, Relation } from '../src/relation/relation.js';

const sized = fc.integer({ min: 1, max: 40 }).chain((n) =>
  fc.tuple(
    fc.constant(n),
    fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 2 }),
    fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 2 }),
    fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  ),
);

/** r+ by its definition: r | r;r | r;r;r ... until nothing is added. */
function closure(r: Relation): Relation {
  let acc = r.clone();
  for (;;) {
    const next = acc.or(acc.seq(r));
    if (next.equals(acc)) return acc;
    acc = next;
  }
}

describe('the relation algebra', () => {
  it('computes r^-1, r+ and r ⊆ x as their definitions say', () => {
    fc.assert(
      fc.property(sized, ([n, p, q, inS]) => {
        const r = Relation.fromPairs(n, p);
        const x = Relation.fromPairs(n, q);
        const s = EventSet.where(n, (e) => inS[e]);
        expect(r.inv().pairs().sort()).toEqual(p.map(([a, b]) => [b, a] as [number, number]).filter((e, i, all) => all.findIndex((f) => f[0] === e[0] && f[1] === e[1]) === i).sort());
        expect(r.plus().pairs()).toEqual(closure(r).pairs());
        const composed = Relation.where(n, (a, c) => p.some(([a1, b1]) => a1 === a && q.some(([b2, c2]) => b2 === b1 && c2 === c)));
        expect(r.seq(x).pairs()).toEqual(composed.pairs());
        expect(r.includedIn(x)).toBe(r.minus(x).isEmpty());
        expect(r.includedIn(x, s)).toBe(r.restrict(s, s).minus(x).isEmpty());
      }),
      { numRuns: 300 },
    );
  });

  it('knows a strict total order of a set (irreflexive, transitive, total) from the out-degrees', () => {
    const byDefinition = (t: Relation, s: EventSet): boolean => {
      const r = t.restrict(s, s);
      if (!r.irreflexive() || !r.seq(r).minus(r).isEmpty()) return false;
      const m = s.members();
      return m.every((a) => m.every((b) => a === b || r.has(a, b) || r.has(b, a)));
    };
    // Random relations are seldom orders: also a random order of S, with one pair perhaps flipped.
    const withOrders = sized.chain(([n, p, , inS]) =>
      fc.tuple(fc.constant(n), fc.constant(p), fc.constant(inS), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }), fc.nat(n), fc.nat(n)),
    );
    fc.assert(
      fc.property(withOrders, ([n, p, inS, perm, fa, fb]) => {
        const s = EventSet.where(n, (e) => inS[e]);
        const r = Relation.fromPairs(n, p);
        expect(r.isStrictTotalOrderOn(s)).toBe(byDefinition(r, s));
        const order = Relation.where(n, (a, b) => perm.indexOf(a) < perm.indexOf(b));
        expect(order.isStrictTotalOrderOn(s)).toBe(true);
        const flipped = order.clone();
        if (fa < n && fb < n && order.has(fa, fb)) {
          flipped.add(fb, fa);
          expect(flipped.isStrictTotalOrderOn(s)).toBe(byDefinition(flipped, s));
        }
      }),
      { numRuns: 300 },
    );
  });
});
