// The SVG pictures: laid out so that no text covers other text, every
// event drawn in its CPU's column, every rf/co/fr edge drawn, the cycle
// highlighted; on the classic shapes (IRIW: four CPUs), the bundled suite,
// and the herd-linux corpus where it is present.

import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import { builtinModel } from '../models/index.js';

/** The built-in LKMM, explained from its definitions (models/text/lkmm.cat, models/cat/explain.ts). */
const lkmm = builtinModel('lkmm')!;
import { executionGraph, forbiddenPicture, witnessPictures, type Picture } from '../src/report/graph.js';
import { overlaps, renderSvg, svgLayout } from '../src/report/svg.js';
import { SHAPES } from './shapes.js';
import { litmus, NFS_DIR, ROOT } from './util.js';
import { readSuite } from '../src/suite/read.js';
import { printLitmus } from '../src/parse/printer.js';

const CORPUS = join(ROOT, '..', 'shared', 'corpus', 'herd-linux');

/** Lets the test runner's messages through between long synchronous steps (the machine may be loaded). */
const tick = () => new Promise((resolve) => setImmediate(resolve));

function pictures(text: string): Picture[] {
  const r = checkSource(text, { model: lkmm, keepWitnesses: true });
  const f = r.positive === 0 ? forbiddenPicture(r, lkmm) : undefined;
  return [...witnessPictures(r, lkmm), ...(f ? [f] : [])];
}

/** Everything the layout promises, for one picture. */
function checkPicture(p: Picture): void {
  const g = executionGraph(p);
  const l = svgLayout(g);
  const where = `${g.name}`;
  for (let i = 0; i < l.boxes.length; i++) {
    const a = l.boxes[i];
    expect(a.x >= 0 && a.y >= 0 && a.x + a.w <= l.width && a.y + a.h <= l.height, `${where}: "${a.lines[0]}" inside the picture`).toBe(true);
    for (let j = i + 1; j < l.boxes.length; j++) {
      const b = l.boxes[j];
      expect(overlaps(a, b), `${where}: "${a.lines[0]}" and "${b.lines[0]}" overlap`).toBe(false);
    }
  }
  // One box per event, and each CPU's events in one column, top to bottom in program order.
  const events = l.boxes.filter((b) => b.role === 'event' || b.role === 'init');
  expect(events.length).toBe(g.nodes.length);
  for (const th of g.threads) {
    const column = g.nodes.filter((n) => n.thread === th).map((n) => events.find((b) => b.id === n.id)!);
    for (let k = 1; k < column.length; k++) {
      expect(column[k].x + column[k].w / 2).toBeCloseTo(column[0].x + column[0].w / 2);
      expect(column[k].y).toBeGreaterThan(column[k - 1].y + column[k - 1].h);
    }
  }
  // Every edge of the graph is drawn, and the cycle on top of them.
  for (const kind of ['rf', 'co', 'fr'] as const) {
    expect(l.edges.filter((e) => e.kind === kind).length, `${where}: ${kind} edges`).toBe(g.edges.filter((e) => e.kind === kind).length);
  }
  // po steps, some drawn as ppo (the model keeps them), and the other ppo arrows.
  const count = (edges: { kind: string }[], k: string) => edges.filter((e) => e.kind === k).length;
  expect(count(l.edges, 'po') + count(l.edges, 'ppo')).toBeGreaterThanOrEqual(count(g.edges, 'po'));
  expect(count(l.edges, 'po') + count(l.edges, 'ppo')).toBeLessThanOrEqual(count(g.edges, 'po') + count(g.edges, 'ppo'));
  expect(l.edges.filter((e) => e.highlighted).length).toBe(g.cycle.length);
  const svg = renderSvg(l);
  expect(svg.match(/<rect class="(event|init)"/g)?.length).toBe(g.nodes.length);
  expect(svg.match(/<path class="cycle"/g)?.length ?? 0).toBe(g.cycle.length);
}

