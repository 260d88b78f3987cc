// Outcome counting: each complete candidate is judged by the model and, if
// consistent, counted under its final state (herd7's States, Positive and
// Negative); an inconsistent one is counted under the axiom it breaks.

import { LimitError } from '../parse/errors.js';
import { isSymbolic } from '../program/program.js';
import { herdSymbolNames } from './symbols.js';
import { buildExecution, type Execution } from '../model/execution.js';
import { lasting, scratch } from '../relation/relation.js';
import type { ExploreResult, Outcome } from './explorer.js';
import { prune, type ExploreState } from './state.js';
import { SearchDone } from './speedcheck.js';

/** A whole execution, judged; if inconsistent, the axiom named may be any it breaks. */
const ANY_AXIOM = { anyAxiom: true } as const;

/** Every thread has finished: judges the execution, unless a guess is still unmatched (or only waits are asked about). */
export function finish(s: ExploreState): void {
  if (s.pending.length > 0 || s.opts.livenessOnly) {
    prune(s);
    return;
  }
  scratch(() => judge(s));
}

function judge(s: ExploreState): void {
  const counts = s.counts;
  counts.candidates++;
  if (counts.candidates > s.maxExecutions) {
    throw new LimitError(`more than ${s.maxExecutions} candidate executions (--max-executions)`);
  }
  const { prog, opts } = s;
  const fs = { regs: s.finalRegs, mem: s.co.map((l) => s.events[l[l.length - 1]].value) };
  // An execution the filter rejects is not counted: the model need not judge it.
  if (prog.final.filter && !prog.final.filter(fs)) return;
  let values = prog.observed.map((o) => (o.kind === 'reg' ? fs.regs[o.thread][o.reg] : fs.mem[o.loc]));
  // An out-of-thin-air value shown: named as herd7 names it in this execution (symbols.ts).
  if (values.some(isSymbolic)) {
    const names = herdSymbolNames(prog, s.events);
    if (names) values = values.map((v) => names.get(v) ?? v);
  }
  const pos = prog.final.holds(fs);
  const exec = s.structures.execution(prog, s.events, s.co);
  // Which axiom an execution breaks first matters only for the forbidden candidate kept.
  const verdict = s.model.check(exec, opts.keepWitnesses && pos && !s.forbidden ? undefined : ANY_AXIOM);
  if (!verdict.consistent) {
    const ax = verdict.violated ?? 'model';
    s.rejectedBy.set(ax, (s.rejectedBy.get(ax) ?? 0) + 1);
    if (opts.keepWitnesses && pos && !s.forbidden) {
      s.forbidden = { exec: snapshot(exec), axiom: ax, values };
      opts.onForbidden?.(s.forbidden);
    }
    return;
  }
  for (const f of verdict.flags) s.flags.add(f);
  if (pos) counts.positive++;
  else counts.negative++;
  outcomeOf(s, values, pos, exec).count++;
  if (s.search?.found(pos)) throw new SearchDone();
  if (pos && opts.stopAfterPositive !== undefined && counts.positive >= opts.stopAfterPositive) throw new SearchDone();
}

/**
 * The outcome of an execution with final values `values`: the last one
 * counted if it has them (consecutive executions mostly end alike), else
 * the one of their key, made if new.
 */
function outcomeOf(s: ExploreState, values: number[], pos: boolean, exec: Execution): Outcome {
  const last = s.lastOutcome;
  if (last && sameValues(last.values, values)) return last;
  const key = values.join(',');
  let o = s.outcomes.get(key);
  if (!o) {
    o = { values, positive: pos, count: 0 };
    if (s.opts.keepWitnesses === 'all' || (s.opts.keepWitnesses && pos)) o.witness = snapshot(exec);
    s.outcomes.set(key, o);
  }
  s.lastOutcome = o;
  return o;
}

function sameValues(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What the exploration found, once it is over. */
export function result(s: ExploreState): ExploreResult {
  const c = s.counts;
  return {
    outcomes: [...s.outcomes.values()],
    positive: c.positive,
    negative: c.negative,
    flags: [...s.flags].sort(),
    candidates: c.candidates,
    pruned: c.pruned,
    cutPaths: c.cutPaths,
    rejectedBy: s.rejectedBy,
    forbiddenWitness: s.forbidden,
    prefixChecks: c.prefixChecks,
    prefixRejects: c.prefixRejects,
    liveness: s.liveness ? { stuck: c.stuck, hangs: c.hangs, hang: s.hang } : undefined,
  };
}

/** A copy of an execution that later exploration will not change. */
export function snapshot(x: Execution): Execution {
  return lasting(() => {
    const events = x.events.map((e) => ({ ...e }));
    const co = x.co.map((l) => l.slice());
    // The program itself: FW (the final writes of the locations the final state shows) depends on it.
    const copy = buildExecution(x.program, events, co);
    copy.structure = x.structure;
    return copy;
  });
}
