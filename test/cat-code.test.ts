// The compiled closures of a cat model (models/cat/code.ts): a `let rec`
// solved with its invariant factors composed once per solve gives the
// least fixpoint computed naively, round by round, with the relation
// algebra; and those factors are indeed read once per solve, not once per
// round.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CatCode, solveRec, type Code, type Run } from '../models/cat/code.js';
import { compileCat } from '../models/cat/compile.js';
import { relValue, type Value } from '../models/cat/values.js';
import { EventSet, fixpoint, Relation } from '../src/relation/relation.js';

/** A model of one recursive definition over base relations (the names are herd's, their values random). */
const MODEL = `"fixpoint"
let rec r = (po ; rf) | (addr ; data ; r ; ctrl ; rmw) | ((r ; loc ; r) & ext) | (rf ; r ; [W] ; co)
`;

const BASE = ['po', 'rf', 'addr', 'data', 'ctrl', 'rmw', 'loc', 'ext', 'co'] as const;

function compiled() {
  const cat = compileCat([{ path: 'm.cat', text: MODEL }], { find: () => undefined }, new Set());
  const i = cat.instrs.findIndex((c) => c.instr.kind === 'let' && c.instr.rec);
  const ci = cat.instrs[i];
  if (ci.instr.kind !== 'let') throw new Error('no let rec');
  return { cat, ins: ci.instr, slots: ci.defines };
}

/** A run over fixed values of the base names, counting each name's reads. */
function runOf(cat: ReturnType<typeof compiled>['cat'], n: number, values: Map<string, Value>, cells: Value[], slots: number[]) {
  const reads = new Map<string, number>();
  const byslot = new Map<number, string>();
  for (const [name, s] of cat.base) byslot.set(s, name);
  const run: Run = {
    n,
    variants: new Set(),
    invariants: [],
    slot(s) {
      const k = slots.indexOf(s);
      if (k >= 0) return cells[k];
      const name = byslot.get(s)!;
      reads.set(name, (reads.get(name) ?? 0) + 1);
      return values.get(name)!;
    },
    hoisted: (_i: number, code: Code) => code(run, null),
    apply: () => {
      throw new Error('no functions here');
    },
  };
  return { run, reads };
}

const relation = (n: number) =>
  fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 2 }).map((pairs) => Relation.fromPairs(n, pairs));

describe('a let rec compiled to closures', () => {
  it('gives the naive least fixpoint (random relations)', () => {
    const { cat, ins, slots } = compiled();
    const code = new CatCode();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(fc.constant(n), fc.array(relation(n), { minLength: BASE.length, maxLength: BASE.length }), fc.array(fc.boolean(), { minLength: n, maxLength: n }))), ([n, rels, isW]) => {
        const v = new Map<string, Value>(BASE.map((name, k) => [name, relValue(rels[k])]));
        const W = EventSet.where(n, (e) => isW[e]);
        v.set('W', { kind: 'set', set: W });
        const cells: Value[] = [{ kind: 'empty' }];
        const { run } = runOf(cat, n, v, cells, slots);
        solveRec(code.recOf(ins, slots), ins.pos, run, null, { get: (k) => cells[k], set: (k, x) => (cells[k] = x) });
        const [po, rf, addr, data, ctrl, rmw, loc, ext, co] = rels;
        const naive = fixpoint(n, (r) => po.seq(rf).or(addr.seq(data).seq(r).seq(ctrl).seq(rmw), r.seq(loc).seq(r).and(ext), rf.seq(r).seq(W.id()).seq(co)));
        const got = cells[0];
        const rel = got.kind === 'rel' ? got.rel : Relation.empty(n);
        expect(rel.pairs()).toEqual(naive.pairs());
      }),
      { numRuns: 200 },
    );
  });

  it('reads the factors that do not involve the definition once per solve, not once per round', () => {
    const { cat, ins, slots } = compiled();
    const code = new CatCode();
    const n = 6;
    // A chain: the fixpoint takes several rounds.
    const chain = Relation.fromPairs(n, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]]);
    const full = Relation.where(n, () => true);
    const idRel = Relation.where(n, (a, b) => a === b);
    const v = new Map<string, Value>([['po', relValue(chain)], ['rf', relValue(idRel)], ['addr', relValue(idRel)], ['data', relValue(idRel)], ['ctrl', relValue(idRel)], ['rmw', relValue(idRel)], ['loc', relValue(chain)], ['ext', relValue(full)], ['co', relValue(idRel)]]);
    v.set('W', { kind: 'set', set: EventSet.where(n, () => true) });
    const cells: Value[] = [{ kind: 'empty' }];
    const { run, reads } = runOf(cat, n, v, cells, slots);
    solveRec(code.recOf(ins, slots), ins.pos, run, null, { get: (k) => cells[k], set: (k, x) => (cells[k] = x) });
    const rounds = reads.get('loc')!; // r ; loc ; r reads loc every round
    expect(rounds).toBeGreaterThan(2);
    // po ; rf, addr ; data and ctrl ; rmw: composed once.
    for (const name of ['po', 'addr', 'data', 'ctrl', 'rmw']) expect(reads.get(name), name).toBe(1);
    expect(reads.get('ext')).toBe(rounds);
  });
});
