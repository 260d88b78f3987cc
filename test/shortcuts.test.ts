// The explorer's shortcuts against runs without any (`--no-shortcuts`,
// src/model/model.ts withoutShortcuts): the same counts, states and flags.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, HAVE_LKMM, LKMM_DIR, litmus, runNode, stateSet } from './util.js';
import { kernelModel } from './kernel-model.js';
import { SHAPES } from './shapes.js';
import { getModel, withoutShortcutsSpec } from '../models/index.js';
import { compileModelFiles, type CatModel } from '../models/cat/model.js';
import { withoutShortcuts, type Model } from '../src/model/model.js';
import { checkSource } from '../src/check.js';
import { LimitError } from '../src/parse/errors.js';
import { lkmm } from '../models/lkmm.js';
import { sc } from '../models/sc.js';
import { x86tso } from '../models/x86tso.js';
import { renderProgram, shortcutPrograms } from './shortcut-programs.js';
import { modelTextFiles } from '../models/texts.js';

interface JsonEntry {
  name: string;
  observation: string;
  positive: number;
  negative: number;
  flags: string[];
  states: unknown[];
}

/** What a --json run says of each test, its time aside. */
function answers(stdout: string): string[] {
  const report = JSON.parse(stdout) as { results: JsonEntry[] };
  return report.results.map((r) => JSON.stringify([r.name, r.observation, r.positive, r.negative, r.flags, r.states]));
}

describe('--no-shortcuts', () => {
  it('names the same model without its pruning', () => {
    const m = getModel(withoutShortcutsSpec('lkmm'))!;
    expect(m.name).toBe('lkmm');
    expect(m.lockOrders({} as never, {} as never)).toBe(false);
    expect(m.mayCycleThrough([])).toBe(true);
    expect(m.forbiddenSources).toBeUndefined();
    expect(m.latestReadKeepsConsistency).toBe(false);
    expect(withoutShortcutsSpec(withoutShortcutsSpec('sc'))).toBe(withoutShortcutsSpec('sc'));
  });

  it('gives the default run\'s answers on the classic shapes, under each built-in model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-noshortcuts-'));
    for (const s of SHAPES) writeFileSync(join(dir, `${s.name.split(' ')[0]}.litmus`), litmus(s.name.split(' ')[0], s.procs, s.cond));
    for (const model of ['lkmm', 'sc', 'x86-tso']) {
      const [a, b] = await Promise.all([
        runNode([CLI, 'check', '--json', '-j', '1', '-m', model, dir], dir),
        runNode([CLI, 'check', '--json', '-j', '1', '-m', model, '--no-shortcuts', dir], dir),
      ]);
      expect(a.stderr).toBe('');
      expect(b.stderr).toBe('');
      expect(answers(b.stdout)).toEqual(answers(a.stdout));
      expect(answers(a.stdout).length).toBe(SHAPES.length);
    }
  }, 120_000);
});

// ------------------------------------------------------------ models

/** A model of one cat file of the test's own, its shortcuts derived at once (tuning.ruleAfter 0). */
function ownModel(name: string, text: string): CatModel {
  const dir = mkdtempSync(join(tmpdir(), 'litmus-shortcuts-'));
  writeFileSync(join(dir, `${name}.cat`), text);
  return compileModelFiles({ cat: join(dir, `${name}.cat`), variants: [], searchDirs: [dir], skipChecks: [], besideIncluder: true }, { ruleAfter: 0 });
}

/** herd's sc.cat and x86tso.cat, in the forms litmus's library reads. */
const SC_CAT = '"SC"\ninclude "cos.cat"\nempty rmw & (fre ; coe) as atomic\nacyclic po | rf | co | fr as sc\n';
const TSO_CAT = '"X86 TSO"\ninclude "cos.cat"\nlet com = rf | fr | co\nacyclic po-loc | com as uniproc\nempty rmw & (fre;coe) as atomic\n' +
  'let po_ghb = ([W] ; po ; [W]) | ([R] ; po ; [M])\nlet mfence = po ; [F] ; po\nlet ghb = mfence | po_ghb | rfe | fr | co\nacyclic ghb as tso\n';

