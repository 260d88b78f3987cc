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
  CATEGORIES, categorize, HistoryError, writeHistory, observationLines, parseDuration, parseHistory, passesProcs,
  readLitmusOut, statesOf, timedOut, writeLitmusOut, type Category,
} from '../history/history.js';
import { timedOutOutput, type RecordOptions } from '../history/record.js';
import type { Execution } from '../model/execution.js';
import type { Model } from '../model/model.js';
import { asLimit, LitmusError } from '../parse/errors.js';
import { executionSteps, executionUnder } from '../report/trace.js';
import { resolveInputs } from './inputs.js';
import { LIMITS, readInputBytes, readInputFile } from '../limits.js';
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
    const tests = selectTests(dirs, o.procs);
    const t0 = performance.now();
    const run = await runTests(tests, opts, o.jobs);
    if (run.stop.received) {
      // A history of part of the tests would read as the whole: nothing is written.
      const done = run.outs.filter((x) => x !== undefined).length;
      say(`litmus history: interrupted by ${run.stop.received} after ${done} of ${tests.length} tests: nothing written${o.out !== undefined ? ` (${o.out} is as it was)` : ''}`);
      return run.stop.exitCode;
    }
    const outs = run.outs as string[];
    const wall = (performance.now() - t0) / 1000;
    const entries = tests.map((t, i) => ({ key: t.key, out: outs[i] }));
    const stopped = entries.filter((e) => timedOut(e.out)).length;
    const noObservation = entries.filter((e) => !timedOut(e.out) && observationLines(e.out).length === 0).length;
    if (o.out !== undefined) writeHistory(o.out, { header: headerLines(dirs, o, tests.length, stopped, wall), options: optionsRecord(o), entries });
    if (o.destdir !== undefined) tests.forEach((t, i) => writeLitmusOut(o.destdir!, t.file, outs[i]));
    const where = [o.out, o.destdir !== undefined ? `.litmus.out files under ${o.destdir}` : undefined].filter(Boolean).join(' and ');
    console.log(`recorded ${tests.length} test${tests.length === 1 ? '' : 's'} into ${where} in ${wall.toFixed(1)} s: ${stopped} timed out (${o.timeout}), ${noObservation} without an Observation (not checkable; the entry says why)`);
    return 0;
  });
}

/** `litmus history compare`: re-run the tests of a history and sort them as cmplitmushist.sh does. */
export async function runHistoryCompare(hist: string, dirs: string[], o: HistoryFlags): Promise<number> {
  return guarded(async () => {
    const opts = recordOptions(o);
    const model = modelOf(o.model);
    const beforeModel = o.beforeModel !== undefined ? modelOf(o.beforeModel) : undefined;
    const old = readHistory(hist);
    const all = selectTests(dirs, o.procs);
    const allTests: (Test & { before: string })[] = [];
    const notInHistory: string[] = [];
    for (const t of all) {
      const before = old.entryOf(t);
      if (before === undefined) notInHistory.push(t.key);
      else allTests.push({ ...t, before });
    }
    const keys = new Set(all.map((t) => t.key));
    const notRun = old.keys.filter((k) => !keys.has(k));
    const t0 = performance.now();
    const run = await runTests(allTests, opts, o.jobs);
    // Interrupted: the tests finished are judged and shown; nothing is written.
    const finished = allTests.map((t, i) => ({ t, out: run.outs[i] })).filter((x): x is { t: typeof x.t; out: string } => x.out !== undefined);
    const tests = finished.map((x) => x.t);
    const outs = finished.map((x) => x.out);
    const interrupted = run.stop.received ? `litmus history: interrupted by ${run.stop.received} after ${tests.length} of ${allTests.length} tests (shown); nothing written` : undefined;
    const wall = (performance.now() - t0) / 1000;
    const counts = Object.fromEntries(CATEGORIES.map(([c]) => [c, 0])) as Record<Category, number>;
    const judged = tests.map((t, i) => {
      const category = categorize(t.before, outs[i]);
      counts[category]++;
      return { ...t, after: outs[i], category };
    });
    if (o.destdir !== undefined && !interrupted) tests.forEach((t, i) => writeLitmusOut(o.destdir!, t.file, outs[i], '.out.new'));
    if (o.out !== undefined && !interrupted) {
      writeHistory(o.out, { header: headerLines(dirs, o, tests.length, outs.filter(timedOut).length, wall), options: optionsRecord(o), entries: judged.map((j) => ({ key: j.key, out: j.after })) });
    }
    const changed = judged.filter((j) => j.category === 'changed');
    if (o.json) {
      const observation = (out: string) => (timedOut(out) ? 'timed out' : observationLines(out).join('\n') || null);
      console.log(JSON.stringify({
        categories: counts,
        changed: changed.map((c) => ({ file: c.key, before: observation(c.before), after: observation(c.after) })),
        notInHistory,
        notRun,
        ...(interrupted ? { interrupted: true, signal: run.stop.received } : {}),
      }, null, 2));
      if (interrupted) say(interrupted);
      return interrupted ? run.stop.exitCode : changed.length ? 1 : 0;
    }
    const label = Object.fromEntries(CATEGORIES) as Record<Category, string>;
    for (const j of judged) {
      if (j.category === 'exact') continue;
      if (j.category !== 'changed') {
        console.log(`${label[j.category]}: ${j.key}`);
        continue;
      }
      console.log(` ${label.changed}: ${j.key}`);
      for (const line of changeLines(j, { model, beforeModel, beforeSpec: o.beforeModel, opts })) console.log(`   ${line}`);
    }
    console.log(` --- Summary: ${tests.length} test${tests.length === 1 ? '' : 's'} of ${hist} re-run under ${model.name} in ${wall.toFixed(1)} s`);
    const plural: Record<Category, string> = { ...label, exact: 'Exact output matches' };
    for (const [c] of CATEGORIES) if (counts[c]) console.log(`${plural[c]}: ${counts[c]}`);
    if (notInHistory.length) console.log(`Not in the history (not compared): ${notInHistory.length}`);
    if (notRun.length) console.log(`In the history but not found under ${dirs.join(' ')}: ${notRun.length}`);
    if (interrupted) say(interrupted);
    return interrupted ? run.stop.exitCode : changed.length ? 1 : 0;
  }, o.json);
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
  return { model: o.model, unroll: o.unroll, timeoutMs };
}

