// Explanations from a compiled model's own definitions: how the model
// keeps two events of a thread in order (Model.orderOf), and the cycle of
// the check an execution breaks (Model.explain), each step named by the
// smallest of the model's definitions that gives it.
//
// A pair of events in a check's relation is taken apart along the
// definitions that build it: a union by the operand that holds the pair
// (the one with the fewest pairs), a sequence `r1 ; [S] ; r2` by the events
// it passes through, a closure `r*` or `r+` by a path of r, an
// intersection or a difference written inside a definition (`fence & int`
// inside ppo) by its first operand, an application whose argument holds the
// pair (`A-cumul(po-rel)`) by that argument. A name is followed into its
// definition; a step that its definition builds from herd's base relations
// only (`[Acquire] ; po ; [M]`), or that is an intersection or difference
// as a whole (`rfe = rf & ext`), is named by the definition itself. So
// under the LKMM a step of smp_load_acquire() is `acq-po`, not `ppo` or
// `hb`, and a cycle of hb reads fre, po-rel, rfe, acq-po. Every step is
// found by evaluating the model's own expressions on the execution: a
// definition edited (ctrl dropped from rwdep) names what the edited model
// computes.

import type { Event } from '../../src/events/event.js';
import type { Execution } from '../../src/model/execution.js';
import type { FlagFinding, Highlight, Ordering } from '../../src/model/model.js';
import type { EventSet, Relation } from '../../src/relation/relation.js';
import type { CatExpr, CatInstr, CatPos } from './ast.js';
import type { CompiledCat } from './compile.js';
import { asRelOrNull, asSetOrNull, type Value } from './values.js';

/** One step of an explanation: from, to, the name that gives it, and where that name is defined. */
export interface Step {
  from: number;
  to: number;
  label: string;
  /** A base relation of herd's or an expression's text, which an enclosing definition names better. */
  weak: boolean;
  /** An expression's text, not a name (`rf^-1`): a definition with such a step is named as a whole. */
  text?: boolean;
  /** The base relation at the bottom of the step, when it is one (addr, data, ctrl, po, ...). */
  base?: string;
  /** The definition's slot, when the label is a definition of the model. */
  slot?: number;
}

/** What explanations need of a compiled model: its definitions, and their values on an execution. */
export interface ExplainSource {
  cat: CompiledCat;
  /** Checks not enforced (herd's -skipchecks). */
  skipChecks: ReadonlySet<string>;
  /** Where a position is, as explanations show it (`file:line`). */
  where(pos: CatPos): string;
}

/** Nested definitions beyond this are named, not taken apart further. */
const MAX_DEPTH = 40;

/** Base relations of herd that say in words what orders a pair. */
const BASE_WORDS: Readonly<Record<string, string>> = {
  addr: 'an address dependency',
  data: 'a data dependency',
  ctrl: 'a control dependency',
  rmw: 'an atomic read-modify-write',
  loc: 'the same location',
};

/** The acyclic checks the model enforces, in its order, with their names. */
function acyclicChecks(src: ExplainSource): (CatInstr & { kind: 'test' })[] {
  return src.cat.instrs
    .map((ci) => ci.instr)
    .filter((i): i is CatInstr & { kind: 'test' } => i.kind === 'test' && i.role === 'check' && i.test === 'acyclic' && !(i.name !== undefined && src.skipChecks.has(i.name)));
}

/**
 * Explanations of one execution under a compiled model: `value` gives the
 * value of any expression of the model on it (evaluate.ts valuesOf).
 */
export class Explainer {
  private readonly rels = new Map<CatExpr, Relation | null>();
  private readonly sets = new Map<CatExpr, EventSet | null>();
  /** One `var` node per slot, to read a definition's value. */
  private readonly slotVars = new Map<number, CatExpr>();
  private depth = 0;

  constructor(
    private readonly src: ExplainSource,
    private readonly x: Execution,
    private readonly value: (e: CatExpr) => Value | undefined,
  ) {}

