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
import { explore, type Outcome } from '../explore/explorer.js';
import { LimitError } from '../parse/errors.js';
import type { FlagFinding, Model, Ordering } from '../model/model.js';
import { applyEdits } from '../program/edit.js';
import { observedName, type Program } from '../program/program.js';
import { sc } from '../../models/sc.js';
import { candidateChanges, changesCpu, findFixes, MAX_CHANGES, satisfiable, type FixSearch, type Limits, type Namer } from './fixes.js';
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

/** A trace for machines (--json --trace): its text, and the fix search's findings. */
export interface TraceJson {
  text: string;
  fixes?: {
    /** Each fix: its changes as the text says them, and its cost. */
    found: { changes: string[]; cost: number }[];
    /** The candidate space and what was searched of it. */
    candidates: string[];
    sets: number;
    checks: number;
    stopped?: string;
    /** Set when the outcome is reachable under SC: no change can forbid it. */
    sequentiallyConsistent?: boolean;
  };
}

export function traceReport(r: CheckResult, model: Model, opts: TraceOptions = {}): string {
  return traceJson(r, model, opts).text;
}

export function traceJson(r: CheckResult, model: Model, opts: TraceOptions = {}): TraceJson {
  let fixes: TraceJson['fixes'];
  const text = traceText(r, model, opts, (f) => (fixes = f));
  return { text, fixes };
}

function traceText(r: CheckResult, model: Model, opts: TraceOptions, found: (f: TraceJson['fixes']) => void): string {
  const prog = r.program;
  const out: string[] = [];
  // A forall that fails is explained by the executions that fail its proposition.
  const failing = r.quantifier === 'forall' ? r.exploration.outcomes.filter((o) => !o.positive && o.witness) : [];
  const outcomes = failing.length ? failing : r.exploration.outcomes.filter((o) => o.positive);
  const label = (values: number[]) =>
    prog.observed.map((o, i) => `${observedName(o)}=${formatValue(prog, values[i])};`).join(' ');
  if (outcomes.length === 0) {
    out.push(noneReaches(r, model.name));
    const { found: fw, stopped } = forbiddenCandidate(r, model, opts.limits);
    if (stopped) out.push(`(No forbidden candidate to show: the search for one gave up: ${stopped}.)`);
    else if (!fw) {
      out.push('Not even an inconsistent candidate execution reaches it: the program (its values, branches and');
      out.push('locks) rules it out before any memory model is asked.');
    }
    if (fw) {
      out.push(`Candidate reaching ${label(fw.values)} is forbidden by the "${fw.axiom}" axiom:`);
      out.push(...describe(prog, fw.exec, opts.where));
      out.push(...axiomCycle(prog, model, fw.exec, fw.axiom));
    }
    return out.join('\n');
  }
  const tryFixes = opts.tryFixes && r.quantifier !== 'forall';
  // Where the condition is reachable under SC (no fix can forbid it), an execution that shows so comes first.
  const underSc = tryFixes ? satisfiable(prog, sc, opts.limits ?? {}) : undefined;
  const witnessed = outcomes.filter((o) => o.witness);
  let ordered = underSc ? [...witnessed.filter((o) => !reorderingCycle(o.witness!)), ...witnessed.filter((o) => reorderingCycle(o.witness!))] : witnessed;
  if (underSc && ordered[0] && reorderingCycle(ordered[0].witness!)) {
    // Every witness kept reorders something: show the outcome by an execution SC allows (the model allows it too).
    const w = scWitness(prog, opts.limits ?? {});
    const same = w && ordered.find((o) => o.values.every((v, i) => v === w.values[i]));
    if (w && same) ordered = [{ ...same, witness: w.witness }, ...ordered.filter((o) => o !== same)];
  }
  const shown = ordered.slice(0, opts.maxWitnesses ?? outcomes.length);
  if (shown.length < outcomes.length) {
    const which = shown.length === 1 ? (ordered === witnessed ? 'the first is' : 'one is') : `${shown.length} are`;
    out.push(`(${outcomes.length} outcomes ${failing.length ? 'fail the proposition' : 'satisfy the condition'}; ${which} explained.)`);
  }
  // The fixes first: the diagnosis points at what they confirm.
  const first = shown[0]?.witness;
  const namer: Namer = {
    step: (t, pc) => (first ? firstStepAt(first, t, pc) : undefined),
    where: (pos) => opts.where?.(pos) ?? `line ${pos.line}`,
  };
  const fixes = tryFixes ? searchFixes(prog, model, namer, opts.limits ?? {}, underSc, r.exploration.flags) : undefined;
  for (const o of shown) {
    if (!o.witness) continue;
    const how = o.positive ? ` (${reachedWords(r.quantifier)})` : r.quantifier === 'forall' ? ` (fails the proposition, so "${r.condition}" fails)` : '';
    out.push(`Witness for ${label(o.values)}${how}, ${o.count} execution${o.count === 1 ? '' : 's'}:`);
    out.push(...describe(prog, o.witness, opts.where));
    out.push(...analyse(prog, model, o.witness, fixes?.search));
    out.push('');
  }
  if (fixes) {
    out.push(...fixes.lines);
    const f = fixes.search;
    found(f
      ? { found: f.fixes.map((set) => ({ changes: set.map((c) => c.text), cost: set.reduce((n, c) => n + c.cost, 0) })), candidates: f.candidates.map((c) => c.text), sets: f.sets, checks: f.checks, stopped: f.stopped }
      : { found: [], candidates: [], sets: 0, checks: 0, sequentiallyConsistent: fixes.sequential });
  }
  return out.join('\n').trimEnd();
}

