// Model.latestReadKeepsConsistency derived from a compiled model's checks.
//
// The explorer skips the prefix check of a read r that is its thread's last
// event and reads the last write w of its location's coherence order. The
// theorem: adding r (with its rf edge) to a prefix changes a relation that
// only grows (a prefix-safe check's, models/cat/monotone.ts) only by pairs
// that start at r, end at r, or pass through r (a factor of a composition
// or closure ending at r, the next starting there). If no relation of an
// `acyclic` or `irreflexive` prefix check has pairs that start at r or pass
// through it, every new pair ends at r, which starts none: no new cycle, no
// new (e, e). An `empty` check must moreover have no pair ending at r.
// (Static checks are left aside: they judge the events alone, whatever
// source r takes, and the next check judges them as this one would.)
//
// The analysis follows, for each relation, where a pair may lead from r
// and from w (to r, to w, to other events `o`), whether a pair may end at
// r from another event (`in`), and whether one may pass through r
// (`through`). r has no successor in program order (so none in po,
// dependencies or rmw); it is the source of no rf, co or fr edge (it is no
// write, and no write is coherence-after w); rf^-1 leads it to w; w leads
// nowhere by co or fr (it is last), to its readers by rf, to later events of
// its thread by po; loc, int, ext and products of sets that hold reads lead
// anywhere. In a ; b a pair leads from x to where b leads from the events a
// leads x to.

import type { CatExpr, Pattern } from './ast.js';
import type { CompiledCat } from './compile.js';
import { EventKinds, type EventLike, type Pred } from './kinds.js';
import { prefixSafeChecks } from './monotone.js';

/** Where a relation's pairs may lead, at a latest read r and its source w (bits: r, w, other events). */
interface Steps {
  /** From r. */
  fromR: number;
  /** From w. */
  fromW: number;
  /** A pair from another event may end at r. */
  in: boolean;
  /** A pair may pass through r (a factor ending there, the next starting there). */
  through: boolean;
  /** It is empty (made of sets the program never produces). */
  none?: boolean;
}

const R = 1;
const W = 2;
const O = 4;
const ALL = R | W | O;

type Val = { kind: 'rel'; s: Steps } | { kind: 'set'; reads: boolean; writes: boolean; empty?: boolean } | { kind: 'fn'; param: Pattern; body: CatExpr; env: Env } | { kind: 'tuple'; elems: Val[] } | { kind: 'native'; name: string };
type Env = { name: string; v: Val; next: Env } | null;

const ANY: Steps = { fromR: ALL, fromW: ALL, in: true, through: true };
const NOTHING: Steps = { fromR: 0, fromW: 0, in: false, through: false, none: true };
const rel = (fromR: number, fromW: number, inn: boolean): Val => ({ kind: 'rel', s: { fromR, fromW, in: inn, through: false } });

/** Where b leads from the events of mask `at`. */
function lead(b: Steps, at: number): number {
  return (at & R ? b.fromR : 0) | (at & W ? b.fromW : 0) | (at & O ? ALL & (b.in ? ALL : W | O) : 0);
}

/** a ; b (see the header). */
function compose(a: Steps, b: Steps): Steps {
  if (a.none || b.none) return NOTHING;
  const intoR = a.in || (a.fromW & R) !== 0 || (a.fromR & R) !== 0;
  return {
    fromR: lead(b, a.fromR),
    fromW: lead(b, a.fromW),
    // Another event to r: b ends there from another event, or from w or r that a reached from another event.
    in: b.in || ((b.fromW & R) !== 0) || (a.in && (b.fromR & R) !== 0),
    // (b leading from r back to r only ends the pair there.)
    through: a.through || b.through || (intoR && (b.fromR & (W | O)) !== 0),
  };
}

/** r+ : r, r ; r, ... (closed under composition). */
function closure(a: Steps): Steps {
  let s = a;
  for (let i = 0; i < 4; i++) {
    const t = compose(s, a);
    const u = { fromR: s.fromR | t.fromR, fromW: s.fromW | t.fromW, in: s.in || t.in, through: s.through || t.through };
    if (u.fromR === s.fromR && u.fromW === s.fromW && u.in === s.in && u.through === s.through) return u;
    s = u;
  }
  return s;
}

