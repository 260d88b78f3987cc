// Sources forbidden at a read, derived for compiled models
// (models/cat/derive-rcu-reads.ts): which checks a part of an execution
// proves failed, and pruned runs against unpruned ones on generated RCU and
// SRCU programs (sections open, nested, closed on one path; grace periods;
// readers that wait).

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAVE_LKMM, LKMM_DIR, stateSet } from './util.js';
import { kernelModel } from './kernel-model.js';
import { compileModelFiles, type CatModel } from '../models/cat/model.js';
import { deriveSectionRule, sectionRuleFromJson, sectionRuleToJson } from '../models/cat/derive-rcu-reads.js';
import { modelTextFiles } from '../models/texts.js';
import { withoutShortcuts, type ForbiddenSource, type Model } from '../src/model/model.js';
import { checkSource } from '../src/check.js';
import { LimitError } from '../src/parse/errors.js';
import { lkmm } from '../models/lkmm.js';
import { FAMILIES } from '../bench/families.js';

const NO_LOCKS = new Set(['LKR', 'LKW', 'UL', 'LF', 'RL', 'RU', 'Srcu-lock', 'Srcu-unlock', 'Sync-srcu']);

const ownText = compileModelFiles(modelTextFiles('lkmm'), { ruleAfter: 0 });
const checkNames = (m: CatModel, checks: ReadonlySet<number>) =>
  [...checks].map((i) => {
    const ins = m.compiled.instrs[i].instr;
    return ins.kind === 'test' ? ins.name ?? ins.test : '?';
  });

/** The model with its forbidden sources counted: how many reads' sources it forbade. */
function counting(m: Model): { model: Model; forbidden: () => number } {
  let n = 0;
  const model: Model = {
    ...m,
    forbiddenSources: (p) => {
      const f = m.forbiddenSources?.(p);
      if (!f) return undefined;
      const counted: ForbiddenSource = (x, r, w) => {
        const no = f(x, r, w);
        if (no) n++;
        return no;
      };
      return counted;
    },
  };
  return { model, forbidden: () => n };
}

describe('the checks a part of an execution proves failed', () => {
  it('are the LKMM text\'s acyclic, irreflexive and empty checks, rcu among them, with rcu_read_lock()/unlock() as markers', () => {
    const rule = deriveSectionRule(ownText.compiled, NO_LOCKS)!;
    expect(rule.markers).toEqual({ open: 'rcu-lock', close: 'rcu-unlock' });
    expect(checkNames(ownText, rule.checks)).toEqual(expect.arrayContaining(['coherence', 'atomic', 'happens-before', 'propagation', 'rcu', 'plain-coherence']));
    // cos-opt's ConsCo reads the final writes (co0): not one of them.
    expect(checkNames(ownText, rule.checks)).not.toContain('ConsCo');
  });

  it('are kept on disk as they were derived (a damaged entry is derived again)', () => {
    const rule = deriveSectionRule(ownText.compiled, NO_LOCKS)!;
    expect(sectionRuleFromJson(JSON.parse(JSON.stringify(sectionRuleToJson(rule))))).toEqual(rule);
    expect(sectionRuleFromJson(sectionRuleToJson(undefined))).toBeNull();
    expect(sectionRuleFromJson({ checks: [1], skip: ['x'], names: [], markers: { open: 'a', close: 'b' } })).toBeUndefined();
    expect(sectionRuleFromJson(undefined)).toBeUndefined();
  });

  it.skipIf(!HAVE_LKMM)('are the same for the kernel\'s files', () => {
    const rule = deriveSectionRule(kernelModel()!.compiled, NO_LOCKS)!;
    expect(rule.markers).toEqual({ open: 'rcu-lock', close: 'rcu-unlock' });
    expect(checkNames(kernelModel()!, rule.checks)).toEqual(expect.arrayContaining(['happens-before', 'propagation', 'rcu']));
  });

  it('leave out a check whose relation subtracts a path (which a part may lack) and derive nothing without a nesting matching', () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-rcu-reads-own-'));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, `${name}.cat`), text);
      return compileModelFiles({ cat: join(dir, `${name}.cat`), variants: [], searchDirs: [dir], skipChecks: [], besideIncluder: true }, { ruleAfter: 0 });
    };
    const sections = 'let rscs = let rec s = Rcu-lock \\ domain(p) and e = Rcu-unlock \\ range(p)\n  and l = [s | e] ; po ; [s | e]\n  and p = p | (([s] ; po ; [e]) \\ (l ; l)) in p\n';
    const enums = 'enum Barriers = \'rcu-lock || \'rcu-unlock || \'sync-rcu\ninstructions F[Barriers]\n';
    const m = write('sub', `"sub"\ninclude "cos.cat"\n${enums}${sections}acyclic po | rf | co | fr as sc\nirreflexive rscs ; (po \\ (po ; [Sync-rcu] ; po)) ; rscs^-1 as odd\n`);
    const rule = deriveSectionRule(m.compiled, new Set())!;
    expect(checkNames(m, rule.checks)).toEqual(['sc']);
    expect(checkNames(m, rule.skip)).toContain('odd');
    expect(deriveSectionRule(write('none', `"none"\ninclude "cos.cat"\n${enums}acyclic po | rf | co | fr as sc\n`).compiled, new Set())).toBeUndefined();
  });
});

