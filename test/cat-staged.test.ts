// A compiled cat model judges each candidate in one of three ways: by
// evaluating its syntax (models/cat/evaluate.ts), by running the structure's
// staged graph (models/cat/stage.ts, execute.ts), or by the code generated
// from that graph (models/cat/generate.ts). The three must give every
// candidate the same verdict: here each check of the explorer is made all
// three ways and compared, on the kernel's files (unedited and edited),
// an SC model written in cat, the kernel corpus, the families at sizes
// whose relations take one, two and three words a row, and generated
// programs with every kind of event the kernel's files give a meaning.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileModelFiles, type CatModel, type JudgeTier } from '../models/cat/model.js';
import type { ModelFiles } from '../models/cat/files.js';
import type { Model, Verdict } from '../src/model/model.js';
import type { Execution } from '../src/model/execution.js';
import { checkSource } from '../src/check.js';
import { resolveInputs } from '../src/cli/inputs.js';
import { FAMILIES } from '../bench/families.js';
import { MODEL_TEXTS, modelTextFiles } from '../models/texts.js';
import { copyLkmm, HAVE_LKMM, LKMM_DIR, ROOT } from './util.js';

const TIERS: JudgeTier[] = ['evaluator', 'graph', 'code'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-staged-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const verdictOf = (v: Verdict) => `${v.consistent} ${v.violated ?? ''} [${v.flags.join(',')}]`;

/** A model whose every check is made by each tier and compared (the first tier's verdict is the answer). */
function agreeing(files: ModelFiles): { model: Model; checks: () => number } {
  const models: CatModel[] = TIERS.map((tier) => compileModelFiles(files, { tier }));
  let checks = 0;
  const first = models[0];
  // Also judged without the coherence and happens-before checks, the with of co and the data-race and lock-final flags (judgeSkipping).
  const skip = new Set(first.compiled.instrs.flatMap((ci, i) =>
    (ci.instr.kind === 'test' && /^(coherence|happens-before|sc|data-race|lock-final)$/.test(ci.instr.name ?? '')) || (ci.instr.kind === 'with' && ci.instr.name === 'co') ? [i] : []));
  const model: Model = {
    ...first,
    check(x: Execution, o?: { prefix?: boolean; anyAxiom?: boolean }): Verdict {
      checks++;
      const where = `on ${x.program.name}${o?.prefix ? ' (a prefix)' : ''}`;
      const verdicts = models.map((m) => m.check(x, o));
      const want = verdictOf(verdicts[0]);
      verdicts.forEach((v, k) => expect(verdictOf(v), `${TIERS[k]} ${where}`).toBe(want));
      const skipping = models.map((m) => verdictOf(m.judgeSkipping(x, o?.prefix ?? false, skip)));
      skipping.forEach((v, k) => expect(v, `${TIERS[k]} ${where}, skipping`).toBe(skipping[0]));
      return verdicts[0];
    },
  };
  return { model, checks: () => checks };
}

function kernelFiles(d: string): ModelFiles {
  return {
    cat: join(d, 'linux-kernel.cat'), bell: join(d, 'linux-kernel.bell'), macros: join(d, 'linux-kernel.def'),
    variants: ['lkmmv2'], searchDirs: [d], skipChecks: [], besideIncluder: true, compiled: true,
  };
}

/** A copy of the kernel's files with one file edited. */
function edited(name: string, file: string, edit: (s: string) => string): ModelFiles {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  copyLkmm(d);
  const p = join(d, file);
  const before = readFileSync(p, 'utf8');
  const after = edit(before);
  expect(after, `${name} applies`).not.toBe(before);
  writeFileSync(p, after);
  return kernelFiles(d);
}

/** Every check of every test made the three ways; returns how many checks were compared (the event loop let run between tests). */
async function compare(files: ModelFiles, texts: string[]): Promise<number> {
  const { model, checks } = agreeing(files);
  for (const t of texts) {
    try {
      checkSource(t, { model, timeoutMs: 60_000 });
    } catch (e) {
      // A test litmus refuses is refused whatever the model: not this comparison's business.
      if (e instanceof Error && /expected|toBe/.test(e.message)) throw e;
    }
    await new Promise((r) => setImmediate(r));
  }
  return checks();
}

// ---- programs

type Access = 'once' | 'plain' | 'acquire' | 'release';
type Op =
  | { k: 'w'; loc: 'x' | 'y'; v: number; how: Access }
  | { k: 'r'; loc: 'x' | 'y'; how: Access }
  | { k: 'rmw'; loc: 'x' | 'y'; how: 'xchg' | 'xchg_relaxed' | 'cmpxchg' | 'atomic_inc' | 'atomic_add_return' | 'xchg_acquire' }
  | { k: 'f'; f: 'smp_mb' | 'smp_rmb' | 'smp_wmb' | 'smp_mb__before_atomic' | 'smp_mb__after_atomic' | 'smp_mb__after_spinlock' | 'smp_mb__after_unlock_lock' | 'barrier' }
  | { k: 'dep'; loc: 'x' | 'y'; how: 'data' | 'ctrl' }
  | { k: 'section'; kind: 'rcu' | 'srcu' | 'lock' | 'trylock'; body: Op[] }
  | { k: 'gp'; kind: 'rcu' | 'srcu' }
  | { k: 'is_locked' };

const locArb = fc.constantFrom<'x' | 'y'>('x', 'y');
const accessArb = fc.constantFrom<Access>('once', 'once', 'plain', 'acquire', 'release');
const simpleOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constant('w' as const), loc: locArb, v: fc.integer({ min: 1, max: 2 }), how: accessArb }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('r' as const), loc: locArb, how: accessArb }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('rmw' as const), loc: locArb, how: fc.constantFrom('xchg', 'xchg_relaxed', 'cmpxchg', 'atomic_inc', 'atomic_add_return', 'xchg_acquire') }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('f' as const), f: fc.constantFrom('smp_mb', 'smp_rmb', 'smp_wmb', 'smp_mb__before_atomic', 'smp_mb__after_atomic', 'smp_mb__after_spinlock', 'smp_mb__after_unlock_lock', 'barrier') }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('dep' as const), loc: locArb, how: fc.constantFrom('data', 'ctrl') }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('gp' as const), kind: fc.constantFrom('rcu', 'srcu') }) },
  { weight: 1, arbitrary: fc.constant({ k: 'is_locked' as const }) },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: simpleOp },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('section' as const), kind: fc.constantFrom('rcu', 'srcu', 'lock', 'trylock'), body: fc.array(simpleOp, { minLength: 1, maxLength: 2 }) }) },
);
const programArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 3 });

