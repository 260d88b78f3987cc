// The lock-order shortcut (Model.lockOrders) derived from a compiled
// model's checks, for whatever model is loaded.
//
// Access a is in critical section S1, b in S2 of the same lock, S1 before
// S2 in the lock's order (the coherence order of its lock writes), a and b
// of one location. The explorer may then skip the executions in which b
// comes "before" a: a reads from b, b reads from a write a's section
// overwrote (b fr a), b a write coherence-before a (b co a). The theorem,
// for an enforced check `acyclic A` and A's lower bound
// (models/cat/kinds.ts, a regular language of steps):
//   - a and b in one thread: those executions are incoherent (a po-loc b
//     with b rf a, b fr a or b co a closes a cycle of po-loc | rf | co | fr),
//     which the model's checks reject where they imply coherence
//     (models/cat/implied.ts);
//   - otherwise a path a ->A+ b: go from a to the unlock of the last section
//     of a's thread before S2 (a po UL), to the lock read of the next
//     section, in another thread (UL rf LKR: lock.cat's rf, kinds.ts), to the
//     unlock of that thread's last section before S2 (LKR po UL), and so on,
//     and from S2's lock read to b (LKR po b): each a step of A's lower
//     bound (one step each, so the path is in A+);
//   - and the edge back: b rf a (between threads) a step of A; or, for
//     b fr a and b co a, the whole chain b -fr/co-> a -po-> UL -rf-> LKR
//     -po-> UL ... -rf-> LKR of b's own section is a word of A+'s lower
//     bound (a path of A; in the kernel's files one word of A: prop, the
//     A-cumulativity of the releases, as (prop \ id) & int in hb), for
//     every number of sections between; LKR -po-> b closes the cycle.
// Then every execution of that kind breaks the check. The words are
// checked against A's language with a subset construction over the chain's
// roles (b, a, a's unlock, a middle section's lock read and unlock, b's
// lock read), the middle ones repeated: each step matches a step of the
// language when its relation, its sets at both ends, thread and location
// agree; a filter on a word's ends (int, ext, \ id) is decided by the
// roles, and undecided (so not taken) between middle roles, which may be
// one section's or two.

import { ANNOTS, FENCE_KINDS, LOCK_KINDS, SRCU_KINDS, type Event } from '../../src/events/event.js';
import type { Program } from '../../src/program/program.js';
import type { CompiledCat } from './compile.js';
import { EventKinds, holds, LOCK_EVENTS, lockLocationsWrittenByLocksOnly, singleHops, type EventLike, type Filter, type Hop, type Lang } from './kinds.js';

/** The chain's events (see the header). */
type Role = 'b' | 'a' | 'ULa' | 'LKRm' | 'ULm' | 'LKRb';

/** Roles at one location: a and b at theirs, the lock operations at the lock's. */
const LOC: Record<Role, string> = { b: 'X', a: 'X', ULa: 'L', LKRm: 'L', ULm: 'L', LKRb: 'L' };

/** A step of the chain. */
interface Letter {
  rel: Hop['rel'];
  from: Role;
  to: Role;
}

/** Model.lockOrders for a compiled model. `coherent`: its checks imply coherence (models/cat/implied.ts). */
export function lockOrdersOf(
  cat: CompiledCat,
  variants: ReadonlySet<string>,
  skipChecks: ReadonlySet<string>,
  coherent: boolean,
): (a: Event, b: Event, p?: Program) => boolean {
  const kinds = new EventKinds(cat, variants);
  const checks: Check[] = [];
  for (const ci of cat.instrs) {
    const ins = ci.instr;
    if (ins.kind !== 'test' || ins.role !== 'check' || ins.negated || ins.test !== 'acyclic') continue;
    if (ins.name !== undefined && skipChecks.has(ins.name)) continue;
    const l = kinds.langOf(ins.expr);
    // The path's steps are single steps of A; the chain back a word of A+.
    if (l) checks.push({ hops: singleHops(l.lang).hops, plus: build({ k: 'seq', a: l.lang, b: { k: 'star', body: l.lang } }) });
  }
  // The explorer asks this for most pairs of accesses it orders: answers are kept by the events' forms.
  let lastProgram: Program | undefined;
  let lastF1 = false;
  const known = new Map<number | string, boolean>();
  return (a, b, p) => {
    // One thread: coherence (of herd's base accesses, which the model's checks imply or not).
    if (a.thread === b.thread) return coherent && !a.lock && !b.lock && !a.srcu && !b.srcu;
    if (p !== lastProgram) {
      lastProgram = p;
      lastF1 = p ? lockLocationsWrittenByLocksOnly(p) : false;
    }
    const f1 = lastF1;
    const ca = formCode(a);
    const cb = formCode(b);
    const key = ca >= 0 && cb >= 0 ? (ca * FORMS + cb) * 2 + (f1 ? 1 : 0) : `${f1 ? 1 : 0}:${formKey(a)}:${formKey(b)}`;
    let answer = known.get(key);
    if (answer === undefined) known.set(key, (answer = checks.some((c) => ordersBy(c, a, b, f1))));
    return answer;
  };
}