  private rel(e: CatExpr): Relation | null {
    let r = this.rels.get(e);
    if (r === undefined) {
      const v = this.value(e);
      this.rels.set(e, (r = v ? asRelOrNull(v, this.x.n) : null));
    }
    return r;
  }

  private setOf(e: CatExpr): EventSet | null {
    let s = this.sets.get(e);
    if (s === undefined) {
      const v = this.value(e);
      this.sets.set(e, (s = v && v.kind !== 'empty' ? asSetOrNull(v, this.x.n) : null));
    }
    return s;
  }

  private slotVar(slot: number): CatExpr {
    let e = this.slotVars.get(slot);
    if (!e) {
      const info = this.src.cat.slots[slot];
      this.slotVars.set(slot, (e = { kind: 'var', name: info.name, pos: { file: 'litmus:explain', line: 1, col: 1 }, ref: { kind: 'slot', slot } }));
    }
    return e;
  }

  /** A relation-valued definition's value, by slot (null if it is not a relation). */
  slotRelation(slot: number): Relation | null {
    return this.rel(this.slotVar(slot));
  }

  /** The steps that give (a, b) in e's relation, or undefined when it does not hold the pair. */
  steps(e: CatExpr, a: number, b: number): Step[] | undefined {
    const r = this.rel(e);
    if (!r || !r.has(a, b)) return undefined;
    if (this.depth > MAX_DEPTH) return [{ from: a, to: b, label: exprText(e), weak: true, text: true }];
    this.depth++;
    try {
      return this.take(e, a, b);
    } finally {
      this.depth--;
    }
  }

  private take(e: CatExpr, a: number, b: number): Step[] {
    const atom = (): Step[] => [{ from: a, to: b, label: exprText(e), weak: true, text: e.kind !== 'var' }];
    switch (e.kind) {
      case 'var':
        return this.named(e, a, b);
      case 'binary': {
        if (e.op === 'union') {
          let best: CatExpr | undefined;
          let size = Infinity;
          for (const arg of e.args) {
            const ar = this.rel(arg);
            if (!ar || !ar.has(a, b)) continue;
            const n = pairCount(ar);
            if (n < size) [best, size] = [arg, n];
          }
          return best ? (this.steps(best, a, b) ?? atom()) : atom();
        }
        if (e.op === 'inter' || e.op === 'diff') return this.steps(e.args[0], a, b) ?? atom();
        if (e.op === 'seq') return this.sequence(e.args, a, b) ?? atom();
        return atom();
      }
      case 'unary': {
        if (e.op === 'opt' || e.op === 'star') {
          if (a === b) return [];
          return this.closure(e.arg, a, b) ?? atom();
        }
        if (e.op === 'plus') return this.closure(e.arg, a, b) ?? atom();
        return atom();
      }
      case 'app': {
        // A function of the model applied: its body with the argument in place of the parameter.
        const body = this.applied(e);
        return (body && this.steps(body, a, b)) ?? atom();
      }
      default:
        return atom();
    }
  }

  /** A name: a definition of the model followed into its expression, or a base relation. */
  private named(e: CatExpr & { kind: 'var' }, a: number, b: number): Step[] {
    const ref = e.ref;
    if (!ref || ref.kind !== 'slot') return [{ from: a, to: b, label: e.name, weak: true }];
    const info = this.src.cat.slots[ref.slot];
    if (info.instr < 0) return [{ from: a, to: b, label: e.name, weak: true, base: e.name }];
    const def = definitionOf(this.src.cat, ref.slot);
    const own = (base?: string): Step[] => [{ from: a, to: b, label: info.name, weak: false, base, slot: ref.slot }];
    // A whole intersection or difference is its own name (rfe = rf & ext is rfe, not rf).
    if (!def || ((def.kind === 'binary' && (def.op === 'inter' || def.op === 'diff')))) return own(def ? baseOf(this.steps(def, a, b)) : undefined);
    const inner = this.steps(def, a, b);
    if (!inner) return own();
    if (inner.length === 0) return a === b ? [] : own();
    // A step through a base relation or an expression (po ; [UL] ; rf ; [LKR] ; po, fr = rf^-1 ; co): the definition names it.
    // Only a path of named definitions (prop: fr, po-rel, rfe) is shown as its steps.
    if (inner.some((s) => s.weak)) return inner.length === 1 ? own(inner[0].base) : own();
    return inner;
  }

