// What `litmus check` and `litmus merge` do, once the arguments are parsed.

import { existsSync, realpathSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { exportLitmus, exportTest } from '../export/export.js';
import { asLimit, LitmusError } from '../parse/errors.js';
import type { PrimitiveTable } from '../events/primitives.js';
import { loadMacros, MacroFileError } from '../events/def.js';
import { resolveInputs, shard } from './inputs.js';
import { failedReport, livenessJson, primitivesFor, runOne, toJson, type FileReport, type JsonError, type JsonResult, type RunOptions } from './run-one.js';
import { suiteConfig, suiteTable, suiteVerdict, underReviewReaches, type SuiteRow } from '../report/suite.js';
import { runAdaptive, runPool, signalSeen } from './pool.js';
import { Interruption } from './interrupt.js';
import { jsonFailure } from './json-failure.js';
import { getModel } from '../../models/index.js';
import { LIMITS, readInputFile } from '../limits.js';
import { outputFolder, writeFileAtomic, WriteError } from '../write-file.cjs';
import { say } from './say.js';

interface CheckFlags {
  model: string;
  json?: boolean;
  trace?: boolean;
  dot?: string;
  svg?: string;
  unroll: number;
  maxExecutions: number;
  timeout: number;
  jobs?: number;
  shard?: string;
  quiet?: boolean;
  herdCompatible?: boolean;
  herd?: boolean;
  speedcheck?: boolean;
  /** Read waiting loops as herd7 does (unrolled), with no liveness verdict. */
  unrollWaits?: boolean;
  /** Exit 1 when a suite's version under review reaches its bad outcome (for CI). */
  failOnBadOutcome?: boolean;
}

export async function runCheck(inputs: string[], o: CheckFlags): Promise<number> {
  const { files: allFiles, folders, missing, empty, suites: allSuites, unreadable, order } = resolveInputs(inputs);
  // Inputs that name nothing to check are bad input: a run that checks zero tests must not pass.
  const inputErrors: FileReport[] = [
    ...missing.map((m) => failedReport(m, 'no such file, folder or bundled test')),
    ...empty.map((d) => failedReport(d, 'no .litmus tests in this folder')),
    ...unreadable.map((u) => failedReport(u.path, u.message)),
  ];
  let status = inputErrors.length ? 2 : 0;
  for (const r of inputErrors) say(r.error!);
  for (const [flag, dir] of [['--dot', o.dot], ['--svg', o.svg]]) {
    if (dir === undefined) continue;
    try {
      outputFolder(dir);
    } catch (e) {
      return runFailure(o, `litmus: cannot create the ${flag} folder ${dir}: ${whyFolder(e, dir)}`, [{ file: dir, message: `cannot create the ${flag} folder: ${whyFolder(e, dir)}` }]);
    }
  }
  // A .def that cannot be used stops the run: every test would be checked with primitives it did not define.
  const macros = primitivesFor(o, getModel(o.model));
  if (macros.error) {
    const all = [macros.error, ...(macros.error.others ?? [])];
    return runFailure(o, macros.error.format(), all.map((x) => ({ file: x.file, line: x.pos.line, col: x.pos.col, message: x.message })));
  }
  let files = allFiles;
  let tsSuites = allSuites;
  /** `--shard K/N` as --json records it, for merge to find a shard missing or given twice. */
  let shardJson: { shard?: string } = {};
  if (o.shard !== undefined) {
    // .litmus files and TypeScript suites are shared out together.
    let mine: Set<string>;
    try {
      mine = new Set(shard([...allFiles, ...allSuites], o.shard));
    } catch (e) {
      return runFailure(o, `litmus: ${(e as Error).message}`, [{ file: '', message: (e as Error).message }]);
    }
    files = allFiles.filter((f) => mine.has(f));
    tsSuites = allSuites.filter((f) => mine.has(f));
    shardJson = { shard: o.shard.split('/').map(Number).join('/') };
    // A matrix may have more shards than inputs: a shard that gets none checks nothing and passes; the inputs as a whole must name tests.
    const total = allFiles.length + allSuites.length;
    if (mine.size === 0 && total > 0) say(`litmus: shard ${o.shard} holds none of the ${total} inputs: nothing to check`);
  }
  const opts: RunOptions = {
    model: o.model, unroll: o.unroll, maxExecutions: o.maxExecutions, timeoutMs: o.timeout, trace: o.trace, dot: o.dot, svg: o.svg,
    herdCompatible: o.herdCompatible, speedcheck: o.speedcheck, waits: o.unrollWaits ? 'unrolled' : undefined,
    print: { herd: !o.quiet && !o.json, json: o.json ?? false },
  };
  // A signal stops the run: what is done is printed, with a line (or "interrupted": true) saying so.
  const stop = new Interruption();
  let reports: FileReport[];
  let interrupted: string | undefined;
  const notChecked: string[] = [];
  try {
    const got = await checkFiles(files, opts, o.jobs, stop);
    reports = got.filter((r): r is FileReport => r !== undefined);
    notChecked.push(...files.filter((_, i) => got[i] === undefined));
    if (stop.received) interrupted = stop.line(reports.length, files.length + tsSuites.length);
  } finally {
    if (!stop.received) stop.stop();
  }

  for (const r of reports) {
    for (const w of r.herdWarnings ?? []) say(w);
    if (r.status === 2) {
      say(r.error!);
      status = 2;
      continue;
    }
    if (r.status === 1 && status === 0) status = 1;
    if (o.json) continue;
    if (!o.quiet) console.log(r.herd);
    console.log(r.human);
    if (r.trace) console.log(r.trace);
    if (r.dot) console.log(`picture: ${r.dot} (render with: dot -Tsvg ${r.dot} -o ${r.dot.replace(/\.dot$/, '.svg')})`);
    if (r.svg) console.log(`picture: ${r.svg}`);
    if (!o.quiet) console.log('');
  }
  // TypeScript suites and tests (the TypeScript reader is loaded only for them).
  const tsEntries: JsonEntry[] = [];
  const tsSuitesJson: SuiteJson[] = [];
  if (o.speedcheck && tsSuites.length) say('litmus: --speedcheck applies to .litmus tests; a TypeScript suite decides its grid as always (traced cells, --herd and --json count every execution)');
  let suitesDone = 0;
  for (const s of tsSuites) {
    if (interrupted !== undefined || (await signalSeen(stop.signal))) break;
    const st = await checkSuite(s, o, tsEntries, tsSuitesJson, macros.primitives);
    if (st > status) status = st;
    suitesDone++;
  }
  notChecked.push(...tsSuites.slice(suitesDone));
  if (stop.received && interrupted === undefined) interrupted = stop.line(reports.length + suitesDone, files.length + tsSuites.length);
  stop.stop();
  if (interrupted !== undefined) {
    // What is done, without the suite tables (a table of part of a suite would read as the whole).
    say(interrupted);
    if (o.json) {
      const entries = inInputOrder([...[...inputErrors, ...reports].map(jsonEntry), ...tsEntries], order);
      console.log(JSON.stringify({ ...jsonReport(stop.exitCode, entries), ...shardJson, interrupted: true, signal: stop.received, notChecked }, null, 2));
    }
    return stop.exitCode;
  }
  const suites = folders.map((folder) => suiteOf(folder, reports)).filter((x) => x !== undefined);
  if (o.failOnBadOutcome && status < 1 && suites.some((x) => x.reaches)) status = 1;
  if (o.json) {
    const suitesJson: SuiteJson[] = [
      ...suites.map(({ folder, title, rows, verdict, reaches }) => ({ folder, title, rows, verdict: verdict ?? null, underReviewReaches: reaches })),
      ...tsSuitesJson,
    ];
    const entries = inInputOrder([...[...inputErrors, ...reports].map(jsonEntry), ...tsEntries], order);
    console.log(JSON.stringify({ ...jsonReport(status, entries, suitesJson), ...shardJson }, null, 2));
    return status;
  }
  // A suite table for each folder whose tests carry Version:/Scenario: headers.
  for (const { title, table, rows, verdict } of suites) {
    console.log(`\n${title}`);
    console.log(table);
    // The failing rows, explained.
    const failing = reports.filter((r) => r.meta && r.json && r.json.observation !== 'Never' && !r.trace);
    if (failing.length && !o.quiet && rows.length) {
      const { traceFile } = await import('./trace-file.js');
      for (const r of failing.slice(0, 50)) {
        console.log(`\n${basename(r.file, '.litmus')}: how the outcome happens`);
        console.log(await traceFile(r.file, opts));
      }
      // The verdict again, last, after the explanations.
      if (verdict) console.log(`\n${verdict}`);
    }
  }
  return status;
}

/** The Version/Scenario table of a folder's tests, and the verdict on the version under review. */
function suiteOf(folder: string, reports: FileReport[]) {
  const abs = resolve(folder);
  const rows: SuiteRow[] = reports
    .filter((r) => r.meta && r.json && resolve(dirname(r.file)).startsWith(abs))
    .map((r) => ({
      test: basename(r.file, '.litmus'),
      version: r.meta!.version ?? '',
      scenario: r.meta!.scenario ?? '',
      verdict: r.json!.observation,
      expected: r.json!.expected ?? '',
      matches: r.json!.matches,
      hang: r.json!.liveness?.verdict === 'hang' ? r.json!.liveness.text : undefined,
    }));
  if (rows.length === 0) return undefined;
  const cfg = suiteConfig(abs);
  return { folder, title: cfg.title ?? basename(abs), rows, table: suiteTable(rows, cfg), verdict: suiteVerdict(rows, cfg), reaches: underReviewReaches(rows, cfg) };
}

/**
 * A suite in --json: its rows (one per test or cell: version, scenario,
 * verdict), the closing verdict line, and whether the version under
 * review reaches the bad outcome; a TypeScript suite's also its grid's
 * versions and scenarios, and the explained traces of the version under
 * review's failing cells.
 */
interface SuiteJson {
  folder: string;
  title: string;
  rows: SuiteRow[];
  verdict: string | null;
  underReviewReaches: boolean;
  underReview?: string;
  versions?: string[];
  scenarios?: { name: string; says: string }[];
  traces?: { scenario: string; version: string; trace: string; fixes?: unknown }[];
}

/** One JSON entry per input: its result (status ok or mismatch), or its errors. */
type JsonEntry = (JsonResult & { status: 'ok' | 'mismatch' }) | { file: string; status: 'error'; errors: JsonError[] };

function jsonEntry(r: FileReport): JsonEntry {
  if (r.status === 2 || !r.json) return { file: r.file, status: 'error', errors: r.errors ?? [{ file: r.file, message: r.error ?? 'error' }] };
  return { ...r.json, status: r.status === 1 ? 'mismatch' : 'ok' };
}

/** Entries in the order their inputs were named (a stable sort: a suite's cells keep theirs). */
function inInputOrder(entries: JsonEntry[], order: string[]): JsonEntry[] {
  const at = new Map<string, number>();
  order.forEach((f, i) => {
    if (!at.has(f)) at.set(f, i);
  });
  const rank = (e: JsonEntry) => at.get(e.file) ?? order.length;
  return entries.map((e, i) => ({ e, i })).sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i).map(({ e }) => e);
}

