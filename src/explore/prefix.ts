// Prefix checks: the model's verdict on the execution built so far. The
// models' axioms (acyclic, irreflexive, empty) only lose when events and
// edges are added, so an inconsistent prefix has no consistent completion.
// Guessed reads and lock reads (whose source is fixed only at the end)
// contribute no rf edge here, which keeps the prefix a subset of every
// completion.

import { scratch } from '../relation/relation.js';
import type { ExploreState } from './state.js';

/** See prefixConsistent. */
const PREFIX_WINDOW = 256;
const PREFIX_STRIDE = 8;

/**
 * Whether the model accepts the execution built so far. This only prunes
 * (every complete execution is judged in full), so where checks have
 * stopped paying - no rejection among the last PREFIX_WINDOW - only every
 * PREFIX_STRIDE-th is made, until one rejects again.
 */
export function prefixConsistent(s: ExploreState): boolean {
  const p = s.prefix;
  if (p.sinceReject >= PREFIX_WINDOW && ++p.skipped % PREFIX_STRIDE !== 0) return true;
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
