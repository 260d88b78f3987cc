// A cat model as a litmus Model: the files read and compiled once
// (models/cat/compile.ts), then judged per candidate (models/cat/evaluate.ts).
//
// The explorer's pruning is derived from the model's own definitions, for
// whatever model is loaded (nothing is chosen by what the files' text is):
// the load-buffering shortcut (Model.mayCycleThrough,
// models/cat/derive-load-buffering.ts: a cycle that is a cycle of an
// acyclic check's relation is dropped), the lock order of critical
// sections (Model.lockOrders, models/cat/derive-lock-order.ts: b before a
// closes a cycle of an acyclic check's relation), the reads that need no
// prefix check (models/cat/derive-latest-read.ts), the sources a read may
// not take because its read-side section would straddle a grace period
// (Model.forbiddenSources, models/cat/derive-rcu-reads.ts). Partial
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
import type { Pos } from '../../src/parse/ast.js';
import type { FlagFinding, Highlight, Model, Ordering, Verdict, WaitingRead } from '../../src/model/model.js';
import { lasting, scratch } from '../../src/relation/relation.js';
import { findsInterleaving } from '../interleaving.js';
import { Bounds, BoundsModel, structureFacts } from './bounds.js';
import { deriveInterleaving, type InterleavingRule } from './derive-interleaving.js';
import { fingerprintOf, tagSetName, type CompiledCat } from './compile.js';
import { ANNOTS, LOCK_KINDS } from '../../src/events/event.js';
import { cachedModel, DerivedFacts } from './cache.js';
import { LIBRARY } from './library.js';
import { CatCode } from './code.js';
import { StructureRun } from './evaluate.js';
import { JudgeCompiler, type StagedJudge } from './generate.js';
import { DagExecutor } from './execute.js';
import type { StagedModel } from './stage.js';
import { Unsupported } from './values.js';
import { lockOrdersOf } from './derive-lock-order.js';
import { mayCycleThroughOf } from './derive-load-buffering.js';
import { latestReadKeepsConsistency as deriveLatestRead } from './derive-latest-read.js';
import { prefixSafeChecks } from './monotone.js';
import { coherenceJudgedAt, impliesCoherence } from './implied.js';
import { deriveSectionRule, sectionForbiddenSources, sectionRuleFromJson, sectionRuleToJson, type SectionRule } from './derive-rcu-reads.js';
import { fileSource, readModelText, type ModelFiles } from './files.js';
import { ModelError } from './lexer.js';
import { Explainer, type ExplainSource } from './explain.js';
import { typecheck } from './typecheck.js';

/** The modules that derive the facts kept on disk (DerivedFacts: prefix-safe checks, latest-read consistency, the checks a part of an execution proves failed, implied coherence). */
const DERIVED_BY = ['monotone.js', 'derive-latest-read.js', 'derive-rcu-reads.js', 'implied.js', 'model.js'];

/** How many candidates of a structure are judged in full before its interleaving rule is derived (see compileModelFiles). */
const RULE_AFTER = 16;

