// Checks a TypeScript suite: every version against every scenario. Prints,
// in this order: the verdict on the version under review, the scenario x
// version grid, what each scenario checks, and one explained trace for each
// failing cell of the version under review. herd7's blocks only on request.

import { dirname, relative } from 'node:path';
import { checkTest, livenessWords, type CheckResult } from '../check.js';
import type { Model } from '../model/model.js';
import type { PrimitiveTable } from '../events/primitives.js';
import { asLimit, LitmusError } from '../parse/errors.js';
import type { Pos } from '../parse/ast.js';
import { getModel, unknownModelMessage } from '../../models/index.js';
import { herdBlock, humanLine } from '../report/herd.js';
import { suiteVerdict, type SuiteRow } from '../report/suite.js';
import { SuiteError } from './modules.js';
import type { TraceJson } from '../report/trace.js';
import { readSuite, type Suite, type SuiteTest } from './read.js';

export interface SuiteRunOptions {
  model: string;
  unroll?: number;
  maxExecutions?: number;
  timeoutMs?: number;
  /** Print herd7's block for every test. */
  herd?: boolean;
  /** Explain every reachable outcome of the version under review (default on). */
  explain?: boolean;
  /** A single test: only the one-line summary (no herd block). */
  quiet?: boolean;
  /** A single test: its witnesses, as `check --trace` shows them. */
  trace?: boolean;
  /** Keep every test's own result by test name (interrupt points included), for export. */
  keepTests?: boolean;
  /**
   * Only verdicts will be shown (the grid and the verdict line, no herd7
   * blocks or counts): a test that is not traced is decided without
   * counting every execution (explore/speedcheck.ts 'decide': the same
   * verdict; its counts and flags cover only the executions built).
   */
  verdictsOnly?: boolean;
  /**
   * The primitives the inlined calls mean (a .def read by loadMacros): the
   * suite is written against kernel.d.ts, the built-in names, and each
   * name is looked up in this table when its test is checked.
   */
  primitives?: PrimitiveTable;
}

export interface CellResult {
  version: string;
  scenario: string;
  /** The verdict of the cell: of its one test, or combined over its interrupt points. */
  result?: CheckResult;
  /** With interrupted(): each interrupt point's result. */
  variants?: { variant: string; result: CheckResult }[];
  error?: string;
}

export interface SuiteRun {
  suite?: Suite;
  /** Each test's result by its name (with keepTests). */
  results: Map<string, CheckResult>;
  cells: CellResult[];
  /** 0: checked; 2: bad input or a limit. */
  status: 0 | 2;
  out: string[];
  errors: string[];
  /** The closing verdict line, and whether the version under review reaches the bad outcome in some scenario. */
  verdict?: string;
  reaches: boolean;
  /** The explained traces of the version under review's failing cells (for --json). */
  traces: { scenario: string; version: string; trace: string; fixes?: TraceJson['fixes'] }[];
}

