// A cat model as a litmus Model: the files read and compiled once
// (models/cat/compile.ts), then judged per candidate (models/cat/evaluate.ts).
//
// The load-buffering shortcut (Model.mayCycleThrough) is derived from the
// model's own checks (models/cat/derive-load-buffering.ts: a cycle that is
// a cycle of an acyclic check's relation is dropped). The lock order of
// critical sections (Model.lockOrders, models/cat/lock-order.ts) is still
// declared where the model's own checks include the kernel's that it is
// proved from, recognised by digest; otherwise every lock order is
// explored. Partial
// executions are judged by the checks that can only grow as the execution
// is built (models/cat/monotone.ts decides which, from the definitions).
// A candidate (or partial execution) that is an interleaving of the
// program-order edges the checks need skips the checks derived for it
// from the definitions (models/cat/derive-interleaving.ts, per event
// structure): only its flags and the other checks are computed.

import { isAbsolute, relative } from 'node:path';
import type { Event } from '../../src/events/event.js';
import type { Execution } from '../../src/model/execution.js';
import { effectOf } from '../../src/events/primitives.js';
import type { Program } from '../../src/program/program.js';
import type { Highlight, Model, Verdict, WaitingRead } from '../../src/model/model.js';
import { lasting, scratch } from '../../src/relation/relation.js';
import { findsInterleaving } from '../interleaving.js';
import { Bounds, BoundsModel, structureFacts } from './bounds.js';
import { deriveInterleaving, type InterleavingRule } from './derive-interleaving.js';
import type { CatExpr } from './ast.js';
import { fingerprintOf, type CompiledCat } from './compile.js';
import { compileCatCached } from './cache.js';
import { LIBRARY } from './library.js';
import { CatCode } from './code.js';
import { StructureRun } from './evaluate.js';
import { lockOrdersOf } from './lock-order.js';
import { mayCycleThroughOf } from './derive-load-buffering.js';
import { latestReadKeepsConsistency as deriveLatestRead } from './derive-latest-read.js';
import { prefixSafeChecks } from './monotone.js';
import { impliesCoherence } from './implied.js';
import { fileSource, readModelText, type ModelFiles } from './files.js';
import { ModelError } from './lexer.js';
import { typecheck } from './typecheck.js';

/** How many candidates of a structure are judged in full before its interleaving rule is derived (see compileModelFiles). */
const RULE_AFTER = 16;

/** A compiled model and what it was compiled from. */
export interface CatModel extends Model {
  compiled: CompiledCat;
  files: ModelFiles;
  /** The checks (instruction indexes) that judge partial executions of a program too. */
  prefixSafeFor(p: Program): ReadonlySet<number>;
  /** How often the derived shortcuts were taken (for tests and the bench): candidates and prefixes judged with checks skipped. */
  readonly shortcutCounts: { rules: number; interleavings: number; always: number };
}

/** Where the files' includes are found (herd's library folders last, litmus's own library files in place of herd's). */
function sourceOf(files: ModelFiles) {
  return fileSource(files.searchDirs, files.besideIncluder ?? false, files.libraryDirs, new Set(Object.keys(LIBRARY)));
}

/** The files read first: the bell, then the cat. */
function mainFiles(files: ModelFiles): { path: string; text: string }[] {
  return [...(files.bell ? [files.bell] : []), files.cat].map((path) => ({ path, text: readModelText(path) }));
}

/** A model of files as its name and description say it: the cat's title, the cat and the bell. */
export function describeFiles(files: ModelFiles, title: string | undefined): string {
  return `${title ? `"${title}": ` : ''}${displayPath(files.cat)}${files.bell ? ` with ${displayPath(files.bell)}` : ''}`;
}

/** The name a model of files is known by in output. */
export const filesModelName = (files: ModelFiles): string => displayPath(files.cat);

/**
 * What the files say, digested without compiling them (models/cat/compile.ts
 * fingerprintOf), with the model's title; undefined when they cannot be
 * read as far as that (compiling them then says why).
 */
export function fingerprintOfFiles(files: ModelFiles): { fingerprint: string; title?: string; files: string[] } | undefined {
  try {
    return fingerprintOf(mainFiles(files), sourceOf(files), new Set(files.variants));
  } catch (e) {
    if (e instanceof ModelError) return undefined;
    throw e;
  }
}

