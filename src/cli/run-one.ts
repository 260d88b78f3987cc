// Checks one file and renders everything a command may print about it, as
// plain data (so that worker threads can send it back).

import type { TraceJson } from '../report/trace.js';
import { basename, join } from 'node:path';
import { checkSource, livenessWords, type CheckResult, type Liveness } from '../check.js';
import { getModel, specMacros, unknownModelMessage } from '../../models/index.js';
import type { Model } from '../model/model.js';
import { asLimit, LitmusError, printable } from '../parse/errors.js';
import { herdBlock, humanLine } from '../report/herd.js';
import { suiteMeta, type SuiteMeta } from '../report/suite.js';
import { loadMacros, MacroFileError, refuseUnknownTags } from '../events/def.js';
import type { PrimitiveTable } from '../events/primitives.js';
import { readInputFile } from '../limits.js';
import { writeFileAtomic } from '../write-file.cjs';
import type { WaitReading } from '../program/program.js';
import { ModelError } from '../../models/cat/lexer.js';

export interface RunOptions {
  model: string;
  unroll?: number;
  maxExecutions?: number;
  timeoutMs?: number;
  trace?: boolean;
  /** Folder for a Graphviz picture of each test's witness (or forbidden candidate). */
  dot?: string;
  /** Folder for the same picture as SVG. */
  svg?: string;
  /** Also list what herd7 would refuse (src/export/lint.ts). */
  herdCompatible?: boolean;
  /** Decide the verdict without counting every execution (explore/speedcheck.ts). */
  speedcheck?: boolean;
  /** How loops are read (program.ts WaitReading): exactly (the default), or unrolled as herd7 does. */
  waits?: WaitReading;
  /**
   * What the caller prints besides the one-line verdict (default: both):
   * herd7's block and the JSON result. A test with suite metadata always
   * gets its JSON result, which its folder's suite table reads. (Either
   * costs as much as the check itself on a test with 16,000 states.)
   */
  print?: { herd: boolean; json: boolean };
}

export interface FileReport {
  file: string;
  /** 0: matches or no Result:, 1: mismatch, 2: error. */
  status: 0 | 1 | 2;
  /** The error lines for stderr (`file:line:col: message`), and the same as data. */
  error?: string;
  errors?: JsonError[];
  herd?: string;
  human?: string;
  trace?: string;
  /** Where the pictures were written, if asked for and there is an execution to draw. */
  dot?: string;
  svg?: string;
  json?: JsonResult;
  meta?: SuiteMeta;
  /**
   * What herd7 would refuse or read otherwise: `file:line:col: herd7: ...`
   * lines with --herd-compatible, else one summary line when herd7 would
   * refuse the test (lint.ts refusalSummary).
   */
  herdWarnings?: string[];
}

/** A problem with an input, for --json: where (when known) and what. */
export interface JsonError {
  file: string;
  line?: number;
  col?: number;
  message: string;
}

/** A report for an input that could not be checked. */
export function failedReport(file: string, message: string, pos?: { line: number; col: number }): FileReport {
  const where = pos ? `${printable(file)}:${pos.line}:${pos.col}` : printable(file);
  return { file, status: 2, error: `${where}: ${printable(message)}`, errors: [{ file, ...pos, message }] };
}

/** A test's liveness verdict, for --json: with a hang, the thread that waits forever, its line, and what it keeps reading (a loop) or the lock it waits for. */
export interface LivenessJson {
  verdict: Liveness['verdict'];
  why?: string;
  hangs: number;
  thread?: number;
  kind?: Liveness['kind'];
  line?: number;
  reads?: { location: string; value: string }[];
  lock?: string;
  holder?: number;
  /** The summary line's words for it. */
  text: string;
}

export interface JsonResult {
  file: string;
  name: string;
  /** The header's `Key=Value` lines (diy7's Cycle=, Relax=, ...); a repeated key keeps its last value. */
  info: Record<string, string>;
  model: string;
  condition: string;
  observation: string;
  positive: number;
  negative: number;
  flags: string[];
  states: { bindings: Record<string, string>; count: number; positive: boolean }[];
  ok: boolean;
  expected?: string;
  expectsDataRace: boolean;
  matches?: boolean;
  judgement?: string;
  stats: CheckResult['stats'];
  /** With --speedcheck: positive, negative, states and flags cover only the executions built, not all. */
  countsSkipped?: boolean;
  /** For a test with waits (read exactly): whether some thread can wait forever (src/check.ts Liveness). */
  liveness?: LivenessJson;
  meta?: SuiteMeta;
  /** With --trace: the trace's text and the fix search's findings (for the condition, and, where a thread can wait forever, for the waits). */
  trace?: string;
  fixes?: TraceJson['fixes'];
  waitFixes?: TraceJson['fixes'];
}

/**
 * The model a run's options name: the one place where `check`'s model
 * options (and `history`'s, which are the same) become a Model.
 */
export function runModel(opts: Pick<RunOptions, 'model'>): { model: Model } | { error: string } {
  const model = getModel(opts.model);
  return model ? { model } : { error: unknownModelMessage(opts.model) };
}

/**
 * The primitive table of a run: the .def file its model spec names
 * (--macros, a .cfg's `macros` line, herd7's -macros), else
 * the built-in table (undefined); or the file's problems, positioned: a
 * malformed file, or, under a built-in model (which would silently ignore
 * it), a tag the LKMM does not have. A model compiled from .cat files
 * gives any tag its meaning.
 */
