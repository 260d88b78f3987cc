// The performance targets ("Fast where herd7 gives up"), each measured in a
// fresh process: `litmus` as a user runs it (the CLI, start-up included), and
// herd7 on the same files in the same run where it is installed. Whole-process
// wall time, CPU (user + system) and peak RSS come from the child's rusage
// (GNU time's -f %e %U %S %M), or, without /usr/bin/time, from bash's `times`
// (CPU only). A figure is judged on the CPU time (user + system) of the whole
// process, which does not depend on how busy the machine is; wall time is
// shown beside it.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILIES } from './families.js';
import { corpusDir } from '../scripts/corpus.js';
import { table, type BenchOptions } from './options.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The `litmus` command of this build (dist/src/cli/start.cjs: the bundle with its code cache). */
const LITMUS = join(here, '..', 'src', 'cli', 'start.cjs');

export interface TargetOptions {
  /** Seconds before a run (ours or herd7's) is stopped. */
  timeoutS: number;
  /** Whether to look for herd7 at all. */
  herd: boolean;
  /** Also check every auto/ test of the paulmckrcu collection with --speedcheck (slow). */
  auto: boolean;
  /** Seconds per auto/ test. */
  autoTimeoutS: number;
  jobs: number;
  corpus: string | undefined;
}

/** One child process's whole-process figures. */
export interface ProcessFigures {
  wallS: number;
  cpuS: number;
  /** Peak RSS in bytes (undefined where it could not be measured). */
  maxRss?: number;
  /** Killed at the time limit. */
  timedOut: boolean;
  status: number | null;
  stdout: string;
  stderr: string;
}

const TIME = '/usr/bin/time';

/**
 * Runs argv[0] with the rest as arguments under `timeout`, measuring the
 * whole process; with `cpuLimitS`, also stopped once it has used that much
 * CPU (ulimit -t: on a loaded machine a wall-clock limit says little about
 * what a run needs), which counts as timed out.
 */
