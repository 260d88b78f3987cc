// The bench's curves as an SVG file of its own making (no plotting tool):
// one panel per quantity, log-log axes, one polyline per series, each
// point a measured size.

export interface Point {
  x: number;
  y: number;
  /** Shown beside the series' last point. */
  label?: string;
}

export interface Series {
  name: string;
  points: Point[];
  /** Drawn dashed (herd7's figures beside ours). */
  dashed?: boolean;
  /** The series it shares a colour with (ours and herd7's of one family). */
  colourOf?: string;
}

export interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22', '#393b79', '#637939'];
const W = 760;
const H = 460;
const M = { left: 70, right: 190, top: 36, bottom: 50 };

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (v: number): string => (v >= 1e6 ? `${v / 1e6}M` : v >= 1e3 ? `${v / 1e3}k` : v >= 1 ? String(v) : v >= 0.001 ? `${+v.toFixed(3)}` : v.toExponential(0));

/** Powers of ten from below lo to above hi. */
function decades(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

function panelSvg(p: Panel, top: number): string {
  const pts = p.series.flatMap((s) => s.points).filter((q) => q.x > 0 && q.y > 0);
  const parts: string[] = [];
  parts.push(`<text x="${M.left}" y="${top + 22}" font-size="15" font-weight="bold">${esc(p.title)}</text>`);
  if (pts.length === 0) {
    parts.push(`<text x="${M.left}" y="${top + 60}" font-size="12">no data</text>`);
    return parts.join('\n');
  }
  const xs = decades(Math.min(...pts.map((q) => q.x)), Math.max(...pts.map((q) => q.x)));
  const ys = decades(Math.min(...pts.map((q) => q.y)), Math.max(...pts.map((q) => q.y)));
  const [x0, x1] = [Math.log10(xs[0]), Math.log10(xs[xs.length - 1])];
  const [y0, y1] = [Math.log10(ys[0]), Math.log10(ys[ys.length - 1])];
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const px = (x: number) => M.left + ((Math.log10(x) - x0) / Math.max(1e-9, x1 - x0)) * plotW;
  const py = (y: number) => top + M.top + plotH - ((Math.log10(y) - y0) / Math.max(1e-9, y1 - y0)) * plotH;
  const box = `x="${M.left}" y="${top + M.top}" width="${plotW}" height="${plotH}"`;
  parts.push(`<rect ${box} fill="none" stroke="#444"/>`);
  for (const x of xs) {
    parts.push(`<line x1="${px(x).toFixed(1)}" y1="${top + M.top}" x2="${px(x).toFixed(1)}" y2="${top + M.top + plotH}" stroke="#ddd"/>`);
    parts.push(`<text x="${px(x).toFixed(1)}" y="${top + M.top + plotH + 16}" font-size="11" text-anchor="middle">${fmt(x)}</text>`);
  }
  for (const y of ys) {
    parts.push(`<line x1="${M.left}" y1="${py(y).toFixed(1)}" x2="${M.left + plotW}" y2="${py(y).toFixed(1)}" stroke="#ddd"/>`);
    parts.push(`<text x="${M.left - 6}" y="${(py(y) + 4).toFixed(1)}" font-size="11" text-anchor="end">${fmt(y)}</text>`);
  }
  parts.push(`<text x="${M.left + plotW / 2}" y="${top + H - 12}" font-size="12" text-anchor="middle">${esc(p.xLabel)}</text>`);
  parts.push(`<text x="16" y="${top + M.top + plotH / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 16 ${top + M.top + plotH / 2})">${esc(p.yLabel)}</text>`);
  const colours = new Map<string, string>();
  let legendY = top + M.top + 6;
  for (const s of p.series) {
    const key = s.colourOf ?? s.name;
    if (!colours.has(key)) colours.set(key, PALETTE[colours.size % PALETTE.length]);
    const colour = colours.get(key)!;
    const shown = s.points.filter((q) => q.x > 0 && q.y > 0);
    if (shown.length === 0) continue;
    const dash = s.dashed ? ' stroke-dasharray="5 4"' : '';
    const path = shown.map((q) => `${px(q.x).toFixed(1)},${py(q.y).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="1.8"${dash}/>`);
    for (const q of shown) parts.push(`<circle cx="${px(q.x).toFixed(1)}" cy="${py(q.y).toFixed(1)}" r="2.5" fill="${colour}"/>`);
    const last = shown[shown.length - 1];
    if (last.label) parts.push(`<text x="${(px(last.x) + 5).toFixed(1)}" y="${(py(last.y) - 4).toFixed(1)}" font-size="10" fill="${colour}">${esc(last.label)}</text>`);
    const lx = M.left + plotW + 12;
    parts.push(`<line x1="${lx}" y1="${legendY}" x2="${lx + 22}" y2="${legendY}" stroke="${colour}" stroke-width="2"${dash}/>`);
    parts.push(`<text x="${lx + 27}" y="${legendY + 4}" font-size="11">${esc(s.name)}</text>`);
    legendY += 16;
  }
  return parts.join('\n');
}

/** An SVG document with the panels one above the other. */
export function chartSvg(panels: Panel[], caption: string): string {
  const height = panels.length * H + 30;
  const body = panels.map((p, i) => panelSvg(p, i * H)).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif">`,
    `<rect width="${W}" height="${height}" fill="white"/>`,
    body,
    `<text x="${M.left}" y="${height - 10}" font-size="11" fill="#555">${esc(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