/**
 * A run that stops before checking anything (a folder it cannot make, a
 * .def it cannot use, a bad --shard): the line on stderr, and with --json a
 * whole document on stdout saying so. Exit 2.
 */
function runFailure(o: { json?: boolean }, text: string, errors: JsonError[]): number {
  say(text);
  if (o.json) console.log(jsonFailure('check', errors));
  return 2;
}


/** What --json prints (and merge): the exit status, counts, every input, and the suites' verdicts. */
function jsonReport(status: number, results: JsonEntry[], suites?: unknown[]) {
  const count = (s: JsonEntry['status']) => results.filter((r) => r.status === s).length;
  const summary = { inputs: results.length, ok: count('ok'), mismatches: count('mismatch'), errors: count('error') };
  return suites ? { status, summary, results, suites } : { status, summary, results };
}

/** `litmus export`: each input written herd7-readable into `out` (a folder's files keep their place below it). */
export async function runExport(inputs: string[], out: string, macros?: string): Promise<number> {
  const { files, folders, missing, suites, unreadable } = resolveInputs(inputs);
  // --macros: the primitives as that .def defines them (the exported files are for herd7 -macros with the same file).
  let primitives: PrimitiveTable | undefined;
  if (macros !== undefined) {
    if (!existsSync(macros) || statSync(macros).isDirectory()) {
      say(`litmus: --macros ${macros}: no such file`);
      return 2;
    }
    try {
      primitives = loadMacros(resolve(macros));
    } catch (e) {
      if (!(e instanceof MacroFileError)) throw e;
      say(e.format());
      return 2;
    }
  }
  let status = 0;
  for (const m of missing) {
    say(`${m}: no such file, folder or bundled test`);
    status = 2;
  }
  for (const u of unreadable) {
    say(`${u.path}: ${u.message}`);
    status = 2;
  }
  try {
    outputFolder(out);
  } catch (e) {
    say(`litmus: cannot create the --out folder ${out}: ${whyFolder(e, out)}`);
    return 2;
  }
  const roots = folders.map((d) => resolve(d));
  const targets = new OutputPaths([...files, ...suites]);
  let written = 0;
  for (const file of files) {
    const root = roots.find((d) => resolve(file).startsWith(d + sep));
    const target = join(out, root ? relative(root, resolve(file)) : basename(file));
    const r = targets.claim(target, file) ?? exportFile(file, target, out, primitives);
    if (r) {
      say(r);
      status = 2;
    } else written++;
  }
  let total = files.length;
  for (const s of suites) {
    const r = await exportSuite(s, out, targets, primitives);
    for (const e of r.errors) say(e);
    if (r.errors.length) status = 2;
    written += r.written;
    total += r.total;
  }
  console.log(`exported ${written} of ${total} test${total === 1 ? '' : 's'} to ${out}`);
  return status;
}

