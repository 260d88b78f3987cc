// The project's own statements of its models as cat text (models/text/)
// give exactly the built-in models' output: states, counts and flags, on
// the kernel corpus, on a sample of Paul McKenney's collection and on
// generated programs with RCU, SRCU, spinlocks, fences and plain accesses;
// the LKMM's text also gives the kernel's own files' output, where those
// are at hand. The texts ship in the package and are picked as any model
// given as files.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import './fast-check-seed.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compileModelFiles } from '../models/cat/model.js';
import { builtinModel } from '../models/index.js';
import { MODEL_TEXTS, modelTextConf, modelTextDir, modelTextFiles } from '../models/texts.js';
import { resolveInputs } from '../src/cli/inputs.js';
import { checkSource, type CheckResult } from '../src/check.js';
import type { Model } from '../src/model/model.js';
import { LimitError, LitmusError } from '../src/parse/errors.js';
import { CLI, HAVE_LKMM, LKMM_DIR, ROOT, runNode } from './util.js';

const corpus = join(ROOT, '..', 'shared', 'corpus');
const haveCorpus = existsSync(join(corpus, 'kernel'));
const collection = join(corpus, 'paulmckrcu-litmus');
const haveCollection = existsSync(collection);

const summary = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative} [${r.flags}] ${r.states.map((s) => `${s.bindings.join(' ')}`).join(' | ')}`;

/** The texts, compiled once. */
const texts = new Map<string, Model>(Object.keys(MODEL_TEXTS).map((name) => [name, compileModelFiles(modelTextFiles(name))]));

/** A test's summary under a model (and its count of executions), or undefined when the check stops at the bound or litmus refuses the test. */
function outcome(text: string, model: Model, maxExecutions: number): { summary: string; executions: number } | undefined {
  try {
    const r = checkSource(text, { model, maxExecutions });
    return { summary: summary(r), executions: r.positive + r.negative };
  } catch (e) {
    if (e instanceof LimitError || e instanceof LitmusError) return undefined;
    throw e;
  }
}

/** Tests compared are those the reference model judges in at most this many executions; the text may build many more candidates (fewer shortcuts), so it has a larger bound. */
const MAX_JUDGED = 3_000;
const REFERENCE_BOUND = 50_000;
const TEXT_BOUND = 2_000_000;

/** Every 149th test of the collection (manual/, auto/, luc/), in path order: 38 tests of every kind. */
function collectionSample(): string[] {
  return resolveInputs([collection]).files.sort().filter((_, i) => i % 149 === 0);
}

/** Lets the test runner's messages through between long checks. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The tests of `files` the built-in model `name` judges in at most MAX_JUDGED executions, with its output (once per model). */
const judged = new Map<string, Map<string, string>>();
function builtinOutputs(name: string, files: string[]): Map<string, string> {
  const key = `${name}\n${files.join('\n')}`;
  let out = judged.get(key);
  if (!out) {
    out = new Map();
    for (const f of files) {
      const r = outcome(readFileSync(f, 'utf8'), builtinModel(name)!, REFERENCE_BOUND);
      if (r && r.executions <= MAX_JUDGED) out.set(f, r.summary);
    }
    judged.set(key, out);
  }
  return out;
}

/** Compares `model`'s output with `want`, test by test; returns how many were compared. */
async function compareWith(want: Map<string, string>, model: Model): Promise<number> {
  for (const [f, summary] of want) {
    expect(outcome(readFileSync(f, 'utf8'), model, TEXT_BOUND)?.summary, relative(corpus, f)).toBe(summary);
    await tick();
  }
  return want.size;
}

describe('the texts of the built-in models', () => {
  it('are in models/text, one .cfg each, and ship in the package', () => {
    expect(modelTextDir()).toBe(join(ROOT, 'models', 'text'));
    for (const name of Object.keys(MODEL_TEXTS)) expect(existsSync(modelTextConf(name)), name).toBe(true);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('models/text');
    // Written here, not copied: no comment line of the kernel's files is a line of the texts.
    if (HAVE_LKMM) {
      const ours = new Set(readdirSync(modelTextDir()).flatMap((f) => readFileSync(join(modelTextDir(), f), 'utf8').split('\n').map((l) => l.trim())));
      const comments = ['linux-kernel.cat', 'linux-kernel.bell', 'lock.cat']
        .flatMap((f) => readFileSync(join(LKMM_DIR, f), 'utf8').split('\n').map((l) => l.trim()))
        .filter((l) => l.length > 12 && /^\(\*|^\*|\(\*/.test(l));
      expect(comments.length).toBeGreaterThan(50);
      expect(comments.filter((l) => ours.has(l))).toEqual([]);
    }
  });

  it.skipIf(!haveCorpus)('give the built-in models\' output on every test of the kernel corpus', async () => {
    const files = resolveInputs([join(corpus, 'kernel'), join(corpus, 'herd-linux')]).files;
    expect(files.length).toBeGreaterThan(130);
    for (const [name, text] of texts) expect(await compareWith(builtinOutputs(name, files), text), name).toBeGreaterThan(125);
  }, 240_000);

  it.skipIf(!haveCollection)('give the built-in models\' output on a sample of Paul McKenney\'s collection', async () => {
    const files = collectionSample();
    for (const [name, text] of texts) expect(await compareWith(builtinOutputs(name, files), text), name).toBeGreaterThan(25);
  }, 240_000);

  it.skipIf(!haveCollection || !HAVE_LKMM)("so do the kernel's own files, compiled", async () => {
    const kernel = compileModelFiles({
      cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'],
      searchDirs: [LKMM_DIR], skipChecks: [], besideIncluder: true, compiled: true,
    });
    // The tests the built-in LKMM judges within the bound (it gave the text's output on them, above).
    expect(await compareWith(builtinOutputs('lkmm', collectionSample()), kernel)).toBeGreaterThan(25);
  }, 240_000);

  it('give the built-in models\' output on generated programs with RCU, SRCU, locks, fences and plain accesses', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(program, async (p) => {
        const text = render(p);
        for (const [name, model] of texts) {
          // The bound matters little here: generated programs are small.
          const want = outcome(text, builtinModel(name)!, REFERENCE_BOUND);
          if (want === undefined) continue;
          expect(outcome(text, model, TEXT_BOUND)?.summary, `${name}\n${text}`).toBe(want.summary);
          compared++;
        }
        await tick();
      }),
      { numRuns: 60 },
    );
    expect(compared).toBeGreaterThan(150);
  }, 240_000);

  it('are picked with --conf, and listed by litmus models', async () => {
    const mp = join(corpus, 'kernel', 'MP+pooncerelease+poacquireonce.litmus');
    const r = await runNode([CLI, 'models'], ROOT);
    expect(r.stdout).toContain(`as cat text: --conf ${modelTextConf('lkmm')}`);
    if (!existsSync(mp)) return;
    const c = await runNode([CLI, 'check', '-q', '--conf', modelTextConf('lkmm'), mp], ROOT);
    expect(c.stdout).toMatch(/Never \(0 of 3 executions\) under models\/text\/lkmm\.cat/);
  });
});

// ------------------------------------------------ generated programs

type Op =
  | { k: 'w'; loc: 'x' | 'y'; v: number; how: 'once' | 'release' | 'plain' }
  | { k: 'r'; loc: 'x' | 'y'; how: 'once' | 'acquire' | 'plain' }
  | { k: 'xchg'; loc: 'x' | 'y'; v: number }
  | { k: 'f'; f: 'smp_mb' | 'smp_rmb' | 'smp_wmb' }
  | { k: 'ctrl'; loc: 'x' | 'y'; v: number }
  | { k: 'section'; kind: 'rcu' | 'srcu' | 'lock'; body: Op[] }
  | { k: 'gp'; kind: 'rcu' | 'srcu' };

const loc = fc.constantFrom<'x' | 'y'>('x', 'y');
const access: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }), how: fc.constantFrom<'once' | 'release' | 'plain'>('once', 'once', 'release', 'plain') }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('r' as const), loc, how: fc.constantFrom<'once' | 'acquire' | 'plain'>('once', 'once', 'acquire', 'plain') }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('xchg' as const), loc, v: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('ctrl' as const), loc, v: fc.integer({ min: 1, max: 2 }) }) },
);
const op: fc.Arbitrary<Op> = fc.letrec<{ op: Op }>((tie) => ({
  op: fc.oneof(
    { weight: 5, arbitrary: access },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('f' as const), f: fc.constantFrom<'smp_mb' | 'smp_rmb' | 'smp_wmb'>('smp_mb', 'smp_rmb', 'smp_wmb') }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('section' as const), kind: fc.constantFrom<'rcu' | 'srcu' | 'lock'>('rcu', 'rcu', 'srcu', 'lock'), body: fc.array(fc.oneof({ depthSize: 'small', withCrossShrink: true }, access, tie('op')), { minLength: 1, maxLength: 2 }) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('gp' as const), kind: fc.constantFrom<'rcu' | 'srcu'>('rcu', 'rcu', 'srcu') }) },
  ),
})).op;
const program = fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 3 });

/** The litmus text of a generated program: every register and location in the final states. */
function render(threads: Op[][]): string {
  const regs: string[] = [];
  const procs = threads.map((th, t) => {
    const decls: string[] = [];
    const body: string[] = [];
    let n = 0;
    let cookies = 0;
    const reg = () => {
      const r = `r${n++}`;
      decls.push(`\tint ${r};`);
      regs.push(`${t}:${r}`);
      return r;
    };
    const emit = (o: Op) => {
      if (o.k === 'w') body.push(o.how === 'plain' ? `\t*${o.loc} = ${o.v};` : o.how === 'release' ? `\tsmp_store_release(${o.loc}, ${o.v});` : `\tWRITE_ONCE(*${o.loc}, ${o.v});`);
      else if (o.k === 'r') {
        const r = reg();
        body.push(o.how === 'plain' ? `\t${r} = *${o.loc};` : o.how === 'acquire' ? `\t${r} = smp_load_acquire(${o.loc});` : `\t${r} = READ_ONCE(*${o.loc});`);
      } else if (o.k === 'xchg') body.push(`\t${reg()} = xchg(${o.loc}, ${o.v});`);
      else if (o.k === 'ctrl') body.push(n > 0 ? `\tif (r${n - 1} == 1)\n\t\tWRITE_ONCE(*${o.loc}, ${o.v});` : `\tWRITE_ONCE(*${o.loc}, ${o.v});`);
      else if (o.k === 'f') body.push(`\t${o.f}();`);
      else if (o.k === 'gp') body.push(o.kind === 'rcu' ? '\tsynchronize_rcu();' : '\tsynchronize_srcu(s);');
      else {
        const c = `c${cookies++}`;
        if (o.kind === 'srcu') decls.push(`\tint ${c};`);
        body.push(o.kind === 'rcu' ? '\trcu_read_lock();' : o.kind === 'srcu' ? `\t${c} = srcu_read_lock(s);` : '\tspin_lock(l);');
        o.body.forEach(emit);
        body.push(o.kind === 'rcu' ? '\trcu_read_unlock();' : o.kind === 'srcu' ? `\tsrcu_read_unlock(s, ${c});` : '\tspin_unlock(l);');
      }
    };
    th.forEach(emit);
    return `P${t}(int *x, int *y, spinlock_t *l, struct srcu_struct *s)\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  return `C gen\n\n{}\n\n${procs.join('\n')}\nlocations [${[...regs, 'x', 'y'].join('; ')}]\nexists (x=1)\n`;
}