  private readonly bodies = new Map<CatExpr, CatExpr | null>();

  /**
   * A function of the model applied to an argument (A-cumul(strong-fence |
   * po-rel)), as its body with the argument written in place of its
   * parameter; null for anything else (a native, a tuple of parameters, a
   * body with names of its own).
   */
  private applied(e: CatExpr & { kind: 'app' }): CatExpr | null {
    let body = this.bodies.get(e);
    if (body === undefined) {
      body = null;
      const fn = e.fn;
      const def = fn.kind === 'var' && fn.ref?.kind === 'slot' ? functionOf(this.src.cat, fn.ref.slot) : undefined;
      if (def && def.param.kind === 'var' && def.param.name !== null) body = substitute(def.body, def.param.name, e.arg);
      this.bodies.set(e, body);
    }
    return body;
  }

  /** r1 ; [S] ; r2 ; ...: the events a path from a to b passes through, each factor's step taken apart. */
  private sequence(args: readonly CatExpr[], a: number, b: number): Step[] | undefined {
    // Breadth first over (factors passed, event): the first path found has the fewest steps.
    const k = args.length;
    const prev = new Map<string, [number, number] | null>();
    const key = (i: number, e: number) => `${i},${e}`;
    let frontier: [number, number][] = [[0, a]];
    prev.set(key(0, a), null);
    const n = this.x.n;
    while (frontier.length > 0) {
      const next: [number, number][] = [];
      for (const [i, e] of frontier) {
        if (i === k) continue;
        const f = args[i];
        const visit = (to: number) => {
          const kk = key(i + 1, to);
          if (prev.has(kk)) return;
          prev.set(kk, [i, e]);
          next.push([i + 1, to]);
        };
        if (f.kind === 'unary' && f.op === 'toid') {
          if (this.setOf(f.arg)?.has(e)) visit(e);
          continue;
        }
        const r = this.rel(f);
        if (!r) continue;
        for (let to = 0; to < n; to++) if (r.has(e, to)) visit(to);
      }
      // Steps that stay on an event (identity, [S]) are taken before those that move.
      frontier = next;
      if (prev.has(key(k, b))) break;
    }
    if (!prev.has(key(k, b))) return undefined;
    const hops: [number, number, number][] = [];
    for (let at: [number, number] = [k, b]; ; ) {
      const p = prev.get(key(at[0], at[1]));
      if (!p) break;
      hops.unshift([p[0], p[1], at[1]]);
      at = p;
    }
    const out: Step[] = [];
    for (const [i, from, to] of hops) {
      const f = args[i];
      // [S], and a factor that stays on an event (rmw-sequence, po?), are no step.
      if (f.kind === 'unary' && f.op === 'toid') continue;
      if (from === to) continue;
      out.push(...(this.steps(f, from, to) ?? [{ from, to, label: exprText(f), weak: true, text: true }]));
    }
    return out;
  }

  /** r+ (or r* between distinct events): a shortest path of r, each step taken apart. */
  private closure(arg: CatExpr, a: number, b: number): Step[] | undefined {
    const r = this.rel(arg);
    if (!r) return undefined;
    if (r.has(a, b)) return this.steps(arg, a, b);
    const path = r.path(a, b);
    if (!path) return undefined;
    return path.slice(1).flatMap((v, i) => this.steps(arg, path[i], v) ?? [{ from: path[i], to: v, label: exprText(arg), weak: true, text: true }]);
  }

  // -------------------------------------------------- what the model does with them

