// One test under `litmus herd7`: herd7's output for it, or herd7-style
// warnings when it cannot be checked.

import { basename, join } from 'node:path';
import { checkTest, type CheckResult, type Observation } from '../check.js';
import { herdFindings, refusals, type Finding } from '../export/lint.js';
import { headerPredictsDataRace, parseLitmus } from '../parse/parser.js';
import { getModel } from '../../models/index.js';
import { primitivesFor } from './run-one.js';
import { asLimit, LitmusError, UnknownPrimitiveError } from '../parse/errors.js';
import { NO_PRIMITIVES } from '../events/primitives.js';
import { readInputBytes } from '../limits.js';
import { dotGraph } from '../report/dot.js';
import { witnessPictures } from '../report/graph.js';
import { herdBlock } from '../report/herd.js';
import { herdHashLines, HashError } from '../report/hash.js';
import type { HerdOptions, Speed } from './herd7-args.js';
import type { Model } from '../model/model.js';
import { ModelError } from '../../models/cat/lexer.js';
import { writeFileAtomic } from '../write-file.cjs';

export interface HerdTestOutput {
  /** What goes to stdout (empty when the test was skipped or failed). */
  output: string;
  /** Lines for stderr, each printed after "Warning: ". */
  warnings: string[];
  /** The test could not be checked. */
  failed: boolean;
  /** Set when a limit (-timeout, the candidate cap, the stack) stopped the check: which. */
  stopped?: 'timeout' | 'limit';
}

/** Names already checked in this run, with their hash (herd skips a repeated test). */
export type SeenTests = Map<string, { hash: string; file: string }>;

/** How `litmus history` runs a test: under the model it resolved, timed by the wall clock (a worker thread has no CPU clock of its own). */
export interface CheckOneHow {
  model?: Model;
  clock?: 'cpu' | 'wall';
}

export function checkOne(file: string, opts: HerdOptions, seen: SeenTests, how: CheckOneHow = {}): HerdTestOutput {
  const where = `File "${file}"`;
  const failure = (msg: string): HerdTestOutput => ({ output: '', warnings: [`${where}${msg}`], failed: true });
  let bytes: Buffer;
  try {
    bytes = readInputBytes(file);
  } catch (e) {
    const limit = asLimit(e);
    return failure(limit ? `: ${limit.message}` : `: cannot read it: ${(e as Error).message} (User error)`);
  }
  const model = how.model ?? getModel(opts.model)!;
  // The -macros file (or the -conf's macros line), read once per run; its problems were reported before any test (herd7Main).
  const macros = herdPrimitives(opts, model);
  if (macros.error) return failure(`: ${macros.error.format()}`);
  const primitives = macros.primitives;
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  let r: CheckResult;
  try {
    const text = bytes.toString('utf8');
    const test = parseLitmus(text);
    // What herd7 refuses, refused here as herd7 refuses it.
    // (An unknown primitive is left to the check, whose message names the closest one.)
    const refused = refusals(herdFindings(test, text, primitives)).filter((f) => !f.message.startsWith('unknown primitive'));
    if (refused.length) return { output: '', warnings: refused.map((f) => herdRefusal(file, f)), failed: true };
    r = checkTest(test, {
      model,
      unroll: opts.unroll,
      // Loops unrolled as herd7 unrolls them, every one.
      waits: 'unrolled',
      ...herdLimits(opts),
      keepWitnesses: opts.outDir !== undefined && opts.show === 'prop',
      // -nshow: herd stops a test once it has shown that many executions; -show prop shows those satisfying the condition (none shows none).
      stopAfterPositive: opts.show === 'prop' ? opts.nshow : undefined,
      // Condition-directed: only the executions the condition looks for are built (speedView shows them).
      speedcheck: opts.speedcheck === 'false' ? undefined : opts.speedcheck,
      primitives,
    }, { t0: performance.now(), expectsDataRace: headerPredictsDataRace(text) });
  } catch (e) {
    if (e instanceof LitmusError) return { output: '', warnings: primitives === NO_PRIMITIVES ? noMacroCall(file, e) : userErrors(file, e), failed: true };
    const limit = asLimit(e);
    if (limit) return { ...failure(`: ${limit.message}`), stopped: limit.timedOut ? 'timeout' : 'limit' };
    if (e instanceof ModelError) return { output: '', warnings: [e.format()], failed: true };
    return failure(`: internal error: ${e instanceof Error ? e.message : String(e)} (please report it)`);
  }
  const cpu = process.cpuUsage(cpu0);
  let hashLines: string[];
  const warnings: string[] = [];
  try {
    hashLines = herdHashLines(bytes);
  } catch (e) {
    if (!(e instanceof HashError)) throw e;
    hashLines = [];
    warnings.push(`${where}: no Hash= line: ${e.message}`);
  }
  const hash = hashLines[0] ?? '';
  const name = r.name.replace(/\.litmus$/, '');
  const before = seen.get(name);
  if (before) {
    if (before.hash === hash) return { output: '', warnings, failed: false };
    return failure(`: Different hashes for test ${name} (previous file ${before.file}) (User error)`);
  }
  seen.set(name, { hash, file });
  if (r.stats.cutPaths && opts.speedcheck === 'false') warnings.push(`${where}: unrolling limit exceeded at While, legal outcomes may be missing.`);
  if (opts.outDir !== undefined) {
    const dot = join(opts.outDir, `${basename(file).replace(/\.litmus$/, '')}.dot`);
    try {
      writeFileAtomic(dot, opts.show === 'prop' ? pictureOfProp(r) : '');
    } catch (e) {
      return failure(`: ${(e as Error).message}`);
    }
  }
  const seconds = how.clock === 'wall' ? (performance.now() - wall0) / 1000 : (cpu.user + cpu.system) / 1e6;
  const lines = [herdBlock(speedView(r, opts.speedcheck)), `Time ${name} ${seconds.toFixed(2)}`, ...hashLines, '', ''];
  return { output: lines.join('\n'), warnings, failed: false };
}

