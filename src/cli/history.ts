// `litmus history record` and `litmus history compare`: the kernel's
// initlitmushist.sh / checklitmushist.sh / cmplitmushist.sh workflow in one
// process. Every test under the folders is run on the worker pool with a
// per-test time limit, its output saved as the scripts save it (herd7's
// block per test); a re-run under another model (or another litmus) is
// sorted into cmplitmushist.sh's categories, and each test whose result
// changed is shown with the outcomes it gained or lost and the execution
// behind each, as the new model (and, when named, the old one) judges it.

import { readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative, basename, sep } from 'node:path';
import { checkSource, stateLine, type CheckResult } from '../check.js';
import {
  CATEGORIES, categorize, HistoryError, writeHistory, observationLines, openHistory, parseDuration, passesProcs,
  readLitmusOut, statesOf, timedOut, writeLitmusOut, type Category,
} from '../history/history.js';
import { costsOf, diffHistories, mergeHistories, OutputSpill } from '../history/store.js';
import { costliestFirst, costOf, shardOf } from '../history/plan.js';
import { timedOutOutput, type RecordOptions } from '../history/record.js';
import type { Execution } from '../model/execution.js';
import type { Model } from '../model/model.js';
import { asLimit, LitmusError } from '../parse/errors.js';
import { executionSteps, executionUnder } from '../report/trace.js';
import { resolveInputs } from './inputs.js';
import { readInputFile } from '../limits.js';
import { runWorkers } from './pool.js';
import { Interruption } from './interrupt.js';
import { jsonFailure } from './json-failure.js';
import { WriteError } from '../write-file.cjs';
import { primitivesFor, runModel } from './run-one.js';
import { say } from './say.js';

export interface HistoryFlags {
  model: string;
  unroll: number;
  timeout: string;
  procs?: number;
  jobs?: number;
  out?: string;
  destdir?: string;
  json?: boolean;
  beforeModel?: string;
  /** herd7's -speedcheck true for every test. */
  speedcheck?: boolean;
  /** An earlier history whose Time lines order the run and deal out the shards. */
  costs?: string;
  /** record: only the K-th of N shards (K/N). */
  shard?: string;
}

interface Test {
  file: string;
  key: string;
}

class UsageError extends Error {}

/** `litmus history record`: every test's output, into a history file (--out) and/or the scripts' .litmus.out files (--destdir). */
export async function runHistoryRecord(dirs: string[], o: HistoryFlags): Promise<number> {
  return guarded(async () => {
    if (o.out === undefined && o.destdir === undefined) throw new UsageError('history record needs --out FILE (a history file) or --destdir DIR (the scripts\' .litmus.out files; "." beside each test)');
    const opts = recordOptions(o);
    const all = selectTests(dirs, o.procs);
    const cost = costsFor(all, o.costs, opts);
    const tests = o.shard !== undefined ? shardTests(all, o.shard, o.costs !== undefined ? cost : undefined) : all;
    // Each output goes to the spill (and its .litmus.out) as it comes: a collection's outputs are not all held.
    const spill = new OutputSpill();
    try {
      let stopped = 0;
      let noObservation = 0;
      let done = 0;
      const t0 = performance.now();
      const stop = await runTests(tests, cost, opts, o.jobs, (t, out) => {
        done++;
        if (timedOut(out)) stopped++;
        else if (observationLines(out).length === 0) noObservation++;
        if (o.destdir !== undefined) writeLitmusOut(o.destdir, t.file, out);
        spill.put(t.key, out);
      });
      if (stop.received) {
        // A history of part of the tests would read as the whole: no history is written.
        const kept = o.destdir !== undefined ? `; the .litmus.out files of the ${done} tests done are written under ${o.destdir}` : '';
        say(`litmus history: interrupted by ${stop.received} after ${done} of ${tests.length} tests: ${o.destdir !== undefined ? 'no history' : 'nothing'} written${o.out !== undefined ? ` (${o.out} is as it was)` : ''}${kept}`);
        return stop.exitCode;
      }
      const wall = (performance.now() - t0) / 1000;
      if (o.out !== undefined) writeHistory(o.out, { header: headerLines(dirs, o, tests.length, stopped, wall), options: optionsRecord(o), entries: spill.entries() });
      const where = [o.out, o.destdir !== undefined ? `.litmus.out files under ${o.destdir}` : undefined].filter(Boolean).join(' and ');
      const share = o.shard !== undefined ? ` (shard ${o.shard} of ${all.length})` : '';
      console.log(`recorded ${tests.length} test${tests.length === 1 ? '' : 's'}${share} into ${where} in ${wall.toFixed(1)} s: ${stopped} timed out (${o.timeout}), ${noObservation} without an Observation (not checkable; the entry says why)`);
      return 0;
    } finally {
      spill.close();
    }
  });
}