/**
 * A TypeScript suite's tests as herd7-readable files, one per version and
 * scenario, each with a header naming both and the checker's verdict as its
 * Result: line (so that herd7's answers can be compared, e.g. by judgelitmus.sh).
 */
async function exportSuite(file: string, out: string, targets: OutputPaths, primitives: PrimitiveTable | undefined): Promise<{ written: number; total: number; errors: string[] }> {
  const { runSuite } = await import('../suite/run.js');
  const run = await runSuite(file, { model: 'lkmm', explain: false, keepTests: true, primitives });
  const errors = [...run.errors];
  let written = 0;
  const tests = run.suite?.tests ?? [];
  for (const t of tests) {
    const r = run.results.get(t.test.name);
    const header = [
      '(*',
      ...(r ? [` * Result: ${r.observation}`, ' *'] : []),
      ` * Version: ${t.version}`,
      ` * Scenario: ${t.scenario}${t.variant ? ` (${t.variant})` : ''}: ${t.says}`,
      ` *`,
      ` * Exported by litmus from ${relative(process.cwd(), file) || file}; the exists clause is the bad outcome.`,
      ' *)',
    ].join('\n');
    const target = join(out, `${t.test.name}.litmus`);
    const clash = targets.claim(target, `${file}#${t.test.name}`);
    if (clash) {
      errors.push(clash);
      continue;
    }
    try {
      writeFileAtomic(target, exportTest({ ...t.test, result: undefined }, header, primitives));
      written++;
    } catch (e) {
      errors.push(e instanceof LitmusError ? e.format(t.files.get(e.pos) ?? file) : `${file}: ${t.test.name}: ${(e as Error).message}`);
    }
  }
  return { written, total: tests.length, errors };
}