/** A compiled model and what it was compiled from. */
export interface CatModel extends Model {
  compiled: CompiledCat;
  files: ModelFiles;
  /** The checks (instruction indexes) that judge partial executions of a program too. */
  prefixSafeFor(p: Program): ReadonlySet<number>;
  /** Whether a definition (any of that name) or base relation `name` holds a -> b on x: what an explanation's step so labelled claims. */
  holds(x: Execution, name: string, a: number, b: number): boolean;
  /** How often the derived shortcuts were taken (for tests and the bench): candidates and prefixes judged with checks skipped. */
  readonly shortcutCounts: { rules: number; interleavings: number; always: number };
  /** How many event structures were given a staged judge, and how many times the model was staged for them (structures of one shape share one: stagedKey). */
  readonly stagings: { structures: number; staged: number };
  /** Drops the staged models kept by shape of structure (the start-up snapshot need not keep its warm-up's: src/cli/herd7-snapshot.ts). */
  forgetShapes(): void;
  /**
   * Judges a candidate (a prefix: `prefix`) without the top-level
   * instructions in `skip` (checks and withs, by index into compiled.instrs),
   * as for a candidate a shortcut has shown to pass them; the rest, flags
   * included, as check does. The set is kept by identity: pass the same one.
   */
  judgeSkipping(x: Execution, prefix: boolean, skip: ReadonlySet<number>): Verdict;
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
 * How candidates are judged: `tiered` (the default) runs each structure's
 * staged graph (models/cat/execute.ts), then its generated code once the
 * structure has judged GENERATE_AFTER candidates; the others take one way
 * only (for tests comparing them): the evaluator of the model's syntax, the
 * graph, the generated code.
 */
export type JudgeTier = 'tiered' | 'evaluator' | 'graph' | 'code';

/**
 * Compiles the model the files describe (or takes it from the cache of
 * compiled models, models/cat/cache.ts: `known` is the files' fingerprint
 * when the caller has it); throws ModelError (positioned) if they cannot be
 * read. `tuning.ruleAfter`: how many candidates of a structure are judged in
 * full before its shortcuts are derived (tests derive them at once, to
 * compare them with unpruned runs on small programs); `tuning.tier`: how
 * candidates are judged (JudgeTier).
 */
export function compileModelFiles(files: ModelFiles, tuning: { ruleAfter?: number; tier?: JudgeTier } = {}, known?: ReturnType<typeof fingerprintOfFiles>): CatModel {
  const ruleAfter = tuning.ruleAfter ?? RULE_AFTER;
  const tier = tuning.tier ?? 'tiered';
  const mains = mainFiles(files);
  const variants = new Set(files.variants);
  // Refused before any test, as herd7 refuses it: a type error anywhere (models/cat/typecheck.ts); only a model
  // that passes is kept in the cache, so one read from there has passed.
  const { compiled, key: cacheKey } = cachedModel(mains, sourceOf(files), variants, known, (c) => typecheck(c, variants));
  // What is derived per kind of program is kept beside the compiled model, for the next process (models/cat/cache.ts).
  const facts = new DerivedFacts(cacheKey, DERIVED_BY);
  const legacy = buildsLegacyEvents(compiled, variants);
  const opts = { variants, skipChecks: new Set(files.skipChecks) };
  // Which checks judge prefixes depends on which sets the program can produce (lock operations, RCU's fences, ...).
  const absentOf = new WeakMap<Program, { key: string; sets: Set<string> }>();
  const absent = (p: Program) => {
    let a = absentOf.get(p);
    if (!a) {
      const sets = absentSets(p, compiled);
      absentOf.set(p, (a = { key: [...sets].sort().join(','), sets }));
    }
    return a;
  };
  const safeByAbsent = new Map<string, ReadonlySet<number>>();
  const prefixSafeFor = (p: Program) => {
    const a = absent(p);
    let safe = safeByAbsent.get(a.key);
    if (!safe) {
      const stored = facts.get('prefix-safe', a.key);
      if (Array.isArray(stored) && stored.every((i) => Number.isInteger(i))) safe = new Set(stored as number[]);
      else facts.set('prefix-safe', a.key, [...(safe = prefixSafeChecks(compiled, a.sets))]);
      safeByAbsent.set(a.key, safe);
    }
    return safe;
  };
  const code = new CatCode();
  // Kept with the derived facts under the checks skipped, which it depends on.
  const skipped = [...opts.skipChecks].sort().join(',');
  const stored = facts.get('implies-coherence', skipped);
  const coherenceImplied = typeof stored === 'boolean' ? stored : impliesCoherence(compiled, opts.skipChecks);
  if (stored !== coherenceImplied) facts.set('implies-coherence', skipped, coherenceImplied);
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
  const latestRead = new Map<string, boolean>();
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
  // Per absent-set key: the checks a part of an execution proves failed, for sources forbidden at a read (models/cat/derive-rcu-reads.ts).
  const sectionRules = new Map<string, SectionRule | undefined>();
  const sectionRuleOf = (p: Program) => {
    const a = absent(p);
    const key = `${a.key}|${[...opts.skipChecks].sort().join(',')}`;
    if (!sectionRules.has(key)) {
      const stored = sectionRuleFromJson(facts.get('section-rule', key));
      if (stored !== undefined) sectionRules.set(key, stored ?? undefined);
      else {
        const rule = deriveSectionRule(compiled, a.sets, opts.skipChecks);
        facts.set('section-rule', key, sectionRuleToJson(rule));
        sectionRules.set(key, rule);
      }
    }
    return sectionRules.get(key);
  };
  // Derived when the explorer first asks (from the checks, a few ms).
  let lockOrders: ((a: Event, b: Event, p?: Program) => boolean) | undefined;
  let mayCycle: ((reads: readonly WaitingRead[], p?: Program) => boolean) | undefined;
  const explainSource: ExplainSource = { cat: compiled, skipChecks: opts.skipChecks, where: (pos) => `${displayPath(pos.file)}:${pos.line}` };
  const explainerOf = (x: Execution) => new Explainer(explainSource, x, runOf(x).valuesOf(x, { lenient: true }));
  // Each structure's staged model and its generated judge (models/cat/stage.ts, generate.ts), or null
  // where the model cannot be staged (the evaluator judges those candidates).
  // Structures of the same events (another test's, or the same test's again: stagedKey) share them: a model
  // is staged once per shape of structure, not once per structure.
  const compiler = new JudgeCompiler();
  const judges = new WeakMap<object, StructureJudge | null>();
  const byShape = new Map<string, StructureJudge | null>();
  const stagings = { structures: 0, staged: 0 };
  const judgeOf = (x: Execution) => {
    let j = judges.get(x.structure);
    if (j === undefined) {
      stagings.structures++;
      const safe = prefixSafeFor(x.program);
      const observed = observedLocations(x.program);
      const key = tier === 'evaluator' ? undefined : stagedKey(x, safe, observed);
      j = key === undefined ? undefined : byShape.get(key);
      if (j === undefined) {
        if (key !== undefined) stagings.staged++;
        const staged = key === undefined ? undefined : runOf(x).stage(x);
        j = !staged || staged instanceof Unsupported ? null : structureJudge(staged, tieredJudge(compiler, staged, safe, observed, tier));
        if (key !== undefined) {
          // The shape staged longest ago goes first.
          if (byShape.size >= MAX_SHAPES) byShape.delete(byShape.keys().next().value!);
          byShape.set(key, j);
        }
      }
      judges.set(x.structure, j);
    }
    return j;
  };
  /** A candidate judged without the instructions in skip (checks and withs shown to pass), the rest as usual. */
  const judgeSkipping = (x: Execution, prefix: boolean, skip?: ReadonlySet<number>): Verdict => {
    const j = judgeOf(x);
    if (!j) {
      const v = scratch(() => runOf(x).check(x, prefix, skip));
      return { consistent: v.consistent, violated: v.violated, flags: v.flags };
    }
    const failed = j.judge.run(x, prefix, skip ? j.skipMask(skip) : null);
    if (failed < 0) {
      if (prefix) return { consistent: true, flags: [] };
      const raised = j.judge.flags();
      const known = skip ? j.staged.staticFlags.filter((f) => !skip.has(f.instr)) : j.staged.staticFlags;
      if (raised.length === 0 && known.length === 0) return { consistent: true, flags: [] };
      return { consistent: true, flags: [...new Set([...known.map((f) => f.name), ...raised.map((k) => j.staged.flags[k].name)])].sort() };
    }
    const step = j.staged.steps[failed];
    if (step.kind === 'with') return { consistent: prefix, violated: prefix ? undefined : `with ${step.name}`, flags: [] };
    return { consistent: false, violated: step.kind === 'error' ? undefined : step.violated, flags: [] };
  };
  const judge = (x: Execution, prefix: boolean, shortcuts: boolean): Verdict => {
    // An interleaving of the order the checks need passes the checks derived for it: only the rest are computed.
    const rule = shortcuts ? ruleOf(x) : null;
    if (!rule) return judgeSkipping(x, prefix);
    if (rule.shape && scratch(() => findsInterleaving(x, rule.shape!))) {
      counts.interleavings++;
      return judgeSkipping(x, prefix, prefix ? rule.prefix : rule.whole);
    }
    counts.always++;
    return judgeSkipping(x, prefix, rule.always);
  };
  return {
    name: filesModelName(files),
    description: describeFiles(files, compiled.title),
    compiled,
    files,
    // The kernel's shortcuts where the model enforces the checks they are proved from (see the header).
    mayCycleThrough: (reads, p) => (mayCycle ??= mayCycleThroughOf(compiled, variants, opts.skipChecks, coherenceImplied))(reads, p),
    lockOrders: (a, b, p) => (lockOrders ??= lockOrdersOf(compiled, variants, opts.skipChecks, coherenceImplied))(a, b, p),
    // Coherence and atomicity are this model's to judge (the explorer then builds incoherent candidates
    // too), unless its own checks reject every candidate the explorer's filter drops (models/cat/implied.ts):
    // then only at the locations of locks.
    judgesCoherence: (p: Program) => !coherenceImplied || coherenceJudgedAt(p),
    refuses: legacy ? legacyRefusal : undefined,
    prefixSafeFor,
    shortcutCounts: counts,
    stagings,
    forgetShapes: () => byShape.clear(),
    // A read of the last write, its thread's last event, gains no edge a prefix check can see (models/cat/derive-latest-read.ts).
    latestReadKeepsConsistency: (p: Program) => {
      const a = absent(p);
      let known = latestRead.get(a.key);
      if (known === undefined) {
        const stored = facts.get('latest-read', a.key);
        if (typeof stored === 'boolean') known = stored;
        else facts.set('latest-read', a.key, (known = deriveLatestRead(compiled, variants, a.sets)));
        latestRead.set(a.key, known);
      }
      return known;
    },
    judgeSkipping: (x, prefix, skip) => judgeSkipping(x, prefix, skip),
    // A read whose source would have a read-side section straddle a grace period, by the model's own checks on a part of the execution.
    forbiddenSources(p: Program) {
      const rule = sectionRuleOf(p);
      return rule && sectionForbiddenSources(p, rule, (x, skip) => judgeSkipping(x, false, skip));
    },
    check(x: Execution, o?: { prefix?: boolean; axiomsOnly?: boolean }): Verdict {
      // A prefix is judged only by the checks that can only grow with it (models/cat/monotone.ts).
      if (o?.prefix && prefixSafeFor(x.program).size === 0) return { consistent: true, flags: [] };
      return judge(x, o?.prefix ?? false, !o?.axiomsOnly);
    },
    explain(x: Execution, axiom: string): Highlight | undefined {
      return scratch(() => explainerOf(x).explain(axiom));
    },
    orderOf(x: Execution, a: number, b: number): Ordering | undefined {
      return scratch(() => explainerOf(x).orderOf(a, b));
    },
    flagged(x: Execution, flag: string): FlagFinding | undefined {
      return scratch(() => explainerOf(x).flagged(flag));
    },
    holds(x: Execution, name: string, a: number, b: number): boolean {
      return scratch(() => explainerOf(x).holds(name, a, b));
    },
    preserved(x: Execution): [number, number][] {
      return scratch(() => preservedOf(explainerOf(x), compiled, x));
    },
  };
}

/**
 * The pairs of program order the model keeps in order on their CPU, for
 * pictures: its definition named ppo (herd's name for preserved program
 * order), restricted to program order; else every pair of accesses of a
 * thread that one of its acyclic checks holds.
 */
function preservedOf(ex: Explainer, compiled: CompiledCat, x: Execution): [number, number][] {
  const { po } = x.rel;
  const M = x.sets.M;
  let ppo: number | undefined;
  compiled.slots.forEach((s, i) => {
    if (s.name === 'ppo' && s.instr >= 0) ppo = i;
  });
  const r = ppo !== undefined ? ex.slotRelation(ppo) : null;
  if (r) return r.and(po).restrict(M, M).pairs();
  return po.restrict(M, M).pairs().filter(([a, b]) => ex.keepsDirectly(a, b));
}

/**
 * Without the variant lkmmv2, herd7 builds its legacy LKMM events for
 * read-modify-writes (lkmmv1: explicit smp_mb() fences around a fully
 * ordered one, its accesses ONCE, a failed cmpxchg's read ONCE, a
 * non-returning atomic op's read NORETURN) and the bell of the kernel,
 * which tests lkmmv2, raises its flag on every execution. Every other
 * primitive's events are the same, and a relaxed RMW's (ONCE in both):
 * litmus answers a program without other RMWs under such a model (the flag
 * is the model's own) and refuses one with an RMW that is not relaxed
 * rather than answer it with other events than herd7's.
 */
function buildsLegacyEvents(compiled: CompiledCat, variants: ReadonlySet<string>): boolean {
  return compiled.variantsTested.has('lkmmv2') && !variants.has('lkmmv2');
}

function legacyRefusal(p: Program): { message: string; pos: Pos } | undefined {
  for (const th of p.threads) {
    for (const ins of th.code) {
      if (ins.op !== 'prim') continue;
      const e = effectOf(ins.prim);
      // A relaxed RMW (xchg_relaxed, cmpxchg_relaxed, atomic_add_return_relaxed, ...) has the same ONCE events in both.
      if (e.object !== 'memory' || !e.rmw || e.annot === 'ONCE') continue;
      return {
        message: `${ins.name}() is a read-modify-write: without the variant lkmmv2, which this model tests, herd7 builds its legacy LKMM events for it (explicit fences around a fully ordered RMW, ONCE accesses), which litmus does not; refused rather than answered with other events (give the variant lkmmv2: -variant lkmmv2, --variant lkmmv2; the kernel's linux-kernel.cfg sets it)`,
        pos: ins.pos,
      };
    }
  }
  return undefined;
}

/** A structure's staged model and judge, with the step masks of the instruction sets skipped. */
interface StructureJudge {
  staged: StagedModel;
  judge: StagedJudge;
  /** The steps, then the flags, of the skipped instructions (see CatModel.judgeSkipping): 1 = skipped. */
  skipMask(skip: ReadonlySet<number>): Uint8Array;
}

function structureJudge(staged: StagedModel, judge: StagedJudge): StructureJudge {
  const masks = new WeakMap<ReadonlySet<number>, Uint8Array>();
  return {
    staged,
    judge,
    skipMask(skip) {
      let m = masks.get(skip);
      if (!m) masks.set(skip, (m = Uint8Array.from([...staged.steps, ...staged.flags], (s) => (skip.has(s.instr) ? 1 : 0))));
      return m;
    },
  };
}

/**
 * Candidates a structure's graph is run for (models/cat/execute.ts) before
 * code is generated for it (models/cat/generate.ts): the code is 2-5 times
 * faster per candidate, but writing it and V8's compiling it cost about as
 * much as judging this many candidates without it.
 */
const GENERATE_AFTER = 48;

/** A structure's judge: its graph run as it is, then (once it has judged GENERATE_AFTER candidates) its generated code. */
function tieredJudge(compiler: JudgeCompiler, staged: StagedModel, safe: ReadonlySet<number>, observed: readonly number[], tier: JudgeTier): StagedJudge {
  const isSafe = (i: number) => safe.has(i);
  if (tier === 'graph') return new DagExecutor(staged, isSafe, observed);
  if (tier === 'code') return compiler.judge(staged, isSafe, observed);
  let current: StagedJudge = new DagExecutor(staged, isSafe, observed);
  let runs = 0;
  return {
    run(x, prefix, skip) {
      if (++runs === GENERATE_AFTER) current = compiler.judge(staged, isSafe, observed);
      return current.run(x, prefix, skip);
    },
    flags: () => current.flags(),
  };
}

/** How many shapes of structure a model keeps staged (past it, the one staged longest ago is dropped; each holds its graph's constants and its judge). */
const MAX_SHAPES = 256;

/**
 * What a structure's staged model and judge are made from, as a string: two
 * structures with the same key stage to the same model. Staging reads the
 * structure's static base values (models/cat/builtins.ts staticBase: built by
 * src/model/execution.ts buildStructure from each event's kind, thread,
 * place in program order, location, annotation, fence, lock and SRCU kind,
 * RMW partner and dependencies), the kind, location, thread, place and lock
 * kind of events (a with's choices), and nothing else of the events (their
 * values are the candidate's); the judge also reads which checks judge
 * prefixes and the locations FW holds.
 */
function stagedKey(x: Execution, safe: ReadonlySet<number>, observed: readonly number[]): string {
  const parts: string[] = [`${x.n}`, [...safe].join(','), observed.join(',')];
  for (const e of x.events) {
    parts.push(`${e.kind},${e.thread},${e.poIndex},${e.loc},${e.annot},${e.fence ?? ''},${e.lock ?? ''},${e.srcu ?? ''},${e.isRmw ? 1 : 0},${e.rmwPartner},${e.addrDeps.toString(36)},${e.dataDeps.toString(36)},${e.ctrlDeps.toString(36)}`);
  }
  return parts.join(';');
}

/** The locations whose final writes herd's FW holds: those the final state shows. */
function observedLocations(p: Program): number[] {
  return (p.observed ?? []).filter((o) => o.kind === 'mem').map((o) => (o as { loc: number }).loc);
}

/**
 * The base sets a program's code never produces: lock.cat's events in a
 * test that takes no lock (usesSpinlocks), and the sets of the model's tags
 * that are neither an access's annotation nor a fence or SRCU event any
 * primitive of the program makes (an event's tags are its primitive's:
 * models/cat/builtins.ts tagsOf).
 */
function absentSets(p: Program, cat: CompiledCat): Set<string> {
  const out = new Set<string>(usesSpinlocks(p) ? [] : LOCK_KINDS);
  const made = new Set<string>(ANNOTS);
  for (const t of p.threads) {
    for (const i of t.code) {
      if (i.op !== 'prim') continue;
      const e = effectOf(i.prim);
      made.add(e.annot);
      if (e.fence !== undefined) made.add(e.fence);
      if (e.srcu !== undefined) made.add(e.srcu);
    }
  }
  for (const tag of cat.tags) if (!made.has(tag)) out.add(tagSetName(tag));
  return out;
}

/** Whether a program's code takes, releases or tests a spinlock. */
function usesSpinlocks(p: Program): boolean {
  return p.threads.some((t) => t.code.some((i) => i.op === 'prim' && effectOf(i.prim).object === 'spinlock'));
}

/** A file as messages name it: relative to the current folder when inside it. */
function displayPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r && !r.startsWith('..') && !isAbsolute(r) ? r : p;
}

export { ModelError };