/** The C text of a generated program (herd7's syntax). */
function render(threads: Op[][], name: string): string {
  const procs = threads.map((ops, t) => {
    const decls = new Set<string>(['\tint r0 = 0;']);
    const body: string[] = [];
    let cookie = 0;
    const emit = (o: Op): void => {
      switch (o.k) {
        case 'w':
          body.push(o.how === 'plain' ? `\t*${o.loc} = ${o.v};` : o.how === 'release' ? `\tsmp_store_release(${o.loc}, ${o.v});` : `\tWRITE_ONCE(*${o.loc}, ${o.v});`);
          break;
        case 'r':
          body.push(o.how === 'plain' ? `\tr0 = *${o.loc};` : o.how === 'acquire' ? `\tr0 = smp_load_acquire(${o.loc});` : `\tr0 = READ_ONCE(*${o.loc});`);
          break;
        case 'rmw':
          body.push(o.how === 'atomic_inc' ? `\tatomic_inc(${o.loc});` : o.how === 'atomic_add_return' ? `\tr0 = atomic_add_return(1, ${o.loc});`
            : o.how === 'cmpxchg' ? `\tr0 = cmpxchg(${o.loc}, 0, 2);` : `\tr0 = ${o.how}(${o.loc}, 2);`);
          break;
        case 'f':
          body.push(`\t${o.f}();`);
          break;
        case 'dep':
          body.push(o.how === 'data' ? `\tWRITE_ONCE(*${o.loc}, r0);` : `\tif (r0 == 1)\n\t\tWRITE_ONCE(*${o.loc}, 2);`);
          break;
        case 'gp':
          body.push(o.kind === 'rcu' ? '\tsynchronize_rcu();' : '\tsynchronize_srcu(s);');
          break;
        case 'is_locked':
          body.push('\tr0 = spin_is_locked(l);');
          break;
        case 'section': {
          if (o.kind === 'rcu') body.push('\trcu_read_lock();');
          else if (o.kind === 'srcu') {
            decls.add(`\tint c${cookie};`);
            body.push(`\tc${cookie} = srcu_read_lock(s);`);
          } else if (o.kind === 'lock') body.push('\tspin_lock(l);');
          else body.push('\tif (spin_trylock(l)) {');
          o.body.forEach(emit);
          if (o.kind === 'rcu') body.push('\trcu_read_unlock();');
          else if (o.kind === 'srcu') body.push(`\tsrcu_read_unlock(s, c${cookie++});`);
          else body.push(o.kind === 'lock' ? '\tspin_unlock(l);' : '\tspin_unlock(l);\n\t}');
          break;
        }
      }
    };
    ops.forEach(emit);
    return `P${t}(int *x, int *y, spinlock_t *l, struct srcu_struct *s)\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  return `C ${name}\n\n{}\n\n${procs.join('\n')}\nexists (0:r0=1 /\\ x=1)\n`;
}

/** A long program (relations of three words a row) with few candidates. */
function longProgram(): string {
  const p0 = Array.from({ length: 34 }, (_, i) => `\tWRITE_ONCE(*x, ${(i % 3) + 1});\n\tsmp_mb();`).join('\n');
  return `C long\n\n{}\n\nP0(int *x, int *y)\n{\n${p0}\n\tWRITE_ONCE(*y, 1);\n}\n\nP1(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\tr0 = READ_ONCE(*y);\n\tsmp_rmb();\n\tr1 = READ_ONCE(*x);\n}\n\nexists (1:r0=1 /\\ 1:r1=0)\n`;
}

const familyTexts = (): string[] => {
  const out: string[] = [];
  for (const [name, ns] of [['iriw', [4, 5]], ['rcu', [3, 5]], ['spinlock-counter', [3, 7]], ['mp-chain', [4, 6]], ['rcu-gp-chain', [2, 3]], ['spinlock-handoff', [3]]] as const) {
    const f = FAMILIES.find((x) => x.name === name);
    if (f) for (const n of ns) out.push(f.make(n));
  }
  out.push(longProgram());
  return out;
};

/** One small size of each family (of those named). */
const smallFamilies = (names?: string[]): string[] =>
  FAMILIES.filter((f) => (names ? names.includes(f.name) : !/copy/.test(f.name))).map((f) => f.make(f.minN + 1));

const SC_CAT = `SC
include "cos.cat"
let com = rf | co | fr
acyclic po | com as sc
`;

describe.skipIf(!HAVE_LKMM)('the three ways of judging a candidate agree', () => {
  it("on the kernel's files: the corpus, the families (one, two and three words a row)", async () => {
    const corpus = join(ROOT, '..', 'shared', 'corpus');
    let texts: string[] = [];
    try {
      texts = resolveInputs([join(corpus, 'herd-linux'), join(corpus, 'kernel')]).files.map((f) => readFileSync(f, 'utf8'));
    } catch {
      console.warn('note: the kernel corpus is absent: the families only');
    }
    expect(await compare(kernelFiles(LKMM_DIR), [...familyTexts(), ...texts])).toBeGreaterThan(1000);
  }, 300_000);

  it('on generated programs (accesses of every kind, RMWs, fences, RCU, SRCU, locks, dependencies)', async () => {
    await fc.assert(
      fc.asyncProperty(programArb, async (threads) => {
        await compare(kernelFiles(LKMM_DIR), [render(threads, 'gen')]);
      }),
      { numRuns: 30 },
    );
  }, 300_000);

  it("on edited copies of the kernel's files (a comment, ctrl out of rwdep, strong-fence = gp, xb acyclic)", async () => {
    const edits: [string, string, (s: string) => string][] = [
      ['comment', 'linux-kernel.cat', (s) => `${s}\n(* a comment *)\n`],
      ['rwdep', 'linux-kernel.cat', (s) => s.replace('let rwdep = (dep | ctrl) ; [W]', 'let rwdep = dep ; [W]')],
      ['strong-fence', 'linux-kernel.cat', (s) => s.replace(/^let strong-fence = mb \| gp$/m, 'let strong-fence = gp')],
      ['xb', 'linux-kernel.cat', (s) => s.replace(/^irreflexive rb as rcu$/m, 'irreflexive rb as rcu\nlet xb = hb | pb | rb\nacyclic xb as executes-before')],
    ];
    const progs = fc.sample(programArb, { numRuns: 6, seed: 7 }).map((t, i) => render(t, `gen${i}`));
    const small = smallFamilies(['mp-chain', 'iriw', 'rcu', 'spinlock-counter']);
    for (const [name, file, edit] of edits) expect(await compare(edited(name, file, edit), [...small, ...progs])).toBeGreaterThan(50);
  }, 300_000);
});

describe("the three ways of judging a candidate agree on the project's own texts", () => {
  for (const name of Object.keys(MODEL_TEXTS)) {
    it(`${name}: the families and generated programs`, async () => {
      const progs = fc.sample(programArb, { numRuns: 12, seed: 13 }).map((t, i) => render(t, `gen${i}`));
      expect(await compare(modelTextFiles(name), [...smallFamilies(), ...progs])).toBeGreaterThan(100);
    }, 300_000);
  }
});

describe('the three ways of judging a candidate agree on a model of the user\'s own', () => {
  it('SC written in cat, on the families and generated programs', async () => {
    writeFileSync(join(dir, 'sc.cat'), SC_CAT);
    const files: ModelFiles = { cat: join(dir, 'sc.cat'), variants: [], searchDirs: [dir], skipChecks: [] };
    const progs = fc.sample(programArb, { numRuns: 20, seed: 11 }).map((t, i) => render(t, `gen${i}`));
    expect(await compare(files, [...smallFamilies(), ...progs])).toBeGreaterThan(100);
  }, 300_000);
});

describe('structures of one shape share their staged model', () => {
  // Two tests whose events differ only in the values written (and whose conditions differ): one staging serves both.
  const mp = (v: number, cond: string) => `C MP-${v}
{}
P0(int *x, int *y) { WRITE_ONCE(*x, ${v}); smp_store_release(y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = smp_load_acquire(y); r1 = READ_ONCE(*x); }
exists (${cond})
`;
  it("staged once for both tests, with the evaluator's answers", () => {
    const texts = [mp(1, '1:r0=1 /\\ 1:r1=0'), mp(2, '1:r0=1 /\\ 1:r1=2')];
    const [graph, evaluator] = (['graph', 'evaluator'] as JudgeTier[]).map((tier) => compileModelFiles(modelTextFiles('lkmm'), { tier }));
    const answers = (m: CatModel) => texts.map((t) => { const r = checkSource(t, { model: m }); return `${r.positive} ${r.negative}`; });
    expect(answers(graph)).toEqual(answers(evaluator));
    // Never: the acquire reads the release.
    expect(answers(graph)[0]).toMatch(/^0 [1-9]/);
    expect(graph.stagings.structures).toBeGreaterThan(1);
    expect(graph.stagings.staged).toBe(1);
    // Another shape (the release made a plain write) is staged on its own.
    checkSource(mp(1, '1:r0=1 /\\ 1:r1=0').replace('smp_store_release(y, 1)', 'WRITE_ONCE(*y, 1)'), { model: graph });
    expect(graph.stagings.staged).toBe(2);
  });
});