/**
 * The files an export writes: never one of its inputs (an --out folder that
 * holds them would overwrite their comments), never one path twice (two
 * inputs of the same name named one by one): such an input is refused
 * with a message, the others are written.
 */
class OutputPaths {
  private readonly inputs = new Map<string, string>();
  private readonly claimed = new Map<string, string>();

  constructor(inputs: string[]) {
    for (const f of inputs) this.inputs.set(realPath(f), f);
  }

  /** Why `from` cannot be written to `target`, or undefined (the path is then taken). */
  claim(target: string, from: string): string | undefined {
    const path = realPath(target);
    const input = this.inputs.get(path);
    if (input !== undefined) return `${from}: not exported: ${target} is an input of this run (${input}); choose another --out folder`;
    const other = this.claimed.get(path);
    if (other !== undefined) return `${from}: not exported: ${target} is already the export of ${other} (the same name); export them into separate --out folders`;
    this.claimed.set(path, from);
    return undefined;
  }
}

/** The path with symbolic links resolved, as far as it exists. */
function realPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent), basename(abs));
  }
}

/** Exports one file to `target` under the --out folder `out` (no folder below it entered through a link; written whole or not at all). */
function exportFile(file: string, target: string, out: string, primitives: PrimitiveTable | undefined): string | undefined {
  try {
    const text = exportLitmus(readInputFile(file), primitives);
    outputFolder(dirname(target), out);
    writeFileAtomic(target, text);
    return undefined;
  } catch (e) {
    if (e instanceof LitmusError) return e.format(file);
    const limit = asLimit(e);
    if (limit) return `${file}${limit.pos ? `:${limit.pos.line}:${limit.pos.col}` : ''}: ${limit.message}`;
    return `${file}: ${(e as Error).message}`;
  }
}

