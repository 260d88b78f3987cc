// The lock-order shortcut of a compiled model, derived from its checks
// (models/cat/derive-lock-order.ts): taken where the model's own checks
// prove it (the kernel's files: happens-before, with lock.cat's lemmas),
// kept where only what it does not rest on changes, dropped where what it
// rests on changes; and sound: on generated programs with locks, each
// compiled model (litmus's own texts, the kernel's files) with the shortcut
// finds what it finds without it, and what the built-in model finds.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import type { Event } from '../src/events/event.js';
import { withoutShortcuts, type Model } from '../src/model/model.js';
import type { Program } from '../src/program/program.js';
import { LimitError } from '../src/parse/errors.js';
import { compileModelFiles, type CatModel } from '../models/cat/model.js';
import { lkmm } from '../models/lkmm.js';
import { sc } from '../models/sc.js';
import { x86tso } from '../models/x86tso.js';
import { modelTextFiles } from '../models/texts.js';
import { FAMILIES } from '../bench/families.js';
import { HAVE_LKMM, LKMM_DIR, stateSet } from './util.js';

const KERNEL_FILES = ['linux-kernel.cat', 'linux-kernel.bell', 'lock.cat', 'linux-kernel.def'];

/** The kernel's model, compiled from a copy of its files with `edit` applied to one of them. */
function kernelModel(edit?: { file: string; from: string | RegExp; to: string }, skipChecks: string[] = []): CatModel {
  const dir = mkdtempSync(join(tmpdir(), 'litmus-lock-order-'));
  for (const f of KERNEL_FILES) {
    let text = readFileSync(join(LKMM_DIR, f), 'utf8');
    if (edit?.file === f) {
      const edited = text.replace(edit.from, edit.to);
      if (edited === text) throw new Error(`the edit of ${f} changed nothing`);
      text = edited;
    }
    writeFileSync(join(dir, f), text);
  }
  return compileModelFiles({
    cat: join(dir, 'linux-kernel.cat'), bell: join(dir, 'linux-kernel.bell'), variants: ['lkmmv2'],
    searchDirs: [dir], skipChecks, besideIncluder: true,
  });
}

/** Accesses as the explorer makes them (lockOrders looks at what they are and their threads). */
const accessEvent = (kind: 'R' | 'W', thread: number, annot: Event['annot'] = 'ONCE') =>
  ({ id: 0, kind, thread, annot, fence: undefined, lock: undefined, srcu: undefined, isRmw: false, rmwPartner: -1 }) as unknown as Event;
/** A program with no access to its locks' locations but the locks' own (no thread: nothing reaches them). */
const noMixing = { threads: [] } as unknown as Program;

/** Whether the model orders each pair of marked accesses of two threads' sections (read then write, write then read, two writes), and no plain one. */
function ordersMarked(m: CatModel): boolean {
  const pairs: [Event, Event][] = [[accessEvent('R', 0), accessEvent('W', 1)], [accessEvent('W', 0), accessEvent('R', 1)], [accessEvent('W', 0), accessEvent('W', 1)]];
  return pairs.every(([a, b]) => m.lockOrders(a, b, noMixing));
}

describe("the lock-order shortcut of litmus's own texts", () => {
  it('orders marked accesses under the LKMM text, every access under SC and x86-TSO (po, rf and fr in their acyclic checks)', () => {
    const text = (name: string) => compileModelFiles(modelTextFiles(name));
    const lk = text('lkmm');
    expect(ordersMarked(lk)).toBe(true);
    expect(lk.lockOrders(accessEvent('W', 0, 'PLAIN'), accessEvent('R', 1), noMixing)).toBe(false);
    for (const name of ['sc', 'x86-tso']) {
      const m = text(name);
      expect(ordersMarked(m), name).toBe(true);
      expect(m.lockOrders(accessEvent('W', 0, 'PLAIN'), accessEvent('R', 1, 'PLAIN'), noMixing), name).toBe(true);
      expect(m.lockOrders(accessEvent('R', 0), accessEvent('W', 0), noMixing), name).toBe(true);
    }
  });
});

