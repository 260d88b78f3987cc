// Checked fixes for an allowed outcome: the changes a kernel developer
// makes to order accesses (an acquire load, a release store, an RMW's
// ordering variant, a fence between two accesses in the kernel's words),
// each set of changes applied to the program and checked again under the
// same model and limits. Only minimal sets are reported (no subset forbids
// the outcome), cheapest first, ties broken by fewer changes.
//
// The candidates come from the program, not from one execution: every
// access of every thread may be strengthened, and a fence may go at every
// place of the source's structure between accesses (after a call, never
// between the instructions one call expands to; after an `if` or a loop on
// every path that leaves it, or at the end of its body). A fix must forbid
// every execution that reaches the outcome, whichever thread's code it
// changes, so changes on several threads (and on threads running the same
// code) are searched together. Code inlined from a helper function is named
// by its calls, and a change inside a helper is also offered as written
// there: made at each of its calls, one change.
//
// Cost order (per change, summed over a set): marking a location's plain
// accesses (READ_ONCE()/WRITE_ONCE(), offered where the model flags a data
// race), or an acquire or release variant 1;
// smp_rmb() or smp_wmb() 2; fully ordered RMW 3, and the kernel's idiom
// beside an RMW that is not fully ordered, smp_mb__after_atomic() after it or
// smp_mb__before_atomic() before it, 3 too (the barrier the fully ordered form
// builds in, added where the kernel writes it; tried first); a full barrier 4
// (smp_mb(), or smp_mb__after_spinlock() or smp_store_mb() that stands for it there;
// smp_mb__after_unlock_lock() straight after a lock an unlock can precede,
// which orders less than those and is tried before them).
// Acquire and release order one direction at one access (on arm64 a single
// LDAR/STLR); rmb/wmb order one kind of access on both sides; a full barrier
// orders everything and is the most expensive on weakly ordered CPUs (a
// fully ordered RMW has one built in, but replaces an instruction instead of
// adding one).
//
// The search is exhaustive over sets of up to MAX_CHANGES changes, made
// affordable by the models' monotonicity (more ordering never allows more
// executions): a site where even the strongest changes everywhere else
// leave the outcome reachable must be in every fix, and a set whose sites
// are those of a set already known to fail with the strongest change at
// each cannot succeed.

import { effectOf, type FenceOrders } from '../events/primitives.js';
import type { Annot } from '../events/event.js';
import { explore } from '../explore/explorer.js';
import type { Model } from '../model/model.js';
import type { Inlined, Pos } from '../parse/ast.js';
import { LimitError } from '../parse/errors.js';
import { applyEdits, type Edit } from '../program/edit.js';
import { locationOf, type Instr, type PrimInstr, type Program } from '../program/program.js';

export interface Limits {
  maxExecutions?: number;
  timeoutMs?: number;
}

/** One change a fix may make. */
export interface Change {
  edits: Edit[];
  /** How a developer would say it: "smp_rmb() between P1.1 (line 23) and P1.2 (line 24)". */
  text: string;
  cost: number;
  /** The places it changes; changes sharing a site are alternatives (at most one per fix). */
  sites: string[];
  thread: number;
  /** Whether it is the strongest change at its sites (see findFixes). */
  strongest: boolean;
  /** Only for the strongest set of all (an smp_mb() that smp_store_mb() stands for); never part of a fix. */
  hidden?: boolean;
  /** Other CPUs it changes (a change written in a helper function, made at each of its calls). */
  also?: number[];
  /** For a change inside a helper's code: the change as written in the helper, the same at each of its calls. */
  source?: { key: string; text: string };
  /** It marks plain accesses (READ_ONCE()/WRITE_ONCE()): those of this location (its name; '' when the code does not name one). */
  marks?: string;
}

/** Whether a change changes that CPU's code. */
export const changesCpu = (c: Change, cpu: number): boolean => c.thread === cpu || (c.also?.includes(cpu) ?? false);

export const COST = { mark: 1, acquireRelease: 1, rmbWmb: 2, fullRmw: 3, atomicMb: 3, mb: 4 } as const;

/** How a report names the places of a thread's code. */
export interface Namer {
  /** The step of the shown execution that runs instruction pc of thread ("P1.2"), if it ran. */
  step(thread: number, pc: number): string | undefined;
  /** The source place of a position: "line 12", "v1.ts:11". */
  where(pos: Pos): string;
}

export const lineNamer: Namer = { step: () => undefined, where: (pos) => `line ${pos.line}` };

/** The instructions of one call in the source: what a fence never splits. */
interface Group {
  first: number;
  last: number;
  prims: number[];
  reads: boolean;
  writes: boolean;
}