const compiledModels: [string, CatModel][] = [['sc.cat', ownModel('sc', SC_CAT)], ['x86tso.cat', ownModel('x86tso', TSO_CAT)]];
// litmus's own texts of its three models (models/text/), with spinlocks and grace periods.
for (const name of ['lkmm', 'sc', 'x86-tso']) compiledModels.push([`models/text ${name}`, compileModelFiles(modelTextFiles(name), { ruleAfter: 0 })]);
if (HAVE_LKMM) {
  compiledModels.push(
    ['linux-kernel.cat', kernelModel()!],
    ['linux-kernel.cat, a comment added', kernelModel((t) => `${t}\n(* a comment *)\n`)!],
    ['linux-kernel.cat without happens-before', kernelModel((t) => t.replace('acyclic hb as happens-before', ''))!],
    ['linux-kernel.cat, ctrl out of rwdep', kernelModel((t) => t.replace('let rwdep = (dep | ctrl) ; [W]', 'let rwdep = dep ; [W]'))!],
    ['linux-kernel.cat without coherence', kernelModel((t) => t.replace('acyclic po-loc | com as coherence', ''))!],
  );
} else {
  console.warn(`note: ${LKMM_DIR} is absent: the shortcuts are compared under the test's own SC and x86-TSO texts and the built-in models only`);
}
const builtinModels: [string, Model][] = [['lkmm', lkmm], ['sc', sc], ['x86-tso', x86tso]];

/** What a run says: verdict, counts, flags, states, paths cut. */
function answer(text: string, m: Model, checkEveryPrefix = false, maxExecutions?: number): string {
  const r = checkSource(text, { model: m, checkEveryPrefix, maxExecutions });
  return `${r.observation} ${r.positive} ${r.negative} [${r.flags}] ${[...stateSet(r)].sort().join(' | ')} ${r.stats.cutPaths}`;
}

