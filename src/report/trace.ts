// Readable witnesses: one execution per outcome, as numbered steps per CPU
// with the values read and written, what was reordered or read early, and
// which fence, had it been there, forbids the outcome (checked by running
// the checker again on the edited program).

import type { CheckResult } from '../check.js';
import { formatValue } from '../check.js';
import type { Event } from '../events/event.js';
import { explore } from '../explore/explorer.js';
import { forbiddenCandidate, type ExploreLimits } from '../explore/forbidden.js';
import type { Execution } from '../model/execution.js';
import type { Model } from '../model/model.js';
import { insertFence } from '../program/edit.js';
import type { Program } from '../program/program.js';
import { Relation } from '../relation/relation.js';
import { eventText, stepNumbers } from './steps.js';

export interface TraceOptions {
  tryFixes?: boolean;
  /** Limits for the search of a forbidden candidate (when nothing satisfies the condition). */
  limits?: ExploreLimits;
}

export function traceReport(r: CheckResult, model: Model, opts: TraceOptions = {}): string {
  const prog = r.program;
  const out: string[] = [];
  const outcomes = r.exploration.outcomes.filter((o) => o.positive);
  const label = (values: number[]) =>
    prog.observed.map((o, i) => `${o.kind === 'reg' ? `${o.thread}:${o.name}` : `[${o.name}]`}=${formatValue(prog, values[i])};`).join(' ');
  if (outcomes.length === 0) {
    out.push(`No consistent execution satisfies "${r.condition}" under ${model.name}.`);
    const { found: fw, stopped } = forbiddenCandidate(r, model, opts.limits);
    if (stopped) out.push(`(No forbidden candidate to show: the search for one gave up: ${stopped}.)`);
    else if (!fw) {
      out.push('Not even an inconsistent candidate execution reaches it: the program (its values, branches and');
      out.push('locks) rules it out before any memory model is asked.');
    }
    if (fw) {
      out.push(`Candidate reaching ${label(fw.values)} is forbidden by the "${fw.axiom}" axiom:`);
      out.push(...describe(prog, fw.exec));
      const cycle = model.explain?.(fw.exec, fw.axiom);
      if (cycle) {
        const steps = stepNumbers(fw.exec);
        const name = (id: number) => steps.get(id) ?? `init ${prog.locations[fw.exec.events[id].loc]}`;
        const path = cycle.edges.map(([a], i) => `${name(a)} -${cycle.labels?.[i] ?? cycle.name}-> `).join('');
        if (cycle.name === 'atomic') {
          // Not a cycle: the RMW's read, the write between, the RMW's write.
          out.push(`  not atomic: ${path}${name(cycle.edges[cycle.edges.length - 1][1])}`);
        } else {
          out.push(`  the ${cycle.name} cycle: ${path}${name(cycle.edges[0][0])}`);
        }
      }
    }
    return out.join('\n');
  }
  for (const o of outcomes) {
    if (!o.witness) continue;
    out.push(`Witness for ${label(o.values)}${o.positive ? ' (satisfies the condition)' : ''}, ${o.count} execution${o.count === 1 ? '' : 's'}:`);
    out.push(...describe(prog, o.witness));
    const analysis = analyse(prog, o.witness);
    out.push(...analysis.lines);
    if (opts.tryFixes && analysis.poEdges.length > 0) out.push(...suggestFix(prog, model, o.values, analysis.poEdges, o.witness));
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** The execution as numbered steps per CPU. */
function describe(prog: Program, x: Execution): string[] {
  const steps = stepNumbers(x);
  const lines: string[] = [];
  for (const th of prog.threads) {
    lines.push(`  P${th.index}:`);
    const evs = x.events.filter((e) => e.thread === th.index).sort((a, b) => a.poIndex - b.poIndex);
    let lastStep = '';
    for (const e of evs) {
      const st = steps.get(e.id)!;
      const txt = eventText(prog, x, e, steps);
      if (st === lastStep) {
        lines[lines.length - 1] += `; ${txt}`;
        continue;
      }
      lastStep = st;
      const where = e.pos ? `line ${e.pos.line}` : '';
      lines.push(`    ${st.split('.')[1].padStart(2)}. ${(e.text ?? '').padEnd(22)} ${txt}${where ? `   (${where})` : ''}`);
    }
  }
  const co = x.co
    .map((l, loc) => ({ l, loc }))
    .filter(({ l }) => l.length > 1)
    .map(({ l, loc }) => `${prog.locations[loc]}: ${l.map((id) => (x.events[id].thread < 0 ? 'init' : steps.get(id))).join(' -> ')}`);
  if (co.length) lines.push(`  coherence order: ${co.join('; ')}`);
  return lines;
}

interface Analysis {
  lines: string[];
  /** Program-order pairs that the outcome needs to be out of order. */
  poEdges: [Event, Event][];
}

/** Why the outcome is not sequentially consistent: a cycle of po, rf, co, fr. */
function analyse(prog: Program, x: Execution): Analysis {
  const { po, rf, co } = x.rel;
  const fr = rf.inv().seq(co);
  const poImm = immediate(po);
  const cycle = poImm.or(rf, immediate(co), fr).findCycle();
  const steps = stepNumbers(x);
  if (!cycle) {
    return {
      lines: [
        '  This outcome is also possible under sequential consistency: no reordering is needed, and no',
        '  barrier can forbid it; the logic itself allows it. One interleaving that produces it:',
        ...interleaving(prog, x, steps),
      ],
      poEdges: [],
    };
  }
  const lines = ['  Not sequentially consistent; the cycle that shows it:'];
  const poEdges: [Event, Event][] = [];
  for (let i = 0; i < cycle.length; i++) {
    const a = x.events[cycle[i]];
    const b = x.events[cycle[(i + 1) % cycle.length]];
    const sa = a.thread < 0 ? 'init' : steps.get(a.id)!;
    const sb = b.thread < 0 ? 'init' : steps.get(b.id)!;
    if (po.has(a.id, b.id)) {
      lines.push(`    ${sa} -> ${sb}: program order, but ${sb} took effect before ${sa} (reordered)`);
      poEdges.push([a, b]);
    } else if (rf.has(a.id, b.id)) {
      lines.push(`    ${sa} -> ${sb}: ${sb} reads the value ${sa} wrote${a.thread === b.thread ? ' (forwarded before it was visible to other CPUs)' : ''}`);
    } else if (fr.has(a.id, b.id)) {
      lines.push(`    ${sa} -> ${sb}: ${sa} read a value that ${sb} overwrites (${sb} was not yet visible to ${sa})`);
    } else {
      lines.push(`    ${sa} -> ${sb}: coherence order of ${prog.locations[a.loc]}`);
    }
  }
  return { lines, poEdges };
}

/** A global order of the steps that respects po, rf, co and fr (the SC case). */
function interleaving(prog: Program, x: Execution, steps: Map<number, string>): string[] {
  const { po, rf, co } = x.rel;
  const order = po.or(rf, co, rf.inv().seq(co));
  const n = x.n;
  const indeg = new Array<number>(n).fill(0);
  order.forEach((_, b) => indeg[b]++);
  // Kahn's algorithm, lowest thread first among the ready events: a stable,
  // readable order.
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) ready.push(i);
  const out: string[] = [];
  let k = 0;
  let lastStep = '';
  while (ready.length > 0) {
    ready.sort((a, b) => x.events[a].thread - x.events[b].thread || x.events[a].poIndex - x.events[b].poIndex);
    const e = ready.shift()!;
    const ev = x.events[e];
    order.forEach((a, b) => {
      if (a === e && --indeg[b] === 0) ready.push(b);
    });
    if (ev.thread < 0) continue;
    const st = steps.get(e)!;
    const txt = eventText(prog, x, ev, steps);
    if (st === lastStep) {
      out[out.length - 1] += `; ${txt}`;
      continue;
    }
    lastStep = st;
    out.push(`    ${String(++k).padStart(2)}. ${st.padEnd(6)} ${(ev.text ?? '').padEnd(22)} ${txt}`);
  }
  return out;
}

function immediate(r: Relation): Relation {
  return r.minus(r.seq(r));
}

/** Tries a fence between each reordered pair, and all of them together. */
function suggestFix(prog: Program, model: Model, values: number[], edges: [Event, Event][], x: Execution): string[] {
  const steps = stepNumbers(x);
  const key = values.join(',');
  const stillReachable = (p: Program) => {
    try {
      const res = explore(p, model, { maxExecutions: 200_000, timeoutMs: 5_000 });
      return res.outcomes.some((o) => o.values.join(',') === key);
    } catch {
      return true;
    }
  };
  const fenceFor = (a: Event, b: Event) => (a.kind === 'R' && b.kind === 'R' ? 'smp_rmb' : a.kind === 'W' && b.kind === 'W' ? 'smp_wmb' : 'smp_mb');
  const lines: string[] = [];
  for (const [a, b] of edges) {
    const f = fenceFor(a, b);
    if (!stillReachable(insertFence(prog, a.thread, a.pc, f))) {
      lines.push(`  Fix (checked): ${f}() between ${steps.get(a.id)} and ${steps.get(b.id)} forbids this outcome.`);
    }
  }
  if (lines.length === 0 && edges.length > 1) {
    let p = prog;
    // Insert from the last pc backwards so that earlier positions stay valid.
    const sorted = [...edges].sort((u, v) => u[0].thread - v[0].thread || v[0].pc - u[0].pc);
    for (const [a, b] of sorted) p = insertFence(p, a.thread, a.pc, fenceFor(a, b));
    if (!stillReachable(p)) {
      lines.push(`  Fix (checked): fences on all of ${edges.map(([a, b]) => `${steps.get(a.id)}->${steps.get(b.id)} (${fenceFor(a, b)})`).join(', ')} together forbid this outcome.`);
    }
  }
  if (lines.length === 0) lines.push('  No single fence on these pairs forbids this outcome (it may need a lock or a different algorithm).');
  return lines;
}