  /** How the model keeps a -> b (events of one thread) in order: a check's relation holds it, or a path of them on the thread. */
  orderOf(a: number, b: number): Ordering | undefined {
    const checks = acyclicChecks(this.src);
    const direct = (p: number, q: number): Step[] | undefined => {
      for (const c of checks) {
        const s = this.steps(c.expr, p, q);
        if (s && s.length > 0) return s;
      }
      return undefined;
    };
    let steps = direct(a, b);
    if (!steps) {
      // Through other events of the thread, each step kept by a check.
      const { int } = this.x.rel;
      let within: Relation | undefined;
      for (const c of checks) {
        const r = this.rel(c.expr);
        if (r) within = within ? within.or(r.and(int)) : r.and(int);
      }
      const path = within?.path(a, b);
      if (!path || path.length < 3) return undefined;
      steps = [];
      for (let i = 0; i + 1 < path.length; i++) {
        const s = direct(path[i], path[i + 1]);
        if (!s) return undefined;
        steps.push(...s);
      }
    }
    return this.ordering(steps, a, b);
  }

  /**
   * Whether a definition of the model (any of that name) or a base
   * relation named `name` holds a -> b: what a step labelled so claims
   * (for tests that re-check every claim of an explanation).
   */
  holds(name: string, a: number, b: number): boolean {
    return this.src.cat.slots.some((s, slot) => s.name === name && (this.slotRelation(slot)?.has(a, b) ?? false));
  }

  /** Whether a check's relation holds a -> b itself (not through other events). */
  keepsDirectly(a: number, b: number): boolean {
    return acyclicChecks(this.src).some((c) => this.rel(c.expr)?.has(a, b));
  }

  private ordering(steps: Step[], a: number, b: number): Ordering {
    const parts = steps.map((s) => ({ how: this.howOf(s), relation: s.label, at: s.slot !== undefined ? this.whereOf(s.slot) : undefined }));
    const how = parts.map((p) => (p.how === p.relation ? p.relation : p.how)).join(', then ');
    const relation = parts.map((p) => p.relation).join(';');
    const at = [...new Set(parts.filter((p) => p.at).map((p) => `${p.relation} ${p.at}`))];
    return { how, relation, cumulative: this.cumulative(a, b, steps[0]), ...(at.length ? { definedAt: at } : {}) };
  }

  private whereOf(slot: number): string | undefined {
    const instr = this.src.cat.slots[slot].instr;
    if (instr < 0) return undefined;
    const pos = this.src.cat.instrs[instr].instr.pos;
    return pos.file.startsWith('litmus:') ? undefined : this.src.where(pos);
  }

  /**
   * What orders a step, in words: a fence of the definition's sets between
   * the two events (smp_wmb(), smp_mb(), synchronize_rcu()), an annotated
   * access of its sets at either end (acquire, release), a dependency; else
   * the definition's name.
   */
  private howOf(s: Step): string {
    if (s.base && BASE_WORDS[s.base]) return BASE_WORDS[s.base];
    const ev = this.x.events;
    const a = ev[s.from];
    const b = ev[s.to];
    const sets = s.slot !== undefined ? this.setsRead(s.slot) : [];
    const inSets = (e: number) => sets.some((set) => set.has(e));
    if (a.thread === b.thread && a.thread >= 0) {
      const between = ev.filter((e) => e.thread === a.thread && e.poIndex > a.poIndex && e.poIndex < b.poIndex && inSets(e.id));
      const fences = between.filter((e) => e.kind === 'F');
      const named = fences.length > 0 ? fences : between.filter((e) => e.lock !== undefined);
      if (named.length > 0) return [...new Set(named.map(callText))].join(' and ');
    }
    for (const e of [a, b]) {
      const word = ANNOT_WORDS[e.lock ?? e.annot];
      if (word && inSets(e.id)) return `${word} (${e.text ?? 'this access'})`;
    }
    if (s.slot !== undefined && readsBase(this.src.cat, s.slot, 'loc') && this.x.rel.loc.has(s.from, s.to)) return 'the same location';
    return s.label;
  }