describe('sources forbidden at a read under a compiled LKMM', () => {
  const rcu = FAMILIES.find((f) => f.name === 'rcu')!;
  it('explore the RCU readers family as the built-in model does, with the same answers as without', () => {
    const text = rcu.make(5);
    const own = checkSource(text, { model: ownText });
    const builtin = checkSource(text, { model: lkmm });
    const unpruned = checkSource(text, { model: { ...ownText, forbiddenSources: undefined } });
    expect(own.stats.candidates).toBe(builtin.stats.candidates);
    expect(own.stats.candidates).toBeLessThan(unpruned.stats.candidates);
    expect([own.observation, own.positive, own.negative]).toEqual([unpruned.observation, unpruned.positive, unpruned.negative]);
  });
});

// ------------------------------------------------------------ generated programs

type Loc = 'x' | 'y';
type Acc = { k: 'r'; loc: Loc; how: 'once' | 'acquire' | 'plain' | 'xchg' } | { k: 'w'; loc: Loc; v: number; how: 'once' | 'release' | 'plain' };
type Step = Acc | { k: 'lock' } | { k: 'unlock' } | { k: 'gp' } | { k: 'sgp' } | { k: 'slock' } | { k: 'sunlock' } | { k: 'mb' } | { k: 'if'; body: Step[] } | { k: 'wait'; loc: Loc };

const loc = fc.constantFrom<Loc>('x', 'y');
const read: fc.Arbitrary<Acc> = fc.record({ k: fc.constant('r' as const), loc, how: fc.constantFrom('once' as const, 'once' as const, 'acquire' as const, 'plain' as const, 'xchg' as const) });
const write: fc.Arbitrary<Acc> = fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }), how: fc.constantFrom('once' as const, 'once' as const, 'release' as const, 'plain' as const) });
const acc = fc.oneof({ weight: 3, arbitrary: read }, { weight: 1, arbitrary: write });
const L: Step = { k: 'lock' };
const U: Step = { k: 'unlock' };

