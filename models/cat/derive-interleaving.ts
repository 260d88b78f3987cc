// The interleaving shortcut, derived from a compiled model's definitions
// for one event structure: which of the model's checks (and `with`s) every
// candidate passes that is an interleaving - some strict total order T of
// its events containing its rf, co and fr, a set of static program-order
// edges (`order`), keeping every RMW of `atomic` atomic and every event of
// a grace constraint out of its section (models/interleaving.ts searches
// for one, per candidate).
//
// The theorem. Let R be the relation of a check `acyclic R` or
// `irreflexive R`, and B its upper bound (models/cat/bounds.ts): every
// chain of B collapses to a strict factor of a forward class (rf, co,
// coimm, fr, or fwd), given the static edges its needs name and the grace
// constraints it collects. Then R is inside T in every candidate with such
// a T that contains those needs and respects those constraints: R is
// acyclic and irreflexive, and the check passes. For `empty R`, every
// chain of B must be empty, or be (a part of) fr & ext ; co & ext
// intersected with a static set S of same-thread (read, write) pairs: a
// write of another thread coherence-between the read's source and the
// write, which the search's atomicity forbids for the pairs of S. A `with`
// of litmus's generate_cos(pco) has its element in every complete
// candidate whose co contains pco, which holds when pco is inside T
// between writes of one location (bounds.ts). So the candidate needs only
// its flags and the other checks computed (models/cat/model.ts): its
// verdict is unchanged, as every skipped check passes.
//
// Bounds that hold of complete candidates only (the final writes, a `with`
// that must exist) are used for complete candidates only; a partial
// execution (a prefix check) skips only the checks proved without them,
// and every `with` (whether a prefix has the with's element or not, a
// prefix-safe check it fails is failed by every completion).
// The order taken is the union of the needs: when it has a cycle, no
// candidate is an interleaving of it, and there is no rule.

import { Relation } from '../../src/relation/relation.js';
import { interleavingShape, type InterleavingShape } from '../interleaving.js';
import type { Bounds, Chain, Constraint, DynFactor } from './bounds.js';
import type { CompiledCat } from './compile.js';

export interface InterleavingRule {
  /** The search's shape; undefined when no check is proved (only `always` holds). */
  shape: InterleavingShape | undefined;
  /** Instructions (checks and withs, by index) every complete interleaving candidate passes. */
  whole: ReadonlySet<number>;
  /** The checks a partial execution that is an interleaving passes. */
  prefix: ReadonlySet<number>;
  /**
   * Tests (checks and flags) whose relation is empty in every candidate of
   * the structure (its bound has no chain left: a static factor of it is
   * empty here), with the `with`s every candidate has: passed (a flag not
   * raised) by every candidate, interleaving or not.
   */
  always: ReadonlySet<number>;
  /** The order the search keeps (for tests and explanations). */
  order: Relation;
}

/** What proving one check needs. */
interface Proof {
  needs: Relation[];
  cons: Constraint[];
  atomic: Relation[];
  whole: boolean;
}

/**
 * The rule for the structure the bounds are of, or undefined when no check
 * is proved (or the order they need has a cycle). `skipChecks`: the checks
 * herd's -skipchecks leaves out (never failing, nothing to prove).
 */