/** Every form a read may take (its own kind, a lock's read, an RMW's). */
const READS: readonly EventLike[] = [
  ...(['ONCE', 'ACQUIRE', 'PLAIN', 'MB', 'RELEASE', 'NORETURN'] as const).flatMap((annot) => [
    proto('R', { annot }), proto('R', { annot, isRmw: true, rmwPartner: 1 }), proto('R', { annot, isRmw: true }),
  ]),
  ...(['LKR', 'LF', 'RL', 'RU'] as const).map((lock) => proto('R', { lock, rmwPartner: lock === 'LKR' ? 1 : -1 })),
  proto('R', { srcu: 'srcu-lock' }),
];

/** Every form a write may take. */
const WRITES: readonly EventLike[] = [
  ...(['ONCE', 'RELEASE', 'PLAIN', 'MB', 'ACQUIRE'] as const).flatMap((annot) => [proto('W', { annot }), proto('W', { annot, isRmw: true, rmwPartner: 0 })]),
  proto('W', { lock: 'LKW', rmwPartner: 0 }), proto('W', { lock: 'UL', annot: 'RELEASE' }), proto('W', { srcu: 'srcu-unlock' }),
  { ...proto('W', {}), thread: -1 },
];

function proto(kind: EventLike['kind'], f: Partial<EventLike>): EventLike {
  return { kind, thread: 0, annot: 'ONCE', fence: undefined, lock: undefined, srcu: undefined, isRmw: false, rmwPartner: -1, ...f };
}

/**
 * Whether the model's prefix checks keep a consistent prefix consistent
 * when a latest read is added (see the header), in a program whose code
 * never produces the base sets named `absent` (lock operations).
 */
export function latestReadKeepsConsistency(cat: CompiledCat, variants: ReadonlySet<string>, absent: ReadonlySet<string> = new Set()): boolean {
  const a = new StepsOf(cat, variants, new EventKinds(cat, variants), absent);
  for (const i of prefixSafeChecks(cat, absent)) {
    const ins = cat.instrs[i].instr;
    // A static check judges the events alone, whatever source the read takes: the next check says the same.
    if (ins.kind !== 'test' || cat.instrs[i].stage === 'static') continue;
    const s = steps(a.expr(ins.expr, null));
    if (s.fromR !== 0 || s.through) return false;
    if (ins.test === 'empty' && (s.in || (s.fromW & R) !== 0)) return false;
  }
  return true;
}

class StepsOf {
  private readonly slots = new Map<number, Val>();
  private readonly active = new Set<number>();
  constructor(
    private readonly cat: CompiledCat,
    private readonly variants: ReadonlySet<string>,
    private readonly kinds: EventKinds,
    private readonly absent: ReadonlySet<string> = new Set(),
  ) {}

  private slot(s: number): Val {
    const known = this.slots.get(s);
    if (known) return known;
    if (this.active.has(s)) return { kind: 'rel', s: ANY };
    this.active.add(s);
    let v: Val;
    try {
      v = this.slotVal(s);
    } finally {
      this.active.delete(s);
    }
    this.slots.set(s, v);
    return v;
  }

