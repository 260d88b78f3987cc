// Whether a compiled model's own checks forbid every candidate the
// explorer's coherence filter drops (src/explore/coherence.ts: a cycle in
// po-loc | rf | co | fr at one location, or a read-modify-write with
// another thread's write coherence-between its read's source and its
// write). Where they do, the explorer may drop those candidates for the
// model, as it does for the built-in ones; where they do not (a model that
// allows incoherent executions, a coherence check skipped with
// -skipchecks), the model judges coherence itself.
//
// The proof is a lower bound: for each definition, relations of herd's
// base names (po, loc, ext, rf, co, rmw; fr is rf^-1 ; co) that it
// contains in every candidate the model does not reject otherwise. A union
// contains what either side contains, an intersection or a sequence the
// intersections or sequences of what the sides contain, a closure what its
// relation contains; a difference only when it takes away the identity
// from relations that have no pair (e, e) in litmus's events (a read is
// never also a write). Anything else is taken to contain nothing, which
// only ever proves less.
//
// The bound is over herd's base relations, which leave lock operations out
// (models/cat/builtins.ts). So it speaks for the locations no lock
// operation accesses (coherenceJudgedAt): there, every event is an access
// of herd's, reading from writes of that location only, so the explorer's
// edges at that location (po between accesses of a thread, rf, co, fr to
// the next write in co, and an RMW's read and write) are the base
// relations' (po & loc, rf, co, rf^-1 ; co, rmw) restricted to it, and the
// filter's cycle or broken RMW there is one of the terms the checks
// contain. At the locations of locks (lock.cat's own rf and co, made of
// lock events the base relations do not have) the model judges coherence
// itself: the explorer keeps those candidates.

import type { CatExpr } from './ast.js';
import type { CompiledCat } from './compile.js';
import { effectOf } from '../../src/events/primitives.js';
import { evalPure, locationOf, pureRegs, type Program } from '../../src/program/program.js';

/** A relation of base names, written canonically (so that equal relations compare equal as strings). */
type Term = string;

const inter = (a: Term, b: Term): Term => (a < b ? `(${a}&${b})` : `(${b}&${a})`);
const seq = (a: Term, b: Term): Term => `(${a};${b})`;
const inverse = (a: Term): Term | undefined => (/^[a-z]+$/.test(a) ? `${a}^-1` : undefined);

const FR = seq('rf^-1', 'co');
/** What the explorer's coherence filter needs acyclic, term by term: po-loc, rf, co, fr. */
const COHERENCE: readonly Term[] = [inter('po', 'loc'), 'rf', 'co', FR];
/** What its atomicity filter needs empty: rmw & (fre ; coe). */
const ATOMICITY: Term = inter('rmw', seq(inter(FR, 'ext'), inter('co', 'ext')));

/** herd's base relations a bound may name, and how each is written. */
const BASE_TERMS: ReadonlyMap<string, Term> = new Map([
  ['po', 'po'], ['loc', 'loc'], ['ext', 'ext'], ['int', 'int'], ['rf', 'rf'], ['co', 'co'], ['rmw', 'rmw'], ['fr', FR],
]);

/** Base terms with no pair (e, e): strict orders, and relations between reads and writes. */
const IRREFLEXIVE: readonly Term[] = ['po', 'rf', 'co', FR, 'rmw'];

/** Bounds are kept small: dropping terms only proves less. */
const MAX_TERMS = 32;

/**
 * Whether the model's checks (not its flags, nor checks named in
 * `skipChecks`) reject every candidate of a program without spinlocks that
 * the explorer's coherence and atomicity filter would drop.
 */
export function impliesCoherence(cat: CompiledCat, skipChecks: ReadonlySet<string>): boolean {
  const bound = new LowerBound(cat);
  let coherence = false;
  let atomicity = false;
  for (const ci of cat.instrs) {
    const ins = ci.instr;
    if (ins.kind !== 'test' || ins.role !== 'check' || ins.negated) continue;
    if (ins.name !== undefined && skipChecks.has(ins.name)) continue;
    const terms = new Set(bound.expr(ins.expr));
    // A relation that contains po contains po & loc.
    const holds = (t: Term) => terms.has(t) || (t === COHERENCE[0] && terms.has('po'));
    if (ins.test === 'acyclic' && COHERENCE.every(holds)) coherence = true;
    if (terms.has(ATOMICITY)) atomicity = true;
  }
  return coherence && atomicity;
}

/**
 * Where a model whose checks imply coherence (impliesCoherence) still
 * judges it itself for program p (Model.judgesCoherence): nowhere in a
 * program without spinlocks; the locations its lock operations access;
 * everywhere when the address of some lock operation is computed (the
 * locations of locks are then not known before the run).
 */