export async function runSuite(file: string, opts: SuiteRunOptions): Promise<SuiteRun> {
  const run: SuiteRun = { cells: [], results: new Map(), status: 0, out: [], errors: [], reaches: false, traces: [] };
  const model = getModel(opts.model);
  if (!model) {
    run.errors.push(unknownModelMessage(opts.model));
    run.status = 2;
    return run;
  }
  let suite: Suite;
  try {
    suite = await readSuite(file);
  } catch (e) {
    if (e instanceof SuiteError) {
      run.errors.push(e.format());
      run.status = 2;
      return run;
    }
    throw e;
  }
  run.suite = suite;
  for (const u of suite.unread) {
    if (!run.errors.includes(u.error)) run.errors.push(u.error);
    run.status = 2;
    run.cells.push({ version: u.version, scenario: u.scenario, error: u.error });
  }
  const witnesses = (t: SuiteTest) => t.version === suite.underReview || suite.underReview === undefined;
  // A version that inherits every function a scenario calls gives the same
  // test as the version it inherits from: each distinct test is checked once.
  const same = await sameTests(suite.tests, witnesses);
  const first = new Map<string, SuiteTest>();
  for (const t of suite.tests) if (!first.has(same.get(t)!.key)) first.set(same.get(t)!.key, t);
  const distinct = [...first.values()];
  const traced = opts.explain !== false || opts.trace === true;
  const limits = { unroll: opts.unroll, maxExecutions: opts.maxExecutions, timeoutMs: opts.timeoutMs, primitives: opts.primitives };
  const checked = await checkAll(distinct, (t) => {
    return { witnesses: traced && same.get(t)!.witnesses, decide: opts.verdictsOnly === true && !suite.single };
  }, model, limits);
  const byKey = new Map(distinct.map((t, i) => [same.get(t)!.key, checked[i]]));
  for (const t of suite.tests) {
    let c = byKey.get(same.get(t)!.key)!;
    // A problem is reported under each test's own name.
    if (c.error && first.get(same.get(t)!.key) !== t) c = checkOne(t, model, limits, false);
    const cell: CellResult = { version: t.version, scenario: t.scenario, ...(c.result ? { result: { ...c.result, name: t.test.name } } : { error: c.error }) };
    if (cell.error) {
      run.errors.push(cell.error);
      run.status = 2;
    }
    if (opts.keepTests && cell.result) run.results.set(t.test.name, cell.result);
    const mine = run.cells.find((c) => c.version === t.version && c.scenario === t.scenario);
    if (!mine) {
      run.cells.push(cell.result && t.variant ? { ...cell, variants: [{ variant: t.variant, result: cell.result }] } : cell);
      continue;
    }
    if (cell.error) mine.error = cell.error;
    if (cell.result && mine.variants) {
      mine.variants.push({ variant: t.variant!, result: cell.result });
      mine.result = combine(mine.variants.map((v) => v.result));
    }
  }
  if (suite.single) {
    // One test: reported as a .litmus file is.
    const r = run.cells[0]?.result;
    if (!r) return run;
    if (!opts.quiet) run.out.push(herdBlock(r));
    run.out.push(humanLine(r));
    if (opts.trace) {
      const { traceWithWaits } = await import('../report/waits.js');
      run.out.push(traceWithWaits(r, model, { tryFixes: true, limits: { maxExecutions: opts.maxExecutions, timeoutMs: opts.timeoutMs }, where: placeOf(suite, suite.tests[0]) }).text);
    }
    return run;
  }
  if (opts.herd) {
    for (const c of run.cells) if (c.result) run.out.push(herdBlock(c.result), '');
  }
  const verdict = verdictLine(suite, run.cells);
  run.verdict = verdict;
  run.reaches = run.cells.some((c) => c.version === suite.underReview && c.result && (c.result.observation !== 'Never' || c.result.liveness?.verdict === 'hang'));
  if (verdict) run.out.push(verdict, '');
  run.out.push(suite.title, '', grid(suite, run.cells), '');
  const waits = waitsLine(run.cells);
  if (waits) run.out.push(waits, '');
  for (const s of suite.scenarios) run.out.push(`  ${s.name}: ${s.says}`);
  if (opts.explain !== false) {
    const { traceJson } = await import('../report/trace.js');
    const { waitsTrace } = await import('../report/waits.js');
    for (const c of run.cells) {
      if (c.version !== suite.underReview || !c.result) continue;
      const where = placeOf(suite, suite.tests.find((t) => t.test.name === c.result!.name)!);
      const limits = { maxExecutions: opts.maxExecutions, timeoutMs: opts.timeoutMs };
      if (c.result.observation !== 'Never') {
        run.out.push('', `${c.scenario} in ${c.version}: how the bad outcome happens`);
        const v = c.variants?.find((x) => x.result.name === c.result!.name);
        if (v) run.out.push(`(${v.variant}: ${c.variants!.filter((x) => x.result.positive > 0).map((x) => x.variant).join(', ')} reach it)`);
        const t = traceJson(c.result, model, { tryFixes: true, limits, where, maxWitnesses: 1 });
        run.out.push(t.text);
        run.traces.push({ scenario: c.scenario, version: c.version, trace: t.text, fixes: t.fixes });
      }
      const w = waitsTrace(c.result, model, { tryFixes: true, limits, where });
      if (w) {
        run.out.push('', `${c.scenario} in ${c.version}: how a thread waits forever`, w.text);
        run.traces.push({ scenario: c.scenario, version: c.version, trace: w.text, fixes: w.fixes });
      }
    }
  }
  return run;
}