describe.skipIf(!HAVE_LKMM)('the lock-order shortcut of a compiled model', () => {
  it("is derived for the kernel's files: marked accesses are ordered, plain ones are not", () => {
    const m = kernelModel();
    expect(ordersMarked(m)).toBe(true);
    expect(m.lockOrders(accessEvent('W', 0, 'PLAIN'), accessEvent('R', 1), noMixing)).toBe(false);
    expect(m.lockOrders(accessEvent('R', 0), accessEvent('W', 1, 'PLAIN'), noMixing)).toBe(false);
    // Without knowing the program, lock.cat's lemmas (no other access to a lock's location) are not taken.
    expect(m.lockOrders(accessEvent('R', 0), accessEvent('W', 1))).toBe(false);
  });

  it('is kept where only comments, layout or what it does not rest on change', () => {
    expect(ordersMarked(kernelModel({ file: 'lock.cat', from: /\(\*[^]*?\*\)/, to: '(* another comment *)\n\n' }))).toBe(true);
    expect(ordersMarked(kernelModel({ file: 'linux-kernel.cat', from: 'irreflexive rb as rcu', to: 'acyclic rb as rcu' }))).toBe(true);
    expect(ordersMarked(kernelModel({ file: 'linux-kernel.cat', from: 'flag ~empty mixed-accesses as mixed-accesses', to: '' }))).toBe(true);
    // The proof goes through po-rel, acq-po, rfe and prop, not po-unlock-lock-po.
    expect(ordersMarked(kernelModel({ file: 'linux-kernel.cat', from: '| (po-unlock-lock-po & int)', to: '' }))).toBe(true);
  });

  it('is not derived where what it rests on changes, or a check it needs is skipped', () => {
    // Lock reads may read any earlier lock write, not only the one just before.
    expect(ordersMarked(kernelModel({ file: 'lock.cat', from: '[IW | UL] ; singlestep(co) ; lk-rmw^-1', to: '[IW | UL] ; co ; lk-rmw^-1' }))).toBe(false);
    // Unlocks no longer release.
    expect(ordersMarked(kernelModel({ file: 'lock.cat', from: 'let Release = Release | UL', to: 'let Release = Release' }))).toBe(false);
    expect(ordersMarked(kernelModel(undefined, ['happens-before']))).toBe(false);
    // One thread's sections: by coherence, which -skipchecks coherence leaves unchecked.
    expect(kernelModel(undefined, ['coherence']).lockOrders(accessEvent('R', 0), accessEvent('W', 0), noMixing)).toBe(false);
    expect(kernelModel().lockOrders(accessEvent('R', 0), accessEvent('W', 0), noMixing)).toBe(true);
  });
});

// ------------------------------------------------------------ soundness

type Loc = 'x' | 'y';
/** How an access is written: plain (`*x`), READ_ONCE/WRITE_ONCE, or smp_load_acquire/smp_store_release. */
type Mark = 'plain' | 'once' | 'ordered';
type Access = { k: 'w'; loc: Loc; v: number; mark: Mark } | { k: 'r'; loc: Loc; mark: Mark };
/** A section of lock l or m; `held`: never released (the thread's last item). */
type Item =
  | Access
  | { k: 'lock'; lock: 'l' | 'm'; body: Access[] }
  | { k: 'trylock'; lock: 'l' | 'm'; body: Access[] }
  | { k: 'held'; lock: 'l' | 'm'; body: Access[] }
  | { k: 'is-locked'; lock: 'l' | 'm' }
  | { k: 'mb' };

const loc = fc.constantFrom<Loc>('x', 'y');
const mark = fc.constantFrom<Mark>('plain', 'once', 'once', 'ordered');
const access: fc.Arbitrary<Access> = fc.oneof(
  fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }), mark }),
  fc.record({ k: fc.constant('r' as const), loc, mark }),
);
const lockName = fc.constantFrom<'l' | 'm'>('l', 'l', 'l', 'm');
const body = fc.array(access, { minLength: 1, maxLength: 2 });
const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constant('lock' as const), lock: lockName, body }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('trylock' as const), lock: lockName, body }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('held' as const), lock: lockName, body }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('is-locked' as const), lock: lockName }) },
  { weight: 2, arbitrary: access },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('mb' as const) }) },
);
/** A thread's items: a section never released only last (its thread would wait for itself otherwise). */
const threadItems = fc.array(item, { minLength: 1, maxLength: 2 }).map((items) => items.filter((i, n) => i.k !== 'held' || n === items.length - 1));
const program = fc.record({
  threads: fc.array(threadItems.filter((t) => t.length > 0), { minLength: 2, maxLength: 3 }),
  pick: fc.nat(),
  v: fc.integer({ min: 0, max: 2 }),
});