/**
 * A test's limits under herd7's options. herd7 has no candidate cap: with
 * -timeout the time is the only limit; without it, litmus's cap (check's
 * default) stops a runaway test.
 */
export function herdLimits(opts: Pick<HerdOptions, 'timeoutMs'>): { timeoutMs?: number; maxExecutions?: number } {
  return opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs, maxExecutions: Infinity } : { timeoutMs: undefined, maxExecutions: undefined };
}

/**
 * The primitives a test may call under herd7's options: a model named
 * without a macros file leaves herd7's C with none (every kernel primitive
 * is then a call herd7 cannot run); otherwise the -macros file's, or the
 * built-in table.
 */
export function herdPrimitives(opts: HerdOptions, model: Model): ReturnType<typeof primitivesFor> {
  const f = opts.modelFiles;
  if (f.cat !== undefined && f.cat.endsWith('.cat') && f.macros === undefined) return { primitives: NO_PRIMITIVES };
  return primitivesFor({ model: opts.model }, model);
}

/**
 * herd7 with no macros file stops a test at its first kernel primitive, with
 * a warning and no block: "Procedure call" for a statement, "Macro call" for
 * a value. Other errors are worded as in userErrors.
 */
function noMacroCall(file: string, e: LitmusError): string[] {
  const first = [e, ...(e.others ?? [])].find((x) => x instanceof UnknownPrimitiveError);
  if (!(first instanceof UnknownPrimitiveError)) return userErrors(file, e);
  return [`File "${file}": ${first.statement ? 'Procedure' : 'Macro'} call ${first.primitive} in CSem [${file}:${first.pos.line}:${first.pos.col}: no macros file (-macros, or a macros line in the -conf file) defines ${first.primitive}]`];
}

/**
 * herd's messages for errors in a test; an unknown primitive is herd's
 * "Unknown macro", once per name (at its first use), as herd names it once:
 * judgelitmus.sh joins these lines into its "does not know" message.
 */
function userErrors(file: string, e: LitmusError): string[] {
  const named = new Set<string>();
  const lines: string[] = [];
  for (const x of [e, ...(e.others ?? [])]) {
    const unknown = x instanceof UnknownPrimitiveError ? x.primitive : undefined;
    if (unknown === undefined) lines.push(`File "${file}", line ${x.pos.line}, character ${x.pos.col - 1}: ${x.message} (User error)`);
    else if (!named.has(unknown)) {
      named.add(unknown);
      lines.push(`File "${file}": Unknown macro ${unknown} (User error) [${file}:${x.pos.line}:${x.pos.col}: ${x.message}]`);
    }
  }
  return lines;
}

/** herd7's message for a construct it refuses (lint.ts): a macro it lacks is its "Unknown macro". */
function herdRefusal(file: string, f: Finding): string {
  const macro = /^herd7 refuses (\w+)\(\) as a statement|^(\w+) is not in herd7's linux-kernel\.def/.exec(f.message);
  const where = `${file}:${f.pos.line}:${f.pos.col}: ${f.message}`;
  if (macro) return `File "${file}": Unknown macro ${macro[1] ?? macro[2]} (User error) [${where}]`;
  return `File "${file}", line ${f.pos.line}, character ${f.pos.col - 1}: ${f.message} (User error)`;
}

/** Executions that satisfy the proposition, one per final state, as Graphviz graphs; empty when none does (as herd). */
function pictureOfProp(r: CheckResult): string {
  return witnessPictures(r).map(dotGraph).join('\n');
}

/**
 * herd7's -speedcheck: only the executions the condition looks for are kept
 * (those satisfying it for exists and ~exists, those violating it for
 * forall), and `fast` stops at the first. herd7 (7.58) then judges the
 * Observation from these counts. The search itself only builds those
 * (explore/speedcheck.ts); this keeps the same view of an exhaustive result.
 */
export function speedView(r: CheckResult, speed: Speed): CheckResult {
  if (speed === 'false') return r;
  const wantPositive = r.quantifier !== 'forall';
  let states = r.states.filter((s) => s.positive === wantPositive);
  if (speed === 'fast') states = states.slice(0, 1).map((s) => ({ ...s, count: 1 }));
  const count = states.reduce((n, s) => n + s.count, 0);
  const positive = wantPositive ? count : 0;
  const negative = wantPositive ? 0 : count;
  const observation: Observation = positive === 0 ? 'Never' : negative === 0 ? 'Always' : 'Sometimes';
  const q = r.quantifier;
  const ok = q === 'exists' ? positive > 0 : q === 'forall' ? negative === 0 : positive === 0;
  // Which cut executions the condition looks for is not tracked: no "Loop" here.
  const stats = { ...r.stats, cutPaths: 0 };
  return { ...r, states, positive, negative, observation, ok, stats };
}