const isAccess = (ins: Instr): ins is PrimInstr => ins.op === 'prim' && effectOf(ins.prim).object !== 'none' && effectOf(ins.prim).shape !== 'fence';

/**
 * The thread's accesses grouped by the call they come from: a lowered
 * operation's instructions share its position, its own loop included
 * (smp_cond_load_acquire()); a fence or another call's access ends a group.
 */
function groupsOf(code: readonly Instr[]): Group[] {
  const groups: Group[] = [];
  let cur: Group | undefined;
  let pos: Pos | undefined;
  code.forEach((ins, pc) => {
    if (ins.op !== 'prim') return;
    if (!isAccess(ins)) {
      cur = undefined;
      return;
    }
    const e = effectOf(ins.prim);
    if (cur && pos && samePlace(ins.pos, pos)) {
      cur.last = pc;
      cur.prims.push(pc);
    } else {
      cur = { first: pc, last: pc, prims: [pc], reads: false, writes: false };
      groups.push(cur);
      pos = ins.pos;
    }
    cur.reads ||= e.reads;
    cur.writes ||= e.writes;
  });
  // A group is one call only if nothing but its own instructions and control lies between them.
  return groups.flatMap((g) => {
    const between = code.slice(g.first, g.last + 1);
    const foreign = between.some((i) => i.op === 'prim' && !samePlace(i.pos, (code[g.first] as PrimInstr).pos));
    return foreign ? g.prims.map((pc) => ({ ...g, first: pc, last: pc, prims: [pc] })) : [g];
  });
}

/** Whether two positions are one place of the source reached through the same calls of helper functions. */
function samePlace(a: Pos, b: Pos): boolean {
  if (a.line !== b.line || a.col !== b.col) return false;
  if (!a.inlined || !b.inlined) return a.inlined === b.inlined;
  return a.inlined.fn === b.inlined.fn && samePlace(a.inlined.at, b.inlined.at);
}

/** The helper-function calls a position was inlined through, outermost first. */
const callsOf = (p: Pos): Inlined[] => (p.inlined ? [...callsOf(p.inlined.at), p.inlined] : []);

/** ", in f() called at line 18" for code inlined through calls (innermost first). */
const within = (calls: readonly Inlined[], namer: Namer): string =>
  calls.length ? `, in ${[...calls].reverse().map((c) => `${c.fn}() called at ${namer.where(c.at)}`).join(', in ')}` : '';

/** How many calls two positions were both inlined through (the depth at which their code differs). */
function commonCalls(a: Pos, b: Pos): number {
  const ca = callsOf(a);
  const cb = callsOf(b);
  let d = 0;
  while (d < ca.length && d < cb.length && ca[d].fn === cb[d].fn && samePlace(ca[d].at, cb[d].at)) d++;
  return d;
}

/** A position of a helper's code as written, whichever call it was inlined at: its place and function. */
const sourceKey = (p: Pos, namer: Namer): string => `${namer.where(p)}:${p.col}@${p.inlined?.fn ?? ''}`;

/** Whether a call's instructions include a branch or a jump (its own loop). */
const hasControl = (code: readonly Instr[], g: Group) => code.slice(g.first, g.last + 1).some((i) => i.op === 'branch' || i.op === 'jump');

/** Loops of the code, as [head, back-jump] index ranges. */
function loopsOf(code: readonly Instr[]): [number, number][] {
  const out: [number, number][] = [];
  code.forEach((ins, pc) => {
    if (ins.op === 'jump' && ins.target <= pc) out.push([ins.target, pc]);
  });
  return out;
}

/** A place a fence may go: after a call (on the path that falls through), or before an instruction every path to it runs. */
interface Place {
  thread: number;
  edit: (name: string) => Edit;
  /** The calls just before and just after it, in code order. */
  prev?: Group;
  next?: Group;
  reads: [boolean, boolean];
  writes: [boolean, boolean];
  text: string;
  /** How the call before it is named ("P0.1 (line 12)"). */
  prevText?: string;
  key: string;
  /** A place between two accesses of one helper's own code: as written there, whichever call it is in. */
  source?: { key: string; text: string; fn: string };
}