/**
 * Compiles the model the files describe (or takes it from the cache of
 * compiled models, models/cat/cache.ts: `known` is the files' fingerprint
 * when the caller has it); throws ModelError (positioned) if they cannot be
 * read. `tuning.ruleAfter`: how many candidates of a structure are judged in
 * full before its shortcuts are derived (tests derive them at once, to
 * compare them with unpruned runs on small programs).
 */
export function compileModelFiles(files: ModelFiles, tuning: { ruleAfter?: number } = {}, known?: ReturnType<typeof fingerprintOfFiles>): CatModel {
  const ruleAfter = tuning.ruleAfter ?? RULE_AFTER;
  const mains = mainFiles(files);
  const variants = new Set(files.variants);
  // Refused before any test, as herd7 refuses it: a type error anywhere (models/cat/typecheck.ts); only a model
  // that passes is kept in the cache, so one read from there has passed.
  const compiled = compileCatCached(mains, sourceOf(files), variants, known, (c) => typecheck(c, variants));
  refuseLegacyEvents(compiled, variants);
  const opts = { variants, skipChecks: new Set(files.skipChecks) };
  // Which checks judge prefixes depends on which sets the program can produce (lock operations).
  const safeByProgram = new WeakMap<Program, ReadonlySet<number>>();
  const prefixSafeFor = (p: Program) => {
    let safe = safeByProgram.get(p);
    if (!safe) safeByProgram.set(p, (safe = prefixSafeChecks(compiled, absentSets(p))));
    return safe;
  };
  const code = new CatCode();
  const coherenceImplied = impliesCoherence(compiled, opts.skipChecks);
  const runs = new WeakMap<object, StructureRun>();
  const runOf = (x: Execution) => {
    let r = runs.get(x.structure);
    if (!r) runs.set(x.structure, (r = new StructureRun(compiled, code, x, opts, prefixSafeFor(x.program))));
    return r;
  };
  // Per structure, the interleaving shortcut derived from the definitions (models/cat/derive-interleaving.ts),
  // once the structure has been judged RULE_AFTER times (deriving it costs about as much as judging a few dozen candidates).
  const rules = new WeakMap<object, InterleavingRule | null | number>();
  const counts = { rules: 0, interleavings: 0, always: 0 };
  const latestRead: (boolean | undefined)[] = [];
  const boundsModel = new BoundsModel(compiled);
  const ruleOf = (x: Execution): InterleavingRule | null => {
    const r = rules.get(x.structure) ?? 0;
    if (typeof r !== 'number') return r;
    if (r < ruleAfter) {
      rules.set(x.structure, r + 1);
      return null;
    }
    const run = runOf(x);
    counts.rules++;
    const rule = lasting(() => deriveInterleaving(compiled, new Bounds(boundsModel, run.staticEval(), structureFacts(x), variants), opts.skipChecks)) ?? null;
    rules.set(x.structure, rule);
    return rule;
  };
  // Decided when the explorer first asks (a digest of the checks, a few ms).
  let lockOrders: ((a: Event, b: Event) => boolean) | undefined;
  let mayCycle: ((reads: readonly WaitingRead[]) => boolean) | undefined;
  const judge = (x: Execution, prefix: boolean, shortcuts: boolean): Verdict => {
    const v = scratch(() => {
      const run = runOf(x);
      // An interleaving of the order the checks need passes the checks derived for it: only the rest are computed.
      const rule = shortcuts ? ruleOf(x) : null;
      if (!rule) return run.check(x, prefix);
      if (rule.shape && findsInterleaving(x, rule.shape)) {
        counts.interleavings++;
        return run.check(x, prefix, prefix ? rule.prefix : rule.whole);
      }
      counts.always++;
      return run.check(x, prefix, rule.always);
    });
    return { consistent: v.consistent, violated: v.violated, flags: v.flags };
  };
  return {
    name: filesModelName(files),
    description: describeFiles(files, compiled.title),
    compiled,
    files,
    // The kernel's shortcuts where the model enforces the checks they are proved from (see the header).
    mayCycleThrough: (reads) => (mayCycle ??= mayCycleThroughOf(compiled, variants, opts.skipChecks, coherenceImplied))(reads),
    lockOrders: (a, b) => (lockOrders ??= lockOrdersOf(compiled, opts.skipChecks))(a, b),
    // Coherence and atomicity are this model's to judge (the explorer then builds incoherent candidates
    // too), unless its own checks reject every candidate the explorer's filter drops (models/cat/implied.ts).
    judgesCoherence: (p: Program) => usesSpinlocks(p) || !coherenceImplied,
    prefixSafeFor,
    shortcutCounts: counts,
    // A read of the last write, its thread's last event, gains no edge a prefix check can see (models/cat/derive-latest-read.ts).
    latestReadKeepsConsistency: (p: Program) => {
      const key = usesSpinlocks(p) ? 1 : 0;
      return (latestRead[key] ??= deriveLatestRead(compiled, variants, absentSets(p)));
    },
    check(x: Execution, o?: { prefix?: boolean; axiomsOnly?: boolean }): Verdict {
      // A prefix is judged only by the checks that can only grow with it (models/cat/monotone.ts).
      if (o?.prefix && prefixSafeFor(x.program).size === 0) return { consistent: true, flags: [] };
      return judge(x, o?.prefix ?? false, !o?.axiomsOnly);
    },
    explain(x: Execution, axiom: string): Highlight | undefined {
      return scratch(() => explainCheck(compiled, runOf(x), x, axiom));
    },
  };
}

