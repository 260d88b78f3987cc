// The lock-order shortcut of a compiled model (models/cat/lock-order.ts):
// taken where the model's checks include the kernel's happens-before and
// coherence (by digest), and sound: on generated programs with locks, the
// compiled kernel model with the shortcut finds what it finds without it,
// and what the built-in LKMM finds.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import type { Event } from '../src/events/event.js';
import type { Model } from '../src/model/model.js';
import { LimitError } from '../src/parse/errors.js';
import { compileModelFiles, type CatModel } from '../models/cat/model.js';
import { checkDigests } from '../models/cat/digest.js';
import { KERNEL_LOCK_ORDER_CHECKS, ordersCriticalSections } from '../models/cat/lock-order.js';
import { lkmm } from '../models/lkmm.js';
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

const takesShortcut = (m: CatModel) => ordersCriticalSections(m.compiled, new Set(m.files.skipChecks));

/** A marked access, as the explorer makes one (lockOrders looks at annotations). */
const marked = { annot: 'ONCE' } as Event;

describe.skipIf(!HAVE_LKMM)('the lock-order shortcut of a compiled model', () => {
  it("is taken by the kernel's files: their checks have the digests lock-order.ts names", () => {
    const m = kernelModel();
    const digests = new Set(checkDigests(m.compiled).values());
    for (const d of KERNEL_LOCK_ORDER_CHECKS) expect(digests.has(d), d).toBe(true);
    expect(takesShortcut(m)).toBe(true);
    expect(m.lockOrders(marked, marked)).toBe(true);
    expect(m.lockOrders(marked, { annot: 'PLAIN' } as Event)).toBe(false);
  });

  it('is kept where only comments, layout or checks it does not rest on change', () => {
    expect(takesShortcut(kernelModel({ file: 'lock.cat', from: /\(\*[^]*?\*\)/, to: '(* another comment *)\n\n' }))).toBe(true);
    expect(takesShortcut(kernelModel({ file: 'linux-kernel.cat', from: 'irreflexive rb as rcu', to: 'acyclic rb as rcu' }))).toBe(true);
    expect(takesShortcut(kernelModel({ file: 'linux-kernel.cat', from: 'flag ~empty mixed-accesses as mixed-accesses', to: '' }))).toBe(true);
  });

  it('is not taken where what it rests on changes, or a check it needs is skipped', () => {
    // Lock reads may read any earlier lock write, not only the one just before.
    expect(takesShortcut(kernelModel({ file: 'lock.cat', from: '[IW | UL] ; singlestep(co) ; lk-rmw^-1', to: '[IW | UL] ; co ; lk-rmw^-1' }))).toBe(false);
    // Unlocks no longer release.
    expect(takesShortcut(kernelModel({ file: 'lock.cat', from: 'let Release = Release | UL', to: 'let Release = Release' }))).toBe(false);
    // A weaker ppo.
    expect(takesShortcut(kernelModel({ file: 'linux-kernel.cat', from: '| (po-unlock-lock-po & int)', to: '' }))).toBe(false);
    expect(takesShortcut(kernelModel(undefined, ['happens-before']))).toBe(false);
    expect(takesShortcut(kernelModel(undefined, ['coherence']))).toBe(false);
    const edited = kernelModel({ file: 'lock.cat', from: '[IW | UL] ; singlestep(co) ; lk-rmw^-1', to: '[IW | UL] ; co ; lk-rmw^-1' });
    expect(edited.lockOrders(marked, marked)).toBe(false);
  });
});

// ------------------------------------------------------------ soundness

type Loc = 'x' | 'y';
/** How an access is written: plain (`*x`), READ_ONCE/WRITE_ONCE, or smp_load_acquire/smp_store_release. */
type Mark = 'plain' | 'once' | 'ordered';
type Access = { k: 'w'; loc: Loc; v: number; mark: Mark } | { k: 'r'; loc: Loc; mark: Mark };
type Item =
  | Access
  | { k: 'lock'; body: Access[] }
  | { k: 'trylock'; body: Access[] }
  | { k: 'is-locked' }
  | { k: 'mb' };

const loc = fc.constantFrom<Loc>('x', 'y');
const mark = fc.constantFrom<Mark>('plain', 'once', 'once', 'ordered');
const access: fc.Arbitrary<Access> = fc.oneof(
  fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }), mark }),
  fc.record({ k: fc.constant('r' as const), loc, mark }),
);
const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constant('lock' as const), body: fc.array(access, { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('trylock' as const), body: fc.array(access, { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('is-locked' as const) }) },
  { weight: 2, arbitrary: access },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('mb' as const) }) },
);
const program = fc.record({
  threads: fc.array(fc.array(item, { minLength: 1, maxLength: 2 }), { minLength: 2, maxLength: 3 }),
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
      if (i.k === 'lock') {
        body.push('\tspin_lock(l);');
        i.body.forEach((a) => emit(a, '\t'));
        body.push('\tspin_unlock(l);');
      } else if (i.k === 'trylock') {
        body.push(`\t${reg()} = spin_trylock(l);`, `\tif (r${decls.length - 1}) {`);
        i.body.forEach((a) => emit(a, '\t\t'));
        body.push('\t\tspin_unlock(l);', '\t}');
      } else if (i.k === 'is-locked') body.push(`\t${reg()} = spin_is_locked(l);`);
      else if (i.k === 'mb') body.push('\tsmp_mb();');
      else emit(i, '\t');
    }
    return `P${t}(int *x, int *y, spinlock_t *l)\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  const cond = regs.length ? `${regs[p.pick % regs.length]}=${p.v}` : `x=${p.v}`;
  return `C gen-locks\n\n{}\n\n${procs.join('\n')}\nlocations [${[...regs, 'x', 'y'].join('; ')}]\nexists (${cond})\n`;
}

/** Without the explorer's shortcuts and prefix checks: every candidate built and judged whole. */
const unpruned = (m: Model): Model => ({
  ...m,
  mayCycleThrough: () => true,
  lockOrders: () => false,
  check: (x, opts) => (opts?.prefix ? { consistent: true, flags: [] } : m.check(x)),
});

/** What a check finds: observation, counts, flags, states. */
function summary(text: string, m: Model, maxExecutions?: number): string {
  const r = checkSource(text, { model: m, maxExecutions });
  return `${r.observation} ${r.positive} ${r.negative} [${r.flags}] ${[...stateSet(r)].sort().join(' | ')}`;
}

describe.skipIf(!HAVE_LKMM)('the lock-order shortcut is sound', () => {
  const compiled = HAVE_LKMM ? kernelModel() : undefined;
  it('on generated programs with locks (lock, trylock, is_locked; plain, once, acquire and release accesses; smp_mb): the compiled model with it, without it, and the built-in LKMM agree', () => {
    let compared = 0;
    fc.assert(
      fc.property(program, (p) => {
        const text = render(p);
        let whole: string;
        try {
          whole = summary(text, unpruned(compiled!), 3000);
        } catch (e) {
          if (e instanceof LimitError) return;
          throw e;
        }
        expect(summary(text, compiled!), `pruned\n${text}`).toBe(whole);
        expect(summary(text, lkmm), `built-in\n${text}`).toBe(whole);
        compared++;
      }),
      { numRuns: 60 },
    );
    expect(compared).toBeGreaterThan(40);
  });

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
