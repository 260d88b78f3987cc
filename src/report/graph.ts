// An execution as a graph to draw, whatever draws it (dot.ts for Graphviz,
// svg.ts for an SVG picture): which execution a test's picture shows, its
// events as boxes in CPU columns (program order downwards, initial writes
// on top), its communication edges (rf, co between neighbours in coherence
// order, fr to the next write), the model's preserved program order (ppo,
// Model.preserved, without the pairs it has through a third event), and the
// cycle to highlight: the violated
// axiom's cycle for a forbidden candidate (Model.explain), or for a witness
// the cycle of program order and communication that shows it is not
// sequentially consistent (trace.ts says how the model orders each of its
// program-order steps: not every one need be reordered).

import { formatValue, type CheckResult } from '../check.js';
import { forbiddenCandidate, type ExploreLimits } from '../explore/forbidden.js';
import type { Execution } from '../model/execution.js';
import type { Highlight, Model } from '../model/model.js';
import type { Program } from '../program/program.js';
import type { Relation } from '../relation/relation.js';
import { eventText, stepNumbers } from './steps.js';

/** One execution to draw, with its caption and the cycle to highlight. */
export interface Picture {
  prog: Program;
  exec: Execution;
  title: string;
  highlight?: Highlight;
  /** What the highlighted cycle is, in words. */
  caption?: string;
  /** The model's preserved program order (Model.preserved), if it says. */
  preserved?: [number, number][];
}

/** The picture for a checked test: a witness of the condition, else the first forbidden candidate. */
export function pictureForResult(r: CheckResult, model: Model, limits: ExploreLimits = {}): Picture | undefined {
  return witnessPictures(r, model)[0] ?? forbiddenPicture(r, model, limits);
}

/** One picture per outcome satisfying the condition (those the exploration kept a witness for). */
export function witnessPictures(r: CheckResult, model?: Model): Picture[] {
  const prog = r.program;
  return r.exploration.outcomes
    .filter((o) => o.positive && o.witness)
    .map((o) => ({
      prog,
      exec: o.witness!,
      title: `${prog.name}: an execution satisfying ${r.condition}`,
      highlight: reorderingCycle(o.witness!, model),
      caption: 'not SC: a cycle of po and communication (each po step: kept by the model, or reordered)',
      preserved: model?.preserved?.(o.witness!),
    }));
}

/** The forbidden candidate reaching the condition, with the violated axiom's cycle. */
export function forbiddenPicture(r: CheckResult, model: Model, limits: ExploreLimits = {}): Picture | undefined {
  const fw = forbiddenCandidate(r, model, limits).found;
  if (!fw) return undefined;
  return {
    prog: r.program,
    exec: fw.exec,
    title: `${r.program.name}: a candidate satisfying ${r.condition}, forbidden by "${fw.axiom}"`,
    highlight: model.explain?.(fw.exec, fw.axiom),
    caption: `the cycle that breaks "${fw.axiom}"`,
    preserved: model.preserved?.(fw.exec),
  };
}

/**
 * Why a consistent execution is not sequentially consistent: a cycle of
 * immediate program order between accesses, rf, immediate co and fr (the
 * model may keep every po step of it in order: then some ordering is not
 * cumulative enough, as --trace says). With the model's Model.orderOf, each
 * po step is labelled "po reordered" or "po kept: RELATION". Undefined when
 * the execution is SC.
 */
export function reorderingCycle(x: Execution, model?: Model): Highlight | undefined {
  const { po, rf, co } = x.rel;
  const fr = rf.inv().seq(co);
  const cycle = shortestCycle(po.restrict(x.sets.M, x.sets.M).or(rf, co, fr));
  if (!cycle) return undefined;
  const edges = cycle.map((a, i) => [a, cycle[(i + 1) % cycle.length]] as [number, number]);
  const poLabel = (a: number, b: number) => {
    if (!model?.orderOf) return 'po';
    const o = model.orderOf(x, a, b);
    return o ? `po kept: ${o.relation}` : 'po reordered';
  };
  const labels = edges.map(([a, b]) => (po.has(a, b) ? poLabel(a, b) : rf.has(a, b) ? 'rf' : fr.has(a, b) ? 'fr' : 'co'));
  return { name: 'not SC', edges, labels };
}