/**
 * Without the variant lkmmv2, herd7 builds its legacy LKMM events (explicit
 * fences around fully ordered RMWs, the .def's tags ignored): litmus builds
 * lkmmv2's only, so a model that tests for lkmmv2 (the kernel's bell) is
 * refused without it rather than answered with other events.
 */
function refuseLegacyEvents(compiled: CompiledCat, variants: ReadonlySet<string>): void {
  const at = compiled.variantsTested.get('lkmmv2');
  if (!at || variants.has('lkmmv2')) return;
  throw new ModelError(
    'this model tests the variant lkmmv2, which is not set: without it herd7 builds its legacy LKMM events (explicit fences around fully ordered RMWs, the .def\'s tags ignored), which litmus does not; give the variant lkmmv2 (-variant lkmmv2, --variant lkmmv2; the kernel\'s linux-kernel.cfg sets it)',
    at,
  );
}

/** The base sets a program's code never produces: lock.cat's events, in a test that takes no lock. */
function absentSets(p: Program): Set<string> {
  return new Set(usesSpinlocks(p) ? [] : ['LKR', 'LKW', 'UL', 'LF', 'RL', 'RU']);
}

/** Whether a program's code takes, releases or tests a spinlock. */
function usesSpinlocks(p: Program): boolean {
  return p.threads.some((t) => t.code.some((i) => i.op === 'prim' && effectOf(i.prim).object === 'spinlock'));
}

/** The cycle (or offending pair) of the named check, for a forbidden candidate. */
function explainCheck(compiled: CompiledCat, run: StructureRun, x: Execution, axiom: string): Highlight | undefined {
  const test = compiled.instrs.map((c) => c.instr).find((i) => i.kind === 'test' && i.role === 'check' && (i.name ?? i.test) === axiom);
  if (!test || test.kind !== 'test') return undefined;
  const rel = run.relationOf(x, test.expr);
  if (!rel) return undefined;
  const name = relationName(test.expr) ?? axiom;
  if (test.test === 'acyclic') {
    const edges = rel.cycle();
    return edges ? { name, edges, labels: edges.map(() => name) } : undefined;
  }
  const pairs = rel.pairs();
  const shown = test.test === 'irreflexive' ? pairs.filter(([a, b]) => a === b) : pairs;
  return shown.length > 0 ? { name, edges: shown.slice(0, 4), labels: shown.slice(0, 4).map(() => name) } : undefined;
}

/** A file as messages name it: relative to the current folder when inside it. */
function displayPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r && !r.startsWith('..') && !isAbsolute(r) ? r : p;
}

function relationName(e: CatExpr): string | undefined {
  return e.kind === 'var' ? e.name : undefined;
}

export { ModelError };