  /** The sets of events a definition reads by name (Acquire in acq-po, Wmb in wmb), their values here. */
  private setsRead(slot: number): EventSet[] {
    const def = definitionOf(this.src.cat, slot);
    if (!def) return [];
    const out: EventSet[] = [];
    const base = new Set(['R', 'W', 'M', 'F', 'IW', 'FW']);
    walk(def, (e) => {
      if (e.kind !== 'var' || e.ref?.kind !== 'slot' || base.has(e.name)) return;
      const s = this.setOf(e);
      if (s) out.push(s);
    });
    return out;
  }

  /**
   * Whether the order of a -> b reaches back to the write a read from
   * another CPU (A-cumulativity): some definition of the model that holds
   * a -> b by the same definition (its steps go through the first step's)
   * orders that write before b, without ordering it before a (cumul-fence
   * holds po-rel and A-cumul(po-rel); hb* holds everything, both ways).
   */
  private cumulative(a: number, b: number, first: Step): boolean {
    const w = this.x.rfSource[a];
    if (first.slot === undefined || w === undefined || w < 0 || this.x.events[w].thread === this.x.events[a].thread) return false;
    for (let slot = 0; slot < this.src.cat.slots.length; slot++) {
      if (this.src.cat.slots[slot].instr < 0) continue;
      const r = this.slotRelation(slot);
      if (!r || !r.has(a, b) || !r.has(w, b) || r.has(w, a)) continue;
      if (this.steps(this.slotVar(slot), a, b)?.some((s) => s.slot === first.slot)) return true;
    }
    return false;
  }

  /**
   * What a flag the model raised on this execution finds (`flag ~empty
   * race as data-race`): each pair (or event) of its relation, named by the
   * smallest definition that holds it (a union by its operand: ww-race,
   * wr-race, rw-race), with what that definition subtracts and the pair is
   * not in (`pre-race & rf \ wr-vis \ rw-xbstar^-1`: it escapes wr-vis and
   * rw-xbstar^-1, the model's reasons two accesses do not race).
   */
  flagged(flag: string): FlagFinding | undefined {
    const tests = this.src.cat.instrs.map((c) => c.instr).filter((i): i is CatInstr & { kind: 'test' } => i.kind === 'test' && i.role === 'flag' && i.name === flag);
    for (const test of tests) {
      const v = this.value(test.expr);
      if (!v) continue;
      const r = asRelOrNull(v, this.x.n);
      const s = r ? null : asSetOrNull(v, this.x.n);
      const pairs: [number, number][] = r ? r.pairs() : s ? [...Array(this.x.n).keys()].filter((e) => s.has(e)).map((e) => [e, e]) : [];
      if (pairs.length === 0) continue;
      const found = pairs.map(([a, b]) => {
        const steps = r ? this.steps(test.expr, a, b) : undefined;
        const named = steps?.length === 1 && steps[0].slot !== undefined ? steps[0] : undefined;
        const def = named ? definitionOf(this.src.cat, named.slot!) : undefined;
        return { from: a, to: b, label: named?.label ?? exprText(test.expr), unless: def ? subtracted(def).map(exprText) : [], slot: named?.slot };
      });
      const at = [...new Set(found.flatMap((f) => (f.slot !== undefined ? [`${f.label} ${this.whereOf(f.slot) ?? ''}`.trim()] : [])).filter((t) => t.includes(' ')))];
      return { name: flag, pairs: found.map(({ slot: _, ...f }) => f), ...(at.length ? { definedAt: at } : {}) };
    }
    return undefined;
  }

