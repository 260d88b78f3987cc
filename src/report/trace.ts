// Readable witnesses: one execution per outcome, as numbered steps per CPU
// with the values read and written; the cycle that makes it non-SC, each
// program-order step named by how the model orders it in that execution (or
// said to be reordered when it does not); and minimal checked fixes
// (src/report/fixes.ts).

import type { CheckResult } from '../check.js';
import { formatValue } from '../check.js';
import type { Pos } from '../parse/ast.js';
import { forbiddenCandidate, type ExploreLimits } from '../explore/forbidden.js';
import type { Execution } from '../model/execution.js';
import type { Model, Ordering } from '../model/model.js';
import type { Program } from '../program/program.js';
import { sc } from '../../models/sc.js';
import { accessKind, candidateChanges, findFixes, MAX_CHANGES, satisfiable, type Limits, type PoStep } from './fixes.js';
import { reorderingCycle } from './graph.js';
import { eventText, stepNumbers } from './steps.js';

export interface TraceOptions {
  tryFixes?: boolean;
  /** Limits for the search of a forbidden candidate (when nothing satisfies the condition). */
  limits?: ExploreLimits;
  /** Names the source place of a position (a TypeScript suite: file:line); default "line N". */
  where?: (pos: Pos) => string | undefined;
  /** Explain at most this many of the outcomes that satisfy the condition (default: all). */
  maxWitnesses?: number;
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
      out.push(...describe(prog, fw.exec, opts.where));
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
  const poSteps: PoStep[] = [];
  const shown = outcomes.filter((o) => o.witness).slice(0, opts.maxWitnesses ?? outcomes.length);
  if (shown.length < outcomes.length) out.push(`(${outcomes.length} outcomes satisfy the condition; the first ${shown.length === 1 ? 'is' : `${shown.length} are`} explained.)`);
  for (const o of shown) {
    if (!o.witness) continue;
    out.push(`Witness for ${label(o.values)}${o.positive ? ' (satisfies the condition)' : ''}, ${o.count} execution${o.count === 1 ? '' : 's'}:`);
    out.push(...describe(prog, o.witness, opts.where));
    const analysis = analyse(prog, model, o.witness);
    out.push(...analysis.lines);
    poSteps.push(...analysis.poSteps);
    out.push('');
  }
  if (opts.tryFixes && r.quantifier === 'exists') out.push(...fixLines(prog, model, poSteps, opts.limits ?? {}));
  return out.join('\n').trimEnd();
}

/** The execution as numbered steps per CPU. */
function describe(prog: Program, x: Execution, place?: (pos: Pos) => string | undefined): string[] {
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
      const where = e.pos ? (place?.(e.pos) ?? `line ${e.pos.line}`) : '';
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
  /** The program-order steps of the cycle (ordered or not): where a fix can act. */
  poSteps: PoStep[];
}

/** A node of the cycle: the events of one instruction (a lock's LKR and LKW are one step). */
interface Node {
  events: number[];
  step: string;
}

/**
 * Why the outcome is not sequentially consistent: a cycle of program order
 * (between accesses), rf, co and fr, each program-order step named by how
 * the model orders it in this execution, or said to be reordered when the
 * model does not order it.
 */
function analyse(prog: Program, model: Model, x: Execution): Analysis {
  const { po, rf, co } = x.rel;
  const fr = rf.inv().seq(co);
  const cycle = reorderingCycle(x)?.edges.map(([a]) => a);
  const steps = stepNumbers(x);
  if (!cycle) {
    return {
      lines: [
        '  This outcome is also possible under sequential consistency: no reordering is needed, and no',
        '  barrier can forbid it; the logic itself allows it. One interleaving that produces it:',
        ...interleaving(prog, x, steps),
      ],
      poSteps: [],
    };
  }
  const nodes = cycleNodes(x, cycle, steps);
  const lines = [`  Not sequentially consistent; the cycle that shows it, each step as ${model.name} sees it:`];
  const poSteps: PoStep[] = [];
  const orderings: (Ordering | undefined | 'not-po')[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const na = nodes[i];
    const nb = nodes[(i + 1) % nodes.length];
    const a = x.events[na.events[na.events.length - 1]];
    const b = x.events[nb.events[0]];
    const [sa, sb] = [na.step, nb.step];
    if (po.has(a.id, b.id)) {
      const ord = orderOfSteps(model, x, na, nb);
      orderings.push(ord);
      lines.push(ord
        ? `    ${sa} -> ${sb}: program order, kept by ${ord.how} (${ord.relation})`
        : `    ${sa} -> ${sb}: program order, which ${model.name} does not keep here: ${sb} can take effect before ${sa} (reordered)`);
      poSteps.push({ thread: a.thread, from: endpoint(prog, x, na, sa), to: endpoint(prog, x, nb, sb) });
      continue;
    }
    orderings.push('not-po');
    const ext = a.thread !== b.thread;
    if (rf.has(a.id, b.id)) {
      lines.push(`    ${sa} -> ${sb}: ${sb} reads the value ${sa} wrote (${ext ? 'rfe' : 'rfi: forwarded before it was visible to other CPUs'})`);
    } else if (fr.has(a.id, b.id)) {
      lines.push(`    ${sa} -> ${sb}: ${sa} read a value that ${sb} overwrites (${ext ? 'fre' : 'fri'}: ${sb} was not yet visible to ${sa})`);
    } else {
      lines.push(`    ${sa} -> ${sb}: coherence order of ${prog.locations[a.loc]} (${ext ? 'coe' : 'coi'})`);
    }
  }
  if (orderings.every((o) => o !== undefined)) lines.push(...allOrdered(x, model, nodes, orderings));
  return { lines, poSteps };
}