/**
 * After the grid: where a thread can wait forever, or that every wait
 * terminates (in the cells whose tests have waits: loops, spin_lock()s).
 */
function waitsLine(cells: CellResult[]): string | undefined {
  const judged = cells.filter((c) => c.result?.liveness);
  if (judged.length === 0) return undefined;
  const hanging = judged.filter((c) => c.result!.liveness!.verdict === 'hang');
  const unknown = judged.filter((c) => c.result!.liveness!.verdict === 'unknown');
  const of = (cs: CellResult[]) => cs.map((c) => `${c.scenario} in ${c.version}`).join(', ');
  const parts: string[] = [];
  if (hanging.length) parts.push(`a thread can wait forever in ${of(hanging)}`);
  if (unknown.length) parts.push(`not decided in ${of(unknown)} (${unknown[0].result!.liveness!.why})`);
  const rest = judged.length - hanging.length - unknown.length;
  if (rest) parts.push(`every wait terminates in ${hanging.length || unknown.length ? 'the other' : rest === 1 ? 'the one' : `all ${rest}`} cell${rest === 1 ? '' : 's'} with waits (loops, spin_lock())`);
  return `Waits: ${parts.join('; ')}.`;
}

/**
 * Which tests are the same C program with the same source places (a
 * version inheriting every function the scenario calls), and whether any of
 * them needs witnesses (then the one check keeps them for all).
 */
async function sameTests(tests: SuiteTest[], witnesses: (t: SuiteTest) => boolean): Promise<Map<SuiteTest, { key: string; witnesses: boolean }>> {
  const { withFiles } = await import('./lowered.js');
  const keys = new Map<SuiteTest, string>();
  const keep = new Map<string, boolean>();
  for (const t of tests) {
    const key = withFiles({ ...t.test, name: '' }, t.files, (f) => f);
    keys.set(t, key);
    keep.set(key, (keep.get(key) ?? false) || witnesses(t));
  }
  return new Map(tests.map((t) => [t, { key: keys.get(t)!, witnesses: keep.get(keys.get(t)!)! }]));
}

/**
 * One verdict over the interrupt points of a cell: the outcome can happen if
 * it can at some point (the counts add up; the first test with a witness
 * stands for the cell in traces).
 */
function combine(results: CheckResult[]): CheckResult {
  const positive = results.reduce((a, r) => a + r.positive, 0);
  const negative = results.reduce((a, r) => a + r.negative, 0);
  const base = results.find((r) => r.positive > 0) ?? results[0];
  const observation = positive === 0 ? 'Never' : negative === 0 ? 'Always' : 'Sometimes';
  return { ...base, positive, negative, observation, flags: [...new Set(results.flatMap((r) => r.flags))] };
}

/** Names a position of a test as file:line, relative to the suite's folder. */
function placeOf(suite: Suite, t: SuiteTest): (p: Pos) => string | undefined {
  return (p) => {
    const f = t.files.get(p);
    return f ? `${relative(dirname(suite.file), f)}:${p.line}` : undefined;
  };
}

interface CheckLimits {
  unroll?: number;
  maxExecutions?: number;
  timeoutMs?: number;
  primitives?: PrimitiveTable;
}

