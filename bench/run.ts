// Benchmark (not a test): the targets of issue #9 against herd7 (targets.ts),
// then the checker on the public corpus and on generated scalable families
// (bench/families.ts), as Markdown tables.
//
//   npm run bench -- [--family NAME[,NAME...]] [--min-n N] [--max-n N] [--budget-s S]
//                    [--timeout-s S] [--max-executions N] [--no-corpus] [--out FILE]
//                    [--no-targets] [--no-herd] [--auto [--auto-timeout-s S] [-j N]]
//                    [--no-families]
//
// The targets table: each figure of the issue in a fresh process (the CLI as
// a user runs it), with herd7's beside it where installed; --auto adds every
// auto/ test of the paulmckrcu collection with --speedcheck (tens of minutes).
//
// A family grows from its smallest N up to --max-n (default 10) and stops
// once one size takes longer than --budget-s (default 10 s) of wall time, or
// hits a checker limit (LimitError; --timeout-s defaults to 60 s). A summary
// table gives, per family, the largest N under 1 s and the first N at 10 s.
// Each family size runs in a fresh child process (--child), so its peak RSS
// is its own.

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDir, readRows } from '../scripts/corpus.js';
import { checkSource, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { LimitError, LitmusError } from '../src/parse/errors.js';
import { FAMILIES, type Family } from './families.js';
import { runTargets } from './targets.js';

const here = dirname(fileURLToPath(import.meta.url));

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
}

function usage(msg?: string): never {
  if (msg) console.error(`bench: ${msg}`);
  console.error(
    'usage: node dist/bench/run.js [--family NAME[,NAME...]] [--min-n N] [--max-n N] [--budget-s S]\n' +
      '                            [--timeout-s S] [--max-executions N] [--no-corpus] [--out FILE]\n' +
      '                            [--no-targets] [--no-herd] [--auto [--auto-timeout-s S] [-j N]] [--no-families]\n' +
      `families: ${FAMILIES.map((f) => f.name).join(', ')}`,
  );
  process.exit(msg ? 2 : 0);
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    families: null,
    minN: null,
    maxN: 10,
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
  if (e instanceof LimitError) return `limit: ${e.message}`;
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

/** What a child process reports for one family size. */
interface SizeReport {
  m: Measure;
  error?: string;
  limit?: boolean;
  candidates?: number;
  pruned?: number;
  consistent?: number;
  observation?: string;
}

/**
 * Child mode (`--child FAMILY N`): checks one size in this fresh process and
 * prints a SizeReport, so that each size's peak RSS is its own.
 */
function runChild(name: string, n: number, opts: Options): void {
  const f = FAMILIES.find((x) => x.name === name);
  if (!f) usage(`unknown family '${name}'`);
  const text = f.make(n);
  const res = measure(() =>
    checkSource(text, { model: lkmm, maxExecutions: opts.maxExecutions, timeoutMs: opts.timeoutS * 1000 }),
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
      observation: r.observation,
    };
  }
  process.stdout.write(JSON.stringify(rep));
}

function runFamily(f: Family, opts: Options, rows: string[][], notes: string[], summary: string[][]): void {
  const start = Math.max(f.minN, opts.minN ?? f.minN);
  let underOne = '-';
  let reachesTen = `not within N <= ${opts.maxN}`;
  for (let n = start; n <= opts.maxN; n++) {
    const child = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', f.name, String(n), '--timeout-s', String(opts.timeoutS), '--max-executions', String(opts.maxExecutions)],
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
      rows.push([f.name, String(n), fmtMs(m.wallMs), fmtMs(m.cpuMs), '-', '-', '-', '-', '-', fmtMb(m.maxRss), rep.error]);
      console.error(`bench: ${f.name} N=${n}: ${rep.error} after ${fmtMs(m.wallMs)}; stopping family`);
      notes.push(`${f.name}: stopped at N=${n} (${rep.error}).`);
      if (!rep.limit) throw new Error(rep.error);
      if (m.wallMs >= 10_000) reachesTen = `N=${n} (stopped by the limit)`;
      break;
    }
    const cons = rep.consistent!;
    const want = f.expected(n);
    const verdict = rep.observation === want ? rep.observation : `${rep.observation} (expected ${want})`;
    rows.push([
      f.name,
      String(n),
      fmtMs(m.wallMs),
      fmtMs(m.cpuMs),
      fmtInt(rep.candidates!),
      fmtInt(cons),
      fmtInt(rep.pruned!),
      fmtRate(rep.candidates!, m.wallMs),
      fmtRate(cons, m.wallMs),
      fmtMb(m.maxRss),
      verdict,
    ]);
    if (m.maxRss > peakFamilyRss) peakFamilyRss = m.maxRss;
    console.error(
      `bench: ${f.name} N=${n}: ${fmtMs(m.wallMs)} wall, ${fmtInt(rep.candidates!)} candidates, ${fmtInt(cons)} consistent, ${rep.observation}`,
    );
    if (m.wallMs < 1000) underOne = `N=${n}`;
    if (m.wallMs >= 10_000 && reachesTen.startsWith('not')) reachesTen = `N=${n} (${fmtMs(m.wallMs)})`;
    if (m.wallMs > opts.budgetS * 1000) {
      if (n < opts.maxN) notes.push(`${f.name}: stopped after N=${n} (took ${fmtMs(m.wallMs)} > budget ${opts.budgetS} s).`);
      break;
    }
  }
  summary.push([f.name, underOne, reachesTen]);
}

/** The largest peak RSS of any family size (each measured in its own process). */
let peakFamilyRss = 0;

// ---------------------------------------------------------------- main

/** The commit the checker was built from, and whether the tree had local changes. */
function gitDescribe(): string {
  const root = join(here, '..', '..');
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', 'src', 'models').length > 0;
    return `git ${head}${dirty ? ' + uncommitted changes in src/ or models/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function main(): void {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    runChild(argv[1], Number(argv[2]), parseArgs(argv.slice(3)));
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
      '## Targets of issue #9 (one fresh process per figure: the CLI, start-up included)',
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
  const rows: string[][] = [];
  const notes: string[] = [];
  const summary: string[][] = [];
  for (const f of families) runFamily(f, opts, rows, notes, summary);
  if (families.length) {
    out.push(
      '## Scalable families',
      '',
      ...families.map((f) => `- \`${f.name}\`: ${f.description}`),
      '',
      table(
        ['family', 'N', 'wall', 'CPU', 'candidates', 'consistent (P+N)', 'pruned partial', 'cand/s', 'consistent/s', 'peak RSS (own process)', 'verdict'],
        rows,
        [false, true, true, true, true, true, true, true, true, true, false],
      ),
      '',
    );
    if (notes.length) out.push(...notes.map((n) => `- ${n}`), '');
    out.push(
      '### Where each family stands',
      '',
      table(['family', 'largest N under 1 s', 'first N taking 10 s or more'], summary, [false, true, true]),
      '',
    );
    sampleRss();
    out.push(
      `Peak RSS: corpus process ${fmtMb(process.resourceUsage().maxRSS * 1024)}; largest of any family size (each checked in a fresh process, node's own ~45 MB included) ${fmtMb(peakFamilyRss)}.`,
      '',
    );
  }
  out.push(`Load average (1, 5, 15 min) at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}.`, '');
  const md = out.join('\n');
  console.log(md);
  if (opts.out) writeFileSync(opts.out, md);
}

main();