/** Groups the cycle's events by instruction, so that no step goes from an instruction to itself. */
function cycleNodes(x: Execution, cycle: number[], steps: Map<number, string>): Node[] {
  const name = (id: number) => (x.events[id].thread < 0 ? `init ${x.locations[x.events[id].loc]}` : steps.get(id)!);
  const nodes: Node[] = [];
  for (const id of cycle) {
    const last = nodes[nodes.length - 1];
    if (last && last.step === name(id) && x.events[id].thread >= 0) last.events.push(id);
    else nodes.push({ events: [id], step: name(id) });
  }
  if (nodes.length > 1 && nodes[0].step === nodes[nodes.length - 1].step && x.events[nodes[0].events[0]].thread >= 0) {
    const tail = nodes.pop()!;
    nodes[0].events.unshift(...tail.events);
  }
  return nodes;
}

/** How the model orders two instructions: the first of their event pairs it keeps in order. */
function orderOfSteps(model: Model, x: Execution, a: Node, b: Node): Ordering | undefined {
  if (!model.orderOf) return undefined;
  for (const p of a.events) for (const q of b.events) {
    const o = x.rel.po.has(p, q) ? model.orderOf(x, p, q) : undefined;
    if (o) return o;
  }
  return undefined;
}

function endpoint(prog: Program, x: Execution, n: Node, step: string): PoStep['from'] {
  const e = x.events[n.events[0]];
  const kinds = new Set(n.events.map((id) => x.events[id].kind));
  const fallback = kinds.has('W') ? 'W' : 'R';
  return { pc: e.pc, kind: accessKind(prog.threads[e.thread].code[e.pc], fallback), step, line: e.pos?.line };
}

/**
 * Every program-order step is ordered, yet the model allows the cycle: say
 * which ordering is missing elsewhere. An order that is not cumulative
 * (dependencies, acquire, smp_rmb(), smp_wmb()) after a read of another
 * CPU's write does not make that write visible to others first.
 */
function allOrdered(x: Execution, model: Model, nodes: Node[], orderings: (Ordering | undefined | 'not-po')[]): string[] {
  for (let i = 0; i < nodes.length; i++) {
    const o = orderings[i];
    if (o === 'not-po' || o === undefined || o.cumulative) continue;
    const prev = (i + nodes.length - 1) % nodes.length;
    const into = x.events[nodes[prev].events[nodes[prev].events.length - 1]];
    const at = x.events[nodes[i].events[0]];
    if (orderings[prev] !== 'not-po' || into.thread === at.thread || !x.rel.rf.has(into.id, at.id)) continue;
    const [sw, sa, sb] = [nodes[prev].step, nodes[i].step, nodes[(i + 1) % nodes.length].step];
    const cpu = `P${at.thread}`;
    return [
      `  Each program-order step is kept, yet ${model.name} allows the cycle: ${sa} -> ${sb} is ordered on ${cpu} by`,
      `  ${o.how}, which is not cumulative: ${cpu} read ${sw} from another CPU, and other CPUs need not see ${sw}`,
      `  before ${sb}. A release at ${sb} or an smp_mb() between ${sa} and ${sb} would be cumulative.`,
    ];
  }
  return [
    `  Each program-order step is kept on its own CPU, yet ${model.name} allows the cycle: the orderings do not`,
    '  combine across CPUs here. A write ordered only by smp_wmb() or a release is ordered for the CPUs that',
    '  read it (rf), not against other CPUs\' writes and stale reads (co, fr): that takes smp_mb() (the',
    '  propagation rule, pb).',
  ];
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


/** Checked fixes for the condition, from the program-order steps of the witnesses' cycles. */
function fixLines(prog: Program, model: Model, poSteps: PoStep[], limits: Limits): string[] {
  const underSc = satisfiable(prog, sc, limits);
  if (underSc) {
    return ['The condition is reachable even under sequential consistency: no barrier or ordering annotation can', 'forbid it; the algorithm itself allows it.'];
  }
  if (underSc === undefined) return ['(No fixes looked for: checking under sequential consistency reached the limits.)'];
  const changes = candidateChanges(prog, poSteps);
  const { fixes, stopped } = findFixes(prog, model, changes, limits);
  const lines: string[] = [];
  if (fixes.length === 0) {
    lines.push(`No set of up to ${MAX_CHANGES} of these changes forbids it under ${model.name}${stopped ? ` (search stopped ${stopped})` : ''}:`);
    lines.push(...changes.map((c) => `  - ${c.text}`));
    return lines;
  }
  lines.push(`Fixes, each checked under ${model.name} (the condition becomes Never), minimal, cheapest first:`);
  fixes.forEach((f, i) => lines.push(`  ${i + 1}. ${f.map((c) => c.text).join('; and ')}`));
  if (stopped) lines.push(`  (search stopped ${stopped}; cheaper fixes than these were all tried)`);
  return lines;
}