export function coherenceJudgedAt(p: Program): ReadonlySet<number> | boolean {
  const locks = new Set<number>();
  for (const th of p.threads) {
    const params = new Set(th.paramRegs);
    for (const ins of th.code) {
      if (ins.op !== 'prim' || effectOf(ins.prim).object !== 'spinlock') continue;
      if (!pureRegs(ins.addr).every((r) => params.has(r))) return true;
      const loc = locationOf(p, evalPure(ins.addr, th.initRegs));
      if (loc < 0) return true;
      locks.add(loc);
    }
  }
  return locks.size === 0 ? false : locks;
}

/** The lower bounds of a model's definitions, each computed once. */
class LowerBound {
  private readonly bySlot = new Map<number, Term[]>();
  /** The terms met that have no pair (e, e): the base ones, and intersections with one of them. */
  private readonly irreflexive = new Set<Term>(IRREFLEXIVE);
  constructor(private readonly cat: CompiledCat) {}

  private slot(slot: number): Term[] {
    let known = this.bySlot.get(slot);
    if (!known) {
      this.bySlot.set(slot, []); // a definition met again while being bounded contributes nothing
      known = this.slotTerms(slot);
      this.bySlot.set(slot, known);
    }
    return known;
  }

  private slotTerms(slot: number): Term[] {
    const s = this.cat.slots[slot];
    if (s.instr < 0) {
      const t = BASE_TERMS.get(s.name);
      return t ? [t] : [];
    }
    const ins = this.cat.instrs[s.instr].instr;
    // litmus's own generate_cos gives the candidate's co (or rejects the candidate).
    if (ins.kind === 'with') return ins.name === 'co' && this.isLibraryFunction(ins.from) ? ['co'] : [];
    if (ins.kind !== 'let' || ins.rec) return [];
    const b = ins.bindings.find((x) => x.pattern.kind === 'var' && x.pattern.name === s.name);
    return b && b.expr.kind !== 'fun' ? this.expr(b.expr) : [];
  }

  /** Whether e is an application of litmus's library function generate_cos. */
  private isLibraryFunction(e: CatExpr): boolean {
    if (e.kind !== 'app' || e.fn.kind !== 'var' || e.fn.name !== 'generate_cos' || e.fn.ref?.kind !== 'slot') return false;
    const s = this.cat.slots[e.fn.ref.slot];
    return s.instr >= 0 && this.cat.instrs[s.instr].instr.pos.file.startsWith('litmus:');
  }

  expr(e: CatExpr): Term[] {
    switch (e.kind) {
      case 'var':
        return e.ref?.kind === 'slot' ? this.slot(e.ref.slot) : [];
      case 'unary':
        if (e.op === 'plus' || e.op === 'star' || e.op === 'opt') return this.expr(e.arg);
        if (e.op === 'inv') return this.expr(e.arg).map(inverse).filter((t): t is Term => t !== undefined);
        return [];
      case 'binary':
        return this.binary(e.op, e.args);
      case 'try': {
        // The body's value, or the fallback's: what both contain.
        const other = new Set(this.expr(e.otherwise));
        return this.expr(e.body).filter((t) => other.has(t));
      }
      default:
        return [];
    }
  }

  private binary(op: string, args: CatExpr[]): Term[] {
    const parts = args.map((a) => this.expr(a));
    switch (op) {
      case 'union':
        return capped(parts.flat());
      case 'inter':
        return parts.reduce((acc, p) => capped(acc.flatMap((a) => p.map((b) => this.intersection(a, b)))));
      case 'seq':
        return parts.reduce((acc, p) => capped(acc.flatMap((a) => p.map((b) => seq(a, b)))));
      case 'diff':
        // r \ id is r where r has no pair (e, e).
        return args.length === 2 && this.isIdentity(args[1]) ? parts[0].filter((t) => this.irreflexive.has(t)) : [];
      default:
        return [];
    }
  }

  /** a & b, remembered as irreflexive when either part is. */
  private intersection(a: Term, b: Term): Term {
    const t = inter(a, b);
    if (this.irreflexive.has(a) || this.irreflexive.has(b)) this.irreflexive.add(t);
    return t;
  }

  /** Whether e is herd's identity relation (the base name id, not a model's own). */
  private isIdentity(e: CatExpr): boolean {
    return e.kind === 'var' && e.ref?.kind === 'slot' && this.cat.slots[e.ref.slot].instr < 0 && this.cat.slots[e.ref.slot].name === 'id';
  }
}

function capped(ts: Term[]): Term[] {
  return [...new Set(ts)].slice(0, MAX_TERMS);
}
