// Prefix checks: the model's verdict on the execution built so far. The
// models' axioms (acyclic, irreflexive, empty) only lose when events and
// edges are added, so an inconsistent prefix has no consistent completion.
// Guessed reads and lock reads (whose source is fixed only at the end)
// contribute no rf edge here, which keeps the prefix a subset of every
// completion.

import { effectOf } from '../events/primitives.js';
import { hasLoops, type PrimInstr, type Program } from '../program/program.js';
import { scratch } from '../relation/relation.js';
import type { Event } from '../events/event.js';
import type { ExploreState } from './state.js';

/** See prefixConsistent. */
const PREFIX_WINDOW = 256;
const PREFIX_STRIDE = 8;
const PREFIX_FIRST_AFTER = 64;

/**
 * How many leaves (candidates judged, branches pruned) a search reaches
 * before its first prefix check. Most tests have a few dozen candidates,
 * and a prefix check costs about as much as judging one: for them the
 * checks cost more than the branches they cut (the kernel corpus: 1,257
 * checks to avoid 106 candidates). Every path ends in a leaf, so waiting
 * for PREFIX_FIRST_AFTER of them bounds what the wait can cost. Not in a
 * test with a loop: a pruned branch never reaches the loop bound, and
 * whether some path does is herd's "Loop", so there pruning stays as it was.
 */
export function prefixChecksFrom(prog: Program): number {
  return hasLoops(prog) ? 0 : PREFIX_FIRST_AFTER;
}

/**
 * Whether the model accepts the execution built so far. This only prunes
 * (every complete execution is judged in full), so where checks have
 * stopped paying - no rejection among the last PREFIX_WINDOW - only every
 * PREFIX_STRIDE-th is made, until one rejects again.
 */
export function prefixConsistent(s: ExploreState): boolean {
  const p = s.prefix;
  if (s.counts.candidates + s.counts.pruned < p.from) return true;
  if (p.sinceReject >= PREFIX_WINDOW && !p.every && ++p.skipped % PREFIX_STRIDE !== 0) return true;
  p.sinceReject++;
  s.counts.prefixChecks++;
  const ok = scratch(() => {
    const exec = s.structures.execution(s.prog, s.events, s.co);
    return s.model.check(exec, { prefix: true }).consistent;
  });
  if (!ok) {
    s.counts.prefixRejects++;
    p.sinceReject = 0;
  }
  return ok;
}

/**
 * Whether the model forbids read r (its thread's last event) to take w,
 * given the execution built so far (Model.forbiddenSources): a check at the
 * read, before the choice is built, made where prefix checks are made
 * (where branches may be dropped anywhere, once the search has reached
 * PREFIX_FIRST_AFTER leaves) but never skipped, as it costs little.
 */
export function sourceForbidden(s: ExploreState, r: Event, w: Event): boolean {
  const forbids = s.forbiddenSource;
  return forbids !== undefined && s.counts.candidates + s.counts.pruned >= s.prefix.from && forbids(s, r, w);
}

/**
 * Goes on after a choice of thread t whose prefix check is owed rather than
 * made now: it is made by paysOwed at the next step that is not one of t's
 * fences, so that it sees the events t makes without choosing. A read
 * inside an RCU read-side critical section is judged with the section's
 * rcu_read_unlock, where the rcu axiom can see what the read broke (with
 * the section open it cannot). Only where branches may be dropped anywhere
 * (ExploreState.dropsAnywhere): between the choice and its check there are
 * then only fences, which count nothing.
 */
export function owe(s: ExploreState, t: number, k: () => void): void {
  const owed = s.owed;
  s.owed = t;
  k();
  s.owed = owed;
}

/**
 * Before thread u takes its next step (`waited`: a waiting read going on):
 * whether the check owed (owe), if any, is made now, and passed. A fence of
 * the owing thread defers it again; a complete execution is judged whole
 * instead (outcomes.ts), so the caller does not pay for one.
 */
export function paysOwed(s: ExploreState, u: number, waited: boolean): boolean {
  if (s.owed < 0) return true;
  if (!waited && u === s.owed && isFence(s, u)) return true;
  s.owed = -1;
  return prefixConsistent(s);
}

/** Whether thread u's next instruction is a fence (no choice to make, no access). */
function isFence(s: ExploreState, u: number): boolean {
  const ins = s.prog.threads[u].code[s.ts[u].pc] as PrimInstr;
  return effectOf(ins.prim).object === 'none';
}