/** `litmus history compare`: re-run the tests of a history and sort them as cmplitmushist.sh does. */
export async function runHistoryCompare(hist: string, dirs: string[], o: HistoryFlags): Promise<number> {
  return guarded(async () => {
    const opts = recordOptions(o);
    const model = modelOf(o.model);
    const beforeModel = o.beforeModel !== undefined ? modelOf(o.beforeModel) : undefined;
    const old = readHistory(hist);
    try {
      const all = selectTests(dirs, o.procs);
      const tests: Test[] = [];
      const notInHistory: string[] = [];
      for (const t of all) {
        if (old.has(t)) tests.push(t);
        else notInHistory.push(t.key);
      }
      const keys = new Set(all.map((t) => t.key));
      const notRun = old.keys.filter((k) => !keys.has(k));
      // The history's own Time lines order the run, unless --costs names another.
      const cost = costsFor(tests, o.costs, opts, old.costs);
      const spill = o.out !== undefined ? new OutputSpill() : undefined;
      try {
        const counts = Object.fromEntries(CATEGORIES.map(([c]) => [c, 0])) as Record<Category, number>;
        const category = new Map<string, Category>();
        // Only a changed test's outputs are kept (to explain it); the others are judged as they come.
        const changed = new Map<string, { before: string; after: string }>();
        let stopped = 0;
        let done = 0;
        const t0 = performance.now();
        const stop = await runTests(tests, cost, opts, o.jobs, (t, after) => {
          done++;
          const before = old.entryOf(t)!;
          const c = categorize(before, after);
          counts[c]++;
          category.set(t.key, c);
          if (c === 'changed') changed.set(t.key, { before, after });
          if (timedOut(after)) stopped++;
          if (o.destdir !== undefined) writeLitmusOut(o.destdir, t.file, after, '.out.new');
          spill?.put(t.key, after);
        });
        const wall = (performance.now() - t0) / 1000;
        // Interrupted: the tests finished are judged and shown; no history is written.
        const interrupted = stop.received
          ? `litmus history: interrupted by ${stop.received} after ${done} of ${tests.length} tests (shown): no history written${o.destdir !== undefined ? `; the .litmus.out.new files of the ${done} tests done are written under ${o.destdir}` : ''}`
          : undefined;
        if (o.out !== undefined && !interrupted) writeHistory(o.out, { header: headerLines(dirs, o, tests.length, stopped, wall), options: optionsRecord(o), entries: spill!.entries() });
        const exitCode = interrupted ? stop.exitCode : changed.size ? 1 : 0;
        if (interrupted) say(interrupted);
        const judged = tests.filter((t) => category.has(t.key)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((t) => ({ ...t, category: category.get(t.key)! }));
        if (o.json) {
          console.log(JSON.stringify({
            categories: counts,
            changed: judged.filter((j) => j.category === 'changed').map((j) => ({ file: j.key, before: observationOf(changed.get(j.key)!.before), after: observationOf(changed.get(j.key)!.after) })),
            notInHistory,
            notRun,
            ...(interrupted ? { interrupted: true, signal: stop.received } : {}),
          }, null, 2));
          return exitCode;
        }
        const label = Object.fromEntries(CATEGORIES) as Record<Category, string>;
        for (const j of judged) {
          if (j.category === 'exact') continue;
          if (j.category !== 'changed') {
            console.log(`${label[j.category]}: ${j.key}`);
            continue;
          }
          console.log(` ${label.changed}: ${j.key}`);
          for (const line of changeLines({ ...j, ...changed.get(j.key)! }, { model, beforeModel, beforeSpec: o.beforeModel, opts })) console.log(`   ${line}`);
        }
        console.log(` --- Summary: ${judged.length} test${judged.length === 1 ? '' : 's'} of ${hist} re-run under ${model.name} in ${wall.toFixed(1)} s${interrupted ? ` (interrupted: ${tests.length - judged.length} not run)` : ''}`);
        const plural: Record<Category, string> = { ...label, exact: 'Exact output matches' };
        for (const [c] of CATEGORIES) if (counts[c]) console.log(`${plural[c]}: ${counts[c]}`);
        if (notInHistory.length) console.log(`Not in the history (not compared): ${notInHistory.length}`);
        if (notRun.length) console.log(`In the history but not found under ${dirs.join(' ')}: ${notRun.length}`);
        return exitCode;
      } finally {
        spill?.close();
      }
    } finally {
      old.close();
    }
  }, o.json);
}

/** A test's Observation line for --json: "timed out", or null when it has none. */
function observationOf(out: string): string | null {
  return timedOut(out) ? 'timed out' : observationLines(out).join('\n') || null;
}

/** `litmus history merge`: the shards of one run (record --shard K/N) as one history. */
export function runHistoryMerge(hists: string[], o: { out: string }): number {
  return guardedSync(() => {
    const merged = mergeHistories(hists);
    try {
      const n = merged.entries.size;
      const header = [
        `litmus history: ${n} test${n === 1 ? '' : 's'}, merged from ${merged.sources} histor${merged.sources === 1 ? 'y' : 'ies'} (${hists.join(' ')}) by litmus ${packageVersion()}`,
        ...merged.header.slice(1).filter((l) => !l.startsWith('litmus history:')),
      ];
      const options = merged.options ? Object.fromEntries(Object.entries(merged.options).filter(([k]) => k !== 'shard')) : undefined;
      writeHistory(o.out, { header, options, entries: merged.entries.values() });
      console.log(`merged ${n} test${n === 1 ? '' : 's'} from ${merged.sources} histor${merged.sources === 1 ? 'y' : 'ies'} into ${o.out}`);
      return 0;
    } finally {
      merged.close();
    }
  });
}

/** `litmus history diff`: two saved histories sorted as cmplitmushist.sh sorts a re-run, nothing run. */
export function runHistoryDiff(beforePath: string, afterPath: string, o: { json?: boolean }): number {
  return guardedSync(() => {
    const before = openHistory(beforePath);
    try {
      const after = openHistory(afterPath);
      try {
        const d = diffHistories(before, after);
        const changed = d.judged.filter((j) => j.category === 'changed');
        if (o.json) {
          console.log(JSON.stringify({
            categories: d.counts,
            changed: changed.map((c) => ({ file: c.key, before: observationOf(before.entries.get(c.key)!.out), after: observationOf(after.entries.get(c.key)!.out) })),
            onlyBefore: d.onlyOld,
            onlyAfter: d.onlyNew,
          }, null, 2));
          return changed.length ? 1 : 0;
        }
        const label = Object.fromEntries(CATEGORIES) as Record<Category, string>;
        for (const j of d.judged) {
          if (j.category === 'exact') continue;
          console.log(`${j.category === 'changed' ? ' ' : ''}${label[j.category]}: ${j.key}`);
          if (j.category === 'changed') {
            console.log(`   before: ${observationOf(before.entries.get(j.key)!.out) ?? '(no Observation line)'}`);
            console.log(`   after:  ${observationOf(after.entries.get(j.key)!.out) ?? '(no Observation line)'}`);
          }
        }
        console.log(` --- Summary: ${d.judged.length} test${d.judged.length === 1 ? '' : 's'} in both ${beforePath} and ${afterPath}`);
        const plural: Record<Category, string> = { ...label, exact: 'Exact output matches' };
        for (const [c] of CATEGORIES) if (d.counts[c]) console.log(`${plural[c]}: ${d.counts[c]}`);
        if (d.onlyNew.length) console.log(`Only in ${afterPath}: ${d.onlyNew.length}`);
        if (d.onlyOld.length) console.log(`Only in ${beforePath}: ${d.onlyOld.length}`);
        return changed.length ? 1 : 0;
      } finally {
        after.close();
      }
    } finally {
      before.close();
    }
  });
}

function guardedSync(body: () => number): number {
  try {
    return body();
  } catch (e) {
    if (e instanceof UsageError || e instanceof HistoryError || e instanceof WriteError) {
      say(`litmus history: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

/** Usage and history errors as one line and exit 2, never a stack trace; with --json, compare's document says so too. */
async function guarded(body: () => Promise<number>, json = false): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof UsageError || e instanceof HistoryError || e instanceof WriteError) {
      say(`litmus history: ${e.message}`);
      if (json) console.log(jsonFailure('history compare', [{ file: '', message: e.message }]));
      return 2;
    }
    throw e;
  }
}

function modelOf(name: string): Model {
  const r = runModel({ model: name });
  if ('error' in r) throw new UsageError(r.error);
  return r.model;
}

function recordOptions(o: HistoryFlags): RecordOptions {
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(o.timeout);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // The model's files and its .def are read (and a problem in them reported) before any test.
  const macros = primitivesFor({ model: o.model }, modelOf(o.model));
  if (macros.error) throw new UsageError(macros.error.format());
  return { model: o.model, unroll: o.unroll, timeoutMs, ...(o.speedcheck ? { speedcheck: true } : {}) };
}

/** What a history says it was made with (compare reads none of it back: the model is named on compare's command line). */
function optionsRecord(o: HistoryFlags): Record<string, unknown> {
  return { model: o.model, unroll: o.unroll, timeout: o.timeout, ...(o.procs !== undefined ? { procs: o.procs } : {}), ...(o.speedcheck ? { speedcheck: true } : {}), ...(o.shard !== undefined ? { shard: o.shard } : {}) };
}

function headerLines(dirs: string[], o: HistoryFlags, n: number, stopped: number, wall: number): string[] {
  const version = packageVersion();
  return [
    `litmus history: ${n} test${n === 1 ? '' : 's'} under ${dirs.join(' ')}, by litmus ${version} under the model ${modelOf(o.model).name}`,
    `per test: herd7's output${o.speedcheck ? ' with -speedcheck true' : ''} as the kernel's scripts save it in FILE.litmus.out; timeout ${o.timeout} (${stopped} timed out), unroll ${o.unroll}${o.procs !== undefined ? `, at most ${o.procs} processes` : ''}${o.shard !== undefined ? `, shard ${o.shard}` : ''}`,
    `made ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} in ${wall.toFixed(1)} s`,
  ];
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '';
  }
}

/**
 * The tests under the inputs, each named by its path below the folder it
 * was found in (a file named on its own: by its name), so that a history
 * made of one copy of a collection compares with another copy anywhere.
 */
function selectTests(inputs: string[], procs: number | undefined): Test[] {
  const tests: Test[] = [];
  const byKey = new Map<string, string>();
  for (const input of inputs) {
    const { files, missing, empty } = resolveInputs([input]);
    if (missing.length) throw new UsageError(`${input}: no such file or folder`);
    if (empty.length) throw new UsageError(`${input}: no .litmus tests in this folder`);
    const isDir = statSync(input, { throwIfNoEntry: false })?.isDirectory() ?? false;
    for (const file of files) {
      const key = (isDir ? relative(input, file) : basename(file)).split(sep).join('/');
      const other = byKey.get(key);
      if (other !== undefined && other !== file) throw new UsageError(`${file} and ${other} have the same name in a history (${key}): record them into separate histories`);
      byKey.set(key, file);
      // A file that cannot be read is kept: its check reports why.
      if (procs !== undefined) {
        const text = readableText(file);
        if (text !== undefined && !passesProcs(text, procs)) continue;
      }
      tests.push({ file, key });
    }
  }
  return tests;
}

/**
 * The saved outputs: a history file (read from the file, entry by entry), or
 * a folder holding the scripts' .litmus.out files (a DESTDIR; "." for beside
 * the tests). `costs`: what its Time lines say each test cost.
 */
function readHistory(hist: string): { has: (t: Test) => boolean; entryOf: (t: Test) => string | undefined; keys: string[]; costs?: (timeoutS: number) => Map<string, number>; close: () => void } {
  const st = statSync(hist, { throwIfNoEntry: false });
  if (!st) throw new UsageError(`${hist}: no such history file or folder`);
  if (st.isDirectory()) return { has: (t) => readLitmusOut(hist, t.file) !== undefined, entryOf: (t) => readLitmusOut(hist, t.file), keys: [], close: () => undefined };
  const h = openHistory(hist);
  return { has: (t) => h.entries.has(t.key), entryOf: (t) => h.entries.get(t.key)?.out, keys: [...h.entries.keys()], costs: (s) => costsOf(h, s), close: h.close };
}

/**
 * What each test costs, to start the costliest first (src/history/plan.ts):
 * the Time lines of the history --costs names, else of `fallback` (compare's
 * own history), else an estimate from each test's text.
 */
function costsFor(tests: Test[], costsPath: string | undefined, opts: RecordOptions, fallback?: (timeoutS: number) => Map<string, number>): Map<string, number> {
  let measured: Map<string, number> | undefined;
  if (costsPath !== undefined) {
    const h = openHistory(costsPath);
    try {
      measured = costsOf(h, opts.timeoutMs / 1000);
    } finally {
      h.close();
    }
  } else measured = fallback?.(opts.timeoutMs / 1000);
  return costOf(tests, measured, readableText);
}

function shardTests(tests: Test[], spec: string, cost: Map<string, number> | undefined): Test[] {
  try {
    return shardOf(tests, spec, cost);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * Runs the tests on the worker pool, the costliest first, each given up (as
 * timed out) a little after its limit if it has not stopped itself; a test
 * whose worker dies (out of heap, a crash) is saved with a warning saying
 * so, as herd7's output of a test it could not run. Each output is handed
 * to `take` as it comes, not kept. A signal stops the run (the Interruption
 * returned says so): the tests not finished are never handed over.
 */
async function runTests(tests: Test[], cost: Map<string, number>, opts: RecordOptions, jobs: number | undefined, take: (t: Test, out: string) => void): Promise<Interruption> {
  const progress = progressLine(tests.length);
  const order = costliestFirst(tests, cost);
  const stop = new Interruption();
  try {
    await runWorkers<string>(order.map((t) => t.file), {
      workerUrl: new URL('./history-worker.js', import.meta.url),
      workerData: opts,
      jobs: jobs ?? availableParallelism(),
      deadlineMs: opts.timeoutMs + Math.max(2000, opts.timeoutMs / 10),
      onDeadline: () => timedOutOutput(),
      onFailure: (file, why) => `Warning: File "${file}": ${why}\n`,
      onDone: progress.update,
      onResult: (i, out) => take(order[i], out),
      signal: stop.signal,
    });
    return stop;
  } finally {
    progress.end();
    stop.stop();
  }
}

/** Progress on stderr once a run has taken 3 s: a line redrawn on a terminal, else a line every 10 s. */
function progressLine(total: number): { update: (done: number) => void; end: () => void } {
  const t0 = performance.now();
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let drawn = false;
  return {
    update: (done) => {
      const now = performance.now();
      if (now - t0 < 3000 || now - last < (tty ? 250 : 10_000)) return;
      last = now;
      const text = `history: ${done}/${total} tests, ${((now - t0) / 1000).toFixed(0)} s`;
      process.stderr.write(tty ? `\r${text}` : `${text}\n`);
      drawn = true;
    },
    end: () => {
      if (tty && drawn) process.stderr.write('\r\x1b[K');
    },
  };
}

interface Explain {
  model: Model;
  beforeModel?: Model;
  /** The spec --before-model names (its .def gives that model's primitives). */
  beforeSpec?: string;
  opts: RecordOptions;
}

/**
 * A changed test: its Observation before and after, the outcomes it gained
 * and lost, and for each the execution behind it: an outcome allowed now is
 * shown as the new model orders its witness (and, with --before-model, the
 * axiom and cycle by which the old model forbade that execution); an outcome
 * lost is shown, with --before-model, as the old model's witness and the
 * axiom and cycle by which the new model forbids it.
 */
function changeLines(j: Test & { before: string; after: string }, how: Explain): string[] {
  const lines = [
    `before: ${timedOut(j.before) ? 'timed out' : observationLines(j.before).join(' ') || '(no Observation line)'}`,
    `after:  ${timedOut(j.after) ? 'timed out' : observationLines(j.after).join(' ') || '(no Observation line)'}`,
  ];
  if (observationLines(j.before).length === 0 || observationLines(j.after).length === 0) {
    const side = observationLines(j.before).length === 0 ? 'the history' : 'this run';
    lines.push(`no outcome to compare: ${side} has no Observation for this test${timedOut(side === 'the history' ? j.before : j.after) ? ' (timed out)' : ''}`);
    return lines;
  }
  const before = new Set(statesOf(j.before));
  const after = new Set(statesOf(j.after));
  const gained = [...after].filter((s) => !before.has(s));
  const lost = [...before].filter((s) => !after.has(s));
  const now = witnessed(j.file, how.model, how.opts.model, how.opts);
  const then = how.beforeModel && lost.length ? witnessed(j.file, how.beforeModel, how.beforeSpec!, how.opts) : undefined;
  const history = how.beforeModel ? how.beforeModel.name : 'the history';
  for (const [i, s] of gained.slice(0, LISTED).entries()) {
    lines.push(`allowed under ${how.model.name}, not in ${history}: ${s}`);
    if (i >= EXPLAINED) continue;
    if (typeof now === 'string') {
      lines.push(`  (${now})`);
      continue;
    }
    const w = witnessOf(now, s);
    if (!w) continue;
    lines.push(...indent(executionReport(now, how.model, w, how.beforeModel)));
  }
  if (gained.length > LISTED) lines.push(`(and ${gained.length - LISTED} more outcomes allowed under ${how.model.name}, not in ${history})`);
  for (const [i, s] of lost.slice(0, LISTED).entries()) {
    lines.push(`allowed in ${history}, not under ${how.model.name}: ${s}`);
    if (i >= EXPLAINED) continue;
    if (!how.beforeModel) {
      lines.push('  (--before-model NAME, the model the history was made under, shows the execution it allowed and what forbids it now)');
      continue;
    }
    if (typeof then === 'string' || then === undefined) {
      lines.push(`  (${then ?? 'not checked'})`);
      continue;
    }
    const w = witnessOf(then, s);
    if (!w) {
      lines.push(`  (${how.beforeModel.name} does not reach it either: the history was made under another model or program)`);
      continue;
    }
    lines.push(...indent(executionReport(then, how.beforeModel, w, how.model)));
  }
  if (lost.length > LISTED) lines.push(`(and ${lost.length - LISTED} more outcomes allowed in ${history}, not under ${how.model.name})`);
  return lines;
}

/** How many gained (and lost) outcomes of a test get their execution shown; the others are listed. */
const EXPLAINED = 2;
/** How many of each are listed. */
const LISTED = 10;

const indent = (ls: string[]) => ls.map((l) => `  ${l}`);

/** The execution kept for the final state that herd7's block prints as `state`. */
function witnessOf(r: CheckResult, state: string): Execution | undefined {
  return r.exploration.outcomes.find((o) => stateLine(r.program, o.values) === state)?.witness;
}

/** The test checked under a model with a witness kept for every final state, or why it could not be. */
function witnessed(file: string, model: Model, spec: string, opts: RecordOptions): CheckResult | string {
  const macros = primitivesFor({ model: spec }, model);
  if (macros.error) return macros.error.format();
  const text = readableText(file);
  if (text === undefined) return `${file}: cannot be read (not a regular file, or too large)`;
  try {
    // A history holds herd7's outputs: loops read as herd7 reads them (unrolled).
    return checkSource(text, { model, unroll: opts.unroll, timeoutMs: opts.timeoutMs, maxExecutions: Infinity, keepWitnesses: 'all', primitives: macros.primitives, waits: 'unrolled' });
  } catch (e) {
    if (e instanceof LitmusError) return e.format(file);
    const limit = asLimit(e);
    if (limit) return `no witness: ${limit.message}`;
    throw e;
  }
}

/** An execution allowed under `r`'s model: its steps, its cycle as that model orders it, and what `other` makes of it. */
function executionReport(r: CheckResult, model: Model, w: Execution, other: Model | undefined): string[] {
  const lines = [`an execution that reaches it under ${model.name}:`, ...executionSteps(r.program, w)];
  lines.push(...executionUnder(r.program, model, w).lines);
  if (other) {
    const verdict = executionUnder(r.program, other, w);
    lines.push(verdict.allowed ? `${other.name} allows this execution too: the history was not made with ${other.name} on this test as it is now` : `under ${other.name}, this execution is forbidden:`);
    if (!verdict.allowed) lines.push(...verdict.lines);
  }
  return lines;
}

/** A test's text read as check reads it (src/limits.ts), or undefined when it cannot be (its check then says why). */
function readableText(file: string): string | undefined {
  try {
    return readInputFile(file);
  } catch {
    return undefined;
  }
}