  /** The cycle (or offending pairs) of the named check, each step named by the definitions that give it. */
  explain(axiom: string): Highlight | undefined {
    const test = this.src.cat.instrs.map((c) => c.instr).find((i): i is CatInstr & { kind: 'test' } => i.kind === 'test' && i.role === 'check' && (i.name ?? i.test) === axiom);
    if (!test) return undefined;
    const r = this.rel(test.expr);
    if (!r) return undefined;
    let edges: [number, number][] | undefined;
    if (test.test === 'acyclic') edges = r.cycle();
    else {
      const pairs = r.pairs();
      const shown = test.test === 'irreflexive' ? pairs.filter(([p, q]) => p === q) : pairs;
      edges = shown.slice(0, 1);
    }
    if (!edges || edges.length === 0) return undefined;
    const steps: Step[] = [];
    for (const [p, q] of edges) steps.push(...(this.offending(test, p, q) ?? [{ from: p, to: q, label: exprText(test.expr), weak: true }]));
    const at = new Map<string, string>();
    for (const s of steps) {
      const where = s.slot !== undefined ? this.whereOf(s.slot) : undefined;
      if (where) at.set(s.label, where);
    }
    return {
      name: axiom,
      ...(test.test === 'empty' ? { path: true } : {}),
      edges: steps.map((s) => [s.from, s.to]),
      labels: steps.map((s) => s.label),
      ...(at.size ? { definedAt: [...at].map(([l, w]) => `${l} ${w}`) } : {}),
    };
  }

  /**
   * The steps of an offending pair: for an intersection at the top of an
   * empty or irreflexive check (`rmw & (fre ; coe)`), the operand that
   * takes it apart into the most steps (the path that breaks it).
   */
  private offending(test: CatInstr & { kind: 'test' }, p: number, q: number): Step[] | undefined {
    const e = test.expr;
    if (test.test !== 'acyclic' && e.kind === 'binary' && e.op === 'inter') {
      let best: Step[] | undefined;
      for (const arg of e.args) {
        const s = this.steps(arg, p, q);
        if (s && (!best || s.length > best.length)) best = s;
      }
      if (best) return best;
    }
    return this.steps(e, p, q);
  }
}

/** How annotated events read in words. */
const ANNOT_WORDS: Readonly<Record<string, string>> = {
  ACQUIRE: 'acquire',
  RELEASE: 'release',
  MB: 'fully ordered',
  LKR: 'the lock taken',
  UL: 'the unlock',
};

/** An event's primitive as called: smp_mb(), spin_unlock(). */
function callText(e: Event): string {
  return `${e.text ?? e.fence ?? 'this'}()`;
}

/** The expression a top-level slot is defined as (a plain let of one name), if it is one. */
function definitionOf(cat: CompiledCat, slot: number): CatExpr | undefined {
  const info = cat.slots[slot];
  if (info.instr < 0) return undefined;
  const ci = cat.instrs[info.instr];
  const ins = ci.instr;
  if (ins.kind !== 'let' || ins.rec) return undefined;
  let k = 0;
  for (const b of ins.bindings) {
    if (b.pattern.kind === 'var') {
      if (ci.defines[k] === slot) return b.expr.kind === 'fun' ? undefined : b.expr;
      k++;
    } else k += b.pattern.names.length;
  }
  return undefined;
}

/** Whether a definition reads herd's base relation `name` by name. */
function readsBase(cat: CompiledCat, slot: number, name: string): boolean {
  const def = definitionOf(cat, slot);
  let found = false;
  if (def) walk(def, (e) => {
    if (e.kind === 'var' && e.name === name && e.ref?.kind === 'slot' && cat.slots[e.ref.slot].instr < 0) found = true;
  });
  return found;
}

/** The `fun` a top-level slot is defined as (`let A-cumul(r) = ...`), if it is one. */
function functionOf(cat: CompiledCat, slot: number): (CatExpr & { kind: 'fun' }) | undefined {
  const info = cat.slots[slot];
  if (info.instr < 0) return undefined;
  const ci = cat.instrs[info.instr];
  const ins = ci.instr;
  if (ins.kind !== 'let' || ins.rec) return undefined;
  const k = ci.defines.indexOf(slot);
  const b = ins.bindings[k];
  return b && b.pattern.kind === 'var' && b.expr.kind === 'fun' ? b.expr : undefined;
}

