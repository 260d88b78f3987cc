// The generated families (families.ts) at growing N, each size checked in a
// fresh child process (`node dist/bench/scale.js --child FAMILY N MODE`) so
// that its peak RSS is its own, herd7 beside each size where installed, and
// the curves of executions against CPU time drawn (chart.ts).
//
// A family grows from its smallest N (one at a time up to 10, then by the
// growth per size seen so far: nextSize) up to --max-n (default 1000) and
// stops once one size takes more than --budget-s (default 10 s) of CPU, or
// hits a checker limit (LimitError; --family-timeout-s, of wall time, defaults to 600 s). Families
// marked `speedcheck` are grown a second time with --speedcheck. herd7 runs
// beside each size (-speedcheck fast beside --speedcheck) until one takes
// more than the budget, or is stopped at --herd-timeout-s (default 20 s of
// CPU). A summary table gives, per family, the largest N under 1 s and the
// first N at 10 s.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSource, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { LimitError } from '../src/parse/errors.js';
import { FAMILIES, type Family } from './families.js';
import { chartSvg, type Panel, type Series } from './chart.js';
import { findHerd, measureProcess } from './targets.js';
import { errText, fmtInt, fmtMb, fmtMs, measure, table, type BenchOptions, type Measure } from './options.js';

/** How a family is checked: every execution counted, or --speedcheck's decision. */
type Mode = 'exhaustive' | 'speedcheck';

/** What a child process reports for one family size. */
interface SizeReport {
  m: Measure;
  error?: string;
  limit?: boolean;
  candidates?: number;
  pruned?: number;
  consistent?: number;
  positive?: number;
  negative?: number;
  observation?: string;
  quantifier?: string;
}

/**
 * Child mode (`--child FAMILY N MODE`): checks one size in this fresh
 * process and prints a SizeReport, so that each size's peak RSS is its own.
 */
function runChild(name: string, n: number, mode: Mode, timeoutS: number, maxExecutions: number): void {
  const f = FAMILIES.find((x) => x.name === name);
  if (!f) throw new Error(`unknown family '${name}'`);
  const text = f.make(n);
  const res = measure(() =>
    checkSource(text, {
      model: lkmm,
      maxExecutions,
      timeoutMs: timeoutS * 1000,
      speedcheck: mode === 'speedcheck' ? 'decide' : undefined,
    }),
  );
  let rep: SizeReport;
  if ('error' in res) {
    rep = { m: res.m, error: errText(res.error), limit: res.error instanceof LimitError };
  } else {
    const r: CheckResult = res.value;
    rep = {
      m: res.m,
      candidates: r.stats.candidates,
      pruned: r.stats.pruned,
      consistent: r.positive + r.negative,
      positive: r.positive,
      negative: r.negative,
      observation: r.observation,
      quantifier: r.quantifier,
    };
  }
  process.stdout.write(JSON.stringify(rep));
}

/** herd7's run of one family size: its CPU, and what its Observation line says. */
interface HerdRun {
  text: string;
  cpuS?: number;
  /** Positive + Negative of its Observation line (the executions it counted). */
  executions?: number;
  /** Stopped at the time limit (or past the budget): larger sizes are not run. */
  over: boolean;
}

/**
 * herd7 on one family size (`-speedcheck fast` beside our --speedcheck),
 * with our result to compare: exhaustive, the same Observation and counts;
 * with speedcheck, whether the execution looked for (a witness of exists,
 * a violation of forall) exists.
 */
function runHerd(herd: { argv: string[] }, text: string, file: string, mode: Mode, ours: SizeReport, opts: BenchOptions, waits = false): HerdRun {
  writeFileSync(file, text);
  const limitS = opts.herdTimeoutS;
  const p = measureProcess([...herd.argv, ...(mode === 'speedcheck' ? ['-speedcheck', 'fast'] : []), file], limitS * 20, undefined, limitS);
  if (p.timedOut) return { text: `> ${limitS} s CPU (stopped)`, over: true };
  const m = /^Observation \S+ (Always|Sometimes|Never) (\d+) (\d+)/m.exec(p.stdout);
  if (p.status !== 0 || !m) return { text: `failed (exit ${p.status}: ${p.stderr.trim().split('\n')[0] ?? ''})`, over: true };
  const [hp, hn] = [Number(m[2]), Number(m[3])];
  let same: boolean;
  // A family with waits: check counts the executions in which no wait went round idle, herd7 each number of idle passes up to its bound.
  if (mode === 'exhaustive') same = m[1] === ours.observation && (waits || (hp === ours.positive && hn === ours.negative));
  else {
    const oursFound = ours.quantifier === 'forall' ? ours.negative! > 0 : ours.positive! > 0;
    same = hp + hn > 0 === oursFound;
  }
  const what = mode === 'exhaustive' ? `${m[1]} ${hp} ${hn}` : hp + hn > 0 ? 'found' : 'none';
  return {
    text: `${p.cpuS < 0.01 ? '< 10 ms' : fmtMs(p.cpuS * 1000)} (${what}${same ? (waits ? ', same verdict' : ', same') : ', DIFFERS'})`,
    cpuS: p.cpuS,
    executions: hp + hn,
    over: p.cpuS > opts.budgetS,
  };
}