function placesOf(prog: Program, thread: number, namer: Namer): Place[] {
  const code = prog.threads[thread].code;
  const groups = groupsOf(code);
  const loops = loopsOf(code);
  const places: Place[] = [];
  const posOf = (g: Group) => (code[g.first] as PrimInstr).pos;
  // A call's access, where every helper call it is in is said.
  const name = (g: Group) => `${namer.step(thread, g.first) ?? `P${thread}`} (${namer.where(posOf(g))}${within(callsOf(posOf(g)), namer)})`;
  // Two neighbouring calls as a reviewer reads the source: at the depth
  // where their code differs, a helper call they are in is named as that
  // call ("the call of f() (line 18)"), and the calls both are in once, at
  // the end. `exact` false: the place is not at that depth (control between).
  const between = (a: Group, b: Group, exact = true) => {
    if (!exact) return `between ${name(a)} and ${name(b)}`;
    const d = commonCalls(posOf(a), posOf(b));
    const side = (g: Group) => {
      const calls = callsOf(posOf(g));
      if (calls.length <= d) return `${namer.step(thread, g.first) ?? `P${thread}`} (${namer.where(posOf(g))})`;
      return `the call of ${calls[d].fn}() (${namer.where(calls[d].at)})`;
    };
    return `between ${side(a)} and ${side(b)}${within(callsOf(posOf(a)).slice(0, d), namer)}`;
  };
  const control = (from: number, to: number) => code.slice(from, to).some((i) => i.op === 'branch' || i.op === 'jump' || i.op === 'loopcheck');
  // Two accesses written in the same helper's own code (not in calls it makes).
  const inOneHelper = (a: Group, b: Group) => {
    const d = commonCalls(posOf(a), posOf(b));
    return d > 0 && callsOf(posOf(a)).length === d && callsOf(posOf(b)).length === d;
  };
  const srcKey = (p: Pos) => sourceKey(p, namer);
  // What a fence at index `at` has before and after it (a loop's body is both).
  const around = (at: number): { reads: [boolean, boolean]; writes: [boolean, boolean] } => {
    const inLoop = loops.filter(([h, j]) => h < at && at <= j);
    const before = groups.filter((g) => g.last < at || inLoop.some(([h, j]) => g.first >= h && g.last <= j));
    const after = groups.filter((g) => g.first >= at || inLoop.some(([h, j]) => g.first >= h && g.last <= j));
    return {
      reads: [before.some((g) => g.reads), after.some((g) => g.reads)],
      writes: [before.some((g) => g.writes), after.some((g) => g.writes)],
    };
  };
  const nextAfter = (at: number) => groups.find((g) => g.first >= at);
  const prevBefore = (at: number) => [...groups].reverse().find((g) => g.last < at);
  // Straight after each call: the fall-through path only.
  groups.forEach((g) => {
    // After a call with its own loop, a fence goes where its paths meet (below).
    if (hasControl(code, g)) return;
    const at = g.last + 1;
    const next = nextAfter(at);
    const ar = around(at);
    if (!next && !loops.some(([h, j]) => h <= g.first && g.last <= j)) return;
    places.push({
      thread, prev: g, next, ...ar,
      edit: (fence) => ({ op: 'insert-fence', thread, pc: g.last, name: fence }),
      text: next ? between(g, next, !control(at, next.first)) : `after ${name(g)}, at the end of its loop's body`,
      prevText: name(g),
      source: next && inOneHelper(g, next) ? { key: `after|${srcKey(posOf(g))}|${srcKey(posOf(next))}`, text: `between ${namer.where(posOf(g))} and ${namer.where(posOf(next))}`, fn: callsOf(posOf(g)).at(-1)!.fn } : undefined,
      key: `after:${thread}:${g.last}`,
    });
  });
  // Where the paths leaving an if or a loop meet: every path runs it.
  const joins = new Set<number>();
  code.forEach((ins, pc) => {
    const t = ins.op === 'branch' ? ins.ifFalse : ins.op === 'jump' ? ins.target : -1;
    if (t > pc) joins.add(t);
  });
  for (const at of [...joins].sort((a, b) => a - b)) {
    const prev = prevBefore(at);
    const next = nextAfter(at);
    if (!prev || !next) continue;
    const loop = loops.find(([, j]) => j === at - 1);
    const what = loop ? 'after the loop' : 'after the if';
    // The loop's own check comes first after its head (later ones are of loops inside it).
    const src = loop && code.slice(loop[0], at).find((i): i is Extract<Instr, { op: 'loopcheck' }> => i.op === 'loopcheck');
    const loopAt = loop && src ? ` of ${namer.where(src.pos)}${within(callsOf(src.pos), namer)}` : '';
    // Right after a call with its own loop (smp_cond_load_acquire()): after the call.
    const afterCall = hasControl(code, prev) && code.slice(prev.last + 1, at).every((i) => i.op !== 'prim');
    // A loop that ends a helper's code, every path into the place leaving that loop: after the call.
    const into = code.flatMap((i, pc) => ((i.op === 'branch' && i.ifFalse === at) || (i.op === 'jump' && i.target === at) ? [pc] : []));
    const endsCall = !!loop && !!src && callsOf(src.pos).length > commonCalls(posOf(prev), posOf(next)) && into.every((pc) => pc >= loop[0]);
    places.push({
      thread, prev, next, ...around(at),
      edit: (fence) => ({ op: 'insert-fence-before', thread, pc: at, name: fence }),
      text: (afterCall || endsCall) && !control(at, next.first) ? between(prev, next) : afterCall ? between(prev, next, false) : `${what}${loopAt}, before ${name(next)}`,
      key: `before:${thread}:${at}`,
    });
  }
  return places;
}

