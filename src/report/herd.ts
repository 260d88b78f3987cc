// herd7's output block, line for line, so that scripts that read herd's
// output (the kernel's judgelitmus.sh, checkghlitmus.sh...) read ours.

import { livenessWords, type CheckResult } from '../check.js';

export function herdBlock(r: CheckResult): string {
  const kind = r.quantifier === 'exists' ? 'Allowed' : r.quantifier === 'forall' ? 'Required' : 'Forbidden';
  // herd drops a ".litmus" ending from the name in the header (as litmus7 does).
  const name = r.name.replace(/\.litmus$/, '');
  const lines: string[] = [];
  lines.push(`Test ${name} ${kind}`);
  lines.push(`States ${r.states.length}`);
  for (const s of r.states) lines.push(s.bindings.map(([k, v]) => `${k}=${v};`).join(' '));
  // herd prefixes "Loop" when the unrolling bound cut some execution.
  lines.push(`${r.stats.cutPaths ? 'Loop ' : ''}${r.ok ? 'Ok' : 'No'}`);
  lines.push('Witnesses');
  // Witnesses count what the condition looks for: for ~exists, the executions that do not satisfy it.
  const [wp, wn] = r.quantifier === '~exists' ? [r.negative, r.positive] : [r.positive, r.negative];
  lines.push(`Positive: ${wp} Negative: ${wn}`);
  for (const f of r.flags) lines.push(`Flag ${f}`);
  lines.push(`Condition ${r.condition}`);
  lines.push(`Observation ${name} ${r.observation} ${r.positive} ${r.negative}`);
  return lines.join('\n');
}

/** The one-line human summary that follows each block. */
export function humanLine(r: CheckResult): string {
  const total = r.positive + r.negative;
  let line = r.speedcheck
    ? `${r.name}: ${r.observation} under ${r.model} (--speedcheck: decided from ${total} execution${total === 1 ? '' : 's'}; counts skipped)`
    : `${r.name}: ${r.observation} (${r.positive} of ${total} executions) under ${r.model}`;
  if (r.expected !== undefined) {
    const expected = r.expectsDataRace ? `${r.expected} DATARACE` : r.expected;
    const why = r.judgement ? ` (${r.judgement})` : '';
    line += `; Result: ${expected} ${r.matches ? 'matches' : 'MISMATCH'}${why}`;
  }
  if (r.flags.length) line += `; flags: ${r.flags.join(', ')}`;
  if (r.liveness) line += `; ${livenessWords(r.liveness)}`;
  if (r.stats.cutPaths) line += `; ${r.stats.cutPaths} paths cut by the loop bound (see --unroll)`;
  return line;
}