/** An outcome satisfying the condition with an execution that sequential consistency allows, if one is found within the limits. */
function scWitness(prog: Program, limits: Limits): Outcome | undefined {
  try {
    return explore(prog, sc, { ...limits, speedcheck: 'reachable', keepWitnesses: true }).outcomes.find((o) => o.positive && o.witness);
  } catch (e) {
    if (e instanceof LimitError) return undefined;
    throw e;
  }
}

/** The step of the execution that ran instruction pc of thread first. */
function firstStepAt(x: Execution, thread: number, pc: number): string | undefined {
  const steps = stepNumbers(x);
  const e = x.events.filter((ev) => ev.thread === thread && ev.pc === pc).sort((a, b) => a.poIndex - b.poIndex)[0];
  return e && steps.get(e.id);
}

/** The proposition inside the final clause, as herd prints it (`(1:r0=1 /\ 1:r1=0)`). */
function propositionOf(r: CheckResult): string {
  return r.condition.slice(r.quantifier.length + 1);
}

/**
 * What it means that no consistent execution satisfies the proposition:
 * for exists, the condition is never met; for ~exists, it holds in every
 * execution; for forall, it fails in every one.
 */
function noneReaches(r: CheckResult, model: string): string {
  const p = propositionOf(r);
  if (r.quantifier === 'exists') return `No consistent execution satisfies "${r.condition}" under ${model}.`;
  if (r.quantifier === '~exists') return `No consistent execution satisfies ${p} under ${model}, so every one satisfies "${r.condition}".`;
  return `No consistent execution satisfies ${p} under ${model}, so none satisfies "${r.condition}".`;
}