export function primitivesFor(opts: Pick<RunOptions, 'model'>, model: Model | undefined): { primitives?: PrimitiveTable; error?: MacroFileError } {
  const macros = specMacros(opts.model);
  if (macros === undefined) return {};
  try {
    const primitives = loadMacros(macros);
    const compiled = model !== undefined && 'compiled' in model;
    const unknown = compiled ? undefined : refuseUnknownTags(primitives);
    return unknown ? { error: unknown } : { primitives };
  } catch (e) {
    if (e instanceof MacroFileError) return { error: e };
    throw e;
  }
}

export async function runOne(file: string, opts: RunOptions): Promise<FileReport> {
  let text: string;
  try {
    text = readInputFile(file);
  } catch (e) {
    const limit = asLimit(e);
    return failedReport(file, limit ? limit.message : `cannot read: ${(e as Error).message}`);
  }
  const resolved = runModel(opts);
  if ('error' in resolved) return { ...failedReport(file, resolved.error), error: resolved.error };
  const { model } = resolved;
  const macros = primitivesFor(opts, model);
  if (macros.error) {
    const errors = [macros.error, ...(macros.error.others ?? [])].map((x) => ({ file: x.file, line: x.pos.line, col: x.pos.col, message: x.message }));
    return { file, status: 2, error: macros.error.format(), errors };
  }
  const primitives = macros.primitives;
  try {
    const wantTrace = opts.trace ?? false;
    const r = checkSource(text, {
      model,
      unroll: opts.unroll,
      maxExecutions: opts.maxExecutions,
      timeoutMs: opts.timeoutMs,
      keepWitnesses: wantTrace || opts.dot !== undefined || opts.svg !== undefined,
      speedcheck: opts.speedcheck ? 'decide' : undefined,
      primitives,
      waits: opts.waits,
    });
    const meta = suiteMeta(text);
    const status: 0 | 1 = r.matches === false ? 1 : 0;
    let trace: string | undefined;
    let traced: (TraceJson & { waits?: TraceJson['fixes'] }) | undefined;
    if (wantTrace) {
      const { traceWithWaits } = await import('../report/waits.js');
      traced = traceWithWaits(r, model, { tryFixes: true, limits: { maxExecutions: opts.maxExecutions, timeoutMs: opts.timeoutMs } });
      trace = traced.text;
    }
    const limits = { maxExecutions: opts.maxExecutions, timeoutMs: opts.timeoutMs };
    const pictures: { dot?: string; svg?: string } = {};
    for (const kind of ['dot', 'svg'] as const) {
      const dir = opts[kind];
      if (dir === undefined) continue;
      const picture = kind === 'dot'
        ? (await import('../report/dot.js')).dotForResult(r, model, limits)
        : (await import('../report/svg.js')).svgForResult(r, model, limits);
      if (!picture) continue;
      const path = join(dir, `${basename(file).replace(/\.litmus$/, '')}.${kind}`);
      try {
        writeFileAtomic(path, picture);
      } catch (e) {
        return failedReport(file, `the picture: ${(e as Error).message}`);
      }
      pictures[kind] = path;
    }
    // What herd7 would refuse: each construct with --herd-compatible, else one line when there is any.
    const { herdFindings, formatFindings, refusalSummary } = await import('../export/lint.js');
    const findings = herdFindings(r.program.test, text, primitives);
    const summary = refusalSummary(file, findings);
    const herdWarnings = opts.herdCompatible ? formatFindings(file, findings) : summary === undefined ? undefined : [summary];
    const print = opts.print ?? { herd: true, json: true };
    const herd = print.herd ? herdBlock(r) : undefined;
    const json = print.json || meta ? { ...toJson(file, r, meta), ...(traced && print.json ? { trace: traced.text, fixes: traced.fixes, waitFixes: traced.waits } : {}) } : undefined;
    return { file, status, herd, human: humanLine(r), trace, ...pictures, json, meta, herdWarnings };
  } catch (e) {
    if (e instanceof LitmusError) {
      const errors = [e, ...(e.others ?? [])].map((x) => ({ file, line: x.pos.line, col: x.pos.col, message: x.message }));
      return { file, status: 2, error: e.format(file), errors };
    }
    const limit = asLimit(e);
    if (limit) return failedReport(file, limit.message, limit.pos);
    // A model file that turns out, on this test, to ask what litmus cannot answer: its own position.
    if (e instanceof ModelError) return { file, status: 2, error: e.format(), errors: [{ file: e.pos.file, line: e.pos.line, col: e.pos.col, message: e.message }] };
    const msg = e instanceof Error ? e.message : String(e);
    const detail = process.env.LITMUS_DEBUG && e instanceof Error ? `\n${e.stack}` : '';
    return { ...failedReport(file, `internal error: ${msg} (please report it)`), error: `${file}: internal error: ${msg} (please report it)${detail}` };
  }
}

export function toJson(file: string, r: CheckResult, meta?: SuiteMeta): JsonResult {
  return {
    file,
    name: r.name,
    info: Object.fromEntries(r.program.test.info.map((i) => [i.key, i.value])),
    model: r.model,
    condition: r.condition,
    observation: r.observation,
    positive: r.positive,
    negative: r.negative,
    flags: r.flags,
    states: r.states.map((s) => ({ bindings: Object.fromEntries(s.bindings), count: s.count, positive: s.positive })),
    ok: r.ok,
    expected: r.expected,
    expectsDataRace: r.expectsDataRace,
    matches: r.matches,
    judgement: r.judgement,
    stats: r.stats,
    countsSkipped: r.speedcheck ? true : undefined,
    liveness: r.liveness && livenessJson(r.liveness),
    meta,
  };
}

export function livenessJson(l: Liveness): LivenessJson {
  return { verdict: l.verdict, why: l.why, hangs: l.hangs, thread: l.thread, kind: l.kind, line: l.pos?.line, reads: l.reads, lock: l.lock, holder: l.holder, text: livenessWords(l) };
}
