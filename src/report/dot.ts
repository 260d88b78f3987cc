// Pictures for Graphviz: the graph of graph.ts as a digraph. Each CPU is a
// column of its events in program order; initial writes sit on top. Edges
// are the execution's communication: rf (red), co (blue, immediate steps
// only), fr (orange, to the next write in co), ppo (green); the highlighted cycle (the
// violated axiom's for a forbidden candidate, each step labelled with the
// axiom's relation and the term it comes from, "hb: fre", "pb:
// strong-fence", ...; for a witness, the cycle that is not SC) is drawn
// bold. Render with `dot -Tsvg FILE.dot`, or use --svg (svg.ts) instead.

import type { CheckResult } from '../check.js';
import type { ExploreLimits } from '../explore/forbidden.js';
import type { Model } from '../model/model.js';
import { executionGraph, pictureForResult, type EdgeKind, type Picture } from './graph.js';

/** The picture for a checked test: a witness of the condition, else the first forbidden candidate. */
export function dotForResult(r: CheckResult, model: Model, limits: ExploreLimits = {}): string | undefined {
  const p = pictureForResult(r, model, limits);
  return p && dotGraph(p);
}

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

const EDGE_STYLE: Record<EdgeKind, string> = {
  po: '',
  ppo: ', color=seagreen, fontcolor=seagreen, style=dashed',
  rf: ', color=red, fontcolor=red',
  co: ', color=blue, fontcolor=blue',
  fr: ', color=orange, fontcolor=orange',
};

/** The execution as a Graphviz digraph. */
export function dotGraph(p: Picture): string {
  const g = executionGraph(p);
  const node = (id: number) => `e${id}`;
  // Every node is pinned (neato honours pos="x,y!", in inches): dot's own
  // layout of clusters crossed by many edges fails on some executions.
  const COL = 4.0;
  const ROW = 1.0;
  const at = (col: number, row: number) => `pos="${(col * COL).toFixed(2)},${(-row * ROW).toFixed(2)}!"`;
  const out: string[] = [
    `digraph ${quote(g.name)} {`,
    `  layout=neato; splines=true; overlap=true; label=${quote(g.title)}; labelloc=t; fontname="Helvetica";`,
    '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=10];',
  ];
  // Initial writes spread over the width of the CPU columns, on the top row.
  const inits = g.nodes.filter((n) => n.thread < 0);
  const spread = Math.max(1, p.prog.threads.length - 1) / Math.max(1, inits.length - 1);
  for (const n of inits) {
    out.push(`  ${node(n.id)} [label=${quote(n.lines.join('\n'))}, style="rounded,dashed", ${at(inits.length > 1 ? n.row * spread : 0, 0)}];`);
  }
  for (const th of g.threads) {
    out.push(`  P${th} [label="P${th}", shape=plaintext, fontsize=14, ${at(th, 1)}];`);
    for (const n of g.nodes.filter((m) => m.thread === th)) out.push(`  ${node(n.id)} [label=${quote(n.lines.join('\n'))}, ${at(th, n.row + 2)}];`);
  }
  for (const e of g.edges) out.push(`  ${node(e.from)} -> ${node(e.to)} [label="${e.kind}"${EDGE_STYLE[e.kind]}];`);
  for (const c of g.cycle) out.push(`  ${node(c.from)} -> ${node(c.to)} [label=${quote(c.label)}, color=purple, fontcolor=purple, penwidth=2.5];`);
  out.push('}');
  return out.join('\n') + '\n';
}
