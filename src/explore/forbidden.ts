// For explanations of a "Never": a candidate execution that reaches the
// condition but that the model forbids. The checking exploration rarely
// completes one (it stops extending a prefix the model already rejects, and
// skips incoherent choices, lock orders, reads and load-buffering cycles
// the model rules out wholesale), so this explores again with only the
// final judgement: every candidate is completed, and the first one that
// satisfies the condition is kept with the axiom it breaks.

import type { Execution } from '../model/execution.js';
import type { Program } from '../program/program.js';
import type { Model } from '../model/model.js';
import { scratch } from '../relation/relation.js';
import { LimitError } from '../parse/errors.js';
import { explore, type ExploreResult, type ForbiddenCandidate } from './explorer.js';

/** What the search reads of a checked test (a report's CheckResult is one): its program and how its check explored it. */
export interface CheckedRun {
  readonly program: Program;
  readonly exploration: ExploreResult;
}

export interface ExploreLimits {
  maxExecutions?: number;
  timeoutMs?: number;
}

/** At most this much of the limits goes to the search: it explains, it does not decide. */
export const SEARCH_BUDGET = { maxExecutions: 200_000, timeoutMs: 3_000 };

/**
 * A forbidden candidate satisfying r's condition; `stopped` says why there
 * is none when the search ran out of its budget (or of the given limits,
 * if smaller) before finding one.
 */
export function forbiddenCandidate(
  r: CheckedRun,
  model: Model,
  limits: ExploreLimits = {},
): { found?: ForbiddenCandidate; stopped?: string } {
  // The checking run's own, unless it is incoherent (under a model that judges coherence itself): a coherent one says more.
  const known = r.exploration.forbiddenWitness;
  if (known && coherent(known.exec)) return { found: known };
  const cached = searched.get(r);
  if (cached) return cached;
  const result = search(r, model, limits);
  searched.set(r, result);
  return result;
}

/** Searches made, per checked test (a trace and a picture share one). */
const searched = new WeakMap<CheckedRun, { found?: ForbiddenCandidate; stopped?: string }>();

function search(r: CheckedRun, model: Model, limits: ExploreLimits): { found?: ForbiddenCandidate; stopped?: string } {
  const budget = {
    maxExecutions: Math.min(limits.maxExecutions ?? Infinity, SEARCH_BUDGET.maxExecutions),
    timeoutMs: Math.min(limits.timeoutMs ?? Infinity, SEARCH_BUDGET.timeoutMs),
  };
  const deadline = Date.now() + budget.timeoutMs;
  const finalOnly = (m: Partial<Model>): Model => ({
    ...model,
    ...m,
    forbiddenSources: undefined,
    check: (x, opts) => (opts?.prefix ? { consistent: true, flags: [] } : model.check(x)),
  });
  // First among coherent candidates that respect the model's own shortcuts
  // (their violations say the most); then among all.
  const stages: [Model, boolean][] = [
    [finalOnly({ judgesCoherence: () => false }), false],
    [finalOnly({ lockOrders: () => false, mayCycleThrough: () => true }), true],
  ];
  // The first candidate found ends the search.
  const stop = (c: ForbiddenCandidate) => {
    throw new Found(c);
  };
  for (const [m, keepIncoherent] of stages) {
    try {
      const timeoutMs = Math.max(1, deadline - Date.now());
      explore(r.program, m, { maxExecutions: budget.maxExecutions, timeoutMs, keepWitnesses: true, keepIncoherent, onForbidden: stop });
    } catch (e) {
      if (e instanceof Found) return { found: e.candidate };
      if (e instanceof LimitError) return { stopped: e.message.replace(/ \(--[a-z-]+\)$/, '') };
      throw e;
    }
  }
  return {};
}

/** Whether po-loc | rf | co | fr is acyclic and every RMW atomic: the candidates herd7 builds. */
function coherent(x: Execution): boolean {
  const { po, loc, rf, co, rmw, ext } = x.rel;
  const fr = rf.inv().seq(co);
  return scratch(() => po.and(loc).or(rf, co, fr).acyclic() && rmw.and(fr.and(ext).seq(co.and(ext))).isEmpty());
}

class Found {
  constructor(readonly candidate: ForbiddenCandidate) {}
}
