// For explanations of a "Never": a candidate execution that reaches the
// condition but that the model forbids. The checking exploration rarely
// completes one (it stops extending a prefix the model already rejects, and
// skips lock orders, reads and load-buffering cycles the model rules out
// wholesale), so this explores again with only the final judgement: every
// candidate is completed, and the first one that satisfies the condition is
// kept with the axiom it breaks.

import type { CheckResult } from '../check.js';
import type { Execution } from '../model/execution.js';
import type { Model } from '../model/model.js';
import { LimitError } from '../parse/errors.js';
import { explore } from './explorer.js';

export interface ExploreLimits {
  maxExecutions?: number;
  timeoutMs?: number;
}

export interface ForbiddenCandidate {
  exec: Execution;
  axiom: string;
  values: number[];
}

/** A forbidden candidate satisfying r's condition, or undefined (none, or a limit stopped the search). */
export function forbiddenCandidate(r: CheckResult, model: Model, limits: ExploreLimits = {}): ForbiddenCandidate | undefined {
  const known = r.exploration.forbiddenWitness?.values().next().value;
  if (known) return known;
  const finalOnly: Model = {
    ...model,
    mutualExclusion: false,
    loadBuffering: 'any',
    check: (x, opts) => (opts?.prefix ? { consistent: true, flags: [] } : model.check(x)),
  };
  try {
    const ex = explore(r.program, finalOnly, { ...limits, keepWitnesses: true });
    return ex.forbiddenWitness?.values().next().value;
  } catch (e) {
    if (e instanceof LimitError) return undefined;
    throw e;
  }
}