/**
 * A cycle with the fewest steps (the first such from the lowest event):
 * only steps that matter, a program-order step going straight from one
 * access of the cycle to the next on its CPU.
 */
function shortestCycle(r: Relation): number[] | undefined {
  let best: number[] | undefined;
  for (let s = 0; s < r.n; s++) {
    for (const t of r.successors(s)) {
      const back = r.path(t, s);
      if (back && (!best || back.length < best.length)) best = back;
    }
    if (best && best.length === 2) break;
  }
  // path(t, s) lists t ... s: the cycle s -> t -> ... -> s, starting at s.
  return best && [best[best.length - 1], ...best.slice(0, -1)];
}

export type EdgeKind = 'po' | 'ppo' | 'rf' | 'co' | 'fr';

export interface GraphNode {
  id: number;
  /** CPU, or -1 for an initial write. */
  thread: number;
  /** Position in its CPU's column (0 = first in program order); for initial writes, their order. */
  row: number;
  /** The text of the box, one entry a line. */
  lines: string[];
}

export interface GraphEdge {
  from: number;
  to: number;
  kind: EdgeKind;
}

/** A step of the highlighted cycle, with its label ("hb: fre", ...). */
export interface CycleEdge {
  from: number;
  to: number;
  label: string;
}

export interface ExecGraph {
  name: string;
  title: string;
  /** CPUs that have events, in order. */
  threads: number[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  cycle: CycleEdge[];
  /** What the cycle is, in words. */
  caption?: string;
}

/** The events and edges of a picture. */
export function executionGraph(p: Picture): ExecGraph {
  const { prog, exec: x, highlight } = p;
  const steps = stepNumbers(x);
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  // Initial writes of the locations the execution touches.
  const touched = new Set(x.events.filter((e) => e.thread >= 0 && e.loc >= 0).map((e) => e.loc));
  x.events
    .filter((e) => e.thread < 0 && touched.has(e.loc))
    .forEach((e, i) => nodes.push({ id: e.id, thread: -1, row: i, lines: [`init ${prog.locations[e.loc]}=${formatValue(prog, e.value)}`] }));
  const threads: number[] = [];
  for (const th of prog.threads) {
    const evs = x.events.filter((e) => e.thread === th.index).sort((a, b) => a.poIndex - b.poIndex);
    if (evs.length === 0) continue;
    threads.push(th.index);
    evs.forEach((e, i) => {
      const line = e.pos ? ` (line ${e.pos.line})` : '';
      nodes.push({ id: e.id, thread: th.index, row: i, lines: [`${steps.get(e.id)} ${e.text ?? ''}${line}`, eventText(prog, x, e, steps)] });
    });
    for (let i = 0; i + 1 < evs.length; i++) edges.push({ from: evs[i].id, to: evs[i + 1].id, kind: 'po' });
  }
  // Every rf and co edge is at a location some CPU touches, so both ends are drawn.
  for (const e of x.events) if (e.kind === 'R' && e.rf >= 0) edges.push({ from: e.rf, to: e.id, kind: 'rf' });
  for (const l of x.co) for (let i = 0; i + 1 < l.length; i++) edges.push({ from: l[i], to: l[i + 1], kind: 'co' });
  for (const e of x.events) {
    if (e.kind !== 'R' || e.rf < 0 || e.thread < 0) continue;
    const l = x.co[e.loc];
    const next = l ? l[l.indexOf(e.rf) + 1] : undefined;
    if (next !== undefined) edges.push({ from: e.id, to: next, kind: 'fr' });
  }
  edges.push(...preservedSteps(p.preserved ?? []));
  const cycle = (highlight?.edges ?? []).map(([from, to], i) => ({
    from,
    to,
    label: highlight!.labels ? `${highlight!.name}: ${highlight!.labels[i]}` : highlight!.name,
  }));
  return { name: prog.name, title: p.title, threads, nodes, edges, cycle, caption: p.caption };
}

/** ppo without the pairs it has through a third event: the arrows worth drawing. */
function preservedSteps(pairs: [number, number][]): GraphEdge[] {
  const has = new Set(pairs.map(([a, b]) => `${a},${b}`));
  const through = (a: number, b: number) => pairs.some(([u, c]) => u === a && c !== b && has.has(`${c},${b}`));
  return pairs.filter(([a, b]) => !through(a, b)).map(([from, to]) => ({ from, to, kind: 'ppo' as const }));
}