  private slotVal(s: number): Val {
    const info = this.cat.slots[s];
    if (info.instr < 0) {
      switch (info.name) {
        case 'po': case 'addr': case 'data': case 'ctrl': case 'rmw':
          // r has no successor; w may be followed by r (a read of its own thread) and others.
          return rel(0, R | O, true);
        case 'rf':
          // Into r only from w.
          return rel(0, R | O, false);
        case 'co':
        case 'fr':
          return rel(0, 0, false);
        case 'id':
          return rel(R, W, false);
        case 'loc': case 'int': case 'ext':
          return { kind: 'rel', s: ANY };
        default:
          if (this.absent.has(info.name)) return { kind: 'set', reads: false, writes: false, empty: true };
          if (['%domain', '%range', 'domain', 'range'].includes(info.name)) return { kind: 'native', name: info.name.replace(/^%/, '') };
          return this.setVal({ kind: 'var', name: info.name, pos: { file: '', line: 0, col: 0 }, ref: { kind: 'slot', slot: s } });
      }
    }
    const ci = this.cat.instrs[info.instr];
    const ins = ci.instr;
    // A with's element is a part of the candidate's rf and co: no pair starts at a read, or at w but to its readers;
    // litmus's generate_cos gives co among writes: none from w (last), none to r.
    if (ins.kind === 'with') return this.isLibrary(ins.from, 'generate_cos') ? rel(0, 0, false) : rel(0, R | O, false);
    if (ins.kind !== 'let') return { kind: 'rel', s: ANY };
    const k = ci.defines.indexOf(s);
    let at = 0;
    for (const b of ins.bindings) {
      const names = b.pattern.kind === 'var' ? [b.pattern.name] : b.pattern.names;
      if (k < at + names.length) {
        if (b.expr.kind === 'fun') return { kind: 'fn', param: b.expr.param, body: b.expr.body, env: null };
        if (b.pattern.kind !== 'var') return { kind: 'rel', s: ANY };
        if (!ins.rec) return this.expr(b.expr, null);
        const env = this.fixpoint(ins.bindings.map((x) => [x.pattern, x.expr] as const), null, (i, v) => this.slots.set(ci.defines[i], v), (i) => this.slots.delete(ci.defines[i]));
        return env ? env[k] : { kind: 'rel', s: ANY };
      }
      at += names.length;
    }
    return { kind: 'rel', s: ANY };
  }

  /** Whether e applies the function `name` of litmus's own library files (not one a model defines). */
  private isLibrary(e: CatExpr, name: string): boolean {
    if (e.kind !== 'app' || e.fn.kind !== 'var' || e.fn.name !== name || e.fn.ref?.kind !== 'slot') return false;
    const s = this.cat.slots[e.fn.ref.slot];
    return s.instr >= 0 && this.cat.instrs[s.instr].instr.pos.file.startsWith('litmus:');
  }

  /** A set the events decide, judged on every form of read and write; any other set may hold both. */
  private setVal(e: CatExpr): Val {
    const p: Pred | undefined = this.kinds.setOf(e);
    if (!p) return { kind: 'set', reads: true, writes: true };
    return { kind: 'set', reads: READS.some((r) => p(r) !== false), writes: WRITES.some((w) => p(w) !== false) };
  }

  /**
   * The least fixpoint of recursive bindings (from nothing, joined): `set`
   * installs binding i's current value where the bindings read it.
   */
  private fixpoint(bs: readonly (readonly [Pattern, CatExpr])[], env: Env, set: (i: number, v: Val) => void, clear: (i: number) => void): Val[] | undefined {
    let cur: Val[] = bs.map(() => ({ kind: 'rel', s: NOTHING }));
    for (let round = 0; round < 10; round++) {
      cur.forEach((v, i) => set(i, v));
      const next = bs.map(([, e]) => this.expr(e, env));
      cur.forEach((_, i) => clear(i));
      const joined = next.map((v, i) => join(cur[i], v));
      const same = joined.every((v, i) => sameVal(v, cur[i]));
      cur = joined;
      if (same) return cur;
    }
    return undefined;
  }