/** What of an event its sets can see (its kind, tags, lock and RMW role). */
function formKey(e: Event): string {
  return `${e.kind}${e.thread < 0 ? 'i' : ''}:${e.annot}:${e.fence ?? ''}:${e.lock ?? ''}:${e.srcu ?? ''}:${e.isRmw ? 1 : 0}:${e.rmwPartner >= 0 ? 1 : 0}`;
}

const KINDS: readonly string[] = ['R', 'W', 'F'];
const FENCES: readonly (string | undefined)[] = [undefined, ...FENCE_KINDS];
const LOCKS: readonly (string | undefined)[] = [undefined, ...LOCK_KINDS];
const SRCUS: readonly (string | undefined)[] = [undefined, ...SRCU_KINDS];
/** How many form codes there are (formCode < FORMS). */
const FORMS = 3 * 2 * ANNOTS.length * FENCES.length * LOCKS.length * SRCUS.length * 4;

/** formKey as a number, or -1 for a tag of a user's .def (then the string is the key). */
function formCode(e: Event): number {
  const k = KINDS.indexOf(e.kind);
  const an = (ANNOTS as readonly string[]).indexOf(e.annot);
  const f = FENCES.indexOf(e.fence);
  const l = LOCKS.indexOf(e.lock);
  const s = SRCUS.indexOf(e.srcu);
  if (k < 0 || an < 0 || f < 0 || l < 0 || s < 0) return -1;
  let c = k;
  c = c * 2 + (e.thread < 0 ? 1 : 0);
  c = c * ANNOTS.length + an;
  c = c * FENCES.length + f;
  c = c * LOCKS.length + l;
  c = c * SRCUS.length + s;
  return c * 4 + (e.isRmw ? 2 : 0) + (e.rmwPartner >= 0 ? 1 : 0);
}

/** An acyclic check A, read for the theorem: the single steps of its lower bound, and an automaton of its lower bound's A+. */
interface Check {
  hops: readonly Hop[];
  plus: Nfa;
}

/** Whether check A forbids b before a (see the header). */
function ordersBy(check: Check, a: Event, b: Event, f1: boolean): boolean {
  const kind: Record<Role, EventLike> = { a, b, ULa: LOCK_EVENTS.UL, ULm: LOCK_EVENTS.UL, LKRm: LOCK_EVENTS.LKR, LKRb: LOCK_EVENTS.LKR };
  const has = (x: Letter) => check.hops.some((h) => matches(h, x, kind, f1));
  // The path a ->A+ b.
  const path = has({ rel: 'po', from: 'a', to: 'ULa' }) && has({ rel: 'rf', from: 'ULa', to: 'LKRm' }) &&
    has({ rel: 'po', from: 'LKRm', to: 'ULm' }) && has({ rel: 'po', from: 'LKRb', to: 'b' });
  if (!path) return false;
  const aw = a.kind === 'W';
  const bw = b.kind === 'W';
  if (!aw && !bw) return true;
  // b rf a.
  if (!aw && bw) return has({ rel: 'rf', from: 'b', to: 'a' });
  // b fr a, b co a: the chain as a word of A+.
  return chainAccepted(check.plus, aw && bw ? 'co' : 'fr', kind, f1);
}

