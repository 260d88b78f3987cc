// How reports name the events of an execution: steps numbered per CPU in
// program order (P0.1, P0.2, ...; the events of one instruction share a
// step), and a short text per event (kind, location, value, annotation,
// where a read's value came from). Shared by traces and pictures.

import { formatValue } from '../check.js';
import type { Event } from '../events/event.js';
import type { Execution } from '../model/execution.js';
import type { Program } from '../program/program.js';

/** Step labels by event id; initial writes have none. */
export function stepNumbers(x: Execution): Map<number, string> {
  const steps = new Map<number, string>();
  const count = new Map<number, number>();
  const byPc = new Map<string, string>();
  for (const e of [...x.events].sort((a, b) => a.thread - b.thread || a.poIndex - b.poIndex)) {
    if (e.thread < 0) continue;
    const key = `${e.thread}:${e.pc}`;
    let s = byPc.get(key);
    if (!s) {
      const n = (count.get(e.thread) ?? 0) + 1;
      count.set(e.thread, n);
      s = `P${e.thread}.${n}`;
      byPc.set(key, s);
    }
    steps.set(e.id, s);
  }
  return steps;
}

export function eventText(prog: Program, x: Execution, e: Event, steps: Map<number, string>): string {
  const loc = e.loc >= 0 ? prog.locations[e.loc] : '';
  const v = formatValue(prog, e.value);
  if (e.kind === 'F') return e.srcu ? `synchronize_srcu(${loc})` : `fence ${e.fence}`;
  const what = e.lock ?? (e.kind === 'R' ? 'R' : 'W');
  let s = `${what} ${loc}=${v}`;
  if (e.annot !== 'ONCE' && !e.lock) s += ` [${e.annot.toLowerCase()}]`;
  if (e.kind === 'R') {
    const src = e.rf >= 0 ? x.events[e.rf] : undefined;
    if (!src) s += '';
    else if (src.thread < 0) s += ' (initial value)';
    else s += ` (from ${steps.get(src.id)})`;
  }
  return s;
}