  expr(e: CatExpr, env: Env): Val {
    switch (e.kind) {
      case 'var':
        if (e.ref?.kind === 'local') {
          for (let c = env; c; c = c.next) if (c.name === e.name) return c.v;
          return { kind: 'rel', s: ANY };
        }
        return e.ref?.kind === 'slot' ? this.slot(e.ref.slot) : { kind: 'rel', s: ANY };
      case 'empty':
        return { kind: 'rel', s: NOTHING };
      case 'universe':
        return { kind: 'set', reads: true, writes: true };
      case 'tuple':
        return { kind: 'tuple', elems: e.elems.map((x) => this.expr(x, env)) };
      case 'unary':
        return this.unary(e.op, this.expr(e.arg, env), e);
      case 'binary': {
        let acc = this.expr(e.args[0], env);
        for (let i = 1; i < e.args.length; i++) acc = this.binary(e.op, acc, this.expr(e.args[i], env), e.args[i]);
        return acc;
      }
      case 'app': {
        const fn = this.expr(e.fn, env);
        if (fn.kind === 'fn') return this.expr(fn.body, bind(fn.param, this.expr(e.arg, env), fn.env));
        if (fn.kind === 'native') return this.setVal(e);
        return { kind: 'rel', s: ANY };
      }
      case 'fun':
        return { kind: 'fn', param: e.param, body: e.body, env };
      case 'let': {
        if (!e.rec) {
          let inner = env;
          for (const b of e.bindings) inner = bind(b.pattern, this.expr(b.expr, env), inner);
          return this.expr(e.body, inner);
        }
        // let rec ... in: the bindings' fixpoint as local names.
        const cells: { name: string; v: Val; next: Env }[] = [];
        let inner = env;
        for (const b of e.bindings) {
          if (b.pattern.kind !== 'var' || b.pattern.name === null) return { kind: 'rel', s: ANY };
          const cell = { name: b.pattern.name, v: { kind: 'rel', s: NOTHING } as Val, next: inner };
          cells.push(cell);
          inner = cell;
        }
        const vals = this.fixpoint(e.bindings.map((b) => [b.pattern, b.expr] as const), inner, (i, v) => (cells[i].v = v), () => undefined);
        if (!vals) return { kind: 'rel', s: ANY };
        vals.forEach((v, i) => (cells[i].v = v));
        return this.expr(e.body, inner);
      }
      case 'try':
        return this.expr(e.body, env);
      case 'if':
        return e.cond.kind === 'variant' ? this.expr(this.variants.has(e.cond.name) ? e.then : e.otherwise, env) : { kind: 'rel', s: ANY };
      default:
        return this.setVal(e);
    }
  }

  private unary(op: string, a: Val, e: CatExpr): Val {
    // (A fixpoint's first round reads its sets as empty relations: [nothing] is empty.)
    if (op === 'toid') return a.kind === 'set' ? (a.empty ? { kind: 'rel', s: NOTHING } : rel(a.reads ? R : 0, a.writes ? W : 0, false)) : a.kind === 'rel' && a.s.none ? { kind: 'rel', s: NOTHING } : rel(R, W, false);
    if (op === 'comp') return a.kind === 'set' ? this.setVal(e) : { kind: 'rel', s: ANY };
    const s = steps(a);
    switch (op) {
      case 'inv':
        if (s.none) return { kind: 'rel', s: NOTHING };
        return {
          kind: 'rel',
          s: {
            fromR: (s.fromR & R ? R : 0) | (s.fromW & R ? W : 0) | (s.in ? O : 0),
            fromW: (s.fromR & W ? R : 0) | (s.fromW & W ? W : 0) | O,
            in: (s.fromR & O) !== 0,
            through: s.through,
          },
        };
      case 'star':
      case 'opt': {
        if (s.none) return rel(R, W, false);
        const c = op === 'star' ? closure(s) : s;
        return { kind: 'rel', s: { ...c, fromR: c.fromR | R, fromW: c.fromW | W } };
      }
      case 'plus':
        return { kind: 'rel', s: s.none ? NOTHING : closure(s) };
      default:
        return { kind: 'rel', s: ANY };
    }
  }

