// Pictures without Graphviz: the graph of graph.ts laid out and drawn as an
// SVG document. CPUs are columns, events go down in program order, initial
// writes sit on a row above; rf (red), co (blue), fr (orange) are curves
// between the columns, po a thin grey line down each column, dashed green
// where the model preserves it (ppo; other ppo steps arc on the left); the
// highlighted cycle (graph.ts) is drawn in purple under the edges it follows,
// its own steps (ppo, strong-fence, ...) as purple curves. Text is
// monospaced, so every box's size is known here, and each edge label is put
// where it overlaps no box and no other label (along its curve if it can,
// else nearby with a leader line): svgLayout returns those boxes so that
// tests can check it.

import type { CheckResult } from '../check.js';
import type { ExploreLimits } from '../explore/forbidden.js';
import type { Model } from '../model/model.js';
import { executionGraph, pictureForResult, type EdgeKind, type ExecGraph, type Picture } from './graph.js';

/** The picture for a checked test: a witness of the condition, else the first forbidden candidate. */
export function svgForResult(r: CheckResult, model: Model, limits: ExploreLimits = {}): string | undefined {
  const p = pictureForResult(r, model, limits);
  return p && svgPicture(p);
}

export function svgPicture(p: Picture): string {
  return renderSvg(svgLayout(executionGraph(p)));
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Point {
  x: number;
  y: number;
}

export interface TextBox extends Box {
  lines: string[];
  /** What the box is, for drawing: an event, an initial write, a CPU's name, the title, an edge label, the legend. */
  role: 'event' | 'init' | 'head' | 'title' | 'label' | 'legend';
  color?: string;
  /** For edge labels put away from their curve: the curve point to draw a leader line to. */
  leader?: Point;
  id?: number;
}

export interface DrawnEdge {
  kind: EdgeKind | 'cycle';
  /** Whether the edge is a step of the highlighted cycle. */
  highlighted: boolean;
  /** Cubic Bézier: start, two control points, end. */
  path: [Point, Point, Point, Point];
}

export interface SvgLayout {
  width: number;
  height: number;
  /** Every piece of text, as the box it occupies: no two overlap. */
  boxes: TextBox[];
  edges: DrawnEdge[];
}

const FONT = 12;
const LABEL_FONT = 11;
/** Advance of one character of the monospaced font, per pixel of font size (DejaVu Sans Mono: 0.602), with a margin. */
const ADVANCE = 0.62;
const PAD_X = 8;
const PAD_Y = 5;
const COL_GAP = 170;
const ROW_GAP = 52;
const MARGIN = 20;

export const COLORS: Record<EdgeKind | 'cycle', string> = {
  po: '#8a8a8a',
  ppo: '#2e8b57',
  rf: '#d62728',
  co: '#1f5fbf',
  fr: '#e07b00',
  cycle: '#8e44ad',
};

const textWidth = (s: string, size: number) => s.length * size * ADVANCE;

function textBox(lines: string[], size: number, role: TextBox['role'], pad = PAD_X): Omit<TextBox, 'x' | 'y'> {
  const w = Math.max(...lines.map((l) => textWidth(l, size))) + 2 * pad;
  const h = lines.length * (size + 3) + 2 * (role === 'event' || role === 'init' ? PAD_Y : 1);
  return { w, h, lines, role };
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** Where everything goes. */
export function svgLayout(g: ExecGraph): SvgLayout {
  const boxes: TextBox[] = [];
  const title = { ...textBox([g.title], 13, 'title', 0), x: MARGIN, y: MARGIN };
  boxes.push(title);
  // Columns: as wide as their widest event.
  const byId = new Map<number, TextBox>();
  const sized = new Map(g.nodes.map((n) => [n.id, textBox(n.lines, FONT, n.thread < 0 ? 'init' : 'event')]));
  const colWidth = g.threads.map((th) => Math.max(60, ...g.nodes.filter((n) => n.thread === th).map((n) => sized.get(n.id)!.w)));
  const colX: number[] = [];
  let x = MARGIN;
  for (const w of colWidth) {
    colX.push(x);
    x += w + COL_GAP;
  }
  // Initial writes: one row above the columns, each above the CPUs that use
  // its location, pushed right where they would overlap.
  const colOf = new Map(g.nodes.filter((n) => n.thread >= 0).map((n) => [n.id, g.threads.indexOf(n.thread)]));
  const wantX = (id: number) => {
    const cols = g.edges.filter((e) => e.from === id || e.to === id).map((e) => colOf.get(e.from === id ? e.to : e.from) ?? 0);
    const mean = cols.length ? cols.reduce((s, c) => s + c, 0) / cols.length : 0;
    const lo = Math.floor(mean);
    const frac = mean - lo;
    const hi = Math.min(lo + 1, colX.length - 1);
    const mid = (c: number) => colX[c] + colWidth[c] / 2;
    return mid(lo) + frac * (mid(hi) - mid(lo)) - sized.get(id)!.w / 2;
  };
  const inits = g.nodes.filter((n) => n.thread < 0).map((n) => ({ n, x: wantX(n.id) })).sort((a, b) => a.x - b.x || a.n.row - b.n.row);
  const initTop = title.y + title.h + 24;
  let initBottom = initTop;
  let nextFree = MARGIN;
  for (const { n, x: want } of inits) {
    const b: TextBox = { ...sized.get(n.id)!, x: Math.max(want, nextFree), y: initTop, id: n.id };
    nextFree = b.x + b.w + 24;
    initBottom = Math.max(initBottom, b.y + b.h);
    boxes.push(b);
    byId.set(n.id, b);
  }
  // CPU names, then the events in program order; one row height for all columns.
  const headTop = inits.length ? initBottom + 40 : initTop;
  const rowH = Math.max(30, ...g.nodes.filter((n) => n.thread >= 0).map((n) => sized.get(n.id)!.h)) + ROW_GAP;
  const firstRow = headTop + FONT + 18;
  g.threads.forEach((th, c) => {
    const head = textBox([`P${th}`], 14, 'head', 0);
    // At the column's left edge: edges from the initial writes come into the middle.
    boxes.push({ ...head, x: colX[c], y: headTop });
    for (const n of g.nodes.filter((m) => m.thread === th)) {
      const s = sized.get(n.id)!;
      const b: TextBox = { ...s, x: colX[c] + (colWidth[c] - s.w) / 2, y: firstRow + n.row * rowH, id: n.id };
      boxes.push(b);
      byId.set(n.id, b);
    }
  });
  const edges = routeEdges(g, byId);
  placeLabels(edges, boxes);
  // A legend below everything drawn so far.
  const bottom = Math.max(...boxes.map((b) => b.y + b.h), ...edges.flatMap((e) => [0.25, 0.5, 0.75].map((t) => bezier(e.drawn.path, t).y)));
  let lx = MARGIN;
  const kinds: (EdgeKind | 'cycle')[] = ['po', ...(g.edges.some((e) => e.kind === 'ppo') ? ['ppo' as const] : []), 'rf', 'co', 'fr'];
  if (g.cycle.length) kinds.push('cycle');
  for (const k of kinds) {
    const text = k === 'cycle' ? g.caption ?? 'the highlighted cycle' : k;
    const b: TextBox = { ...textBox([text], LABEL_FONT, 'legend', 0), x: lx + 26, y: bottom + 24, color: COLORS[k] };
    boxes.push(b);
    lx = b.x + b.w + 22;
  }
  // Curves may leave the columns (arcs, long edges): shift all into view.
  const drawn = edges.map((e) => e.drawn);
  const onCurves = drawn.flatMap((e) => Array.from({ length: 21 }, (_, k) => bezier(e.path, k / 20)));
  const points = [...boxes.flatMap((b) => [{ x: b.x, y: b.y }, { x: b.x + b.w, y: b.y + b.h }]), ...onCurves];
  const dx = Math.max(0, MARGIN - Math.min(...points.map((p) => p.x)));
  const dy = Math.max(0, MARGIN - Math.min(...points.map((p) => p.y)));
  for (const b of boxes) {
    b.x += dx;
    b.y += dy;
    if (b.leader) b.leader = { x: b.leader.x + dx, y: b.leader.y + dy };
  }
  for (const e of drawn) e.path = e.path.map((p) => ({ x: p.x + dx, y: p.y + dy })) as DrawnEdge['path'];
  const width = Math.ceil(Math.max(...points.map((p) => p.x)) + dx + MARGIN);
  const height = Math.ceil(Math.max(...points.map((p) => p.y)) + dy + MARGIN);
  return { width, height, boxes, edges: drawn };
}

interface Routed {
  drawn: DrawnEdge;
  label?: string;
}

type Side = 'left' | 'right' | 'top' | 'bottom';
const NORMAL: Record<Side, Point> = { left: { x: -1, y: 0 }, right: { x: 1, y: 0 }, top: { x: 0, y: -1 }, bottom: { x: 0, y: 1 } };

/** The drawn edges: the graph's, with the cycle merged into the ones it follows. */
function routeEdges(g: ExecGraph, byId: Map<number, TextBox>): Routed[] {
  interface Wanted {
    from: number;
    to: number;
    kind: EdgeKind | 'cycle';
    highlighted: boolean;
    label?: string;
    /** A po line between neighbours in a column. */
    step?: boolean;
  }
  const wanted: Wanted[] = [];
  for (const e of g.edges) {
    // A ppo step between neighbours is drawn as their po line, in ppo's colour.
    const po = e.kind === 'ppo' ? wanted.find((w) => w.kind === 'po' && w.from === e.from && w.to === e.to) : undefined;
    if (po) Object.assign(po, { kind: 'ppo', label: 'ppo' });
    else wanted.push({ ...e, highlighted: false, label: e.kind === 'po' ? undefined : e.kind, step: e.kind === 'po' });
  }
  for (const c of g.cycle) {
    const base = wanted.find((w) => w.from === c.from && w.to === c.to && w.kind !== 'cycle');
    if (!base) {
      wanted.push({ from: c.from, to: c.to, kind: 'cycle', highlighted: true, label: c.label });
      continue;
    }
    base.highlighted = true;
    // On a witness's non-SC cycle, the step without the cycle's name: "rf", "po reordered", "po kept: wmb".
    base.label = c.label.startsWith('not SC: ') ? c.label.slice('not SC: '.length) : c.label;
  }
  // Which side of each box each end leaves from.
  const sides = wanted.map((w) => {
    const a = byId.get(w.from)!;
    const b = byId.get(w.to)!;
    return endSides(a, b, w.step === true, !g.edges.some((e) => e.kind === 'po' && e.to === w.to), w.kind === 'ppo');
  });
  // Ends sharing a side of a box are spread along it, ordered by where the other end is.
  const ports = new Map<string, { edge: number; end: 0 | 1; other: Point }[]>();
  wanted.forEach((w, i) => {
    const ends: [number, Side, number][] = [[w.from, sides[i][0], w.to], [w.to, sides[i][1], w.from]];
    ends.forEach(([id, side, otherId], end) => {
      const key = `${id}:${side}`;
      const list = ports.get(key) ?? [];
      list.push({ edge: i, end: end as 0 | 1, other: centre(byId.get(otherId)!) });
      ports.set(key, list);
    });
  });
  const at: Point[][] = wanted.map(() => [{ x: 0, y: 0 }, { x: 0, y: 0 }]);
  for (const [key, list] of ports) {
    const [idText, side] = key.split(':') as [string, Side];
    const b = byId.get(Number(idText))!;
    const vertical = side === 'left' || side === 'right';
    list.sort((p, q) => (vertical ? p.other.y - q.other.y : p.other.x - q.other.x));
    list.forEach((p, k) => {
      const f = (k + 1) / (list.length + 1);
      at[p.edge][p.end] = vertical
        ? { x: side === 'left' ? b.x : b.x + b.w, y: b.y + f * b.h }
        : { x: b.x + f * b.w, y: side === 'top' ? b.y : b.y + b.h };
    });
  }
  return wanted.map((w, i) => {
    const [s, t] = at[i];
    const [ss, ts] = sides[i];
    const dist = Math.hypot(t.x - s.x, t.y - s.y);
    // Arcs beside one column bulge with the distance they span.
    const sameSide = ss === ts && (ss === 'left' || ss === 'right');
    const d = sameSide ? 36 + Math.abs(t.y - s.y) * 0.25 : Math.min(140, Math.max(24, dist / 3));
    const c1 = { x: s.x + NORMAL[ss].x * d, y: s.y + NORMAL[ss].y * d };
    const c2 = { x: t.x + NORMAL[ts].x * d, y: t.y + NORMAL[ts].y * d };
    return { drawn: { kind: w.kind, highlighted: w.highlighted, path: [s, c1, c2, t] }, label: w.label };
  });
}

const centre = (b: Box): Point => ({ x: b.x + b.w / 2, y: b.y + b.h / 2 });

function endSides(a: TextBox, b: TextBox, poStep: boolean, first: boolean, ppo: boolean): [Side, Side] {
  if (poStep) return ['bottom', 'top'];
  const ca = centre(a);
  const cb = centre(b);
  // From the row above (initial writes): down out of the box, into the side facing it.
  if (a.role === 'init' && b.role !== 'init') return ['bottom', first ? 'top' : cb.x >= ca.x ? 'left' : 'right'];
  if (b.role === 'init' && a.role !== 'init') return [ca.x > cb.x + b.w / 2 ? 'left' : ca.x < cb.x - b.w / 2 ? 'right' : 'top', 'bottom'];
  const sameColumn = Math.abs(ca.x - cb.x) < 1;
  // Arcs beside a column: ppo on the left, communication on the right.
  if (sameColumn) return ppo ? ['left', 'left'] : ['right', 'right'];
  return cb.x > ca.x ? ['right', 'left'] : ['left', 'right'];
}

function bezier(p: DrawnEdge['path'], t: number): Point {
  const u = 1 - t;
  const k = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t];
  return { x: k.reduce((s, c, i) => s + c * p[i].x, 0), y: k.reduce((s, c, i) => s + c * p[i].y, 0) };
}

const ALONG = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82];