/** The test a generated program is: every register and x, y shown in its states. */
function render(p: { threads: Item[][]; pick: number; v: number }): string {
  const regs: string[] = [];
  const procs = p.threads.map((items, t) => {
    const decls: string[] = [];
    const body: string[] = [];
    const reg = () => {
      const r = `r${decls.length}`;
      decls.push(`\tint ${r};`);
      regs.push(`${t}:${r}`);
      return r;
    };
    const emit = (a: Access, indent: string) => {
      if (a.k === 'w') {
        const call = { plain: `*${a.loc} = ${a.v}`, once: `WRITE_ONCE(*${a.loc}, ${a.v})`, ordered: `smp_store_release(${a.loc}, ${a.v})` }[a.mark];
        body.push(`${indent}${call};`);
      } else body.push(`${indent}${reg()} = ${{ plain: `*${a.loc}`, once: `READ_ONCE(*${a.loc})`, ordered: `smp_load_acquire(${a.loc})` }[a.mark]};`);
    };
    for (const i of items) {
      if (i.k === 'lock' || i.k === 'held') {
        body.push(`\tspin_lock(${i.lock});`);
        i.body.forEach((a) => emit(a, '\t'));
        if (i.k === 'lock') body.push(`\tspin_unlock(${i.lock});`);
      } else if (i.k === 'trylock') {
        body.push(`\t${reg()} = spin_trylock(${i.lock});`, `\tif (r${decls.length - 1}) {`);
        i.body.forEach((a) => emit(a, '\t\t'));
        body.push(`\t\tspin_unlock(${i.lock});`, '\t}');
      } else if (i.k === 'is-locked') body.push(`\t${reg()} = spin_is_locked(${i.lock});`);
      else if (i.k === 'mb') body.push('\tsmp_mb();');
      else emit(i, '\t');
    }
    return `P${t}(int *x, int *y, spinlock_t *l, spinlock_t *m)\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  const cond = regs.length ? `${regs[p.pick % regs.length]}=${p.v}` : `x=${p.v}`;
  return `C gen-locks\n\n{}\n\n${procs.join('\n')}\nlocations [${[...regs, 'x', 'y'].join('; ')}]\nexists (${cond})\n`;
}

/** What a check finds: observation, counts, flags, states. */
function summary(text: string, m: Model, maxExecutions?: number): string {
  const r = checkSource(text, { model: m, maxExecutions });
  return `${r.observation} ${r.positive} ${r.negative} [${r.flags}] ${[...stateSet(r)].sort().join(' | ')}`;
}

/** The models the shortcut is derived for: litmus's own texts, and the kernel's files where present. */
const SOUNDNESS_MODELS: [string, CatModel, number][] = [
  ['models/text lkmm', compileModelFiles(modelTextFiles('lkmm')), 50],
  ['models/text sc', compileModelFiles(modelTextFiles('sc')), 25],
  ['models/text x86-tso', compileModelFiles(modelTextFiles('x86-tso')), 25],
  ...(HAVE_LKMM ? [['linux-kernel.cat', kernelModel(), 50] as [string, CatModel, number]] : []),
];
/** The same model with only the lock order left out (and with every shortcut left out: withoutShortcuts). */
const noLockOrder = (m: Model): Model => ({ ...m, lockOrders: () => false });

describe('the lock-order shortcut is sound', () => {
  it.each(SOUNDNESS_MODELS)('under %s, on generated programs with locks (lock, trylock, is_locked, a lock never released, two locks; plain, once, acquire and release accesses; smp_mb): pruned, without the lock order, without any shortcut (and the built-in model) agree', (name, m, runs) => {
    let compared = 0;
    let ordered = 0;
    const counting: Model = { ...m, lockOrders: (a, b, p) => (m.lockOrders(a, b, p) ? (ordered++, true) : false) };
    const builtin = name.includes('sc') ? sc : name.includes('x86') ? x86tso : lkmm;
    fc.assert(
      fc.property(program, (p) => {
        const text = render(p);
        let whole: string;
        try {
          whole = summary(text, withoutShortcuts(m), 3000);
        } catch (e) {
          if (e instanceof LimitError) return;
          throw e;
        }
        expect(summary(text, counting), `pruned\n${text}`).toBe(whole);
        expect(summary(text, noLockOrder(m)), `without the lock order\n${text}`).toBe(whole);
        expect(summary(text, builtin), `built-in\n${text}`).toBe(whole);
        compared++;
      }),
      { numRuns: runs, seed: 2812 },
    );
    expect(compared).toBeGreaterThan(runs * 0.6);
    // The shortcut fired.
    expect(ordered).toBeGreaterThan(0);
  });
});

describe.skipIf(!HAVE_LKMM)('the lock-order shortcut is sound on families', () => {
  const compiled = HAVE_LKMM ? kernelModel() : undefined;
  const unpruned = (m: Model) => withoutShortcuts(m);
  it('on the spinlock families at small sizes', () => {
    for (const name of ['spinlock-counter', 'spinlock-handoff']) {
      const f = FAMILIES.find((x) => x.name === name)!;
      for (let n = f.minN; n <= 3; n++) {
        const text = f.make(n);
        const whole = summary(text, unpruned(compiled!));
        expect(summary(text, compiled!), `${name} N=${n}`).toBe(whole);
        expect(summary(text, lkmm), `${name} N=${n}, built-in`).toBe(whole);
      }
    }
  });
});