/** What a history says it was made with (compare reads none of it back: the model is named on compare's command line). */
function optionsRecord(o: HistoryFlags): Record<string, unknown> {
  return { model: o.model, unroll: o.unroll, timeout: o.timeout, ...(o.procs !== undefined ? { procs: o.procs } : {}) };
}

function headerLines(dirs: string[], o: HistoryFlags, n: number, stopped: number, wall: number): string[] {
  const version = packageVersion();
  return [
    `litmus history: ${n} test${n === 1 ? '' : 's'} under ${dirs.join(' ')}, by litmus ${version} under the model ${modelOf(o.model).name}`,
    `per test: herd7's output as the kernel's scripts save it in FILE.litmus.out; timeout ${o.timeout} (${stopped} timed out), unroll ${o.unroll}${o.procs !== undefined ? `, at most ${o.procs} processes` : ''}`,
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

/** The saved outputs: a history file, or a folder holding the scripts' .litmus.out files (a DESTDIR; "." for beside the tests). */
function readHistory(hist: string): { entryOf: (t: Test) => string | undefined; keys: string[] } {
  const st = statSync(hist, { throwIfNoEntry: false });
  if (!st) throw new UsageError(`${hist}: no such history file or folder`);
  if (st.isDirectory()) return { entryOf: (t) => readLitmusOut(hist, t.file), keys: [] };
  let bytes: Buffer;
  try {
    bytes = readInputBytes(hist, { maxBytes: LIMITS.historyBytes });
  } catch (e) {
    throw new UsageError(`${hist}: ${(e as Error).message}`);
  }
  const h = parseHistory(bytes, hist);
  return { entryOf: (t) => h.entries.get(t.key)?.out, keys: [...h.entries.keys()] };
}

/**
 * Runs the tests on the worker pool, each given up (as timed out) a little
 * after its limit if it has not stopped itself; a test whose worker dies
 * (out of heap, a crash) is saved with a warning saying so, as herd7's
 * output of a test it could not run. A signal stops the run: the outputs
 * come back as far as they got (undefined for the others).
 */
async function runTests(tests: Test[], opts: RecordOptions, jobs: number | undefined): Promise<{ outs: (string | undefined)[]; stop: Interruption }> {
  const progress = progressLine(tests.length);
  const stop = new Interruption();
  try {
    const outs = await runWorkers<string>(tests.map((t) => t.file), {
      workerUrl: new URL('./history-worker.js', import.meta.url),
      workerData: opts,
      jobs: jobs ?? availableParallelism(),
      deadlineMs: opts.timeoutMs + Math.max(2000, opts.timeoutMs / 10),
      onDeadline: () => timedOutOutput(),
      onFailure: (file, why) => `Warning: File "${file}": ${why}\n`,
      onDone: progress.update,
      signal: stop.signal,
    });
    return { outs, stop };
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