/** How a witness of the proposition stands to the final clause. */
function reachedWords(q: CheckResult['quantifier']): string {
  return q === 'exists' ? 'satisfies the condition' : q === '~exists' ? 'satisfies the proposition, so the ~exists fails' : 'satisfies the proposition';
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

/** A node of the cycle: the events of one instruction (a lock's LKR and LKW are one step). */
interface Node {
  events: number[];
  step: string;
}

/**
 * Why the outcome is not sequentially consistent: a shortest cycle of
 * program order (between accesses), rf, co and fr, each program-order step
 * named by how the model orders it in this execution (Model.orderOf, from
 * its relations), or said to be reordered when the model does not order it.
 */
function analyse(prog: Program, model: Model, x: Execution, fixes?: FixSearch): string[] {
  const { po, rf } = x.rel;
  const fr = rf.inv().seq(x.rel.co);
  const cycle = reorderingCycle(x)?.edges.map(([a]) => a);
  const steps = stepNumbers(x);
  if (!cycle) {
    return [
      '  This outcome is also possible under sequential consistency: no reordering is needed, and no',
      '  barrier can forbid it; the logic itself allows it. One interleaving that produces it:',
      ...interleaving(prog, x, steps),
    ];
  }
  const nodes = cycleNodes(x, cycle, steps);
  const flagged = flagFindings(model, x);
  const racing = new Set(flagged.flatMap((f) => f.pairs.flatMap((p) => [p.from, p.to])));
  // A plain access the model flags: said where a step is not kept.
  const plain = (n: Node) => n.events.some((id) => x.events[id].annot === 'PLAIN');
  const lines = [`  Not sequentially consistent; the cycle that shows it, each step as ${model.name} sees it:`];
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
      if (ord) {
        lines.push(`    ${sa} -> ${sb}: program order, kept by ${ord.how} (${ord.relation})`);
        continue;
      }
      // The cycle leaves an RMW by its write: its read may be ordered when its write is not.
      const half = halfOrdered(model, x, na, nb);
      const plainEnds = [na, nb].filter((n) => plain(n) && n.events.some((id) => racing.has(id))).map((n) => n.step);
      const why = plainEnds.length ? `; ${plainEnds.join(' and ')} ${plainEnds.length > 1 ? 'are plain accesses' : 'is a plain access'} in the data race below` : '';
      // The cycle enters an RMW by its read: its write may be ordered when its read is not.
      const into = half ? undefined : writeHalfOrdered(model, x, na, nb);
      const rmw = half || into ? undefined : rmwOf(x, na);
      lines.push(half
        ? `    ${sa} -> ${sb}: program order: ${sa}'s read is kept before ${sb} by ${half.how} (${half.relation}), its write is not (reordered)`
        : into
          ? `    ${sa} -> ${sb}: program order: ${sa} is kept before ${sb}'s write by ${into.how} (${into.relation}), not before its read, which the cycle passes through (reordered)`
          : rmw
            ? `    ${sa} -> ${sb}: program order, which ${model.name} keeps for neither half of ${sa} (its read and its write): ${sb} can take effect before ${sa} (reordered: ${rmw})`
            : `    ${sa} -> ${sb}: program order, which ${model.name} does not keep here: ${sb} can take effect before ${sa} (reordered${why})`);
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
  const cycleRaces = nodes.some((n) => n.events.some((id) => racing.has(id)));
  if (orderings.every((o) => o !== undefined)) lines.push(...(cycleRaces ? [`  Each program-order step is kept on its own CPU, yet ${model.name} allows the cycle: it passes through accesses in the data race below.`] : allOrdered(x, model, nodes, orderings, fixes)));
  lines.push(...definedAt(orderings.flatMap((o) => (o && o !== 'not-po' ? (o.definedAt ?? []) : []))));
  lines.push(...flagLines(prog, model, x, flagged, steps, new Set(nodes.flatMap((n) => n.events)), fixes));
  return lines;
}

/** What each flag the model raises on x finds (its racing accesses), where the model can say. */
function flagFindings(model: Model, x: Execution): FlagFinding[] {
  if (!model.flagged) return [];
  const flags = model.check(x).flags;
  return flags.flatMap((f) => model.flagged!(x, f) ?? []);
}

/** At most this many of a flag's pairs are named. */
const MAX_FLAG_PAIRS = 4;

/**
 * A flag the model raised on the execution shown: which accesses it finds
 * (a data race: two accesses of one location on different CPUs, at least
 * one plain, that no definition the model subtracts orders), and for a
 * race, what that means and what the fix search tried: marking the plain
 * accesses, each marking checked like every change.
 */
function flagLines(prog: Program, model: Model, x: Execution, flagged: readonly FlagFinding[], steps: Map<number, string>, inCycle: ReadonlySet<number>, fixes?: FixSearch): string[] {
  const lines: string[] = [];
  const access = (id: number) => `${steps.get(id) ?? 'init'} (${eventText(prog, x, x.events[id], steps)})`;
  for (const f of flagged) {
    lines.push(`  ${model.name} raises its flag ${f.name} on this execution:`);
    for (const p of f.pairs.slice(0, MAX_FLAG_PAIRS)) {
      const unless = p.unless.length ? ` (${p.unless.length > 1 ? `neither ${p.unless.slice(0, -1).join(', ')} nor ${p.unless.at(-1)} holds` : `${p.unless[0]} does not hold`} the pair)` : '';
      lines.push(p.from === p.to ? `    ${access(p.from)}: ${p.label}` : `    ${access(p.from)} and ${access(p.to)}: ${p.label}${unless}`);
    }
    if (f.pairs.length > MAX_FLAG_PAIRS) lines.push(`    (and ${f.pairs.length - MAX_FLAG_PAIRS} more)`);
    lines.push(...definedAt(f.definedAt ?? []));
    if (!/race/i.test(f.name)) continue;
    const plainOnes = f.pairs.some((p) => [p.from, p.to].some((id) => x.events[id].annot === 'PLAIN'));
    if (!plainOnes) continue;
    const rests = f.pairs.some((p) => inCycle.has(p.from) || inCycle.has(p.to));
    lines.push(
      `  ${rests ? 'The outcome rests on a data race: the cycle passes through plain accesses that race' : 'This execution has a data race'}, and with a data race the`,
      '  LKMM gives no guarantee about the test at all (herd7 prints "Flag data-race"; the compiler may tear,',
      `  fuse or re-read a plain access). ${fixes?.candidates.some((c) => c.marks !== undefined) ? 'Marking them (READ_ONCE()/WRITE_ONCE()) is among the candidate changes below;' : 'Marking them (READ_ONCE()/WRITE_ONCE()) makes them accesses the model orders;'}`,
      '  where a race is intended (a value read and then thrown away), the kernel says so with data_race(),',
      '  which the LKMM does not model (it still flags the race).',
    );
  }
  return lines;
}

/** Where a model read from files defines the names an explanation used (one line; none for a built-in model). */
function definedAt(places: readonly string[]): string[] {
  const unique = [...new Set(places)];
  return unique.length ? [`  (as the model defines them: ${unique.join('; ')})`] : [];
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

/** How the model orders two instructions: the first of their event pairs (those of the cycle) it keeps in order. */
function orderOfSteps(model: Model, x: Execution, a: Node, b: Node): Ordering | undefined {
  if (!model.orderOf) return undefined;
  for (const p of a.events) for (const q of b.events) {
    const o = x.rel.po.has(p, q) ? model.orderOf(x, p, q) : undefined;
    if (o) return o;
  }
  return undefined;
}

/** When the cycle leaves an RMW by its write: how the model orders the RMW's read before b, if it does. */
function halfOrdered(model: Model, x: Execution, a: Node, b: Node): Ordering | undefined {
  const w = x.events[a.events[a.events.length - 1]];
  if (!model.orderOf || w.kind !== 'W' || !w.isRmw || w.rmwPartner < 0) return undefined;
  return orderOfSteps(model, x, { events: [w.rmwPartner], step: a.step }, b);
}

/** When the cycle enters an RMW by its read: how the model orders a before the RMW's write, if it does. */
function writeHalfOrdered(model: Model, x: Execution, a: Node, b: Node): Ordering | undefined {
  const r = x.events[b.events[0]];
  if (!model.orderOf || r.kind !== 'R' || !r.isRmw || r.rmwPartner < 0) return undefined;
  return orderOfSteps(model, x, a, { events: [r.rmwPartner], step: b.step });
}

/** For a step out of an RMW that keeps neither of its halves: what kind of RMW it is, in words (undefined if the node is none). */
function rmwOf(x: Execution, n: Node): string | undefined {
  // The node may hold one half only (the cycle enters by the write): its partner is the other.
  const evs = n.events.flatMap((id) => {
    const e = x.events[id];
    return e.isRmw && e.rmwPartner >= 0 ? [e, x.events[e.rmwPartner]] : [e];
  });
  const r = evs.find((e) => e.kind === 'R' && e.isRmw && e.rmwPartner >= 0 && !e.lock);
  if (!r) return undefined;
  const call = r.text ?? 'the RMW';
  if (r.annot === 'RELEASE') return `${call} is a release RMW, and a release orders what comes before its write, not what comes after it`;
  if (r.annot === 'ONCE' || r.annot === 'NORETURN') return `${call} is a relaxed RMW, which orders nothing`;
  return undefined;
}

/**
 * Every program-order step is kept, yet the model allows the cycle: say
 * which ordering is missing. An order that is not cumulative (dependencies,
 * acquire, smp_rmb(), smp_wmb()) from a read of another CPU's write to a
 * write of this CPU does not make the write it read visible to others
 * before its own write (A-cumulativity). The fixes the search confirmed on
 * that CPU are named; nothing else is suggested.
 */
function allOrdered(x: Execution, model: Model, nodes: Node[], orderings: (Ordering | undefined | 'not-po')[], fixes?: FixSearch): string[] {
  const confirmed = (thread: number) => {
    const ids = (fixes?.fixes ?? []).map((f, i) => (f.some((c) => changesCpu(c, thread)) ? i + 1 : 0)).filter((i) => i > 0);
    return ids.length ? ` The checked fix${ids.length > 1 ? 'es' : ''} ${ids.join(', ')} below change${ids.length > 1 ? '' : 's'} P${thread}.` : '';
  };
  for (let i = 0; i < nodes.length; i++) {
    const o = orderings[i];
    if (o === 'not-po' || o === undefined || o.cumulative) continue;
    const prev = (i + nodes.length - 1) % nodes.length;
    const next = (i + 1) % nodes.length;
    const into = x.events[nodes[prev].events[nodes[prev].events.length - 1]];
    const at = x.events[nodes[i].events[0]];
    const to = x.events[nodes[next].events[nodes[next].events.length - 1]];
    if (orderings[prev] !== 'not-po' || into.thread === at.thread || !x.rel.rf.has(into.id, at.id) || to.kind !== 'W') continue;
    const [sw, sa, sb] = [nodes[prev].step, nodes[i].step, nodes[next].step];
    const cpu = `P${at.thread}`;
    return [
      `  Each program-order step is kept, yet ${model.name} allows the cycle: ${sa} -> ${sb} is ordered on ${cpu} by`,
      `  ${o.how}, which is not cumulative: ${cpu} read ${sw} from another CPU, and its write ${sb} may reach`,
      `  other CPUs before ${sw} does.${confirmed(at.thread)}`,
    ];
  }
  return [
    `  Each program-order step is kept on its own CPU, yet ${model.name} allows the cycle: the orderings do not`,
    '  combine across CPUs here. A write ordered only by smp_wmb() or a release is ordered for the CPUs that',
    "  read it (rf), not against other CPUs' writes and stale reads (co, fr) (the propagation rule, pb).",
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


/** Checked fixes for the condition, searched over the whole program (see fixes.ts). */
export function searchFixes(prog: Program, model: Model, namer: Namer, limits: Limits, sequential?: boolean, flags: readonly string[] = []): { lines: string[]; search?: FixSearch; sequential?: boolean } {
  const underSc = sequential ?? satisfiable(prog, sc, limits);
  if (underSc) {
    return { sequential: true, lines: ['The condition is reachable even under sequential consistency: no barrier or ordering annotation can', 'forbid it; the algorithm itself allows it.'] };
  }
  if (underSc === undefined) return { lines: ['(No fixes looked for: checking under sequential consistency reached the limits.)'] };
  // Where the model flags a data race, marking the plain accesses is a candidate too.
  const mark = flags.some((f) => /race/i.test(f));
  const changes = candidateChanges(prog, namer, { mark });
  const search = findFixes(prog, model, changes, limits);
  const lines: string[] = [];
  const marked = search.candidates.some((c) => c.marks !== undefined);
  const space = `the ${search.changes} candidate changes (every access strengthened${marked ? ', every plain access marked' : ''}, a fence at every place between calls, on every CPU)`;
  if (search.fixes.length === 0) {
    if (search.noneAtAll) {
      lines.push(`No change of ${space} forbids it under ${model.name}, not even all of them at once.`);
      return { lines, search };
    }
    if (search.stopped) lines.push(`No fix found under ${model.name}: the search of the ${search.sets} sets of up to ${MAX_CHANGES} of ${space} stopped ${search.stopped}, so a fix among those not checked may exist:`);
    else if (search.required.length > MAX_CHANGES) lines.push(`No set of up to ${MAX_CHANGES} changes forbids it under ${model.name}: every fix must change ${search.required.length} places (${search.checks} checks).`);
    else lines.push(`No set of up to ${MAX_CHANGES} of ${space} forbids it under ${model.name} (all ${search.sets} sets searched, ${search.checks} checked; the others cannot succeed):`);
    lines.push(...search.candidates.map((c) => `  - ${c.text}`));
    return { lines, search };
  }
  lines.push(`Fixes, each checked under ${model.name} (the condition becomes Never), minimal, cheapest first:`);
  search.fixes.forEach((f, i) => {
    lines.push(`  ${i + 1}. ${f.map((c) => c.text).join('; and ')}`);
    const still = flags.length ? flagsAfter(applyEdits(prog, f.flatMap((c) => c.edits)), model, limits) : [];
    if (still.length) {
      const unmarked = search.candidates.filter((c) => c.marks && !f.includes(c)).map((c) => c.marks);
      const which = unmarked.length ? `: the plain accesses of ${unmarked.join(', ')} are left as they are` : '';
      lines.push(`     (${model.name} still flags ${still.join(', ')} with it${which}; mark what races too, or, where a race is intended, say so with data_race())`);
    }
  });
  if (search.stopped) lines.push(`  (search stopped ${search.stopped}; cheaper fixes than these were all tried)`);
  return { lines, search };
}

/** The flags a changed program still raises (a full exploration); none when a limit stops it. */
function flagsAfter(prog: Program, model: Model, limits: Limits): string[] {
  try {
    return explore(prog, model, { ...limits }).flags;
  } catch (e) {
    if (e instanceof LimitError) return [];
    throw e;
  }
}

/** The cycle (or, for atomicity, the path) of the relation whose axiom forbids x, as the model names it. */
function axiomCycle(prog: Program, model: Model, x: Execution, axiom: string): string[] {
  const cycle = model.explain?.(x, axiom);
  if (!cycle) return [];
  const steps = stepNumbers(x);
  const name = (id: number) => steps.get(id) ?? `init ${prog.locations[x.events[id].loc]}`;
  const path = cycle.edges.map(([a], i) => `${name(a)} -${cycle.labels?.[i] ?? cycle.name}-> `).join('');
  // Not a cycle for atomicity: the RMW's read, the write between, the RMW's write.
  const end = name(cycle.edges[cycle.edges.length - 1][1]);
  if (cycle.name === 'atomic') return [`  not atomic: ${path}${end}`, ...definedAt(cycle.definedAt ?? [])];
  if (cycle.path) return [`  what "${cycle.name}" finds: ${path}${end}`, ...definedAt(cycle.definedAt ?? [])];
  return [`  the ${cycle.name} cycle: ${path}${name(cycle.edges[0][0])}`, ...definedAt(cycle.definedAt ?? [])];
}

/**
 * One execution of a test as `model` judges it: its steps per CPU, then, if
 * the model allows it, the cycle that makes it not sequentially consistent
 * with each program-order step as the model orders it, and if the model
 * forbids it, the axiom and the cycle of the relation that forbids it.
 * (`litmus history compare` shows a changed outcome's execution under the
 * new model and, when given, the old one.)
 */
export function executionUnder(prog: Program, model: Model, x: Execution): { allowed: boolean; lines: string[] } {
  const verdict = model.check(x);
  if (verdict.consistent) return { allowed: true, lines: analyse(prog, model, x) };
  const axiom = verdict.violated ?? 'unknown';
  return { allowed: false, lines: [`  ${model.name} forbids it: the "${axiom}" axiom`, ...axiomCycle(prog, model, x, axiom)] };
}

/** An execution's steps per CPU, as traces show them. */
export function executionSteps(prog: Program, x: Execution, where?: (pos: Pos) => string | undefined): string[] {
  return describe(prog, x, where);
}
