// The LKMM as a compiled model against the built-in copy (models/lkmm.ts),
// side by side in one process: the kernel's files (read and compiled as
// files, not recognised by their fingerprint), a copy with one comment line
// appended to linux-kernel.cat, a copy with `ctrl` dropped from rwdep (a
// semantic edit: its answers differ where a control dependency orders), and
// the project's own text (models/text/lkmm.cfg), on the kernel corpus, the
// generated families and the NFS suite; herd7 (lkmm-herd) beside the
// family sizes it runs within its limit. CPU of this process per run (the
// models one after the other on each workload, after a warm-up of each),
// and per consistent execution of that model's own run.
//
//   node dist/bench/cat.js [--lkmm DIR] [--budget-s S] [--max-n N] [--families a,b]
//                          [--herd-timeout-s S] [--no-herd] [--no-corpus]
//
// prints the section; catSection is the section itself (its options a
// subset of the bench's), for the runner that writes bench/RESULTS.md.

import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesSpec, getModel } from '../models/index.js';
import { modelTextFiles } from '../models/texts.js';
import type { Model } from '../src/model/model.js';
import { resolveInputs } from '../src/cli/inputs.js';
import { checkSource, type CheckResult } from '../src/check.js';
import { FAMILIES } from './families.js';
import { findHerd, measureProcess } from './targets.js';

/** What the section reads of the bench's options. */
export interface CatOptions {
  /** The kernel's model files (linux-kernel.cfg's folder). */
  lkmm: string;
  /** CPU seconds of one model's run of a size that stop its family. */
  budgetS: number;
  maxN: number;
  /** The families grown (null: rcu, spinlock-counter, iriw, mp-chain). */
  families: string[] | null;
  herd: boolean;
  /** CPU seconds before a herd7 run of a size is stopped (then its family is not run further by herd7). */
  herdTimeoutS: number;
  /** Each check's own limit, wall-clock seconds: far beyond the budget, so that a loaded machine does not stop a size within it. */
  familyTimeoutS?: number;
  /** Leave the kernel corpus out. */
  noCorpus?: boolean;
}

const DEFAULT_FAMILIES = ['rcu', 'spinlock-counter', 'iriw', 'mp-chain'];

/** CPU milliseconds of f in this process. */
function cpu<T>(f: () => T): [T, number] {
  const c0 = process.cpuUsage();
  const r = f();
  const u = process.cpuUsage(c0);
  return [r, (u.user + u.system) / 1000];
}