/**
 * The expression with `arg` in place of the local `name`; null when it
 * has other local names (they would be unbound outside the function) or
 * forms that bind names.
 */
function substitute(e: CatExpr, name: string, arg: CatExpr): CatExpr | null {
  const sub = (x: CatExpr) => substitute(x, name, arg);
  switch (e.kind) {
    case 'var':
      if (e.ref?.kind === 'slot') return e;
      return e.name === name ? arg : null;
    case 'empty':
    case 'universe':
    case 'tag':
      return e;
    case 'unary': {
      const a = sub(e.arg);
      return a && { ...e, arg: a };
    }
    case 'binary': {
      const args = e.args.map(sub);
      return args.every((x) => x !== null) ? { ...e, args: args as CatExpr[] } : null;
    }
    case 'app': {
      const fn = sub(e.fn);
      const a = sub(e.arg);
      return fn && a && { ...e, fn, arg: a };
    }
    case 'tuple':
    case 'explicit': {
      const elems = e.elems.map(sub);
      return elems.every((x) => x !== null) ? { ...e, elems: elems as CatExpr[] } : null;
    }
    default:
      return null;
  }
}

/** What a difference subtracts: `a \ b \ c` gives b and c. */
function subtracted(e: CatExpr): CatExpr[] {
  if (e.kind !== 'binary' || e.op !== 'diff') return [];
  return [...subtracted(e.args[0]), ...e.args.slice(1)];
}

/** The base relation of a single step, if any. */
function baseOf(steps: Step[] | undefined): string | undefined {
  return steps && steps.length === 1 ? steps[0].base : undefined;
}

function pairCount(r: Relation): number {
  let n = 0;
  r.forEach(() => n++);
  return n;
}

/** Every node of an expression, outside function bodies. */
function walk(e: CatExpr, f: (e: CatExpr) => void): void {
  f(e);
  switch (e.kind) {
    case 'explicit':
    case 'tuple':
      e.elems.forEach((x) => walk(x, f));
      return;
    case 'unary':
      walk(e.arg, f);
      return;
    case 'binary':
      e.args.forEach((x) => walk(x, f));
      return;
    case 'app':
      walk(e.fn, f);
      walk(e.arg, f);
      return;
    default:
      return;
  }
}

const BINARY_TEXT: Readonly<Record<string, string>> = { union: ' | ', inter: ' & ', diff: ' \\ ', seq: ' ; ', cartesian: ' * ', add: ' ++ ' };

/** An expression as the model writes it (for steps no definition names). */
export function exprText(e: CatExpr): string {
  switch (e.kind) {
    case 'var':
      return e.name;
    case 'empty':
      return '0';
    case 'universe':
      return '_';
    case 'tag':
      return `'${e.name}`;
    case 'explicit':
      return `{${e.elems.map(exprText).join(', ')}}`;
    case 'tuple':
      return `(${e.elems.map(exprText).join(', ')})`;
    case 'unary': {
      const inner = e.arg.kind === 'binary' ? `(${exprText(e.arg)})` : exprText(e.arg);
      switch (e.op) {
        case 'toid':
          return `[${exprText(e.arg)}]`;
        case 'comp':
          return `~${inner}`;
        case 'inv':
          return `${inner}^-1`;
        case 'star':
          return `${inner}*`;
        case 'plus':
          return `${inner}+`;
        default:
          return `${inner}?`;
      }
    }
    case 'binary':
      return e.args.map((a) => (a.kind === 'binary' ? `(${exprText(a)})` : exprText(a))).join(BINARY_TEXT[e.op]);
    case 'app':
      return `${exprText(e.fn)}(${e.arg.kind === 'tuple' ? e.arg.elems.map(exprText).join(', ') : exprText(e.arg)})`;
    default:
      return e.kind;
  }
}
