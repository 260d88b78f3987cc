// Benchmark (not a test): the performance targets against herd7 (targets.ts),
// then the checker on the public corpus and on generated scalable families
// (bench/families.ts), as Markdown tables.
//
//   npm run bench -- [--family NAME[,NAME...]] [--min-n N] [--max-n N] [--budget-s S]
//                    [--timeout-s S] [--max-executions N] [--no-corpus] [--out FILE]
//                    [--no-targets] [--no-herd] [--herd-timeout-s S] [--auto [--auto-timeout-s S] [-j N]]
//                    [--no-families] [--svg FILE] [--section FILE]
//
// The targets table: each target figure in a fresh process (the CLI as
// a user runs it), with herd7's beside it where installed; --auto adds every
// auto/ test of the paulmckrcu collection with --speedcheck (tens of minutes).
//
// A family grows from its smallest N (one at a time up to 10, then by the
// growth per size seen so far: nextSize) up to --max-n (default 1000) and
// stops once one size takes more than --budget-s (default 10 s) of CPU, or
// hits a checker limit (LimitError; --timeout-s defaults to 60 s). Families
// marked `speedcheck` are grown a second time with --speedcheck. herd7 runs
// beside each size (-speedcheck fast beside --speedcheck) until one takes
// more than the budget, or is stopped at --herd-timeout-s (default 20 s of CPU). A summary
// table gives, per family, the largest N under 1 s and the first N at 10 s.
// Each family size runs in a fresh child process (--child), so its peak RSS
// is its own. --svg writes the curves (chart.ts); --section replaces the
// families section of a Markdown file (bench/RESULTS.md: npm run bench:scale).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, readRows } from '../scripts/corpus.js';
import { checkSource, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { LimitError, LitmusError } from '../src/parse/errors.js';
import { FAMILIES, type Family } from './families.js';
import { chartSvg, type Panel, type Series } from './chart.js';
import { findHerd, measureProcess, runTargets } from './targets.js';
import { gitDescribe, replaceSection } from './section.js';


interface Options {
  families: string[] | null;
  minN: number | null;
  maxN: number;
  budgetS: number;
  timeoutS: number;
  maxExecutions: number;
  corpus: boolean;
  out: string | null;
  targets: boolean;
  herd: boolean;
  auto: boolean;
  autoTimeoutS: number;
  jobs: number;
  runFamilies: boolean;
  /** Seconds of CPU before a herd7 run of a family size is stopped (ulimit -t). */
  herdTimeoutS: number;
  /** Where to write the families' curves (SVG), if anywhere. */
  svg: string | null;
  /** A Markdown file whose families section (between the bench's markers) this run replaces. */
  section: string | null;
  /** The name of that section's markers (`<!-- bench:NAME -->`): `families` unless a run of some families keeps its own. */
  sectionName: string;
}

function usage(msg?: string): never {
  if (msg) console.error(`bench: ${msg}`);
  console.error(
    'usage: node dist/bench/run.js [--family NAME[,NAME...]] [--min-n N] [--max-n N] [--budget-s S]\n' +
      '                            [--timeout-s S] [--max-executions N] [--no-corpus] [--out FILE]\n' +
      '                            [--no-targets] [--no-herd] [--herd-timeout-s S] [--auto [--auto-timeout-s S] [-j N]]\n' +
      '                            [--no-families] [--svg FILE] [--section FILE [--section-name NAME]]\n' +
      `families: ${FAMILIES.map((f) => f.name).join(', ')}`,
  );
  process.exit(msg ? 2 : 0);
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    families: null,
    minN: null,
    maxN: 1000,
    budgetS: 10,
    timeoutS: 60,
    maxExecutions: 5_000_000,
    corpus: true,
    out: null,
    targets: true,
    herd: true,
    auto: false,
    autoTimeoutS: 10,
    jobs: os.availableParallelism(),
    runFamilies: true,
    herdTimeoutS: 20,
    svg: null,
    section: null,
    sectionName: 'families',
  };
  const num = (flag: string, v: string | undefined): number => {
    const x = Number(v);
    if (v === undefined || !Number.isFinite(x) || x <= 0) usage(`${flag} needs a positive number`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const val = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--family': {
        const v = val();
        if (!v) usage('--family needs a name');
        for (const name of v.split(',')) {
          if (!FAMILIES.some((f) => f.name === name)) usage(`unknown family '${name}'`);
          (o.families ??= []).push(name);
        }
        break;
      }
      case '--min-n':
        o.minN = Math.floor(num(flag, val()));
        break;
      case '--max-n':
        o.maxN = Math.floor(num(flag, val()));
        break;
      case '--budget-s':
        o.budgetS = num(flag, val());
        break;
      case '--timeout-s':
        o.timeoutS = num(flag, val());
        break;
      case '--max-executions':
        o.maxExecutions = Math.floor(num(flag, val()));
        break;
      case '--section-name': {
        const v = val();
        if (!v || !/^[a-z0-9-]+$/.test(v)) usage('--section-name needs a name of lower-case letters, digits and hyphens');
        o.sectionName = v;
        break;
      }
      case '--no-corpus':
        o.corpus = false;
        break;
      case '--no-targets':
        o.targets = false;
        break;
      case '--no-herd':
        o.herd = false;
        break;
      case '--auto':
        o.auto = true;
        break;
      case '--auto-timeout-s':
        o.autoTimeoutS = num(flag, val());
        break;
      case '-j':
      case '--jobs':
        o.jobs = Math.floor(num(flag, val()));
        break;
      case '--no-families':
        o.runFamilies = false;
        break;
      case '--herd-timeout-s':
        o.herdTimeoutS = num(flag, val());
        break;
      case '--svg': {
        const v = val();
        if (!v) usage('--svg needs a file name');
        o.svg = v;
        break;
      }
      case '--section': {
        const v = val();
        if (!v) usage('--section needs a file name');
        o.section = v;
        break;
      }
      case '--out': {
        const v = val();
        if (!v) usage('--out needs a file name');
        o.out = v;
        break;
      }
      case '-h':
      case '--help':
        usage();
      default:
        usage(`unknown argument '${a}'`);
    }
  }
  return o;
}