/** Lets the test runner's messages through between runs of a long property. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('shortcuts derived from the model against runs without any', () => {
  it(`give the same answers on generated programs (load-buffering rings through acquire, RMW and lock reads; lock triads; RCU and SRCU sections; plain races) under ${[...compiledModels, ...builtinModels].map(([n]) => n).join('; ')}`, async () => {
    let compared = 0;
    let skipped = 0;
    const before = compiledModels.map(([, m]) => ({ ...m.shortcutCounts }));
    await fc.assert(
      fc.asyncProperty(shortcutPrograms, async (p) => {
        await tick();
        const text = renderProgram(p);
        for (const [name, m] of [...compiledModels, ...builtinModels]) {
          let whole: string;
          try {
            whole = answer(text, withoutShortcuts(m), false, 20_000);
          } catch (e) {
            if (e instanceof LimitError) {
              skipped++;
              continue;
            }
            throw e;
          }
          expect(answer(text, m), `${name}\n${text}`).toBe(whole);
          expect(answer(text, m, true), `${name}, every prefix checked\n${text}`).toBe(whole);
          compared++;
        }
      }),
      { numRuns: 40 },
    );
    expect(compared).toBeGreaterThan(100);
    expect(skipped).toBeLessThan(compared / 10);
    // The derived interleaving rule was taken, under every compiled model.
    compiledModels.forEach(([name, m], k) => expect(m.shortcutCounts.interleavings - before[k].interleavings, name).toBeGreaterThan(0));
  }, 600_000);
});

describe('the load-buffering shortcut derived from the checks (models/cat/derive-load-buffering.ts)', () => {
  // Each thread reads then writes the next thread's location: the cycle the shortcut drops where a check's relation holds it.
  const LB = litmus('LB', ['r0 = READ_ONCE(*x);\n\tWRITE_ONCE(*y, 1);', 'r0 = READ_ONCE(*y);\n\tWRITE_ONCE(*x, 1);'], 'exists (0:r0=1 /\\ 1:r0=1)');
  const LB_DATA = litmus('LBdata', ['r0 = READ_ONCE(*x);\n\tWRITE_ONCE(*y, r0);', 'r0 = READ_ONCE(*y);\n\tWRITE_ONCE(*x, r0);'], 'exists (0:r0=1 /\\ 1:r0=1)');
  const LB_PLAIN = litmus('LBacqplain', ['r0 = smp_load_acquire(x);\n\t*y = 1;', 'r0 = smp_load_acquire(y);\n\t*x = 1;'], 'exists (0:r0=1 /\\ 1:r0=1)');
  const pruned = (text: string, m: Model) => checkSource(text, { model: m }).stats.pruned;
  it('drops the cycle under a model whose acyclic check holds po and rf (SC, x86-TSO), with the answers of exploring it', () => {
    for (const [name, m] of compiledModels.slice(0, 2)) {
      expect(answer(LB, m), name).toBe(answer(LB, withoutShortcuts(m)));
      expect(answer(LB, m)).toMatch(/^Never /);
      expect(pruned(LB, m), name).toBeLessThan(pruned(LB, { ...m, mayCycleThrough: () => true }));
    }
  });
  it('drops it under the LKMM text where the only writes out of order are ones no waiting read may take (another location; a lock write, which spin_lock() does not read)', () => {
    const m = compiledModels.find(([n]) => n === 'models/text lkmm')![1];
    // Plain writes to z after the ring's marked writes: no read of the ring waits at z.
    const side = litmus('LBside', [
      'r0 = smp_load_acquire(x);\n\tWRITE_ONCE(*y, 1);\n\t*z = 1;',
      'r0 = smp_load_acquire(y);\n\tWRITE_ONCE(*x, 1);\n\t*z = 2;',
    ], 'exists (0:r0=1 /\\ 1:r0=1)');
    // P2 waits at spin_lock() (P1 holds the lock), P0 at y, P1 at x: P0's lock write is no source of P2's lock read.
    const locked = litmus('LBlock', [
      'r0 = smp_load_acquire(y);\n\tspin_lock(l);\n\tWRITE_ONCE(*x, 1);\n\tspin_unlock(l);',
      'spin_lock(l);\n\tr0 = smp_load_acquire(x);\n\tspin_unlock(l);',
      'spin_lock(l);\n\tWRITE_ONCE(*y, 1);\n\tspin_unlock(l);',
    ], 'exists (0:r0=1 /\\ 1:r0=0)', { params: Array(3).fill('int *x, int *y, spinlock_t *l') });
    for (const test of [side, locked]) {
      expect(answer(test, m)).toBe(answer(test, withoutShortcuts(m)));
      expect(pruned(test, m)).toBeLessThan(pruned(test, { ...m, mayCycleThrough: () => true }));
    }
    expect(answer(side, m)).toMatch(/^Never /);
  });
  it('keeps it where no acyclic check holds rf between the reads and writes of the cycle', () => {
    const m = ownModel('po-only', '"po only"\ninclude "cos.cat"\nacyclic po as po-only\n');
    expect(pruned(LB, m)).toBe(pruned(LB, { ...m, mayCycleThrough: () => true }));
    expect(answer(LB, m)).toMatch(/^Sometimes /);
  });
  it.skipIf(!HAVE_LKMM)('keeps the cycle through plain writes after acquire reads under the kernel\'s files (hb links marked accesses only), drops it through data dependencies', () => {
    const m = kernelModel()!;
    expect(answer(LB_PLAIN, m)).toBe(answer(LB_PLAIN, withoutShortcuts(m)));
    expect(answer(LB_PLAIN, m)).toMatch(/^Sometimes /);
    // With data dependencies (in ppo, so in hb) the cycle is dropped.
    expect(answer(LB_DATA, m)).toBe(answer(LB_DATA, withoutShortcuts(m)));
    expect(pruned(LB_DATA, m)).toBeLessThan(pruned(LB_DATA, { ...m, mayCycleThrough: () => true }));
  });
});

describe('latest-read consistency derived from the checks (models/cat/derive-latest-read.ts)', () => {
  const locks = new Set(['LKR', 'LKW', 'UL', 'LF', 'RL', 'RU']);
  it('holds for SC and x86-TSO texts, not where a prefix check relates a read to what comes after (loc, rf^-1)', async () => {
    const { latestReadKeepsConsistency } = await import('../models/cat/derive-latest-read.js');
    for (const [name, m] of compiledModels.slice(0, 2)) expect(latestReadKeepsConsistency(m.compiled, new Set(), locks), name).toBe(true);
    expect(latestReadKeepsConsistency(ownModel('loc', '"x"\ninclude "cos.cat"\nacyclic po | (rf ; loc) as x\n').compiled, new Set(), locks)).toBe(false);
    expect(latestReadKeepsConsistency(ownModel('rfinv', '"x"\ninclude "cos.cat"\nirreflexive rf ; rf^-1 as x\n').compiled, new Set(), locks)).toBe(false);
  });
  it.skipIf(!HAVE_LKMM)('holds for the kernel\'s files in programs without locks', async () => {
    const { latestReadKeepsConsistency } = await import('../models/cat/derive-latest-read.js');
    expect(latestReadKeepsConsistency(kernelModel()!.compiled, new Set(['lkmmv2']), locks)).toBe(true);
  });
});