/** Whether a fence is the table's smp_mb__after_atomic() or smp_mb__before_atomic(). */
const isAtomicMb = (prog: Program, name: string) => prog.primitives.fencesOfKind('after-atomic').includes(name) || prog.primitives.fencesOfKind('before-atomic').includes(name);

/** The kernel's word for a full barrier at a place: smp_mb__after_atomic() after an unordered RMW, and so on. */
function fullBarrierAt(prog: Program, p: Place): { name: string; edits: Edit[]; text: string; sites: string[] } {
  const code = prog.threads[p.thread].code;
  const single = (g: Group | undefined) => (g && g.prims.length === 1 ? (code[g.first] as PrimInstr) : undefined);
  const unorderedRmw = (ins: PrimInstr | undefined) => {
    if (!ins) return false;
    const e = effectOf(ins.prim);
    // The LKMM's smp_mb__{before,after}_atomic() order any RMW but a fully ordered one (which has its barriers built in).
    return e.rmw && !e.mayFail && e.object === 'memory' && e.annot !== 'MB';
  };
  const prev = single(p.prev);
  const next = single(p.next);
  const adjacentPrev = p.prev !== undefined && p.key.startsWith('after:');
  const adjacentNext = p.next !== undefined && code.slice((p.prev?.last ?? -1) + 1, p.next.first).every((i) => i.op === 'set') && p.key.startsWith('after:');
  const fence = (name: string) => ({ name, edits: [p.edit(name)], text: `${name}() ${p.text}`, sites: [p.key] });
  // Only names the program's table gives these meanings (a .def may lack or redefine them).
  const T = prog.primitives;
  const is = (name: string, kind: 'after-atomic' | 'after-spinlock' | 'before-atomic') => T.fencesOfKind(kind).includes(name);
  const storeMb = T.lookup('smp_store_mb');
  const hasStoreMb = storeMb && 'prim' in storeMb && storeMb.prim.kind === 'store' && storeMb.prim.thenFence === 'MB' && !storeMb.args;
  if (adjacentPrev && unorderedRmw(prev) && is('smp_mb__after_atomic', 'after-atomic')) return fence('smp_mb__after_atomic');
  if (adjacentPrev && prev && effectOf(prev.prim).shape === 'lock' && is('smp_mb__after_spinlock', 'after-spinlock')) return fence('smp_mb__after_spinlock');
  if (adjacentNext && unorderedRmw(next) && is('smp_mb__before_atomic', 'before-atomic')) return fence('smp_mb__before_atomic');
  if (adjacentPrev && prev && prev.name === 'WRITE_ONCE' && p.prev && hasStoreMb) {
    return {
      name: 'smp_store_mb',
      edits: [{ op: 'replace', thread: p.thread, pc: p.prev.first, name: 'smp_store_mb' }],
      text: `WRITE_ONCE → smp_store_mb at ${p.prevText}, i.e. smp_mb() ${p.text}`,
      sites: [p.key, `access:${p.thread}:${p.prev.first}`],
    };
  }
  return fence('smp_mb');
}

/**
 * smp_mb__after_unlock_lock() at a place straight after a lock, when an
 * unlock can come before that lock as the LKMM's po-unlock-lock-po needs
 * (an unlock earlier on the same CPU, of any lock, or an unlock of the same
 * lock that the lock may read from): it makes that unlock and lock a full
 * barrier for what precedes the unlock. Its name, if the table has one.
 */
function afterUnlockLockAt(prog: Program, p: Place): string | undefined {
  const name = prog.primitives.fencesOfKind('after-unlock-lock')[0];
  if (!name || !p.key.startsWith('after:') || !p.prev || p.prev.prims.length !== 1) return undefined;
  const code = prog.threads[p.thread].code;
  const lock = code[p.prev.first] as PrimInstr;
  const shape = effectOf(lock.prim).shape;
  if (shape !== 'lock' && shape !== 'trylock') return undefined;
  const isUnlock = (i: Instr): i is PrimInstr => i.op === 'prim' && effectOf(i.prim).shape === 'unlock';
  const sameLock = (u: PrimInstr) => u.addr.k !== 'const' || lock.addr.k !== 'const' || u.addr.v === lock.addr.v;
  const inLoop = loopsOf(code).some(([h, j]) => h <= p.prev!.first && p.prev!.first <= j);
  const own = code.some((i, pc) => isUnlock(i) && (pc < p.prev!.first || inLoop));
  const other = prog.threads.some((t) => t.index !== p.thread && t.code.some((i) => isUnlock(i) && sameLock(i)));
  return own || other ? name : undefined;
}