// ---------------------------------------------------------------- measuring

const MB = 1024 * 1024;
let peakRss = process.memoryUsage().rss;

function sampleRss(): number {
  const rss = process.memoryUsage().rss;
  if (rss > peakRss) peakRss = rss;
  return rss;
}

interface Measure {
  wallMs: number;
  cpuMs: number;
  /** max(rss before, rss after) of this measurement. */
  rss: number;
  /** The process high-water mark (resourceUsage().maxRSS) after this measurement, bytes. */
  maxRss: number;
}

function measure<T>(fn: () => T): { value: T; m: Measure } | { error: unknown; m: Measure } {
  const before = sampleRss();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  let value: T | undefined;
  let error: unknown;
  let failed = false;
  try {
    value = fn();
  } catch (e) {
    error = e;
    failed = true;
  }
  const wallMs = performance.now() - w0;
  const c = process.cpuUsage(c0);
  const after = sampleRss();
  const m: Measure = {
    wallMs,
    cpuMs: (c.user + c.system) / 1000,
    rss: Math.max(before, after),
    maxRss: process.resourceUsage().maxRSS * 1024,
  };
  return failed ? { error, m } : { value: value as T, m };
}

// ---------------------------------------------------------------- formatting

const fmtMs = (ms: number): string => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`);
const fmtInt = (n: number): string => n.toLocaleString('en-US');
const fmtRate = (count: number, ms: number): string => {
  if (!(ms > 0)) return '-';
  const r = (count * 1000) / ms;
  return r < 10 ? r.toFixed(2) : fmtInt(Math.round(r));
};
const fmtMb = (b: number): string => `${(b / MB).toFixed(0)} MB`;

function table(header: string[], rows: string[][], right: boolean[] = []): string {
  const sep = header.map((_, i) => (right[i] ? '---:' : '---'));
  return [header, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

function errText(e: unknown): string {
  if (e instanceof LimitError) return e.message.startsWith('limit:') ? e.message : `limit: ${e.message}`;
  if (e instanceof LitmusError) return `litmus error: ${e.message}`;
  return `error: ${e instanceof Error ? e.message : String(e)}`;
}

// ---------------------------------------------------------------- corpus

function runCorpus(opts: Options, out: string[]): void {
  const corpus = corpusDir();
  out.push('## Public corpus (one process)', '');
  if (!corpus) {
    const msg = 'skipped: no corpus at ../shared/corpus (set LITMUS_CORPUS)';
    console.error(`bench: corpus ${msg}`);
    out.push(msg, '');
    return;
  }
  const rows = readRows(corpus);
  console.error(`bench: corpus: ${rows.length} tests from ${corpus}`);
  const per: { test: string; ms: number; candidates: number; consistent: number }[] = [];
  const failures: string[] = [];
  let candidates = 0;
  let consistent = 0;
  let agree = 0;
  const total = measure(() => {
    for (const row of rows) {
      const text = readFileSync(join(corpus, row.test), 'utf8');
      const w0 = performance.now();
      try {
        const r = checkSource(text, {
          model: lkmm,
          maxExecutions: opts.maxExecutions,
          timeoutMs: opts.timeoutS * 1000,
          // Compared with herd7's results: loops read as herd7 reads them.
          waits: 'unrolled',
        });
        const ms = performance.now() - w0;
        candidates += r.stats.candidates;
        consistent += r.positive + r.negative;
        per.push({ test: row.test, ms, candidates: r.stats.candidates, consistent: r.positive + r.negative });
        if (r.observation === row.verdict && r.positive === row.positive && r.negative === row.negative) agree++;
        else
          failures.push(
            `${row.test}: ${r.observation} ${r.positive}/${r.negative} (herd: ${row.verdict} ${row.positive}/${row.negative})`,
          );
      } catch (e) {
        per.push({ test: row.test, ms: performance.now() - w0, candidates: 0, consistent: 0 });
        failures.push(`${row.test}: ${errText(e)}`);
      }
      sampleRss();
    }
  });
  const m = total.m;
  out.push(
    table(
      ['tests', 'agree with herd (verdict+P/N)', 'wall', 'CPU', 'candidates', 'consistent', 'cand/s', 'RSS (max before/after)', 'maxRSS so far'],
      [
        [
          String(rows.length),
          `${agree}/${rows.length}`,
          fmtMs(m.wallMs),
          fmtMs(m.cpuMs),
          fmtInt(candidates),
          fmtInt(consistent),
          fmtRate(candidates, m.wallMs),
          fmtMb(m.rss),
          fmtMb(m.maxRss),
        ],
      ],
      [true, true, true, true, true, true, true, true, true],
    ),
    '',
  );
  const slow = [...per].sort((a, b) => b.ms - a.ms).slice(0, 8);
  out.push(
    'Slowest corpus tests:',
    '',
    table(
      ['test', 'wall', 'candidates', 'consistent'],
      slow.map((s) => [s.test, fmtMs(s.ms), fmtInt(s.candidates), fmtInt(s.consistent)]),
      [false, true, true, true],
    ),
    '',
  );
  if (failures.length) {
    out.push(`Disagreements / errors (${failures.length}):`, '', ...failures.map((f) => `- ${f}`), '');
  }
  console.error(`bench: corpus done in ${fmtMs(m.wallMs)} (${agree}/${rows.length} agree)`);
}

// ---------------------------------------------------------------- families

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
function runChild(name: string, n: number, mode: Mode, opts: Options): void {
  const f = FAMILIES.find((x) => x.name === name);
  if (!f) usage(`unknown family '${name}'`);
  const text = f.make(n);
  const res = measure(() =>
    checkSource(text, {
      model: lkmm,
      maxExecutions: opts.maxExecutions,
      timeoutMs: opts.timeoutS * 1000,
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
function runHerd(herd: { argv: string[] }, text: string, file: string, mode: Mode, ours: SizeReport, opts: Options, waits = false): HerdRun {
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

function runFamily(f: Family, mode: Mode, opts: Options, herd: { argv: string[] } | undefined, tmp: string, runs: FamilyRuns): void {
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
      [fileURLToPath(import.meta.url), '--child', f.name, String(n), mode, '--timeout-s', String(opts.timeoutS), '--max-executions', String(opts.maxExecutions)],
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
    '### Waits against one read',
    '',
    'Each family with waits (herd7\'s read-then-while spin loops, read exactly, every wait judged for liveness) beside the same test with each wait replaced by one read, at the same sizes (CPU of the check, each in a fresh process; consistent executions counted).',
    '',
    table(['family', 'N', 'CPU with waits', 'consistent', 'CPU, one read each', 'consistent', 'ratio'], rows, [false, true, true, true, true, true, true]),
    '',
  ];
}

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

// ---------------------------------------------------------------- main

function main(): void {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    runChild(argv[1], Number(argv[2]), argv[3] as Mode, parseArgs(argv.slice(4)));
    return;
  }
  const opts = parseArgs(argv);
  const out: string[] = [];
  const cpus = os.cpus();
  out.push(
    '# litmus benchmark',
    '',
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.platform()} ${os.release()} ${os.arch()}`,
    `- node: ${process.version}`,
    `- load average (1, 5, 15 min) at the start: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')} (on a shared machine, wall times grow with it; CPU times much less)`,
    `- source: ${gitDescribe()}`,
    `- model: ${lkmm.name}; limits: maxExecutions ${fmtInt(opts.maxExecutions)}, timeout ${opts.timeoutS} s per test; family budget ${opts.budgetS} s per size, N <= ${opts.maxN}`,
    '',
  );
  console.error(out.slice(2, 8).join('\n'));

  if (opts.targets) {
    const { rows, notes } = runTargets(
      { timeoutS: opts.timeoutS, herd: opts.herd, auto: opts.auto, autoTimeoutS: opts.autoTimeoutS, jobs: opts.jobs, corpus: corpusDir() },
      (s) => console.error(s),
    );
    out.push(
      '## Targets (one fresh process per figure: the CLI, start-up included)',
      '',
      table(
        ['figure', 'target', 'litmus', 'met', 'peak RSS', 'herd7 (same files, same run)'],
        rows.map((r) => [r.figure, r.target, r.value, r.met, r.rss, r.herd]),
        [false, false, true, false, true, true],
      ),
      '',
      ...notes.map((n) => `- ${n}`),
      '',
    );
  }

  if (opts.corpus) runCorpus(opts, out);

  const families = !opts.runFamilies ? [] : opts.families ? FAMILIES.filter((f) => opts.families!.includes(f.name)) : FAMILIES;
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
  if (families.length) {
    const section: string[] = [
      opts.sectionName === 'families' ? '## Scalable families' : `## Scalable families: ${opts.sectionName}`,
      '',
      `Each size in a fresh process (\`--child\`), CPU time of the check (user + system, process.cpuUsage), the sizes growing until one takes more than ${opts.budgetS} s of CPU (one at a time up to N=10, then by the growth seen so far), or a limit of the checker stops it. herd7: ${herd ? `${herd.where}, stopped after ${opts.herdTimeoutS} s of CPU (ulimit -t), CPU from its rusage, not run on larger sizes once one took more than ${opts.budgetS} s; exhaustive rows compare its Observation and counts with ours, --speedcheck rows run \`-speedcheck fast\` and compare whether the execution looked for exists` : opts.herd ? 'not installed' : 'not run (--no-herd)'}.`,
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
      '',
      ...waitsAgainstOneRead(families, runs),
    );
    if (opts.svg) {
      writeFileSync(opts.svg, familyChart(runs, `litmus bench, ${new Date().toISOString().slice(0, 16)} UTC, ${gitDescribe()}, ${os.cpus().length} cores`));
      section.push(`The curves: \`${opts.svg}\` (written by this run).`, '');
    }
    out.push(...section);
    if (opts.section) replaceSection(opts.section, opts.sectionName, [`_Written by \`npm run bench -- ${process.argv.slice(2).join(' ')}\` on ${new Date().toISOString().slice(0, 16)} UTC, ${gitDescribe()}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} at the end._`, '', ...section].join('\n'));
  }
  out.push(`Load average (1, 5, 15 min) at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}.`, '');
  const md = out.join('\n');
  console.log(md);
  if (opts.out) writeFileSync(opts.out, md);
}

main();