describe('SVG pictures', () => {
  it('lay out the classic shapes without overlapping text (IRIW: four CPUs)', async () => {
    let drawn = 0;
    let fourCpus = 0;
    let cycles = 0;
    for (const s of SHAPES) {
      await tick();
      for (const p of pictures(litmus(s.name.split(' ')[0], s.procs, s.cond))) {
        checkPicture(p);
        drawn++;
        if (executionGraph(p).threads.length === 4) fourCpus++;
        if (p.highlight) cycles++;
      }
    }
    expect(drawn).toBeGreaterThan(25);
    expect(fourCpus).toBeGreaterThan(0);
    expect(cycles).toBeGreaterThan(20);
  });

  it('highlight the cycle of a forbidden candidate with its terms, and a witness\'s non-SC cycle', () => {
    const mp = SHAPES.find((s) => s.name === 'MP+pooncerelease+poacquireonce')!;
    const [forbidden] = pictures(litmus(mp.name, mp.procs, mp.cond));
    const g = executionGraph(forbidden);
    expect(g.cycle.map((c) => c.label).sort()).toEqual(['happens-before: acq-po', 'happens-before: fr', 'happens-before: po-rel', 'happens-before: rfe']);
    const svg = renderSvg(svgLayout(g));
    for (const label of ['happens-before: fr', 'happens-before: po-rel', 'happens-before: rfe', 'happens-before: acq-po']) expect(svg).toContain(`>${label}</text>`);
    const sb = SHAPES.find((s) => s.name === 'SB+poonceonces')!;
    const [witness] = pictures(litmus(sb.name, sb.procs, sb.cond));
    expect(witness.highlight?.labels?.sort()).toEqual(['fr', 'fr', 'po reordered', 'po reordered']);
    // MP with smp_wmb() on the writer only: the writer's pair is kept, the reader's reordered.
    const mpw = SHAPES.find((s) => s.name === 'MP+o-wmb-o+o-o')!;
    const [mpWitness] = pictures(litmus(mpw.name, mpw.procs, mpw.cond));
    const po = mpWitness.highlight!.labels!.filter((l) => l.startsWith('po')).sort();
    expect(po).toEqual(['po kept: wmb', 'po reordered']);
    expect(renderSvg(svgLayout(executionGraph(mpWitness)))).toContain('>po kept: wmb</text>');
    // The model's preserved program order: MP's release and acquire keep their pairs; SB keeps none.
    expect(executionGraph(witness).edges.filter((e) => e.kind === 'ppo')).toEqual([]);
    const ppo = g.edges.filter((e) => e.kind === 'ppo');
    expect(ppo).toHaveLength(2);
    expect(svg.match(/<path class="edge ppo"/g)).toHaveLength(2);
  });

  it('lay out the bundled suite\'s larger executions', async () => {
    const suite = await readSuite(join(NFS_DIR, 'suite.ts'));
    const tests = suite.tests.filter((_, i) => i % 5 === 0);
    expect(tests.length).toBeGreaterThan(3);
    let drawn = 0;
    for (const t of tests) {
      await tick();
      for (const p of pictures(printLitmus(t.test))) {
        checkPicture(p);
        drawn++;
      }
    }
    expect(drawn).toBeGreaterThanOrEqual(tests.length);
  });

  it.skipIf(!existsSync(CORPUS))('lay out a third of the herd-linux corpus tests (needs ../shared/corpus)', async () => {
    const files = readdirSync(CORPUS).filter((f) => f.endsWith('.litmus')).sort().filter((_, i) => i % 3 === 0);
    let drawn = 0;
    for (const f of files) {
      await tick();
      for (const p of pictures(readFileSync(join(CORPUS, f), 'utf8')).slice(0, 2)) {
        checkPicture(p);
        drawn++;
      }
    }
    expect(drawn).toBeGreaterThan(20);
  });
});