/**
 * Every change the search may make to the program: the candidate space.
 * `mark`: plain accesses may be marked (where the model flagged a data
 * race: see markings).
 */
export function candidateChanges(prog: Program, namer: Namer = lineNamer, opts: { mark?: boolean } = {}): Change[] {
  const out: Change[] = opts.mark ? markings(prog, namer) : [];
  for (const th of prog.threads) {
    for (const p of placesOf(prog, th.index, namer)) {
      const fits = prog.primitives.fencesBetween(p.reads, p.writes);
      for (const f of fits) {
        if (f.orders === 'all') {
          // Weaker than the full barrier there (it orders only what precedes an unlock before the lock): tried first.
          const aul = afterUnlockLockAt(prog, p);
          if (aul) out.push({ edits: [p.edit(aul)], text: `${aul}() ${p.text}`, cost: COST.mb, sites: [p.key], thread: th.index, strongest: false, source: fenceSource(p, aul) });
          const mb = fullBarrierAt(prog, p);
          // smp_store_mb() also takes the store's site: not comparable with a release there.
          const alone = mb.sites.length === 1;
          // Beside an RMW, the kernel's smp_mb__{after,before}_atomic() costs what the RMW's fully ordered form does, and is tried first.
          const cost = isAtomicMb(prog, mb.name) ? COST.atomicMb : COST.mb;
          out.push({ edits: mb.edits, text: mb.text, cost, sites: mb.sites, thread: th.index, strongest: alone, source: alone ? fenceSource(p, mb.name) : undefined });
          if (!alone) out.push({ edits: [p.edit('smp_mb')], text: `smp_mb() ${p.text}`, cost: COST.mb, sites: [p.key], thread: th.index, strongest: true, hidden: true });
        } else {
          out.push({ edits: [p.edit(f.name)], text: `${f.name}() ${p.text}`, cost: COST.rmbWmb, sites: [p.key], thread: th.index, strongest: false, source: fenceSource(p, f.name) });
        }
      }
    }
    for (const g of groupsOf(th.code)) out.push(...strengthenings(prog, th.index, th.code, g, namer));
  }
  return [...out, ...inHelpers(prog, out, namer)];
}

/**
 * Marking plain accesses: every plain access of one location (as far as the
 * code names it: a variable, or a parameter that holds its address) becomes
 * the table's ONCE form (READ_ONCE(), WRITE_ONCE()), one change per
 * location, so that two CPUs' racing accesses are marked together. A marked
 * access is one the model's ordering rules may then count (the LKMM leaves
 * plain accesses out of its happens-before); whether that forbids the
 * outcome is checked like every change.
 */
function markings(prog: Program, namer: Namer): Change[] {
  const T = prog.primitives;
  const once = (kind: 'load' | 'store') => T.names()
    .filter((n) => {
      const info = T.lookup(n);
      return info && 'prim' in info && !info.args && info.prim.kind === kind && info.prim.annot === 'ONCE' && !('thenFence' in info.prim && info.prim.thenFence);
    })
    .sort((a, b) => Number(/^(atomic|rcu)_/.test(a)) - Number(/^(atomic|rcu)_/.test(b)) || a.length - b.length || (a < b ? -1 : 1))[0];
  const byLoc = new Map<string, { loc: string; accesses: { thread: number; pc: number; ins: PrimInstr; to: string }[] }>();
  for (const th of prog.threads) {
    th.code.forEach((ins, pc) => {
      if (ins.op !== 'prim' || (ins.prim.kind !== 'load' && ins.prim.kind !== 'store') || ins.prim.annot !== 'PLAIN') return;
      const to = once(ins.prim.kind);
      if (!to) return;
      const address = ins.addr.k === 'const' ? ins.addr.v : ins.addr.k === 'reg' && th.paramRegs.includes(ins.addr.r) ? th.initRegs[ins.addr.r] : undefined;
      const l = address === undefined ? -1 : locationOf(prog, address);
      const key = l >= 0 ? `loc:${l}` : `access:${th.index}:${pc}`;
      let g = byLoc.get(key);
      if (!g) byLoc.set(key, (g = { loc: l >= 0 ? prog.locations[l] : '', accesses: [] }));
      g.accesses.push({ thread: th.index, pc, ins, to });
    });
  }
  return [...byLoc.values()].map(({ loc, accesses }) => {
    const at = ({ thread, pc, ins, to }: (typeof accesses)[number]) =>
      `plain ${ins.prim.kind} → ${to} at ${namer.step(thread, pc) ?? `P${thread}`} (${namer.where(ins.pos)}${within(callsOf(ins.pos), namer)})`;
    const threads = [...new Set(accesses.map((a) => a.thread))];
    return {
      edits: accesses.map((a): Edit => ({ op: 'replace', thread: a.thread, pc: a.pc, name: a.to })),
      text: `${loc ? `mark ${loc}: ` : 'mark '}${accesses.map(at).join(', ')}`,
      cost: COST.mark,
      sites: accesses.map((a) => `access:${a.thread}:${a.pc}`),
      thread: threads[0],
      also: threads.length > 1 ? threads.slice(1) : undefined,
      strongest: true,
      marks: loc,
    };
  });
}