/** Readers: sections closed, nested, closed on one path only, never closed, closed before a read; one waiting for a value. */
const reader: fc.Arbitrary<Step[]> = fc.oneof(
  fc.tuple(acc, acc).map(([a, b]) => [L, a, b, U]),
  fc.tuple(read, read).map(([a, b]) => [L, a, { k: 'if', body: [U] } as Step, b]),
  fc.tuple(read, read, fc.boolean()).map(([a, b, outer]) => [L, a, L, b, U, ...(outer ? [U] : [])]),
  fc.tuple(read, read).map(([a, b]) => [L, a, b]),
  fc.tuple(read, read).map(([a, b]) => [L, a, U, b]),
  fc.tuple(read, write, read).map(([a, w, b]) => [L, a, { k: 'if', body: [w] } as Step, b, U]),
  fc.tuple(read, loc).map(([b, l]) => [L, { k: 'wait', loc: l } as Step, b, U]),
  fc.tuple(read, read).map(([a, b]) => [{ k: 'slock' } as Step, a, b, { k: 'sunlock' } as Step]),
);
/** Updaters: writes around grace periods (RCU, SRCU), a reader after one, writes with no grace period. */
const updater: fc.Arbitrary<Step[]> = fc.oneof(
  fc.tuple(write, write).map(([a, b]) => [a, { k: 'gp' } as Step, b]),
  fc.tuple(write, read).map(([a, b]) => [a, { k: 'gp' } as Step, b]),
  fc.tuple(write, write).map(([a, b]) => [a, { k: 'sgp' } as Step, b]),
  fc.tuple(write, write, write).map(([a, b, c]) => [a, { k: 'gp' } as Step, b, { k: 'gp' } as Step, c]),
  fc.tuple(write, write).map(([a, b]) => [a, { k: 'mb' } as Step, b]),
);
const rcuPrograms = fc.record({
  threads: fc.tuple(reader, updater, fc.option(fc.oneof(reader, updater), { freq: 2 })).map(([a, b, c]) => (c ? [a, b, c] : [a, b])),
  picks: fc.array(fc.record({ reg: fc.nat(), v: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 3 }),
});

function render(p: { threads: Step[][]; picks: { reg: number; v: number }[] }): string {
  const regs: string[] = [];
  const procs = p.threads.map((steps, t) => {
    const decls: string[] = [];
    const body: string[] = [];
    let n = 0;
    let last: string | undefined;
    const reg = () => {
      const r = `r${n++}`;
      decls.push(`\tint ${r};`);
      regs.push(`${t}:${r}`);
      return (last = r);
    };
    const emit = (s: Step, ind: string) => {
      const line = (x: string) => body.push(ind + x);
      switch (s.k) {
        case 'r': {
          const r = reg();
          line(s.how === 'plain' ? `${r} = *${s.loc};` : s.how === 'acquire' ? `${r} = smp_load_acquire(${s.loc});` : s.how === 'xchg' ? `${r} = xchg_relaxed(${s.loc}, 2);` : `${r} = READ_ONCE(*${s.loc});`);
          break;
        }
        case 'w':
          line(s.how === 'plain' ? `*${s.loc} = ${s.v};` : s.how === 'release' ? `smp_store_release(${s.loc}, ${s.v});` : `WRITE_ONCE(*${s.loc}, ${s.v});`);
          break;
        case 'lock':
          line('rcu_read_lock();');
          break;
        case 'unlock':
          line('rcu_read_unlock();');
          break;
        case 'gp':
          line('synchronize_rcu();');
          break;
        case 'sgp':
          line('synchronize_srcu(s);');
          break;
        case 'slock':
          decls.push('\tint c;');
          line('c = srcu_read_lock(s);');
          break;
        case 'sunlock':
          line('srcu_read_unlock(s, c);');
          break;
        case 'mb':
          line('smp_mb();');
          break;
        case 'wait': {
          const r = reg();
          line(`${r} = READ_ONCE(*${s.loc});`);
          line(`while (${r} == 0) {`);
          line(`\t${r} = READ_ONCE(*${s.loc});`);
          line('}');
          break;
        }
        case 'if': {
          const g = last;
          if (g) line(`if (${g} == 1) {`);
          for (const b of s.body) emit(b, g ? `${ind}\t` : ind);
          if (g) line('}');
          break;
        }
      }
    };
    for (const s of steps) emit(s, '\t');
    return `P${t}(int *x, int *y, struct srcu_struct *s)\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  const atoms = regs.length ? [...new Map(p.picks.map((k) => [regs[k.reg % regs.length], k.v])).entries()].map(([r, v]) => `${r}=${v}`) : ['x=1'];
  return `C gen\n\n{}\n\n${procs.join('\n')}\nlocations [${[...regs, 'x', 'y'].join('; ')}]\nexists (${atoms.join(' /\\ ')})\n`;
}

function answer(text: string, m: Model, checkEveryPrefix = false): string {
  const r = checkSource(text, { model: m, checkEveryPrefix, maxExecutions: 20_000 });
  return `${r.observation} ${r.positive} ${r.negative} [${r.flags}] ${[...stateSet(r)].sort().join(' | ')} ${r.stats.cutPaths}`;
}

const models: [string, CatModel][] = [['models/text lkmm', ownText]];
if (HAVE_LKMM) {
  models.push(
    ['linux-kernel.cat', kernelModel()!],
    ['linux-kernel.cat without rcu', kernelModel((t) => t.replace('irreflexive rb as rcu', ''))!],
    ['linux-kernel.cat, rcu-order without its one-grace-period terms after a section', kernelModel((t) => t.replace('(rcu-rscsi ; rcu-link ; rcu-gp) |', ''))!],
  );
} else {
  console.warn(`note: ${LKMM_DIR} is absent: forbidden sources are compared under litmus's own LKMM text only`);
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const RUNS = 40;

describe('sources forbidden at a read against runs without them', () => {
  it(`give the same answers on generated RCU and SRCU programs under ${models.map(([n]) => n).join('; ')}`, async () => {
    const counted = models.map(([name, m]) => ({ name, m, ...counting(m) }));
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(rcuPrograms, async (p) => {
        await tick();
        const text = render(p);
        for (const { name, m, model } of counted) {
          let whole: string;
          try {
            whole = answer(text, withoutShortcuts(m));
          } catch (e) {
            if (e instanceof LimitError) continue;
            throw e;
          }
          expect(answer(text, model, true), `${name}, every prefix checked\n${text}`).toBe(whole);
          expect(answer(text, model), `${name}\n${text}`).toBe(whole);
          compared++;
        }
      }),
      { numRuns: RUNS },
    );
    // Most draws are compared under every model (the rest hit the execution limit unpruned).
    expect(compared).toBeGreaterThan(0.3 * RUNS * models.length);
    // The shortcut was taken under each model that has the rcu check.
    for (const c of counted) if (!c.name.endsWith('without rcu')) expect(c.forbidden(), c.name).toBeGreaterThan(0);
  }, 600_000);
});