  private binary(op: string, a: Val, b: Val, eb: CatExpr): Val {
    if (a.kind === 'set' && b.kind === 'set') {
      if (op === 'union') return { kind: 'set', reads: a.reads || b.reads, writes: a.writes || b.writes, empty: a.empty && b.empty };
      if (op === 'inter') return { kind: 'set', reads: a.reads && b.reads, writes: a.writes && b.writes, empty: a.empty || b.empty };
      if (op === 'diff') return { kind: 'set', reads: a.reads, writes: a.writes, empty: a.empty };
      if (op === 'cartesian') {
        if (a.empty || b.empty) return { kind: 'rel', s: NOTHING };
        const to = (b.reads ? R : 0) | (b.writes ? W : 0) | O;
        return { kind: 'rel', s: { fromR: a.reads ? to : 0, fromW: a.writes ? to : 0, in: b.reads, through: false } };
      }
    }
    const x = steps(a);
    const y = steps(b);
    switch (op) {
      case 'union':
        if (x.none) return { kind: 'rel', s: y };
        if (y.none) return { kind: 'rel', s: x };
        return { kind: 'rel', s: { fromR: x.fromR | y.fromR, fromW: x.fromW | y.fromW, in: x.in || y.in, through: x.through || y.through } };
      case 'inter':
        if (x.none || y.none) return { kind: 'rel', s: NOTHING };
        return { kind: 'rel', s: { fromR: x.fromR & y.fromR, fromW: x.fromW & y.fromW, in: x.in && y.in, through: x.through && y.through } };
      case 'diff':
        if (x.none) return { kind: 'rel', s: NOTHING };
        // r \ id: no (e, e).
        if (isIdentity(eb, this.cat)) return { kind: 'rel', s: { ...x, fromR: x.fromR & ~R, fromW: x.fromW & ~W } };
        return { kind: 'rel', s: x };
      case 'seq':
        return { kind: 'rel', s: compose(x, y) };
      default:
        return { kind: 'rel', s: ANY };
    }
  }
}

function steps(v: Val): Steps {
  if (v.kind === 'rel') return v.s;
  if (v.kind === 'set') return v.empty ? NOTHING : { fromR: v.reads ? R : 0, fromW: v.writes ? W : 0, in: false, through: false };
  return ANY;
}

function join(a: Val, b: Val): Val {
  if (a.kind === 'set' && b.kind === 'set') return { kind: 'set', reads: a.reads || b.reads, writes: a.writes || b.writes };
  const x = steps(a);
  const y = steps(b);
  if (b.kind === 'set' && a.kind === 'rel' && x.none) return b;
  if (x.none) return { kind: 'rel', s: y };
  if (y.none) return { kind: 'rel', s: x };
  return { kind: 'rel', s: { fromR: x.fromR | y.fromR, fromW: x.fromW | y.fromW, in: x.in || y.in, through: x.through || y.through } };
}

function sameVal(a: Val, b: Val): boolean {
  if (a.kind === 'set' && b.kind === 'set') return a.reads === b.reads && a.writes === b.writes;
  if (a.kind === 'set' || b.kind === 'set') return false;
  const x = steps(a);
  const y = steps(b);
  return x.fromR === y.fromR && x.fromW === y.fromW && x.in === y.in && x.through === y.through && !x.none === !y.none;
}

/** Whether e is herd's identity relation (the base name id). */
function isIdentity(e: CatExpr, cat: CompiledCat): boolean {
  return e.kind === 'var' && e.ref?.kind === 'slot' && cat.slots[e.ref.slot].instr < 0 && cat.slots[e.ref.slot].name === 'id';
}

function bind(p: Pattern, v: Val, env: Env): Env {
  if (p.kind === 'var') return p.name === null ? env : { name: p.name, v, next: env };
  let out = env;
  p.names.forEach((nm, i) => {
    if (nm !== null) out = { name: nm, v: v.kind === 'tuple' ? v.elems[i] : { kind: 'rel', s: ANY }, next: out };
  });
  return out;
}

/** For tests: the analysis of one expression of the model. */
export function stepsOfExpr(cat: CompiledCat, variants: ReadonlySet<string>, e: CatExpr, absent: ReadonlySet<string> = new Set()): Steps {
  return steps(new StepsOf(cat, variants, new EventKinds(cat, variants), absent).expr(e, null));
}