const fenceSource = (p: Place, fence: string): Change['source'] =>
  p.source && { key: `${p.source.key}|${fence}`, text: `${fence}() ${p.source.text} in ${p.source.fn}()` };

/**
 * A change written in a helper function is made at each of its calls: one
 * change of the source (cost as one), for the changes made alike at every
 * copy of that code, on one CPU or several (two CPUs running the same
 * unlock path).
 */
function inHelpers(prog: Program, changes: readonly Change[], namer: Namer): Change[] {
  const groups = new Map<string, Change[]>();
  for (const c of changes) {
    if (!c.source || c.hidden) continue;
    const g = groups.get(c.source.key);
    if (g) g.push(c);
    else groups.set(c.source.key, [c]);
  }
  // How many copies each helper's access has: the calls (per CPU) it was inlined through.
  const copies = new Map<string, Set<string>>();
  for (const th of prog.threads) {
    for (const ins of th.code) {
      if (ins.op !== 'prim' || !ins.pos.inlined) continue;
      const k = sourceKey(ins.pos, namer);
      if (!copies.has(k)) copies.set(k, new Set());
      copies.get(k)!.add(`${th.index}/${JSON.stringify(callsOf(ins.pos).map((c) => [c.at.line, c.at.col, namer.where(c.at)]))}`);
    }
  }
  const out: Change[] = [];
  for (const [key, g] of groups) {
    const n = copies.get(key.split('|')[key.startsWith('after|') ? 1 : 0])?.size ?? 0;
    if (g.length < 2 || g.length !== n) continue;
    const threads = [...new Set(g.map((c) => c.thread))];
    out.push({
      edits: g.flatMap((c) => c.edits),
      text: `${g[0].source!.text}, at each of its ${n} calls`,
      cost: g[0].cost,
      sites: g.flatMap((c) => c.sites),
      thread: threads[0],
      also: threads.slice(1),
      strongest: g.every((c) => c.strongest),
    });
  }
  return out;
}

/**
 * A call's stronger forms: acquire if it reads, release if it writes, fully
 * ordered if it is an RMW; of each access it makes, or, for a lowered
 * operation whose accesses all become the same primitive of another
 * (test_bit to test_bit_acquire, smp_cond_load_relaxed to
 * smp_cond_load_acquire), of all of them at once, under that name.
 */
