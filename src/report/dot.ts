// Pictures: one execution as a Graphviz graph. Each CPU is a column of its
// events in program order; initial writes sit on top. Edges are the
// execution's communication: rf (red), co (blue, immediate steps only), fr
// (orange, to the next write in co); for a candidate the model forbids, the
// steps of the violated axiom's cycle are drawn bold, each labelled with the
// axiom's relation and the term it comes from ("hb: fre", "pb: strong-fence",
// ...: Model.explain). Render with `dot -Tsvg FILE.dot`.

import { formatValue, type CheckResult } from '../check.js';
import type { Execution } from '../model/execution.js';
import type { Program } from '../program/program.js';
import { forbiddenCandidate, type ExploreLimits } from '../explore/forbidden.js';
import type { Highlight, Model } from '../model/model.js';
import { eventText, stepNumbers } from './steps.js';

/** The picture for a checked test: a witness of the condition, else the first forbidden candidate. */
export function dotForResult(r: CheckResult, model: Model, limits: ExploreLimits = {}): string | undefined {
  const prog = r.program;
  const w = r.exploration.outcomes.find((o) => o.positive && o.witness);
  if (w?.witness) return dotGraph(prog, w.witness, `${prog.name}: an execution satisfying ${r.condition}`);
  const fw = forbiddenCandidate(r, model, limits).found;
  if (!fw) return undefined;
  const hl = model.explain?.(fw.exec, fw.axiom);
  return dotGraph(prog, fw.exec, `${prog.name}: a candidate satisfying ${r.condition}, forbidden by "${fw.axiom}"`, hl);
}

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

/** The execution as a Graphviz digraph. */
export function dotGraph(prog: Program, x: Execution, title: string, highlight?: Highlight): string {
  const steps = stepNumbers(x);
  const node = (id: number) => `e${id}`;
  // Every node is pinned (neato honours pos="x,y!", in inches): dot's own
  // layout of clusters crossed by many edges fails on some executions.
  const COL = 4.0;
  const ROW = 1.0;
  const at = (col: number, row: number) => `pos="${(col * COL).toFixed(2)},${(-row * ROW).toFixed(2)}!"`;
  const out: string[] = [
    `digraph ${quote(prog.name)} {`,
    `  layout=neato; splines=true; overlap=true; label=${quote(title)}; labelloc=t; fontname="Helvetica";`,
    '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=10];',
  ];
  // Initial writes of the locations the execution touches, on the top row.
  const touched = new Set(x.events.filter((e) => e.thread >= 0 && e.loc >= 0).map((e) => e.loc));
  const inits = x.events.filter((e) => e.thread < 0 && touched.has(e.loc));
  const spread = Math.max(1, prog.threads.length - 1) / Math.max(1, inits.length - 1);
  inits.forEach((e, i) => {
    const label = `init ${prog.locations[e.loc]}=${formatValue(prog, e.value)}`;
    out.push(`  ${node(e.id)} [label=${quote(label)}, style="rounded,dashed", ${at(inits.length > 1 ? i * spread : 0, 0)}];`);
  });
  // One column per CPU, its events in program order below its name.
  for (const th of prog.threads) {
    const evs = x.events.filter((e) => e.thread === th.index).sort((a, b) => a.poIndex - b.poIndex);
    if (evs.length === 0) continue;
    out.push(`  P${th.index} [label="P${th.index}", shape=plaintext, fontsize=14, ${at(th.index, 1)}];`);
    evs.forEach((e, i) => {
      const line = e.pos ? ` (line ${e.pos.line})` : '';
      const label = `${steps.get(e.id)} ${e.text ?? ''}${line}\n${eventText(prog, x, e, steps)}`;
      out.push(`  ${node(e.id)} [label=${quote(label)}, ${at(th.index, i + 2)}];`);
    });
    for (let i = 0; i + 1 < evs.length; i++) out.push(`  ${node(evs[i].id)} -> ${node(evs[i + 1].id)} [label="po"];`);
  }
  // Every rf and co edge is at a location some CPU touches, so both ends are drawn.
  for (const e of x.events) {
    if (e.kind === 'R' && e.rf >= 0) {
      out.push(`  ${node(e.rf)} -> ${node(e.id)} [label="rf", color=red, fontcolor=red];`);
    }
  }
  for (const l of x.co) {
    for (let i = 0; i + 1 < l.length; i++) {
      out.push(`  ${node(l[i])} -> ${node(l[i + 1])} [label="co", color=blue, fontcolor=blue];`);
    }
  }
  for (const e of x.events) {
    if (e.kind !== 'R' || e.rf < 0 || e.thread < 0) continue;
    const l = x.co[e.loc];
    const next = l ? l[l.indexOf(e.rf) + 1] : undefined;
    if (next !== undefined) {
      out.push(`  ${node(e.id)} -> ${node(next)} [label="fr", color=orange, fontcolor=orange];`);
    }
  }
  if (highlight) {
    highlight.edges.forEach(([a, b], i) => {
      const label = highlight.labels ? `${highlight.name}: ${highlight.labels[i]}` : highlight.name;
      out.push(`  ${node(a)} -> ${node(b)} [label=${quote(label)}, color=purple, fontcolor=purple, penwidth=2.5];`);
    });
  }
  out.push('}');
  return out.join('\n') + '\n';
}