/** Whether hop h holds the chain step x. */
function matches(h: Hop, x: Letter, kind: Record<Role, EventLike>, f1: boolean): boolean {
  if (h.rel !== x.rel || h.via.length > 0 || h.noneBetweenAtLoc || h.adjacent || (h.F1 && !f1)) return false;
  // The chain's po steps stay in a thread, the others cross to another.
  const sameThread = x.rel === 'po';
  if (h.scope === 'int' && !sameThread) return false;
  if (h.scope === 'ext' && sameThread) return false;
  if (h.loc && LOC[x.from] !== LOC[x.to]) return false;
  return holds(h.P, kind[x.from]) && holds(h.Q, kind[x.to]);
}

// ------------------------------------------------------------ words of the language

/** The chain's steps from each role. */
function letters(first: 'fr' | 'co'): Map<Role, Letter[]> {
  return new Map<Role, Letter[]>([
    ['b', [{ rel: first, from: 'b', to: 'a' }]],
    ['a', [{ rel: 'po', from: 'a', to: 'ULa' }]],
    ['ULa', [{ rel: 'rf', from: 'ULa', to: 'LKRm' }, { rel: 'rf', from: 'ULa', to: 'LKRb' }]],
    ['LKRm', [{ rel: 'po', from: 'LKRm', to: 'ULm' }]],
    ['ULm', [{ rel: 'rf', from: 'ULm', to: 'LKRm' }, { rel: 'rf', from: 'ULm', to: 'LKRb' }]],
    ['LKRb', []],
  ]);
}

/** An automaton of the language: states, steps between them, moves without a step (guarded, or a filter's start and end). */
interface Nfa {
  steps: { from: number; to: number; h: Hop }[];
  moves: { from: number; to: number; guard?: readonly ((e: EventLike) => boolean | undefined)[]; push?: number; pop?: number }[];
  filters: Filter[];
  start: number;
  accept: number;
  /** Per state, the indexes of the steps and of the moves that leave it. */
  stepsFrom: number[][];
  movesFrom: number[][];
}

function build(l: Lang): Nfa {
  const nfa: Nfa = { steps: [], moves: [], filters: [], start: 0, accept: 0, stepsFrom: [], movesFrom: [] };
  let count = 0;
  const fresh = () => count++;
  const go = (x: Lang, s: number, t: number): void => {
    switch (x.k) {
      case 'none':
        return;
      case 'step':
        nfa.steps.push({ from: s, to: t, h: x.h });
        return;
      case 'id':
        nfa.moves.push({ from: s, to: t, guard: x.P });
        return;
      case 'seq': {
        const m = fresh();
        go(x.a, s, m);
        go(x.b, m, t);
        return;
      }
      case 'alt':
        for (const p of x.parts) go(p, s, t);
        return;
      case 'star': {
        const m = fresh();
        nfa.moves.push({ from: s, to: m }, { from: m, to: t });
        go(x.body, m, m);
        return;
      }
      case 'filter': {
        const f = nfa.filters.length;
        nfa.filters.push(x.f);
        const i = fresh();
        const o = fresh();
        nfa.moves.push({ from: s, to: i, push: f }, { from: o, to: t, pop: f });
        go(x.body, i, o);
        return;
      }
    }
  };
  nfa.start = fresh();
  nfa.accept = fresh();
  go(l, nfa.start, nfa.accept);
  for (let i = 0; i < count; i++) (nfa.stepsFrom.push([]), nfa.movesFrom.push([]));
  nfa.steps.forEach((x, i) => nfa.stepsFrom[x.from].push(i));
  nfa.moves.forEach((x, i) => nfa.movesFrom[x.from].push(i));
  return nfa;
}

/**
 * A configuration: a state, and for each open filter (innermost last) the
 * role it started at and how many steps between threads the word took
 * since (0, 1, or 2 for more): the chain never comes back to a thread but
 * to b's, at its end.
 */