export function deriveInterleaving(cat: CompiledCat, bounds: Bounds, skipChecks: ReadonlySet<string>): InterleavingRule | undefined {
  const n = bounds.n;
  const whole = new Set<number>();
  const prefix = new Set<number>();
  const needs: Relation[] = [];
  const cons: Constraint[] = [];
  const atomic: Relation[] = [];
  const take = (p: Proof) => {
    needs.push(...p.needs);
    cons.push(...p.cons);
    atomic.push(...p.atomic);
  };
  const always = new Set<number>();
  cat.instrs.forEach((ci, i) => {
    const ins = ci.instr;
    if (ins.kind === 'with') {
      // A partial execution need not have the with's element: it is judged by the prefix-safe checks, which only grow.
      prefix.add(i);
      const w = bounds.withOf(i);
      if (w.proven && !w.proven.whole) always.add(i);
      if (w.proven) {
        take({ needs: w.proven.needs ? [w.proven.needs] : [], cons: [...w.proven.cons], atomic: [], whole: true });
        whole.add(i);
      }
      return;
    }
    if (ins.kind !== 'test') return;
    // A flag `~empty X` is never raised, a check `empty X` or `acyclic X` always passes, where X has nothing.
    if (ci.stage !== 'static' && (ins.role === 'flag' ? ins.negated && ins.test === 'empty' : ins.role === 'check' && !ins.negated)) {
      if (bounds.isEmpty(bounds.expr(ins.expr, null))) always.add(i);
    }
    if (ins.role !== 'check') return;
    if (ins.name !== undefined && skipChecks.has(ins.name)) {
      whole.add(i);
      prefix.add(i);
      return;
    }
    // A static check is judged once per structure anyway; a negated one is not a bound's to prove.
    if (ci.stage === 'static' || ins.negated) return;
    const b = bounds.expr(ins.expr, null);
    if (b.kind !== 'rel') return;
    const p = ins.test === 'empty' ? provesEmpty(b.chains, bounds) : provesOrdered(b.chains, bounds);
    if (!p) return;
    take(p);
    whole.add(i);
    if (!p.whole) prefix.add(i);
  });
  const order = new Relation(n).or(...needs);
  if (whole.size === 0 || !order.irreflexive() || !order.acyclic()) {
    return always.size === 0 ? undefined : { shape: undefined, whole: always, prefix: always, always, order: new Relation(n) };
  }
  for (const i of always) (whole.add(i), prefix.add(i));
  const pairs: number[] = [];
  const seen = new Relation(n);
  for (const a of atomic) {
    a.forEach((r, w) => {
      if (!seen.has(r, w)) (seen.add(r, w), pairs.push(r, w));
    });
  }
  return { shape: interleavingShape(order, Int32Array.from(pairs), dedupe(cons)), whole, prefix, always, order };
}

/** acyclic or irreflexive: every chain strictly forward. */
function provesOrdered(chains: readonly Chain[], bounds: Bounds): Proof | undefined {
  const p: Proof = { needs: [], cons: [], atomic: [], whole: false };
  for (const c of chains) {
    const d = bounds.collapse(c);
    if (!d || !forward(d) || !(d.strict || d.env.irreflexive())) return undefined;
    add(p, d);
  }
  return p;
}

/** empty: every chain is an atomicity violation of the pairs it is intersected with. */
function provesEmpty(chains: readonly Chain[], bounds: Bounds): Proof | undefined {
  const p: Proof = { needs: [], cons: [], atomic: [], whole: false };
  const f = bounds.f;
  for (const c of chains) {
    // fre ; coe (as one factor, or two), within same-thread (read, write) pairs of one location: the
    // search keeps no other thread's write coherence-between such a read's source and its write.
    const d = bounds.collapse(c);
    if (!d || d.cls !== 'frco') return undefined;
    if (!d.env.includedIn(f.int.and(f.loc)) || !d.env.includedIn(f.R.cross(f.W))) return undefined;
    add(p, d);
    p.atomic.push(d.env);
  }
  return p;
}

function forward(d: DynFactor): boolean {
  return d.cls === 'rf' || d.cls === 'co' || d.cls === 'coimm' || d.cls === 'fr' || d.cls === 'frco' || d.cls === 'fwd';
}

function add(p: Proof, d: DynFactor): void {
  if (d.needs) p.needs.push(d.needs);
  p.cons.push(...d.cons);
  if (d.whole) p.whole = true;
}

function dedupe(cs: readonly Constraint[]): Constraint[] {
  const seen = new Set<string>();
  return cs.filter((c) => {
    const k = `${c.lock},${c.unlock},${c.gp}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