/**
 * Each label where it overlaps nothing placed so far: on its curve if a
 * spot there is free, else the nearest free spot around the curve's middle
 * (there always is one, further out), with a leader line.
 */
function placeLabels(edges: Routed[], boxes: TextBox[]): void {
  const free = (b: Box) => !boxes.some((o) => overlaps(b, o));
  // Highlighted labels first: they get the best spots.
  const order = edges.map((_, i) => i).sort((a, b) => Number(edges[b].drawn.highlighted) - Number(edges[a].drawn.highlighted));
  for (const i of order) {
    const e = edges[i];
    if (!e.label) continue;
    const color = e.drawn.highlighted ? COLORS.cycle : COLORS[e.drawn.kind];
    const size = textBox([e.label], LABEL_FONT, 'label', 3);
    const centred = (p: Point): TextBox => ({ ...size, x: p.x - size.w / 2, y: p.y - size.h / 2, color });
    let placed = ALONG.map((t) => centred(bezier(e.drawn.path, t))).find(free);
    if (!placed) {
      const mid = bezier(e.drawn.path, 0.5);
      search: for (let r = 14; ; r += 10) {
        for (let k = 0; k < 16; k++) {
          const a = (k / 16) * 2 * Math.PI;
          const cand = centred({ x: mid.x + r * Math.cos(a), y: mid.y + r * Math.sin(a) });
          if (cand.x < 0 || cand.y < 0) continue;
          if (free(cand)) {
            placed = { ...cand, leader: mid };
            break search;
          }
        }
      }
    }
    boxes.push(placed);
  }
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n1 = (v: number) => (Math.round(v * 10) / 10).toString();
const FONT_FAMILY = "'DejaVu Sans Mono', Menlo, Consolas, monospace";

/** The SVG document of a layout. */
export function renderSvg(l: SvgLayout): string {
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}" font-family="${FONT_FAMILY}">`,
    '<defs>',
    ...Object.entries(COLORS).map(
      ([k, c]) => `<marker id="arrow-${k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${c}"/></marker>`,
    ),
    '</defs>',
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
  ];
  const d = (p: DrawnEdge['path']) => `M${n1(p[0].x)},${n1(p[0].y)} C${n1(p[1].x)},${n1(p[1].y)} ${n1(p[2].x)},${n1(p[2].y)} ${n1(p[3].x)},${n1(p[3].y)}`;
  // The cycle under everything, wide and pale; then the edges.
  for (const e of l.edges.filter((x) => x.highlighted)) {
    out.push(`<path class="cycle" d="${d(e.path)}" fill="none" stroke="${COLORS.cycle}" stroke-opacity="0.3" stroke-width="9" stroke-linecap="round"/>`);
  }
  for (const e of l.edges) {
    const width = e.kind === 'po' && !e.highlighted ? 1 : e.highlighted ? 2.2 : 1.6;
    const dash = e.kind === 'ppo' ? ' stroke-dasharray="5 3"' : '';
    out.push(`<path class="edge ${e.kind}" d="${d(e.path)}" fill="none" stroke="${COLORS[e.kind]}" stroke-width="${width}"${dash} marker-end="url(#arrow-${e.kind})"/>`);
  }
  for (const b of l.boxes) out.push(...drawBox(b));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function drawBox(b: TextBox): string[] {
  const out: string[] = [];
  const size = b.role === 'title' ? 13 : b.role === 'head' ? 14 : b.role === 'label' || b.role === 'legend' ? LABEL_FONT : FONT;
  const lineH = size + 3;
  if (b.role === 'event' || b.role === 'init') {
    const dash = b.role === 'init' ? ' stroke-dasharray="4 3"' : '';
    out.push(`<rect class="${b.role}" data-event="${b.id}" x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" rx="6" fill="#fbfbf8" stroke="#444"${dash}/>`);
  }
  if (b.role === 'label') {
    if (b.leader) {
      const c = centre(b);
      out.push(`<line x1="${n1(c.x)}" y1="${n1(c.y)}" x2="${n1(b.leader.x)}" y2="${n1(b.leader.y)}" stroke="${b.color}" stroke-width="0.8" stroke-dasharray="2 2"/>`);
    }
    out.push(`<rect class="label-bg" x="${n1(b.x)}" y="${n1(b.y)}" width="${n1(b.w)}" height="${n1(b.h)}" fill="#ffffff" fill-opacity="0.85"/>`);
  }
  if (b.role === 'legend') {
    const y = b.y + b.h / 2;
    out.push(`<line x1="${n1(b.x - 24)}" y1="${n1(y)}" x2="${n1(b.x - 4)}" y2="${n1(y)}" stroke="${b.color}" stroke-width="${b.color === COLORS.cycle ? 5 : 2}"/>`);
  }
  const pad = b.role === 'event' || b.role === 'init' ? PAD_Y : 1;
  const padX = b.role === 'event' || b.role === 'init' ? PAD_X : b.role === 'label' ? 3 : 0;
  const weight = b.role === 'head' || b.role === 'title' ? ' font-weight="bold"' : '';
  const fill = b.role === 'label' ? b.color : '#222';
  b.lines.forEach((line, i) => {
    const y = b.y + pad + i * lineH + size * 0.85;
    out.push(`<text class="${b.role}" x="${n1(b.x + padX)}" y="${n1(y)}" font-size="${size}" fill="${fill}"${weight} xml:space="preserve">${esc(line)}</text>`);
  });
  return out;
}
