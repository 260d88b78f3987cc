// How reports name the events of an execution: steps numbered per CPU in
// program order (P0.1, P0.2, ...; the events of one instruction share a
// step), and a short text per event (kind, location, value, annotation,
// where a read's value came from). Shared by traces and pictures.

import { formatValue } from '../check.js';
import type { Event } from '../events/event.js';
import type { Execution } from '../model/execution.js';
import type { Program } from '../program/program.js';

/**
 * Step labels by event id; initial writes have none. A step is one run of
 * an instruction: the events of one instruction in a row (an RMW's read and
 * write, a lock's LKR and LKW, smp_store_mb()'s write and fence), never two
 * of the same kind, so that each iteration of a loop has its own steps.
 */
export function stepNumbers(x: Execution): Map<number, string> {
  const steps = new Map<number, string>();
  let thread = -1;
  let n = 0;
  let pc = -1;
  let kinds = new Set<string>();
  for (const e of [...x.events].sort((a, b) => a.thread - b.thread || a.poIndex - b.poIndex)) {
    if (e.thread < 0) continue;
    if (e.thread !== thread) {
      thread = e.thread;
      n = 0;
      pc = -1;
    }
    if (e.pc !== pc || kinds.has(e.kind)) {
      n++;
      pc = e.pc;
      kinds = new Set();
    }
    kinds.add(e.kind);
    steps.set(e.id, `P${e.thread}.${n}`);
  }
  return steps;
}

export function eventText(prog: Program, x: Execution, e: Event, steps: Map<number, string>): string {
  const loc = e.loc >= 0 ? prog.locations[e.loc] : '';
  const v = formatValue(prog, e.value);
  if (e.kind === 'F') return e.srcu ? `synchronize_srcu(${loc})` : `fence ${e.fence}`;
  const what = e.lock ?? (e.kind === 'R' ? 'R' : 'W');
  let s = `${what} ${loc}=${v}`;
  // A failed RMW (a lone read of an RMW instruction) orders nothing, whatever its annotation.
  const failed = e.isRmw && e.rmwPartner < 0 && e.kind === 'R' && !e.lock;
  if (failed) s += ' [failed RMW: unordered]';
  else if (e.annot !== 'ONCE' && !e.lock) s += ` [${e.annot.toLowerCase()}]`;
  if (e.kind === 'R') {
    const src = e.rf >= 0 ? x.events[e.rf] : undefined;
    if (!src) s += '';
    else if (src.thread < 0) s += ' (initial value)';
    else s += ` (from ${steps.get(src.id)})`;
  }
  return s;
}