/**
 * The next size after the last measured ones: one more up to N=10; then as
 * many more as stay within half the budget, predicted from the growth per
 * size seen between the last two, of the CPU time or of the work (partial
 * and complete executions built), whichever grows faster (at small sizes
 * fixed costs hide the growth of the time); at most half as many again.
 */
function nextSize(sizes: { n: number; cpuS: number; work: number }[], budgetS: number): number {
  const last = sizes[sizes.length - 1];
  const before = sizes[sizes.length - 2];
  const n = last.n;
  const most = Math.max(1, Math.ceil(n / 2));
  if (n < 10 || !before) return n + 1;
  const perSize = (a: number, b: number) => (Math.max(a, 1e-3) / Math.max(b, 1e-3)) ** (1 / (n - before.n));
  const growth = Math.max(perSize(last.cpuS, before.cpuS), perSize(last.work, before.work));
  if (growth <= 1.01) return n + most;
  const steps = Math.floor(Math.log(budgetS / 2 / Math.max(last.cpuS, 1e-3)) / Math.log(growth));
  return n + Math.min(most, Math.max(1, steps));
}

/** What the family runs gather, for the tables and the chart. */
interface FamilyRuns {
  rows: string[][];
  notes: string[];
  summary: string[][];
  /** Per family and mode: (CPU, consistent executions) of ours, and herd7's. */
  curves: { name: string; mode: Mode; ours: { n: number; cpuS: number; executions: number }[]; herd: { n: number; cpuS: number; executions: number }[] }[];
  peakRss: number;
}

function runFamily(f: Family, mode: Mode, opts: BenchOptions, herd: { argv: string[] } | undefined, tmp: string, runs: FamilyRuns): void {
  const start = Math.max(f.minN, opts.minN ?? f.minN);
  let underOne = '-';
  let reachesTen = `not within N <= ${opts.maxN}`;
  const measured: { n: number; cpuS: number; work: number }[] = [];
  const curve = { name: f.name, mode, ours: [] as { n: number; cpuS: number; executions: number }[], herd: [] as { n: number; cpuS: number; executions: number }[] };
  runs.curves.push(curve);
  let herdStopped: string | undefined = herd ? undefined : opts.herd ? 'not installed' : 'not run (--no-herd)';
  const label = mode === 'speedcheck' ? `${f.name} (--speedcheck)` : f.name;
  for (let n = start; n <= opts.maxN; n = nextSize(measured, opts.budgetS)) {
    const child = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', f.name, String(n), mode, String(opts.familyTimeoutS), String(opts.maxExecutions)],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    let rep: SizeReport;
    try {
      rep = JSON.parse(child.stdout) as SizeReport;
    } catch {
      throw new Error(`bench: ${f.name} N=${n}: child failed (${child.status ?? child.signal}): ${child.stderr.trim()}`);
    }
    const m = rep.m;
    if (rep.error !== undefined) {
      runs.rows.push([label, String(n), fmtMs(m.cpuMs), fmtMs(m.wallMs), '-', '-', '-', '-', fmtMb(m.maxRss), rep.error, '-']);
      console.error(`bench: ${label} N=${n}: ${rep.error} after ${fmtMs(m.cpuMs)} CPU; stopping family`);
      runs.notes.push(`${label}: stopped at N=${n} (${rep.error}).`);
      if (!rep.limit) throw new Error(rep.error);
      reachesTen = m.cpuMs >= 10_000 ? `N=${n} (stopped by the limit)` : `none: a limit stops it at N=${n}`;
      break;
    }
    const cons = rep.consistent!;
    const want = f.expected(n);
    const verdict = rep.observation === want ? rep.observation : `${rep.observation} (expected ${want})`;
    let herdText = herdStopped ?? '';
    if (herd && herdStopped === undefined) {
      const h = runHerd(herd, f.make(n), join(tmp, `${f.name}-${n}.litmus`), mode, rep, opts, f.waits !== undefined);
      herdText = h.text;
      if (h.cpuS !== undefined) curve.herd.push({ n, cpuS: h.cpuS, executions: h.executions! });
      if (h.over) herdStopped = `not run (past the budget at N=${n})`;
    }
    runs.rows.push([
      label,
      String(n),
      fmtMs(m.cpuMs),
      fmtMs(m.wallMs),
      fmtInt(rep.candidates!),
      fmtInt(cons),
      fmtInt(rep.pruned!),
      mode === 'exhaustive' && cons > 0 ? `${((m.cpuMs * 1000) / cons).toFixed(0)} µs` : '-',
      fmtMb(m.maxRss),
      verdict,
      herdText,
    ]);
    if (m.maxRss > runs.peakRss) runs.peakRss = m.maxRss;
    measured.push({ n, cpuS: m.cpuMs / 1000, work: rep.candidates! + rep.pruned! });
    curve.ours.push({ n, cpuS: m.cpuMs / 1000, executions: cons });
    console.error(
      `bench: ${label} N=${n}: ${fmtMs(m.cpuMs)} CPU, ${fmtInt(rep.candidates!)} candidates, ${fmtInt(cons)} consistent, ${rep.observation}; herd7: ${herdText}`,
    );
    if (m.cpuMs < 1000) underOne = `N=${n}`;
    if (m.cpuMs >= 10_000 && reachesTen.startsWith('not')) reachesTen = `N=${n} (${fmtMs(m.cpuMs)})`;
    if (m.cpuMs > opts.budgetS * 1000) {
      runs.notes.push(`${label}: stopped after N=${n} (took ${fmtMs(m.cpuMs)} CPU > budget ${opts.budgetS} s).`);
      break;
    }
  }
  runs.summary.push([label, underOne, reachesTen]);
}