interface Checked {
  result?: CheckResult;
  error?: string;
}

/**
 * Checks each test once: with `decide`, its verdict only (speedcheck), then,
 * if it needs witnesses (for a trace) and the outcome is reachable, in full.
 */
async function checkAll(tests: SuiteTest[], how: (t: SuiteTest) => { witnesses: boolean; decide: boolean }, model: Model, limits: CheckLimits): Promise<Checked[]> {
  const out: Checked[] = [];
  for (const t of tests) {
    // Let the event loop breathe between tests (a caller may have timers or messages to answer).
    await new Promise((done) => setImmediate(done));
    const { witnesses, decide } = how(t);
    if (decide) {
      // Traced only if the outcome is reachable: a Never needs no witnesses, nor counts. A test with waits
      // is checked in full if deciding its verdict did not decide its waits (docs/liveness.md).
      const decided = checkOne(t, model, { ...limits, speedcheck: 'decide' }, false);
      const waitsOpen = decided.result?.liveness?.verdict === 'unknown';
      if (!waitsOpen && (!witnesses || decided.error || decided.result?.observation === 'Never')) {
        out.push(decided);
        continue;
      }
    }
    out.push(checkOne(t, model, limits, witnesses));
  }
  return out;
}

/** One test, its problems as the messages a suite run prints. */
function checkOne(t: SuiteTest, model: Model, limits: CheckLimits & { speedcheck?: 'decide' }, witnesses: boolean): Checked {
  try {
    return { result: checkTest(t.test, { model, ...limits, keepWitnesses: witnesses }) };
  } catch (e) {
    if (e instanceof LitmusError) return { error: e.format(t.files.get(e.pos) ?? `${t.scenario}-${t.version}`) };
    const limit = asLimit(e);
    if (!limit) throw e;
    // A position of the inlined test is one of the suite's sources.
    const file = limit.pos && t.files.get(limit.pos);
    return { error: file ? `${limit.format(file)} (${t.scenario} in ${t.version})` : `${t.scenario} in ${t.version}: ${limit.message}` };
  }
}

/** The first line: can the version under review reach the bad outcome? */
export function verdictLine(suite: Suite, cells: CellResult[]): string | undefined {
  if (!suite.underReview) return undefined;
  const mine = cells.filter((c) => c.version === suite.underReview);
  const checked = mine.filter((c) => c.result);
  const missing = suite.scenarios.filter((s) => !checked.some((c) => c.scenario === s.name)).map((s) => s.name);
  const rows: SuiteRow[] = cells
    .filter((c) => c.result)
    .map((c) => ({
      test: `${c.scenario}-${c.version}`, version: c.version, scenario: c.scenario, verdict: c.result!.observation, expected: '', matches: undefined,
      hang: c.result!.liveness?.verdict === 'hang' ? livenessWords(c.result!.liveness) : undefined,
    }));
  const line = suiteVerdict(rows, { underReview: suite.underReview, baseline: suite.baseline, badOutcome: suite.badOutcome });
  if (missing.length === 0) return line;
  return `${line ?? ''} Not checked for "${suite.underReview}": ${missing.join(', ')} (see the errors above).`.trim();
}

/** Scenarios down, versions across, each cell the verdict ("error" when it could not be checked). */
export function grid(suite: Suite, cells: CellResult[]): string {
  const head = ['scenario', ...suite.versions.map((v) => (v === suite.underReview ? `${v} (under review)` : v))];
  const body = suite.scenarios.map((s) => [
    s.name,
    ...suite.versions.map((v) => {
      const c = cells.find((x) => x.scenario === s.name && x.version === v);
      return c?.result ? `${c.result.observation}${c.result.liveness?.verdict === 'hang' ? ' (can hang)' : ''}` : c?.error ? 'error' : '-';
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt)].join('\n');
}