/** A TypeScript suite or test (loads the TypeScript reader only now). */
async function checkSuite(file: string, o: CheckFlags, jsonOut: JsonEntry[], suitesOut: SuiteJson[], primitives: PrimitiveTable | undefined): Promise<number> {
  const { runSuite } = await import('../suite/run.js');
  const run = await runSuite(file, {
    model: o.model, unroll: o.unroll, maxExecutions: o.maxExecutions, timeoutMs: o.timeout,
    herd: o.herd, explain: !o.quiet && (!o.json || o.trace === true), quiet: o.quiet, trace: o.trace,
    // The grid and the verdict line show verdicts only; herd7's blocks and --json show counts.
    verdictsOnly: !o.herd && !o.json,
    primitives,
  });
  for (const e of run.errors) say(e);
  if (o.json) {
    for (const c of run.cells) {
      if (c.result) jsonOut.push({ ...toJson(file, c.result, { version: c.version, scenario: c.scenario }), status: c.result.matches === false ? 'mismatch' : 'ok' });
    }
    if (run.errors.length) jsonOut.push({ file, status: 'error', errors: run.errors.map((message) => ({ file, message })) });
    const s = run.suite;
    if (s && !s.single) {
      suitesOut.push({
        folder: dirname(file), title: s.title, underReview: s.underReview, versions: s.versions,
        scenarios: s.scenarios.map((x) => ({ name: x.name, says: x.says })),
        rows: run.cells.filter((c) => c.result).map((c) => ({
          test: c.result!.name, version: c.version, scenario: c.scenario, verdict: c.result!.observation, expected: c.result!.expected ?? '', matches: c.result!.matches,
          ...(c.result!.liveness ? { liveness: livenessJson(c.result!.liveness) } : {}),
        })),
        verdict: run.verdict ?? null,
        underReviewReaches: run.reaches,
        ...(o.trace ? { traces: run.traces } : {}),
      });
    }
  } else if (run.out.length) console.log(run.out.join('\n') + (o.quiet ? '' : '\n'));
  const mismatch = run.cells.some((c) => c.result?.matches === false);
  const failing = mismatch || (o.failOnBadOutcome === true && run.reaches);
  return run.status === 2 ? 2 : failing ? 1 : 0;
}