/**
 * A family with waits beside the same test with each wait replaced by one
 * read, size by size: what reading a wait exactly (and judging whether it
 * can go on forever) costs over reading once.
 */
function waitsAgainstOneRead(families: readonly Family[], runs: FamilyRuns): string[] {
  const rows: string[][] = [];
  for (const f of families) {
    if (!f.waits) continue;
    const waits = runs.curves.find((c) => c.name === f.name && c.mode === 'exhaustive');
    const reads = runs.curves.find((c) => c.name === f.waits!.oneRead && c.mode === 'exhaustive');
    if (!waits || !reads) continue;
    for (const w of waits.ours) {
      const r = reads.ours.find((p) => p.n === w.n);
      if (!r) continue;
      rows.push([f.name, String(w.n), fmtMs(w.cpuS * 1000), fmtInt(w.executions), fmtMs(r.cpuS * 1000), fmtInt(r.executions), `${(w.cpuS / Math.max(r.cpuS, 1e-6)).toFixed(2)}x`]);
    }
  }
  if (rows.length === 0) return [];
  return [
    '',
    '### Waits against one read',
    '',
    'Each family with waits (herd7\'s read-then-while spin loops, read exactly, every wait judged for liveness) beside the same test with each wait replaced by one read, at the same sizes (CPU of the check, each in a fresh process; consistent executions counted).',
    '',
    table(['family', 'N', 'CPU with waits', 'consistent', 'CPU, one read each', 'consistent', 'ratio'], rows, [false, true, true, true, true, true, true]),
  ];
}

/** The families with waits and the one-read families they are compared with: the waits section's, not the families section's. */
export const WAIT_FAMILIES: readonly string[] = FAMILIES.flatMap((f) => (f.waits ? [f.name, f.waits.oneRead] : []));