export function measureProcess(argv: string[], timeoutS: number, cwd?: string, cpuLimitS?: number): ProcessFigures {
  const dir = mkdtempSync(join(os.tmpdir(), 'litmus-bench-'));
  const out = join(dir, 'rusage');
  const cpuLimited = cpuLimitS === undefined ? argv : ['bash', '-c', 'ulimit -t "$0" && exec "$@"', String(Math.ceil(cpuLimitS)), ...argv];
  const limited = ['timeout', String(timeoutS), ...cpuLimited];
  try {
    const w0 = performance.now();
    const useTime = existsSync(TIME);
    const cmd = useTime
      ? spawnSync(TIME, ['-f', '%e %U %S %M', '-o', out, ...limited], { encoding: 'utf8', maxBuffer: 1 << 28, cwd })
      : spawnSync('bash', ['-c', '"$@"; s=$?; times > "$0"; exit $s', out, ...limited], { encoding: 'utf8', maxBuffer: 1 << 28, cwd });
    const wallS = (performance.now() - w0) / 1000;
    const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
    // GNU time writes "Command exited with non-zero status N" before its line.
    const fields = text.trim().split('\n').pop()?.split(/\s+/) ?? [];
    let cpuS: number;
    let maxRss: number | undefined;
    if (useTime) {
      cpuS = Number(fields[1]) + Number(fields[2]);
      maxRss = Number(fields[3]) * 1024;
    } else {
      // `times`: the shell's own line, then its children's "0m1.234s 0m0.100s".
      const secs = (s: string) => {
        const m = /(\d+)m([\d.]+)s/.exec(s);
        return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
      };
      cpuS = secs(fields[0] ?? '') + secs(fields[1] ?? '');
    }
    // 124: timeout's; 128 + SIGXCPU (24) or SIGKILL (9): the CPU limit's.
    const timedOut = cmd.status === 124 || (cpuLimitS !== undefined && (cmd.status === 152 || cmd.status === 137 || cpuS >= cpuLimitS));
    return { wallS, cpuS, maxRss, timedOut, status: cmd.status, stdout: cmd.stdout ?? '', stderr: cmd.stderr ?? '' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** herd7 with the kernel's model, as installed here: argv prefix, or undefined. */
export function findHerd(): { argv: string[]; where: string } | undefined {
  const env = process.env.LITMUS_BENCH_HERD;
  if (env) return { argv: env.split(/\s+/).filter(Boolean), where: `$LITMUS_BENCH_HERD (${env})` };
  const wrapper = join(os.homedir(), 'herd', 'bin', 'lkmm-herd');
  if (existsSync(wrapper)) return { argv: [wrapper], where: wrapper };
  const onPath = spawnSync('bash', ['-c', 'command -v herd7'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return { argv: [onPath, '-conf', 'linux-kernel.cfg'], where: `${onPath} -conf linux-kernel.cfg` };
  return undefined;
}

/** One row of the targets table. */
export interface TargetRow {
  figure: string;
  target: string;
  value: string;
  met: 'met' | 'not met' | '-';
  rss: string;
  herd: string;
  note?: string;
  /** Peak RSS of our process, for the RSS row. */
  maxRss?: number;
}

const secs = (s: number): string => (s >= 100 ? `${s.toFixed(0)} s` : `${s.toFixed(2)} s`);
const mb = (b: number | undefined): string => (b === undefined ? 'n/a' : `${(b / (1024 * 1024)).toFixed(0)} MB`);

/**
 * A run stopped at timeoutS of CPU (ulimit -t), with a wall-clock limit far
 * beyond it only as a backstop: on a loaded machine a wall-clock limit
 * stops a run before it has had its share of the CPU.
 */
function limited(argv: string[], opts: TargetOptions): ProcessFigures {
  return measureProcess(argv, opts.timeoutS * 20, undefined, opts.timeoutS);
}

function ours(args: string[], opts: TargetOptions): ProcessFigures {
  return limited([process.execPath, LITMUS, ...args], opts);
}

/** "CPU 1.23 s (wall 1.30 s)", or "> T s CPU" when stopped at the limit. */
function cpuText(p: ProcessFigures, timeoutS: number): string {
  return p.timedOut ? `> ${timeoutS} s CPU (stopped; wall ${secs(p.wallS)})` : `CPU ${secs(p.cpuS)} (wall ${secs(p.wallS)})`;
}

function herdText(h: ProcessFigures | undefined, why: string, timeoutS: number): string {
  if (!h) return why;
  if (h.status !== 0 && !h.timedOut) return `failed (exit ${h.status})`;
  return `${cpuText(h, timeoutS)}, RSS ${mb(h.maxRss)}`;
}

/** The observation litmus printed in herd7's block for one test (its Observation line). */
function observationOf(p: ProcessFigures): string | undefined {
  return /^Observation \S+ (Always|Sometimes|Never) /m.exec(p.stdout)?.[1];
}

/** A generated family at size n, timed against a limit in seconds (wall). */
function familyRow(
  name: string,
  n: number,
  limitS: number,
  opts: TargetOptions,
  herd: { argv: string[] } | undefined,
  herdWhy: string,
  tmp: string,
): TargetRow {
  const f = FAMILIES.find((x) => x.name === name)!;
  const file = join(tmp, `${name}-${n}.litmus`);
  writeFileSync(file, f.make(n));
  // The output a user reads (herd7's block, every state, as herd7 prints it).
  const p = ours(['check', '-j', '1', file], opts);
  const h = herd ? limited([...herd.argv, file], opts) : undefined;
  const seen = observationOf(p);
  const want = f.expected(n);
  const row: TargetRow = {
    figure: `${name} N=${n}, exhaustive`,
    target: `< ${limitS} s`,
    value: cpuText(p, opts.timeoutS),
    met: !p.timedOut && p.status !== 2 && p.cpuS < limitS ? 'met' : 'not met',
    rss: mb(p.maxRss),
    herd: herdText(h, herdWhy, opts.timeoutS),
    maxRss: p.maxRss,
  };
  if (!p.timedOut && seen !== want) row.note = `${name} N=${n}: verdict ${seen ?? `none (exit ${p.status}: ${p.stderr.trim().split('\n')[0]})`}, expected ${want}`;
  return row;
}

/** Every target figure, one fresh process each. */
export function runTargets(opts: TargetOptions, log: (s: string) => void): { rows: TargetRow[]; notes: string[] } {
  const rows: TargetRow[] = [];
  const notes: string[] = [];
  const herd = opts.herd ? findHerd() : undefined;
  const herdWhy = opts.herd ? 'skipped: herd7 not installed' : 'skipped (--no-herd)';
  notes.push(herd ? `herd7: ${herd.where}, stopped after ${opts.timeoutS} s of CPU per run (ulimit -t), as litmus is.` : `herd7: ${herdWhy} (~/herd/bin/lkmm-herd, herd7 on PATH, or $LITMUS_BENCH_HERD).`);
  if (!existsSync(TIME)) notes.push('No /usr/bin/time: CPU from bash `times`, peak RSS not measured.');
  const tmp = mkdtempSync(join(os.tmpdir(), 'litmus-targets-'));
  try {
    // 1. The kernel corpus, one process.
    if (!opts.corpus) {
      rows.push({ figure: 'kernel corpus CPU', target: '<= herd7/5 and <= 0.36 s', value: 'skipped: no ../shared/corpus', met: '-', rss: '-', herd: '-' });
    } else {
      const dirs = [join(opts.corpus, 'kernel'), join(opts.corpus, 'herd-linux')];
      log('bench: targets: kernel corpus (litmus check -j 1)');
      const p = ours(['check', '-j', '1', '-q', ...dirs], opts);
      const files = spawnSync('find', [...dirs, '-name', '*.litmus'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).sort();
      log(`bench: targets: kernel corpus (herd7, ${files.length} files)`);
      const h = herd ? limited([...herd.argv, ...files], opts) : undefined;
      const herdCpu = h && !h.timedOut && h.status === 0 ? h.cpuS : undefined;
      const value = cpuText(p, opts.timeoutS);
      const ok = !p.timedOut && p.status !== 2;
      rows.push({
        figure: `kernel corpus, ${files.length} files, one process: CPU vs herd7's`,
        target: '<= herd7 CPU / 5',
        value: herdCpu === undefined ? value : `${value}: herd7's / ${(herdCpu / p.cpuS).toFixed(2)}`,
        met: herdCpu === undefined ? '-' : ok && p.cpuS <= herdCpu / 5 ? 'met' : 'not met',
        rss: mb(p.maxRss),
        herd: herdText(h, herdWhy, opts.timeoutS),
        maxRss: p.maxRss,
      });
      rows.push({ figure: 'kernel corpus CPU, absolute', target: '<= 0.36 s', value, met: ok && p.cpuS <= 0.36 ? 'met' : 'not met', rss: mb(p.maxRss), herd: '-' });
      if (p.status === 2) notes.push(`kernel corpus: litmus exited 2: ${p.stderr.trim().split('\n')[0]}`);
    }
    // 2-3. Generated families.
    const fams: [string, number, number][] = [
      ['rcu-gp-chain', 7, 1],
      ['rcu-gp-chain', 8, 3],
      ['spinlock-counter', 8, 1],
      ['spinlock-counter', 9, 10],
      ['spinlock-handoff', 8, 1],
      ['spinlock-handoff', 9, 10],
    ];
    for (const [name, n, limit] of fams) {
      log(`bench: targets: ${name} N=${n}`);
      const row = familyRow(name, n, limit, opts, herd, herdWhy, tmp);
      if (row.note) notes.push(row.note);
      rows.push(row);
    }
    // 4. The NFS suite (TypeScript: herd7 has no equivalent).
    log('bench: targets: clear_invalid_mapping');
    const nfs = ours(['check', '-q', 'clear_invalid_mapping'], opts);
    rows.push({
      figure: 'NFS suite (`litmus check clear_invalid_mapping`, default -j)',
      target: '< 2 s',
      value: cpuText(nfs, opts.timeoutS),
      met: !nfs.timedOut && nfs.status !== 2 && nfs.cpuS < 2 ? 'met' : 'not met',
      rss: mb(nfs.maxRss),
      herd: 'n/a (a TypeScript suite)',
      maxRss: nfs.maxRss,
    });
    // 5. auto/ with --speedcheck.
    const auto = opts.corpus ? join(opts.corpus, 'paulmckrcu-litmus', 'auto') : undefined;
    if (!opts.auto) {
      rows.push({ figure: 'auto/ tests decided with --speedcheck', target: `each < ${opts.autoTimeoutS} s`, value: 'not run (bench --auto)', met: '-', rss: '-', herd: '-' });
    } else if (!auto || !existsSync(auto)) {
      rows.push({ figure: 'auto/ tests decided with --speedcheck', target: `each < ${opts.autoTimeoutS} s`, value: 'skipped: no paulmckrcu-litmus/auto', met: '-', rss: '-', herd: '-' });
    } else rows.push(autoRow(auto, opts, log, notes));
    // 6. Peak RSS over all of ours.
    const measured = rows.filter((r) => r.maxRss !== undefined);
    const peak = Math.max(0, ...measured.map((r) => r.maxRss!));
    rows.push({
      figure: `peak RSS, largest of the ${measured.length} runs above`,
      target: '< 200 MB',
      value: measured.length ? mb(peak) : 'n/a',
      met: measured.length ? (peak < 200 * 1024 * 1024 ? 'met' : 'not met') : '-',
      rss: measured.length ? mb(peak) : 'n/a',
      herd: '-',
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return { rows, notes };
}

/** Every auto/ test with --speedcheck, one process on `jobs` worker threads, each test stopped at its limit. */
function autoRow(auto: string, opts: TargetOptions, log: (s: string) => void, notes: string[]): TargetRow {
  log(`bench: targets: auto/ with --speedcheck (${opts.autoTimeoutS} s per test, -j ${opts.jobs}; this takes a while)`);
  const p = measureProcess(
    [process.execPath, LITMUS, 'check', '--speedcheck', '--json', '-j', String(opts.jobs), '--timeout', String(opts.autoTimeoutS * 1000), auto],
    24 * 3600,
  );
  let total = 0;
  let decided = 0;
  let slowest = 0;
  const undecided: string[] = [];
  try {
    type Entry = { file: string; status: string; stats?: { ms: number }; errors?: { message: string }[] };
    const results = (JSON.parse(p.stdout) as { results?: Entry[] }).results ?? [];
    total = results.length;
    for (const r of results) {
      if (r.status === 'error' || !r.stats) {
        undecided.push(`${r.file.split('/').pop()}: ${r.errors?.[0]?.message ?? 'error'}`);
        continue;
      }
      if (r.stats.ms < opts.autoTimeoutS * 1000) decided++;
      slowest = Math.max(slowest, r.stats.ms);
    }
  } catch {
    notes.push(`auto/: no JSON from litmus (exit ${p.status}): ${p.stderr.trim().split('\n')[0]}`);
  }
  if (undecided.length) {
    const reasons = new Map<string, number>();
    for (const u of undecided) {
      const why = u.replace(/^[^:]*: /, '').replace(/\d+/g, 'N');
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    notes.push(`auto/ not decided (${undecided.length}): ${[...reasons].map(([w, n]) => `${n} × ${w}`).join('; ')}`);
  }
  return {
    figure: `auto/ tests decided with --speedcheck (one process, -j ${opts.jobs}; ${secs(p.wallS)} wall in all)`,
    target: `all, each < ${opts.autoTimeoutS} s`,
    value: `${decided}/${total} (slowest decided ${secs(slowest / 1000)})`,
    met: total > 0 && decided === total ? 'met' : 'not met',
    rss: mb(p.maxRss),
    herd: 'not run (2,769 tests × up to a minute each)',
    maxRss: p.maxRss,
  };
}

/** The targets section's Markdown: one row per figure, herd7's beside it. */
export function targetsSection(o: BenchOptions): string {
  const { rows, notes } = runTargets(
    { timeoutS: o.timeoutS, herd: o.herd, auto: o.auto, autoTimeoutS: o.autoTimeoutS, jobs: o.jobs, corpus: corpusDir() },
    (s) => console.error(s),
  );
  return [
    table(
      ['figure', 'target', 'litmus', 'met', 'peak RSS', 'herd7 (same files, same run)'],
      rows.map((r) => [r.figure, r.target, r.value, r.met, r.rss, r.herd]),
      [false, false, true, false, true, true],
    ),
    '',
    ...notes.map((n) => `- ${n}`),
  ].join('\n');
}