/** How deep `litmus check --json`'s output nests (a result's states' bindings: 5 levels): far below this. */
const MAX_JSON_DEPTH = 64;

/** How deep a JSON text nests its arrays and objects (counted without parsing: JSON.parse and stringify recurse). */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

const RESULT_STATUSES: ReadonlySet<unknown> = new Set(['ok', 'mismatch', 'error']);

/** A shard's --json output, read: its results, and its own status when it says one. Throws with what is wrong. */
function readShard(f: string): { results: JsonEntry[]; status?: number; errors?: unknown; notChecked?: number; shard?: { k: number; n: number } } {
  const text = readInputFile(f, { maxBytes: LIMITS.jsonBytes });
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) throw new Error(`nested ${depth} levels deep, more than the ${MAX_JSON_DEPTH} of any "litmus check --json" output: not one`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON (${(e as Error).message})`);
  }
  const obj = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  const results = Array.isArray(data) ? data : obj?.results;
  if (!Array.isArray(results)) throw new Error('not the output of "litmus check --json" (no "results" list)');
  results.forEach((r: unknown, i) => {
    const e = r as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object' || Array.isArray(e) || typeof e.file !== 'string' || !RESULT_STATUSES.has(e.status)) {
      throw new Error(`result ${i + 1} is not a result of "litmus check --json" (an object with a "file" and a "status" ok, mismatch or error)`);
    }
  });
  const status = typeof obj?.status === 'number' ? obj.status : undefined;
  const notChecked = obj?.interrupted === true ? (Array.isArray(obj.notChecked) ? obj.notChecked.length : 0) : undefined;
  const tag = typeof obj?.shard === 'string' ? /^(\d{1,9})\/(\d{1,9})$/.exec(obj.shard) : null;
  const shard = tag && Number(tag[1]) >= 1 && Number(tag[1]) <= Number(tag[2]) ? { k: Number(tag[1]), n: Number(tag[2]) } : undefined;
  return { results: results as JsonEntry[], status, errors: obj?.errors, notChecked, shard };
}

export function runMerge(files: string[]): number {
  const all: JsonEntry[] = [];
  let worst = 0;
  /** A failure of the merge itself (a shard missing, one given twice): said, and an error entry under the file's name. */
  const failed = (file: string, message: string) => {
    say(`${file}: ${message}`);
    all.push({ file, status: 'error', errors: [{ file, message }] });
  };
  /** Where each input's result came from, and the shards given (--shard K/N of the runs that wrote them). */
  const resultFrom = new Map<string, string>();
  const shards = new Map<string, string>();
  const read = new Map<string, string>();
  for (const f of files) {
    const real = realpathOrSelf(f);
    const again = read.get(real);
    if (again !== undefined) {
      failed(f, `named twice (as ${again} too): its results are merged once`);
      continue;
    }
    read.set(real, f);
    let shard: ReturnType<typeof readShard>;
    try {
      shard = readShard(f);
    } catch (e) {
      say(`${f}: cannot read results: ${(e as Error).message}`);
      return 2;
    }
    all.push(...shard.results);
    if (shard.status !== undefined && shard.status > worst) worst = Math.min(shard.status, 2);
    // One run's shards share its inputs out: an input in two files is one shard merged twice, or runs that overlap.
    const twice = shard.results.filter((r) => {
      const other = resultFrom.get(r.file);
      if (other === undefined) resultFrom.set(r.file, f);
      return other !== undefined && other !== f;
    });
    if (twice.length) {
      const first = twice[0].file;
      failed(f, `${twice.length === 1 ? `${first} has its result` : `${twice.length} inputs (${first}, ...) have their results`} here and in ${resultFrom.get(first)}: the same shard twice, or runs that overlap`);
    }
    if (shard.shard) {
      const tag = `${shard.shard.k}/${shard.shard.n}`;
      const other = shards.get(tag);
      if (other !== undefined) failed(f, `shard ${tag} again (also ${other})`);
      else shards.set(tag, f);
    }
    // A run stopped by a signal: what it did is merged, and the merge fails (its inputs were not all checked).
    if (shard.notChecked !== undefined) {
      const message = `the run that wrote it was interrupted: ${shard.notChecked} of its inputs not checked`;
      say(`${f}: ${message}`);
      all.push({ file: f, status: 'error', errors: [{ file: f, message }] });
      continue;
    }
    // A run that failed before checking anything (a bad --conf, an unreadable .def): its failure is the merge's.
    if (shard.status === 2 && !shard.results.some((r) => r.status === 'error')) {
      const errors = Array.isArray(shard.errors) ? (shard.errors as JsonError[]) : [];
      const message = `the run that wrote it failed (status 2)${shard.results.length ? '' : ' and checked nothing'}${errors.length ? `: ${errors.map((e) => e.message).join('; ')}` : ''}`;
      say(`${f}: ${message}`);
      all.push({ file: f, status: 'error', errors: errors.length ? errors : [{ file: f, message }] });
    }
  }
  // Shards of one run: every K of N given (a CI job that uploaded nothing must not pass as a smaller run).
  const counts = new Set([...shards.keys()].map((t) => Number(t.split('/')[1])));
  if (counts.size > 1) failed(files[0], `shards of runs split differently (${[...shards.keys()].sort().join(', ')})`);
  else if (counts.size === 1) {
    const n = [...counts][0];
    const missing = Array.from({ length: n }, (_, i) => `${i + 1}/${n}`).filter((t) => !shards.has(t));
    if (missing.length) failed(files[0], `shard${missing.length === 1 ? '' : 's'} ${missing.length > 8 ? `${missing.slice(0, 8).join(', ')}, ...` : missing.join(', ')} of ${n} not given: the merge would miss ${missing.length === 1 ? 'its' : 'their'} results`);
  }
  all.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const mism = all.filter((r) => r.status === 'mismatch' || ('matches' in r && r.matches === false)).length;
  const errors = all.filter((r) => r.status === 'error').length;
  const status = Math.max(errors > 0 ? 2 : mism > 0 ? 1 : 0, worst);
  console.log(JSON.stringify(jsonReport(status, all), null, 2));
  const errorNote = errors ? `; ${errors} error${errors === 1 ? '' : 's'}` : '';
  say(`merged ${all.length} results from ${files.length} files; ${mism} mismatch${mism === 1 ? '' : 'es'}${errorNote}`);
  return status;
}

/** Why an output folder named on the command line cannot be used: the reason when it is that folder, else the whole message. */
function whyFolder(e: unknown, dir: string): string {
  return e instanceof WriteError && e.path === resolve(dir) ? e.reason : (e as Error).message;
}

/**
 * The files' reports, in input order: on `jobs` worker threads if given,
 * else as runAdaptive decides; when `signal` aborts, as far as they got
 * (undefined for a file not finished).
 */
async function checkFiles(files: string[], opts: RunOptions, jobs: number | undefined, stop: Interruption): Promise<(FileReport | undefined)[]> {
  // A check in this thread, stopped at once by SIGINT.
  const checkHere = async (file: string, o: RunOptions) => {
    const running = stop.interruptibly(() => runOne(file, o));
    return running && (await running.value);
  };
  if (jobs === undefined) return runAdaptive(files, opts, availableParallelism(), checkHere, undefined, stop.signal);
  const n = Math.max(1, Math.min(jobs, files.length));
  if (n > 1) return runPool(files, opts, n, stop.signal);
  const reports: (FileReport | undefined)[] = new Array(files.length).fill(undefined);
  for (const [i, f] of files.entries()) {
    if (await signalSeen(stop.signal)) break;
    reports[i] = await checkHere(f, opts);
  }
  return reports;
}

/** A file's real path, to know one named twice; its own name when it has none (merge then says why it cannot read it). */
function realpathOrSelf(f: string): string {
  try {
    return realpathSync(f);
  } catch {
    return resolve(f);
  }
}