type Config = string;
type Open = [number, Role, number];
const config = (state: number, stack: readonly Open[]): Config => `${state}|${stack.map(([f, r, c]) => `${f}:${r}:${c}`).join(',')}`;
function parse(c: Config): { state: number; stack: Open[] } {
  const [s, st] = c.split('|');
  return { state: Number(s), stack: st ? st.split(',').map((x) => { const [f, r, n] = x.split(':'); return [Number(f), r as Role, Number(n)]; }) : [] };
}

/** Whether a filter holds of a word from role x to role y that took `crossed` steps between threads. */
function filterHolds(f: Filter, x: Role, crossed: number, y: Role, kind: Record<Role, EventLike>): boolean {
  const sameThread = crossed === 0 || (x === 'b' && y === 'LKRb');
  if (f.scope === 'int' && !sameThread) return false;
  if (f.scope === 'ext' && sameThread) return false;
  if (f.notId && crossed === 0 && x === y) return false;
  if (f.loc && LOC[x] !== LOC[y]) return false;
  return holds(f.P ?? [], kind[x]) && holds(f.Q ?? [], kind[y]);
}

/** The configurations reachable without a step, at role r. */
function closure(nfa: Nfa, from: Iterable<Config>, r: Role, kind: Record<Role, EventLike>): Set<Config> {
  const out = new Set<Config>(from);
  const work = [...out];
  while (work.length > 0) {
    const c = work.pop()!;
    const { state, stack } = parse(c);
    for (const mi of nfa.movesFrom[state]) {
      const m = nfa.moves[mi];
      if (m.guard && !holds(m.guard, kind[r])) continue;
      let next = stack;
      if (m.push !== undefined) {
        if (stack.length >= 4) continue;
        next = [...stack, [m.push, r, 0]];
      }
      if (m.pop !== undefined) {
        const top = stack[stack.length - 1];
        if (!top || top[0] !== m.pop || !filterHolds(nfa.filters[m.pop], top[1], top[2], r, kind)) continue;
        next = stack.slice(0, -1);
      }
      const c2 = config(m.to, next);
      if (!out.has(c2)) (out.add(c2), work.push(c2));
    }
  }
  return out;
}

/**
 * Whether every chain b -first-> a -po-> UL (-rf-> LKR -po-> UL)* -rf-> LKR
 * (of b's thread) is a word of the language (a subset construction over
 * the chain's roles; the middle sections repeat).
 */
function chainAccepted(nfa: Nfa, first: 'fr' | 'co', kind: Record<Role, EventLike>, f1: boolean): boolean {
  const byRole = letters(first);
  // Whether step i of the automaton holds letter x (each asked once).
  const fits = new Map<Letter, Int8Array>();
  const fit = (i: number, x: Letter) => {
    let row = fits.get(x);
    if (!row) fits.set(x, (row = new Int8Array(nfa.steps.length)));
    if (row[i] === 0) row[i] = matches(nfa.steps[i].h, x, kind, f1) ? 1 : -1;
    return row[i] === 1;
  };
  const key = (r: Role, s: Set<Config>) => `${r}#${[...s].sort().join(';')}`;
  const startSet = closure(nfa, [config(nfa.start, [])], 'b', kind);
  const seen = new Set<string>([key('b', startSet)]);
  const work: [Role, Set<Config>][] = [['b', startSet]];
  while (work.length > 0) {
    const [r, set] = work.pop()!;
    if (r === 'LKRb') {
      if (![...set].some((c) => c === config(nfa.accept, []))) return false;
      continue;
    }
    for (const x of byRole.get(r)!) {
      const next = new Set<Config>();
      for (const c of set) {
        const { state, stack } = parse(c);
        const across = x.rel === 'po' ? 0 : 1;
        const moved = stack.map(([f, r0, n]): Open => [f, r0, Math.min(2, n + across)]);
        for (const i of nfa.stepsFrom[state]) if (fit(i, x)) next.add(config(nfa.steps[i].to, moved));
      }
      // A word that cannot go on is not accepted: the chain of that length is not in the language.
      if (next.size === 0) return false;
      const closed = closure(nfa, next, x.to, kind);
      const k = key(x.to, closed);
      if (!seen.has(k)) (seen.add(k), work.push([x.to, closed]));
      if (seen.size > 2000) return false;
    }
  }
  return true;
}