function strengthenings(prog: Program, thread: number, code: readonly Instr[], g: Group, namer: Namer): Change[] {
  const out: Change[] = [];
  const first = code[g.first] as PrimInstr;
  const at = (pc: number) => {
    const pos = (code[pc] as PrimInstr).pos;
    return `${namer.step(thread, pc) ?? `P${thread}`} (${namer.where(pos)}${within(callsOf(pos), namer)})`;
  };
  const forms = g.prims.map((pc) => ({ pc, ins: code[pc] as PrimInstr, wants: wantedOrderings(code[pc] as PrimInstr) }));
  // An access of a helper's code, as written there.
  const helperSource = (pos: Pos, what: string): Change['source'] =>
    pos.inlined && { key: `${sourceKey(pos, namer)}|${what}`, text: `${what} at ${namer.where(pos)} in ${pos.inlined.fn}()` };
  const handled = new Set<string>();
  if (g.prims.length > 1) {
    for (const annot of ['ACQUIRE', 'RELEASE', 'MB'] as Annot[]) {
      if (!forms.every((f) => f.wants.includes(annot))) continue;
      const tos = forms.map((f) => prog.primitives.orderedForm(f.ins.name, f.ins.prim, annot));
      if (tos.some((t) => !t || t.name !== tos[0]!.name)) continue;
      const op = prog.primitives.loweredWithOrdering(first.name, tos[0]!);
      if (!op) continue;
      forms.forEach((f) => handled.add(`${f.pc}/${annot}`));
      out.push({
        edits: forms.map((f) => ({ op: 'replace', thread, pc: f.pc, name: tos[0]!.name })),
        text: `${first.name} → ${op} at ${at(g.first)}`,
        source: helperSource(first.pos, `${first.name} → ${op}`),
        cost: annot === 'MB' ? COST.fullRmw : COST.acquireRelease,
        sites: forms.map((f) => `access:${thread}:${f.pc}`),
        thread,
        strongest: annot === 'MB' || !forms.some((f) => effectOf(f.ins.prim).rmw),
      });
    }
  }
  for (const { pc, ins, wants } of forms) {
    const e = effectOf(ins.prim);
    for (const annot of wants) {
      if (handled.has(`${pc}/${annot}`)) continue;
      const to = prog.primitives.orderedForm(ins.name, ins.prim, annot);
      if (!to) continue;
      const shown = prog.primitives.loweredWithOrdering(ins.name, to) ?? (to.def ? to.name : `${to.name} semantics`);
      out.push({
        edits: [{ op: 'replace', thread, pc, name: to.name }],
        text: `${ins.name} → ${shown} at ${at(pc)}`,
        source: g.prims.length === 1 ? helperSource(ins.pos, `${ins.name} → ${shown}`) : undefined,
        cost: annot === 'MB' ? COST.fullRmw : COST.acquireRelease,
        sites: [`access:${thread}:${pc}`],
        thread,
        strongest: annot === 'MB' || !e.rmw,
      });
    }
  }
  return out;
}

/** The orderings an access may be strengthened to. */
function wantedOrderings(ins: PrimInstr): Annot[] {
  const e = effectOf(ins.prim);
  const own = e.annot;
  if (own === 'MB' || own === 'PLAIN' || e.object !== 'memory') return [];
  const wants: Annot[] = [];
  if (own === 'ONCE' || own === 'NORETURN') {
    if (e.reads && (own !== 'NORETURN' || e.rmw)) wants.push('ACQUIRE');
    if (e.writes) wants.push('RELEASE');
  }
  if (e.rmw) wants.push('MB');
  return wants;
}

/**
 * What a fix must make impossible, asked of a changed program: true while it
 * is still possible, undefined when a limit stopped the check. Monotone in
 * the changes (more ordering never makes more possible), which the search's
 * pruning needs: satisfiable (the condition), or a thread waiting forever
 * (src/report/waits.ts).
 */
export type Reaches = (prog: Program, model: Model, limits: Limits) => boolean | undefined;

/** Whether some execution satisfies the condition; undefined when a limit stopped the check. */
export function satisfiable(prog: Program, model: Model, limits: Limits): boolean | undefined {
  try {
    return explore(prog, model, { ...limits, speedcheck: 'reachable' }).positive > 0;
  } catch (e) {
    if (e instanceof LimitError) return undefined;
    throw e;
  }
}

export interface FixSearch {
  /** Minimal sets of changes that make the condition unreachable, cheapest first. */
  fixes: Change[][];
  /** Why the search stopped early, if it did. */
  stopped?: string;
  /** The candidate space: its changes, and how many sets of up to MAX_CHANGES of them there are. */
  changes: number;
  candidates: readonly Change[];
  sets: number;
  /** Full checks made. */
  checks: number;
  /** Sites every fix must change (the strongest changes everywhere else do not forbid it). */
  required: string[];
  /** Set when even every strongest change at once leaves the outcome reachable. */
  noneAtAll?: boolean;
}

/** At most this many fixes are reported, among sets of at most MAX_CHANGES changes. */
export const MAX_FIXES = 3;
export const MAX_CHANGES = 3;
/** At most this many candidate sets are checked (each is a full check). */
export const MAX_CHECKS = 1000;

/**
 * Minimal sets of changes that forbid the condition (or what `reaches`
 * asks), cheapest first (then
 * fewest changes): sets are tried in that order, so every proper subset of
 * a set was tried before it; a set containing a fix already found is
 * skipped, and so is one that monotonicity shows cannot succeed.
 */