/** The chart of the family runs: consistent executions against CPU time, and threads against CPU time with --speedcheck. */
function familyChart(runs: FamilyRuns, caption: string): string {
  const counted = runs.curves.filter((c) => c.mode === 'exhaustive');
  const decided = runs.curves.filter((c) => c.mode === 'speedcheck');
  const series = (cs: FamilyRuns['curves'], y: (p: { n: number; executions: number }) => number): Series[] =>
    cs.flatMap((c) => {
      const ours: Series = { name: c.name, points: c.ours.map((p) => ({ x: p.cpuS, y: y(p), label: `N=${p.n}` })) };
      const herd: Series = { name: `${c.name} herd7`, dashed: true, colourOf: c.name, points: c.herd.map((p) => ({ x: p.cpuS, y: y(p), label: `N=${p.n}` })) };
      return herd.points.length > 0 ? [ours, herd] : [ours];
    });
  const panels: Panel[] = [
    { title: 'Every execution counted: consistent executions against CPU time (herd7 dashed)', xLabel: 'CPU time of one check (s)', yLabel: 'consistent executions', series: series(counted, (p) => p.executions) },
  ];
  if (decided.length > 0) {
    panels.push({ title: 'With --speedcheck (herd7 -speedcheck fast dashed): size N against CPU time', xLabel: 'CPU time of one check (s)', yLabel: 'N (threads)', series: series(decided, (p) => p.n) });
  }
  return chartSvg(panels, caption);
}

/** The families section's Markdown (and, with --svg, its curves): every family but those with waits (and --family's choice among them). */
export function familiesSection(opts: BenchOptions, describe: string): string {
  return familiesOf(FAMILIES.filter((f) => !WAIT_FAMILIES.includes(f.name)), opts, describe, true);
}

/** The waits section's Markdown: the families with waits beside one read each, with half the budget. */
export function waitsSection(opts: BenchOptions, describe: string): string {
  return familiesOf(FAMILIES.filter((f) => WAIT_FAMILIES.includes(f.name)), { ...opts, budgetS: opts.budgetS / 2 }, describe, false);
}

function familiesOf(among: readonly Family[], opts: BenchOptions, describe: string, draw: boolean): string {
  const families = opts.families ? among.filter((f) => opts.families!.includes(f.name)) : among;
  const runs: FamilyRuns = { rows: [], notes: [], summary: [], curves: [], peakRss: 0 };
  const herd = opts.herd ? findHerd() : undefined;
  const tmp = mkdtempSync(join(os.tmpdir(), 'litmus-bench-families-'));
  try {
    for (const f of families) {
      runFamily(f, 'exhaustive', opts, herd, tmp, runs);
      if (f.speedcheck) runFamily(f, 'speedcheck', opts, herd, tmp, runs);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const section: string[] = [
    `Each size in a fresh process, CPU time of the check (user + system, process.cpuUsage), the sizes growing until one takes more than ${opts.budgetS} s of CPU (one at a time up to N=10, then by the growth seen so far, N <= ${opts.maxN}), or a limit of the checker stops it (--timeout ${opts.familyTimeoutS} s of wall time, --max-executions ${fmtInt(opts.maxExecutions)}). herd7: ${herd ? `${herd.where}, stopped after ${opts.herdTimeoutS} s of CPU (ulimit -t), CPU from its rusage, not run on larger sizes once one took more than ${opts.budgetS} s; exhaustive rows compare its Observation and counts with ours, --speedcheck rows run \`-speedcheck fast\` and compare whether the execution looked for exists` : opts.herd ? 'not installed' : 'not run (--no-herd)'}.`,
    '',
    ...families.map((f) => `- \`${f.name}\`: ${f.description}${f.speedcheck ? ' (also with --speedcheck)' : ''}`),
    '',
    table(
      ['family', 'N', 'CPU', 'wall', 'candidates', 'consistent (P+N)', 'pruned partial', 'CPU per consistent', 'peak RSS (own process)', 'verdict', 'herd7 CPU (its result)'],
      runs.rows,
      [false, true, true, true, true, true, true, true, true, false, false],
    ),
    '',
  ];
  if (runs.notes.length) section.push(...runs.notes.map((n) => `- ${n}`), '');
  section.push(
    '### Where each family stands',
    '',
    table(['family', 'largest N under 1 s CPU', 'first N taking 10 s CPU or more'], runs.summary, [false, true, true]),
    '',
    `Largest peak RSS of any family size (each checked in a fresh process, node's own ~45 MB included): ${fmtMb(runs.peakRss)}.`,
    ...waitsAgainstOneRead(families, runs),
  );
  if (draw && opts.svg) {
    writeFileSync(opts.svg, familyChart(runs, `litmus bench, ${describe}`));
    section.push('', `The curves: \`${opts.svg}\` (drawn by this run).`);
  }
  return section.join('\n');
}

// A child: one family size, its report on stdout.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv[2] === '--child') {
  const [name, n, mode, timeoutS, maxExecutions] = process.argv.slice(3);
  runChild(name, Number(n), mode as Mode, Number(timeoutS), Number(maxExecutions));
}