const summary = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative} ${r.flags.join(',')} ${r.states.length}`;

interface Column {
  name: string;
  spec: string;
  model: Model;
  /** Whether its answers must be the built-in's (the semantic edit's need not). */
  same: boolean;
}

interface Run {
  ms: number;
  consistent: number;
  out: string;
  /** Stopped at the budget (or refused): no figure. */
  stopped?: boolean;
}

interface Row {
  workload: string;
  family?: string;
  runs: Run[];
  herd?: string;
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const perExec = (r: Run) => (r.ms * 1000) / Math.max(1, r.consistent);
const us = (x: number) => `${x >= 100 ? x.toFixed(0) : x.toFixed(1)} µs`;

/** A copy of the kernel's model files in a temporary folder, with one file edited. */
function editedCopy(lkmmDir: string, file: string, edit: (text: string) => string): string {
  const d = mkdtempSync(join(os.tmpdir(), 'litmus-bench-cat-'));
  for (const f of readdirSync(lkmmDir)) if (/\.(cfg|cat|bell|def)$/.test(f)) copyFileSync(join(lkmmDir, f), join(d, f));
  const p = join(d, file);
  const before = readFileSync(p, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`bench/cat: the edit of ${file} does not apply`);
  writeFileSync(p, after);
  return d;
}

/** The kernel's files in a folder as a model of files, compiled (not recognised by their fingerprint). */
const kernelSpec = (dir: string) =>
  filesSpec({
    cat: join(dir, 'linux-kernel.cat'), bell: join(dir, 'linux-kernel.bell'), macros: join(dir, 'linux-kernel.def'),
    variants: ['lkmmv2'], searchDirs: [dir], skipChecks: [], besideIncluder: true, compiled: true,
  });

/** The section's Markdown (no heading): the tables, and what they measure. */
export async function catSection(o: CatOptions): Promise<string> {
  const lkmmDir = resolve(o.lkmm);
  try {
    readFileSync(join(lkmmDir, 'linux-kernel.cat'));
  } catch {
    return `not measured: no linux-kernel.cat in ${o.lkmm} (--lkmm DIR)`;
  }
  const budgetMs = o.budgetS * 1000;
  const timeoutMs = (o.familyTimeoutS ?? 600) * 1000;
  const familyNames = o.families ?? DEFAULT_FAMILIES;
  const commentDir = editedCopy(lkmmDir, 'linux-kernel.cat', (s) => `${s}\n(* One comment line appended. *)\n`);
  const rwdepDir = editedCopy(lkmmDir, 'linux-kernel.cat', (s) => s.replace('let rwdep = (dep | ctrl) ; [W]', 'let rwdep = dep ; [W]'));
  try {
    const columns: Column[] = [
      { name: 'built-in', spec: 'lkmm', same: true },
      { name: "kernel's files", spec: kernelSpec(lkmmDir), same: true },
      { name: 'comment added', spec: kernelSpec(commentDir), same: true },
      { name: 'ctrl out of rwdep', spec: kernelSpec(rwdepDir), same: false },
      { name: 'own text', spec: filesSpec(modelTextFiles('lkmm')), same: true },
    ].map((c) => ({ ...c, model: getModel(c.spec)! }));
    const rows = await measure(o, columns, familyNames, budgetMs, timeoutMs);
    return tables(rows, columns, o, budgetMs);
  } finally {
    for (const d of [commentDir, rwdepDir]) rmSync(d, { recursive: true, force: true });
  }
}

/** The corpus, each family up to the budget (herd7 beside), and the NFS suite, under every column. */
async function measure(o: CatOptions, columns: Column[], familyNames: string[], budgetMs: number, timeoutMs: number): Promise<Row[]> {
  /** One workload under every column but those stopped; a column past the budget (CPU) is stopped. */
  const runAll = (texts: string[], stopped: boolean[] = []): Run[] =>
    columns.map((c, k) => {
      if (stopped[k]) return { ms: 0, consistent: 0, out: '', stopped: true };
      let ms = 0;
      let consistent = 0;
      const outs: string[] = [];
      for (const t of texts) {
        try {
          const [r, t1] = cpu(() => checkSource(t, { model: c.model, timeoutMs }));
          ms += t1;
          consistent += r.positive + r.negative;
          outs.push(summary(r));
        } catch {
          if (texts.length === 1) return { ms: 0, consistent: 0, out: '', stopped: true };
          outs.push('refused');
        }
      }
      return { ms, consistent, out: outs.join('\n') };
    });

  const rows: Row[] = [];
  // Warm-up: every column on a small size of each family (V8 compiles the hot paths once).
  for (const f of FAMILIES.filter((x) => familyNames.includes(x.name))) runAll([f.make(f.minN + 1)]);

  if (!o.noCorpus) {
    const corpus = resolve('../shared/corpus');
    try {
      const files = resolveInputs([join(corpus, 'herd-linux'), join(corpus, 'kernel')]).files;
      rows.push({ workload: `kernel corpus (${files.length} tests)`, runs: runAll(files.map((f) => readFileSync(f, 'utf8'))), herd: 'see the corpus section' });
    } catch {
      // The corpus (../shared/corpus) is absent: no row.
    }
  }

  const herd = o.herd ? findHerd() : undefined;
  const tmp = mkdtempSync(join(os.tmpdir(), 'litmus-bench-cat-herd-'));
  try {
    for (const name of familyNames) {
      const fam = FAMILIES.find((f) => f.name === name);
      if (!fam) throw new Error(`bench/cat: no family ${name}`);
      let herdStopped: string | undefined = herd ? undefined : 'not run';
      const stopped = columns.map(() => false);
      for (let n = fam.minN; n <= o.maxN && !stopped.every((x) => x); n++) {
        const text = fam.make(n);
        const runs = runAll([text], stopped);
        runs.forEach((r, k) => (stopped[k] ||= r.stopped === true || r.ms > budgetMs));
        let herdText = herdStopped ?? '';
        if (herd && !herdStopped) {
          const file = join(tmp, `${name}-${n}.litmus`);
          writeFileSync(file, text);
          const p = measureProcess([...herd.argv, file], o.herdTimeoutS * 20, undefined, o.herdTimeoutS);
          const consistent = runs.find((r) => !r.stopped)?.consistent ?? 0;
          if (p.timedOut) herdText = herdStopped = `past ${o.herdTimeoutS} s`;
          else herdText = `${fmt(p.cpuS * 1000)} (${us((p.cpuS * 1e6) / Math.max(1, consistent))})`;
        }
        rows.push({ workload: `${name} N=${n}`, family: name, runs, herd: herdText });
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  // The NFS suite, each column by its spec (the suite reads its own tests), after one warm-up run; a
  // column whose cells do not all finish within the budget (wall time, per cell) is stopped.
  const { runSuite } = await import('../src/suite/run.js');
  const nfs = resolve('litmus/clear_invalid_mapping/suite.ts');
  const runs: Run[] = [];
  for (const c of columns) {
    const opts = { model: c.spec, explain: false, timeoutMs: budgetMs };
    await runSuite(nfs, opts);
    const c0 = process.cpuUsage();
    const r = await runSuite(nfs, opts);
    const u = process.cpuUsage(c0);
    if (r.cells.some((cell) => cell.error !== undefined)) {
      runs.push({ ms: 0, consistent: 0, out: '', stopped: true });
      continue;
    }
    if (r.status === 2) throw new Error(`bench/cat: the NFS suite under ${c.name}: ${r.errors.join('; ')}`);
    // What each cell found.
    const out = JSON.stringify(r.cells.map((cell) => [cell.version, cell.scenario, cell.error ?? (cell.result && summary(cell.result))]));
    const consistent = r.cells.reduce((a, cell) => a + (cell.result ? cell.result.positive + cell.result.negative : 0), 0);
    runs.push({ ms: (u.user + u.system) / 1000, consistent, out });
  }
  const cells = runs.find((x) => !x.stopped)?.out;
  rows.push({ workload: `NFS suite (clear_invalid_mapping${cells ? `, ${JSON.parse(cells).length} cells` : ''})`, runs, herd: '' });
  return rows;
}

function tables(rows: Row[], columns: Column[], o: CatOptions, budgetMs: number): string {
  const files = 1;
  const comment = 2;
  const rwdep = 3;
  const own = 4;
  const stoppedText = `past ${budgetMs / 1000} s`;
  const text: string[] = [];
  const head = ['workload', 'consistent', ...columns.map((c) => c.name), 'herd7', 'same output'];
  text.push(`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`);
  for (const r of rows) {
    const live = r.runs.filter((x, k) => !x.stopped && columns[k].same);
    const same = live.every((x) => x.out === live[0].out);
    const cells = r.runs.map((x) => (x.stopped ? stoppedText : x.consistent > 0 ? `${fmt(x.ms)} (${us(perExec(x))})` : fmt(x.ms)));
    const first = r.runs.find((x) => !x.stopped);
    const consistent = first && first.consistent > 0 ? String(first.consistent) : '';
    text.push(`| ${r.workload} | ${consistent} | ${cells.join(' | ')} | ${r.herd ?? ''} | ${same ? 'yes' : 'NO'} |`);
  }

  // Per family, the ratios per consistent execution the targets name, at the largest size every model
  // finished; and where a model stopped at a size the built-in finished.
  const targets: string[] = [
    '| workload | at | comment / files | rwdep edit / files | files / built-in | own text / built-in | files per consistent execution | stopped where the built-in finished |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(r.family ?? r.workload, [...(groups.get(r.family ?? r.workload) ?? []), r]);
  const ratio = (a: Run, b: Run) => `${(perExec(a) / Math.max(1e-9, perExec(b))).toFixed(2)}x`;
  for (const [name, rs] of groups) {
    const finished = rs.filter((r) => r.runs.every((x) => !x.stopped));
    const last = finished[finished.length - 1];
    const at = last ? (last.family ? last.workload.slice(last.family.length + 1) : 'all') : '';
    const cells = last
      ? [ratio(last.runs[comment], last.runs[files]), ratio(last.runs[rwdep], last.runs[files]), ratio(last.runs[files], last.runs[0]), ratio(last.runs[own], last.runs[0]), us(perExec(last.runs[files]))]
      : ['', '', '', '', ''];
    const stopped = columns
      .map((c, k) => {
        const r = rs.find((x) => x.runs[k].stopped && !x.runs[0].stopped);
        return r ? `${c.name} (${r.family ? r.workload.slice(r.family.length + 1) : 'stopped'}; built-in ${fmt(r.runs[0].ms)})` : undefined;
      })
      .filter((x) => x !== undefined);
    targets.push(`| ${name} | ${at} | ${cells.join(' | ')} | ${stopped.join(', ')} |`);
  }

  return [
    "One process: each workload under the built-in LKMM (models/lkmm.ts), the kernel's files read and compiled",
    `(${o.lkmm}; as an edited copy would be: not recognised by their fingerprint), a copy with one comment line`,
    'appended to linux-kernel.cat, a copy with `ctrl` dropped from rwdep (its answers may differ: "same output"',
    "leaves it out), and litmus's own text of the LKMM (models/text/lkmm.cfg); CPU of the process per run, and",
    "per consistent execution of that model's run (the models one after the other on each workload, after a",
    `warm-up of each). herd7: \`lkmm-herd\` (user + system of its process) beside the family sizes it finishes`,
    `within ${o.herdTimeoutS} s of CPU. A model stops in a family at the first size it takes over ${budgetMs / 1000} s of CPU.`,
    '',
    ...text,
    '',
    'Per family, the ratios per consistent execution at the largest size every model finished (the sizes',
    'below are dominated by what is done once per event structure), and where a model passed the budget at a',
    'size the built-in finished. The targets: comment and semantic edits within 1.25x of the files, the files',
    'no slower than the built-in; the goal, 20 µs per consistent execution.',
    '',
    ...targets,
  ].join('\n');
}

/** The command line (see the header). */
async function main(args: string[]): Promise<void> {
  const opt = (name: string, dflt: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const load = () => os.loadavg().map((x) => x.toFixed(1)).join(', ');
  const loadAtStart = load();
  const body = await catSection({
    lkmm: opt('--lkmm', '../shared/lkmm'),
    budgetS: Number(opt('--budget-s', '10')),
    maxN: Number(opt('--max-n', '12')),
    families: args.includes('--families') ? opt('--families', '').split(',') : null,
    herd: !args.includes('--no-herd'),
    herdTimeoutS: Number(opt('--herd-timeout-s', '10')),
    noCorpus: args.includes('--no-corpus'),
  });
  console.log(`_${new Date().toISOString().slice(0, 16)} UTC, load average ${loadAtStart} at the start, ${load()} at the end._\n\n${body}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