export function findFixes(prog: Program, model: Model, all: readonly Change[], limits: Limits, reaches: Reaches = satisfiable): FixSearch {
  const changes = all.filter((c) => !c.hidden);
  const sets = combinations(changes).sort((a, b) => total(a) - total(b) || a.length - b.length);
  const base = { changes: changes.length, candidates: changes, sets: sets.length, required: [] as string[] };
  let checks = 0;
  const check = (set: readonly Change[]) => {
    checks++;
    return reaches(applyEdits(prog, set.flatMap((c) => c.edits)), model, limits);
  };
  const limitHit = 'a check reached the --max-executions/--timeout limits';
  // The strongest change at every site, but those of `without`.
  const strongestExcept = (without: (c: Change) => boolean) => {
    const taken = new Set<string>();
    const set: Change[] = [];
    for (const c of [...all].sort((a, b) => b.cost - a.cost)) {
      if (!c.strongest || without(c) || c.sites.some((s) => taken.has(s))) continue;
      c.sites.forEach((s) => taken.add(s));
      set.push(c);
    }
    return set;
  };
  const top = check(strongestExcept(() => false));
  if (top === undefined) return { ...base, fixes: [], checks, stopped: limitHit };
  if (top) return { ...base, fixes: [], checks, noneAtAll: true };
  const sites = [...new Set(all.flatMap((c) => c.sites))];
  const required: string[] = [];
  for (const s of sites) {
    const reach = check(strongestExcept((c) => c.sites.includes(s)));
    if (reach === undefined) return { ...base, fixes: [], checks, stopped: limitHit };
    if (reach) required.push(s);
  }
  // A CPU that even the strongest changes on all the others leave reaching it: every fix changes it.
  const cpus = [...new Set(changes.flatMap((c) => [c.thread, ...(c.also ?? [])]))];
  const requiredCpus: number[] = [];
  for (const t of cpus) {
    const reach = check(strongestExcept((c) => changesCpu(c, t)));
    if (reach === undefined) return { ...base, fixes: [], checks, stopped: limitHit };
    if (reach) requiredCpus.push(t);
  }
  const fixes: Change[][] = [];
  const dead: Set<string>[] = [];
  // The strongest changes at a set's places, checked once per set of places: if they fail, so does every set there.
  const strongestAt = new Map<string, boolean>();
  const stop = () => ({ ...base, required, fixes, checks, stopped: `after ${MAX_CHECKS} checks` });
  for (const set of sets) {
    const own = new Set(set.flatMap((c) => c.sites));
    if (!required.every((s) => own.has(s)) || !requiredCpus.every((t) => set.some((c) => changesCpu(c, t)))) continue;
    // Not minimal: it holds a fix found, or the same changes made stronger.
    if (fixes.some((f) => f.every((c) => set.some((t) => t === c || (t.strongest && c.sites.every((s) => t.sites.includes(s))))))) continue;
    // A fix found said another way (a helper's change at each call, as the changes of its copies).
    if (fixes.some((f) => editsKey(f) === editsKey(set))) continue;
    if (dead.some((d) => [...own].every((s) => d.has(s)))) continue;
    if (!set.every((c) => c.strongest)) {
      const key = [...own].sort().join(' ');
      let can = strongestAt.get(key);
      if (can === undefined) {
        if (checks >= MAX_CHECKS) return stop();
        const reach = check(strongestExcept((c) => !c.sites.every((s) => own.has(s))));
        if (reach === undefined) return { ...base, required, fixes, checks, stopped: limitHit };
        strongestAt.set(key, (can = !reach));
        if (reach) dead.push(own);
      }
      if (!can) continue;
    }
    if (checks >= MAX_CHECKS) return stop();
    const reach = check(set);
    if (reach === undefined) return { ...base, required, fixes, checks, stopped: limitHit };
    if (!reach) {
      fixes.push(set);
      if (fixes.length === MAX_FIXES) break;
    } else if (set.every((c) => c.strongest)) {
      dead.push(own);
    }
  }
  return { ...base, required, fixes, checks };
}

const total = (set: Change[]) => set.reduce((n, c) => n + c.cost, 0);
const editsKey = (set: readonly Change[]) => set.flatMap((c) => c.edits.map((e) => JSON.stringify(e))).sort().join(' ');

/** Every set of up to MAX_CHANGES changes with distinct sites. */
function combinations(changes: readonly Change[]): Change[][] {
  const out: Change[][] = [];
  const grow = (from: number, cur: Change[], used: Set<string>) => {
    if (cur.length > 0) out.push(cur);
    if (cur.length === MAX_CHANGES) return;
    for (let i = from; i < changes.length; i++) {
      if (changes[i].sites.some((s) => used.has(s))) continue;
      grow(i + 1, [...cur, changes[i]], new Set([...used, ...changes[i].sites]));
    }
  };
  grow(0, [], new Set());
  return out;
}

/** What a fence orders, for callers that describe places. */
export type { FenceOrders };
