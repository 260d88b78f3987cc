import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkSource } from '../src/check.js';
import { parseLitmus } from '../src/parse/parser.js';
import { printLitmus } from '../src/parse/printer.js';
import { herdBlock } from '../src/report/herd.js';
import { checkEveryAxiom, lkmm, lkmmRelations } from '../models/lkmm.js';
import { builtinModel } from '../models/index.js';
import type { Model } from '../src/model/model.js';
import { traceReport } from '../src/report/trace.js';
import { stepNumbers } from '../src/report/steps.js';
import { scratch } from '../src/relation/relation.js';
import { sc } from '../models/sc.js';
import { x86tso } from '../models/x86tso.js';
import { speedView } from '../src/cli/herd7-test.js';
import { HAVE_LKMM, LKMM_DIR, litmus, stateSet, stripPos } from './util.js';
import { SHAPES } from './shapes.js';
import { corpusDir, readRows } from '../scripts/corpus.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileModelFiles } from '../models/cat/model.js';
import { FAMILIES } from '../bench/families.js';
import { LimitError } from '../src/parse/errors.js';
import { shapeProgram, SHAPE_KINDS } from '../scripts/fuzz-shapes.js';
import { Rng } from '../scripts/fuzz-mutate.js';

// ------------------------------------------------------------ generator

type Instr =
  /** `plain`: a C assignment instead of WRITE_ONCE/READ_ONCE. */
  | { k: 'w'; loc: 'x' | 'y'; v: number; plain?: boolean }
  | { k: 'r'; loc: 'x' | 'y'; plain?: boolean }
  | { k: 'f'; f: 'smp_mb' | 'smp_rmb' | 'smp_wmb' }
  /** `if (rN == v) WRITE_ONCE(*loc, w);` on the thread's last register read. */
  | { k: 'ctrl'; v: number; loc: 'x' | 'y'; w: number }
  /** An RCU or SRCU read-side critical section, or a spinlock's, around accesses. */
  | { k: 'section'; kind: 'rcu' | 'srcu' | 'lock'; body: Instr[] }
  | { k: 'gp'; kind: 'rcu' | 'srcu' }
  /** `rN = xchg(loc, v);` */
  | { k: 'xchg'; loc: 'x' | 'y'; v: number }
  /** `rN = READ_ONCE(*from); WRITE_ONCE(*to, rN);` */
  | { k: 'copy'; from: 'x' | 'y'; to: 'x' | 'y' }
  /** rcu_read_lock() or rcu_read_unlock() alone (sections left open, unlocks with none open). */
  | { k: 'rcu'; op: 'lock' | 'unlock' }
  /** `if (rN == v) { body }` on the thread's last register read (body alone when there is none). */
  | { k: 'if'; v: number; body: Instr[] };

const loc = fc.constantFrom<'x' | 'y'>('x', 'y');
const instr: fc.Arbitrary<Instr> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('r' as const), loc }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('f' as const), f: fc.constantFrom<'smp_mb' | 'smp_rmb' | 'smp_wmb'>('smp_mb', 'smp_rmb', 'smp_wmb') }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('ctrl' as const), v: fc.integer({ min: 0, max: 2 }), loc, w: fc.integer({ min: 1, max: 2 }) }) },
);

/** With RCU and SRCU read-side critical sections, grace periods and spinlocks. */
const access: fc.Arbitrary<Instr> = fc.oneof(
  fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ k: fc.constant('r' as const), loc }),
);
const syncInstr: fc.Arbitrary<Instr> = fc.oneof(
  { weight: 4, arbitrary: instr },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('section' as const), kind: fc.constantFrom<'rcu' | 'srcu' | 'lock'>('rcu', 'srcu', 'lock'), body: fc.array(access, { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('gp' as const), kind: fc.constantFrom<'rcu' | 'srcu'>('rcu', 'srcu') }) },
);

interface Gen {
  threads: Instr[][];
  /** Picks among the registers (by index into all registers) and their values. */
  picks: { reg: number; v: number }[];
  memPick: { loc: 'x' | 'y'; v: number };
  quantifier: 'exists' | '~exists' | 'forall';
  connective: '/\\' | '\\/';
}

const gen: fc.Arbitrary<Gen> = fc.record({
  threads: fc.array(fc.array(instr, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 3 }),
  picks: fc.array(fc.record({ reg: fc.nat(), v: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 3 }),
  memPick: fc.record({ loc, v: fc.integer({ min: 0, max: 2 }) }),
  quantifier: fc.constantFrom<'exists' | '~exists' | 'forall'>('exists', 'exists', '~exists', 'forall'),
  connective: fc.constantFrom<'/\\' | '\\/'>('/\\', '/\\', '\\/'),
});

/** The litmus text of a generated program. */
function render(g: Gen, name = 'gen', showRegs = false): string {
  const regs: string[] = [];
  const sync = g.threads.some((th) => th.some((i) => i.k === 'section' || i.k === 'gp' || i.k === 'rcu'));
  const procs = g.threads.map((th, t) => {
    const decls: string[] = [];
    const body: string[] = [];
    let n = 0;
    let cookies = 0;
    const emit = (i: Instr) => {
      if (i.k === 'w') body.push(i.plain ? `\t*${i.loc} = ${i.v};` : `\tWRITE_ONCE(*${i.loc}, ${i.v});`);
      else if (i.k === 'r') {
        const r = `r${n++}`;
        decls.push(`\tint ${r};`);
        body.push(i.plain ? `\t${r} = *${i.loc};` : `\t${r} = READ_ONCE(*${i.loc});`);
        regs.push(`${t}:${r}`);
      } else if (i.k === 'rcu') body.push(i.op === 'lock' ? '\trcu_read_lock();' : '\trcu_read_unlock();');
      else if (i.k === 'if') {
        const guarded = n > 0;
        if (guarded) body.push(`\tif (r${n - 1} == ${i.v}) {`);
        i.body.forEach(emit);
        if (guarded) body.push('\t}');
      } else if (i.k === 'copy') {
        const r = `r${n++}`;
        decls.push(`\tint ${r};`);
        body.push(`\t${r} = READ_ONCE(*${i.from});`, `\tWRITE_ONCE(*${i.to}, ${r});`);
        regs.push(`${t}:${r}`);
      } else if (i.k === 'xchg') {
        const r = `r${n++}`;
        decls.push(`\tint ${r};`);
        body.push(`\t${r} = xchg(${i.loc}, ${i.v});`);
        regs.push(`${t}:${r}`);
      } else if (i.k === 'f') body.push(`\t${i.f}();`);
      else if (i.k === 'section') {
        const c = `c${cookies++}`;
        if (i.kind === 'srcu') decls.push(`\tint ${c};`);
        body.push(i.kind === 'rcu' ? '\trcu_read_lock();' : i.kind === 'srcu' ? `\t${c} = srcu_read_lock(s);` : '\tspin_lock(l);');
        i.body.forEach(emit);
        body.push(i.kind === 'rcu' ? '\trcu_read_unlock();' : i.kind === 'srcu' ? `\tsrcu_read_unlock(s, ${c});` : '\tspin_unlock(l);');
      } else if (i.k === 'gp') body.push(i.kind === 'rcu' ? '\tsynchronize_rcu();' : '\tsynchronize_srcu(s);');
      else if (n > 0) body.push(`\tif (r${n - 1} == ${i.v})\n\t\tWRITE_ONCE(*${i.loc}, ${i.w});`);
      else body.push(`\tWRITE_ONCE(*${i.loc}, ${i.w});`);
    };
    th.forEach(emit);
    const params = sync ? 'int *x, int *y, spinlock_t *l, struct srcu_struct *s' : 'int *x, int *y';
    return `P${t}(${params})\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  const atoms = regs.length
    ? [...new Map(g.picks.map((p) => [regs[p.reg % regs.length], p.v])).entries()].map(([r, v]) => `${r}=${v}`)
    : [];
  atoms.push(`${g.memPick.loc}=${g.memPick.v}`);
  // Programs with grace periods show every register in their states.
  const listed = showRegs ? [...regs, 'x', 'y'] : regs;
  const shown = (sync || showRegs) && listed.length ? `locations [${listed.join('; ')}]\n` : '';
  return `C ${name}\n\n{}\n\n${procs.join('\n')}\n${shown}${g.quantifier} (${atoms.join(` ${g.connective} `)})\n`;
}

// A grace period between accesses on P0, a critical section on P1 (the
// shapes RCU forbids), anything on a third thread.
const write: fc.Arbitrary<Instr> = fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }) });
const updater = fc.tuple(write, fc.constantFrom<'rcu' | 'srcu'>('rcu', 'srcu'), fc.oneof(write, access))
  .map(([a, kind, b]): Instr[] => [a, { k: 'gp', kind }, b]);
const reader = fc.tuple(fc.constantFrom<'rcu' | 'srcu' | 'lock'>('rcu', 'srcu', 'lock'), fc.array(access, { minLength: 2, maxLength: 2 }))
  .map(([kind, body]): Instr[] => [{ k: 'section', kind, body }]);
const genSync: fc.Arbitrary<Gen> = fc.record({
  threads: fc.tuple(updater, reader, fc.array(fc.array(syncInstr, { minLength: 1, maxLength: 3 }), { maxLength: 1 }))
    .map(([u, r, rest]) => [u, r, ...rest]),
  picks: fc.array(fc.record({ reg: fc.nat(), v: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 3 }),
  memPick: fc.record({ loc, v: fc.integer({ min: 0, max: 2 }) }),
  quantifier: fc.constant<'exists'>('exists'),
  connective: fc.constantFrom<'/\\' | '\\/'>('/\\', '\\/'),
});

// RCU-heavy programs: updaters writing and reading around one or two grace
// periods, readers with read-side critical sections (nested, left open,
// closed only on some paths, unlocks with none open), marked and plain
// accesses inside and around them (what models/lkmm-rcu-reads.ts decides
// at the read).
const plainRead: fc.Arbitrary<Instr> = fc.record({ k: fc.constant('r' as const), loc, plain: fc.constant(true) });
const plainWrite: fc.Arbitrary<Instr> = fc.record({ k: fc.constant('w' as const), loc, v: fc.integer({ min: 1, max: 2 }), plain: fc.constant(true) });
const xchgOf: fc.Arbitrary<Instr> = fc.record({ k: fc.constant('xchg' as const), loc, v: fc.integer({ min: 1, max: 2 }) });
const readerAccess: fc.Arbitrary<Instr> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ k: fc.constant('r' as const), loc }) },
  { weight: 1, arbitrary: plainRead },
  { weight: 1, arbitrary: write },
  { weight: 1, arbitrary: xchgOf },
);
const updaterAccess: fc.Arbitrary<Instr> = fc.oneof(
  { weight: 5, arbitrary: write },
  { weight: 1, arbitrary: plainWrite },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('r' as const), loc }) },
  { weight: 1, arbitrary: xchgOf },
);
const rcuUpdater = fc.tuple(updaterAccess, fc.array(updaterAccess, { minLength: 1, maxLength: 2 }), fc.option(updaterAccess, { freq: 4 }))
  .map(([a, b, c]): Instr[] => [a, { k: 'gp', kind: 'rcu' }, ...b, ...(c ? [{ k: 'gp', kind: 'rcu' } as Instr, c] : [])]);
const rcuReaderItem: fc.Arbitrary<Instr> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constant('section' as const), kind: fc.constant('rcu' as const), body: fc.array(readerAccess, { minLength: 2, maxLength: 3 }) }) },
  { weight: 2, arbitrary: readerAccess },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('rcu' as const), op: fc.constantFrom<'lock' | 'unlock'>('lock', 'unlock') }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('if' as const),
      v: fc.integer({ min: 0, max: 2 }),
      body: fc.array(fc.oneof(readerAccess, fc.constant<Instr>({ k: 'rcu', op: 'unlock' }), fc.constant<Instr>({ k: 'rcu', op: 'lock' })), { minLength: 1, maxLength: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(readerAccess, readerAccess, readerAccess).map(([a, inner, b]): Instr => ({
      k: 'section', kind: 'rcu', body: [a, { k: 'section', kind: 'rcu', body: [inner] }, b],
    })),
  },
);
const rcuReader = fc.array(rcuReaderItem, { minLength: 1, maxLength: 3 });
const genRcu: fc.Arbitrary<Gen> = fc.record({
  threads: fc.tuple(rcuUpdater, rcuReader, fc.array(fc.oneof(rcuReader, rcuUpdater), { maxLength: 1 }))
    .map(([u, r, rest]) => [r, ...rest, u]),
  picks: fc.array(fc.record({ reg: fc.nat(), v: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 3 }),
  memPick: fc.record({ loc, v: fc.integer({ min: 0, max: 2 }) }),
  quantifier: fc.constant<'exists'>('exists'),
  connective: fc.constantFrom<'/\\' | '\\/'>('/\\', '\\/'),
});

// Values passed on by plain copies through memory and registers (the
// shape of copy chains, where the witness search orders reads by the
// values the condition wants: src/explore/likely.ts).
const copyInstr: fc.Arbitrary<Instr> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('copy' as const), from: loc, to: loc }) },
  { weight: 2, arbitrary: write },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('r' as const), loc }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('f' as const), f: fc.constantFrom<'smp_mb' | 'smp_rmb' | 'smp_wmb'>('smp_mb', 'smp_rmb', 'smp_wmb') }) },
);
const genCopies: fc.Arbitrary<Gen> = fc.record({
  threads: fc.array(fc.array(copyInstr, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 4 }),
  picks: fc.array(fc.record({ reg: fc.nat(), v: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 3 }),
  memPick: fc.record({ loc, v: fc.integer({ min: 0, max: 2 }) }),
  quantifier: fc.constantFrom<'exists' | '~exists' | 'forall'>('exists', '~exists', 'forall'),
  connective: fc.constantFrom<'/\\' | '\\/'>('/\\', '\\/'),
});

const RUNS = 80;

/** Lets the test runner's messages through between runs of a long property. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

// ------------------------------------------------------------ properties

describe('printing and parsing', () => {
  it('printLitmus then parseLitmus gives the same tree (generated programs)', () => {
    fc.assert(
      fc.property(gen, (g) => {
        const text = render(g);
        const a = parseLitmus(text);
        const b = parseLitmus(printLitmus(a));
        expect(stripPos(b)).toEqual(stripPos(a));
      }),
      { numRuns: 200 },
    );
  });

  it('printing is a fixpoint after one round', () => {
    fc.assert(
      fc.property(gen, (g) => {
        const once = printLitmus(parseLitmus(render(g)));
        expect(printLitmus(parseLitmus(once))).toBe(once);
      }),
      { numRuns: 100 },
    );
  });

  it('round-trips hand-written constructs the generator does not produce', () => {
    const text = `C rich
(* Result: Sometimes *)
{
  int x = 1; atomic_t a = ATOMIC_INIT(2); spinlock_t l; int *p = &x; 0:r9 = y; 1:r8 = -3;
}
P0(int *x, int *y, atomic_t *a, spinlock_t *l, int **p)
{
  int r0;
  int r1 = 3;
  int *r2;
  r0 = READ_ONCE(*x);
  if (r0 == 1) { WRITE_ONCE(*y, r0 + 1); } else if (r0) WRITE_ONCE(*y, 3); else { ; }
  while (r1 > 0) r1 = r1 - 1;
  r1 = (int)r0 * -2 / 3 % 4 & 5 | 6 ^ 7 << 1 >> 2;
  r1 = !(r0 == 1 && r0 != 2) || ~r0 < 3 && r0 <= 3 && r0 > -1 && r0 >= 1;
  r1 = atomic_fetch_add(1, a);
  r1 += 2;
  r2 = READ_ONCE(*p);
  spin_lock(l);
  *x = (r1 - (r0 - 1));
  spin_unlock(l);
}
P1(int *x)
{
  int r0;
  r0 = *x;
}
locations [x; 0:r0]
filter (0:r0=1 \\/ ~(0:r0=0))
exists (0:r0=1 /\\ x=2 \\/ ~(1:r0=0) /\\ not (y=1) \\/ x != 1 /\\ [y]=-1)
`;
    const a = parseLitmus(text);
    const b = parseLitmus(printLitmus(a));
    expect(stripPos(b)).toEqual(stripPos(a));
  });
});

describe('determinism', () => {
  it('checking the same test twice prints the same herd block', () => {
    fc.assert(
      fc.property(gen, (g) => {
        const text = render(g);
        const a = herdBlock(checkSource(text, { model: lkmm }));
        const b = herdBlock(checkSource(text, { model: lkmm }));
        expect(b).toBe(a);
      }),
      { numRuns: RUNS },
    );
  });

  it('the counts add up: P + N is the number of executions, one per state or more', () => {
    fc.assert(
      fc.property(gen, (g) => {
        const r = checkSource(render(g), { model: lkmm });
        const total = r.states.reduce((n, s) => n + s.count, 0);
        expect(r.positive + r.negative).toBe(total);
        expect(r.states.filter((s) => s.positive).reduce((n, s) => n + s.count, 0)).toBe(r.positive);
        expect(new Set(r.states.map((s) => JSON.stringify(s.bindings))).size).toBe(r.states.length);
        const obs = r.positive === 0 ? 'Never' : r.negative === 0 ? 'Always' : 'Sometimes';
        expect(r.observation).toBe(obs);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('a filter clause', () => {
  // The explorer drops a partial execution as soon as the filter rejects it
  // (speedcheck.ts, filterPrunes); the result must be that of the same test
  // without the filter, keeping the executions whose final state passes it.
  it('counts exactly the executions of the unfiltered test whose state passes the filter', () => {
    const filterGen = fc.record({
      g: gen,
      picks: fc.array(fc.record({ reg: fc.nat(), v: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 2 }),
      connective: fc.constantFrom<'/\\' | '\\/'>('/\\', '\\/'),
    });
    fc.assert(
      fc.property(filterGen, ({ g, picks, connective }) => {
        const unfiltered = render(g, 'gen', true);
        const regs = [...unfiltered.matchAll(/^locations \[(.*)\]$/gm)][0]?.[1].split('; ').filter((r) => r.includes(':')) ?? [];
        if (regs.length === 0) return;
        const atoms = new Map(picks.map((p) => [regs[p.reg % regs.length], p.v]));
        const filter = `filter (${[...atoms].map(([r, v]) => `${r}=${v}`).join(` ${connective} `)})`;
        const lines = unfiltered.trimEnd().split('\n');
        const filtered = [...lines.slice(0, -1), filter, lines[lines.length - 1]].join('\n') + '\n';
        const passes = (b: [string, string][]) => {
          const value = new Map(b);
          const hits = [...atoms].map(([r, v]) => value.get(r) === String(v));
          return connective === '/\\' ? hits.every(Boolean) : hits.some(Boolean);
        };
        const all = checkSource(unfiltered, { model: lkmm });
        const kept = all.states.filter((st) => passes(st.bindings));
        const r = checkSource(filtered, { model: lkmm });
        expect(r.states.map((st) => [st.bindings, st.count, st.positive])).toEqual(kept.map((st) => [st.bindings, st.count, st.positive]));
        expect([r.positive, r.negative]).toEqual([
          kept.filter((st) => st.positive).reduce((n, st) => n + st.count, 0),
          kept.filter((st) => !st.positive).reduce((n, st) => n + st.count, 0),
        ]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('condition-directed search (--speedcheck)', () => {
  // The generated conditions mix /\ and \/ over registers and a location,
  // under exists, ~exists and forall; genSync adds locks, RCU and SRCU,
  // genCopies values copied from thread to thread.
  it('decides the exhaustive Observation and Ok; -speedcheck true keeps exactly the states the condition looks for', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(gen, genSync, genCopies), async (g) => {
        await tick();
        const text = render(g);
        // Four threads of copies can have hundreds of thousands of executions (seconds each run):
        // such a draw is skipped, so that no seed takes the file past its timeout.
        let all: ReturnType<typeof checkSource>;
        try {
          all = checkSource(text, { model: lkmm, maxExecutions: 20000 });
        } catch (e) {
          if (e instanceof LimitError) return fc.pre(false);
          throw e;
        }
        const d = checkSource(text, { model: lkmm, speedcheck: 'decide' });
        expect([d.observation, d.ok], text).toEqual([all.observation, all.ok]);
        expect(d.positive + d.negative).toBeLessThanOrEqual(2);
        const t = speedView(checkSource(text, { model: lkmm, speedcheck: 'true' }), 'true');
        const want = speedView(all, 'true');
        expect({ states: t.states, p: t.positive, n: t.negative, o: t.observation }, text).toEqual({
          states: want.states,
          p: want.positive,
          n: want.negative,
          o: want.observation,
        });
        const f = speedView(checkSource(text, { model: lkmm, speedcheck: 'fast' }), 'fast');
        expect([f.observation, f.positive + f.negative], text).toEqual([want.observation, Math.min(1, want.positive + want.negative)]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('model strength', () => {
  // On these programs (ONCE accesses, smp_mb/rmb/wmb, control dependencies)
  // SC is stronger than x86-TSO, which is stronger than the LKMM.
  it('every SC state is an x86-TSO state, and every x86-TSO state is an LKMM state', () => {
    fc.assert(
      fc.property(gen, (g) => {
        const text = render(g);
        const s = stateSet(checkSource(text, { model: sc }));
        const t = stateSet(checkSource(text, { model: x86tso }));
        const l = stateSet(checkSource(text, { model: lkmm }));
        for (const st of s) expect(t.has(st), `SC state ${st} missing under x86-TSO\n${text}`).toBe(true);
        for (const st of t) expect(l.has(st), `x86-TSO state ${st} missing under the LKMM\n${text}`).toBe(true);
        expect(s.size).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
  });

  // With RCU and SRCU critical sections, grace periods and spinlocks: SC
  // and x86-TSO keep grace periods out of the critical sections they wait
  // for, so the inclusion still holds.
  it('the inclusion holds with RCU, SRCU and spinlocks', async () => {
    await fc.assert(
      fc.asyncProperty(genSync, async (g) => {
        await tick();
        const text = render(g);
        const s = stateSet(checkSource(text, { model: sc }));
        const t = stateSet(checkSource(text, { model: x86tso }));
        const l = stateSet(checkSource(text, { model: lkmm }));
        for (const st of s) expect(t.has(st), `SC state ${st} missing under x86-TSO\n${text}`).toBe(true);
        for (const st of t) expect(l.has(st), `x86-TSO state ${st} missing under the LKMM\n${text}`).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

// The LKMM takes an execution it finds to be an interleaving as allowed
// without computing its relations (models/interleaving.ts); on every
// candidate the explorer builds, complete or a prefix, with the model's
// pruning off, that answer and its flags must be those of the axioms
// checked one by one.
describe('the LKMM shortcut for interleavings', () => {
  const compared = { candidates: 0, consistent: 0 };
  const judgedTwice: Model = {
    ...lkmm,
    // No pruning: every candidate the explorer can build reaches the check.
    mayCycleThrough: () => true,
    lockOrders: () => false,
    forbiddenSources: undefined,
    check(x, opts) {
      const quick = lkmm.check(x, opts);
      const full = checkEveryAxiom(x, opts);
      compared.candidates++;
      if (full.consistent) compared.consistent++;
      expect(quick.consistent, 'shortcut against the axioms').toBe(full.consistent);
      if (quick.consistent) expect(quick.flags).toEqual(full.flags);
      return quick;
    },
  };
  // Read-modify-writes too (their atomicity is the shortcut's own check).
  const rmw: fc.Arbitrary<Instr> = fc.record({ k: fc.constant('xchg' as const), loc, v: fc.integer({ min: 1, max: 2 }) });
  const withRmw: fc.Arbitrary<Gen> = gen.chain((g) =>
    fc.array(fc.tuple(fc.nat(), rmw), { maxLength: 2 }).map((adds) => {
      const threads = g.threads.map((th) => th.slice());
      for (const [at, i] of adds) threads[at % threads.length].push(i);
      return { ...g, threads };
    }));

  it('agrees with the axioms on generated programs (fences, dependencies, RMWs)', () => {
    fc.assert(
      fc.property(withRmw, (g) => {
        checkSource(render(g), { model: judgedTwice });
      }),
      { numRuns: RUNS },
    );
    expect(compared.consistent).toBeGreaterThan(0);
  });

  it('agrees with the axioms on the classic shapes (acquire, release, dependencies, fences)', () => {
    const before = compared.candidates;
    for (const shape of SHAPES) checkSource(litmus(shape.name.split(' ')[0], shape.procs, shape.cond), { model: judgedTwice });
    expect(compared.candidates).toBeGreaterThan(before);
  });

  const corpus = corpusDir();
  it.skipIf(!corpus)('agrees with the axioms on the kernel corpus (skipped without ../shared/corpus)', () => {
    const before = compared.candidates;
    for (const row of readRows(corpus!)) {
      checkSource(readFileSync(join(corpus!, row.test), 'utf8'), { model: judgedTwice, timeoutMs: 5000 });
    }
    expect(compared.candidates).toBeGreaterThan(before);
  });

  it('agrees with the axioms with RCU and SRCU critical sections, grace periods and spinlocks', async () => {
    const before = compared.candidates;
    await fc.assert(
      fc.asyncProperty(genSync, async (g) => {
        await tick();
        checkSource(render(g), { model: judgedTwice });
        checkSource(render(g), { model: judgedTwice, checkEveryPrefix: true });
      }),
      { numRuns: 50 },
    );
    expect(compared.candidates).toBeGreaterThan(before);
  });
});

// ------------------------------------------------------------ traces and fixes

/** The trace lines of a witness block that name a cycle step: [from, to, text]. */
function cycleSteps(block: string): [string, string, string][] {
  return [...block.matchAll(/^ {4}(P\d+\.\d+|init \w+) -> (P\d+\.\d+|init \w+): (.*)$/gm)].map((m) => [m[1], m[2], m[3]]);
}

/** The source with one change of a fix applied (the generator's one statement per line). */
function applyChange(text: string, change: string): string {
  const lines = text.split('\n');
  const fence = /^(smp_[rw]?mb)\(\) between P\d+\.\d+ \(line (\d+)\) and /.exec(change);
  if (fence) {
    lines.splice(Number(fence[2]), 0, `\t${fence[1]}();`);
    return lines.join('\n');
  }
  const storeMb = /^WRITE_ONCE → smp_store_mb at P\d+\.\d+ \(line (\d+)\),/.exec(change);
  if (storeMb) {
    lines.splice(Number(storeMb[1]), 0, '\tsmp_mb();');
    return lines.join('\n');
  }
  const swap = /^(READ_ONCE|WRITE_ONCE) → (smp_load_acquire|smp_store_release) at P\d+\.\d+ \(line (\d+)\)$/.exec(change);
  if (!swap) throw new Error(`unexpected change: ${change}`);
  const i = Number(swap[3]) - 1;
  lines[i] = lines[i].replace(/(READ_ONCE|WRITE_ONCE)\(\*(\w+)/, `${swap[2]}($2`);
  return lines.join('\n');
}

/**
 * A generated program whose condition is an outcome the LKMM allows and SC
 * does not (the first such state, every register shown), or undefined.
 */
function nonScOutcome(g: Gen): string | undefined {
  const text = render({ ...g, quantifier: 'exists' }, 'gen', true);
  const s = stateSet(checkSource(text, { model: sc }));
  const state = [...stateSet(checkSource(text, { model: lkmm }))].find((st) => !s.has(st));
  if (!state) return undefined;
  const cond = state.split(';').map((b) => b.trim()).filter(Boolean).join(' /\\ ');
  return text.replace(/^exists .*$/m, `exists (${cond})`);
}

const MP_WMB: Gen = {
  threads: [[{ k: 'w', loc: 'x', v: 1 }, { k: 'f', f: 'smp_wmb' }, { k: 'w', loc: 'y', v: 1 }], [{ k: 'r', loc: 'y' }, { k: 'r', loc: 'x' }]],
  picks: [],
  memPick: { loc: 'x', v: 1 },
  quantifier: 'exists',
  connective: '/\\',
};

describe('traces say what the model says', () => {
  // Two or three threads, each an access of x or y, maybe a fence, and an
  // access of the other location (the shapes of MP, SB, LB, WRC, R, S, ...).
  const fence = fc.option(fc.record({ k: fc.constant('f' as const), f: fc.constantFrom<'smp_mb' | 'smp_rmb' | 'smp_wmb'>('smp_mb', 'smp_rmb', 'smp_wmb') }), { freq: 3 });
  const pairThread = fc.tuple(loc, fc.boolean(), fence, fc.boolean(), fc.integer({ min: 1, max: 2 })).map(([l, w1, f, w2, v]): Instr[] => {
    const other = l === 'x' ? 'y' : 'x';
    const first: Instr = w1 ? { k: 'w', loc: l, v } : { k: 'r', loc: l };
    const second: Instr = w2 ? { k: 'w', loc: other, v } : { k: 'r', loc: other };
    return f ? [first, f, second] : [first, second];
  });
  const shapes = fc.record({
    threads: fc.array(pairThread, { minLength: 2, maxLength: 3 }),
    picks: fc.constant([]),
    memPick: fc.record({ loc, v: fc.integer({ min: 0, max: 2 }) }),
    quantifier: fc.constant<'exists'>('exists'),
    connective: fc.constant<'/\\'>('/\\'),
  });
  const allowed = shapes.map(nonScOutcome);

  it('no step from an instruction to itself; a step called reordered is a pair the LKMM does not order there', async () => {
    let reordered = 0;
    await fc.assert(
      fc.asyncProperty(allowed, async (text) => {
        await tick();
        if (!text) return;
        const r = checkSource(text, { model: lkmm, keepWitnesses: true });
        expect(r.positive).toBeGreaterThan(0);
        const trace = traceReport(r, builtinModel('lkmm')!);
        const blocks = trace.split(/^Witness for /m).slice(1);
        const witnesses = r.exploration.outcomes.filter((o) => o.positive && o.witness);
        expect(blocks.length).toBe(witnesses.length);
        blocks.forEach((block, k) => {
          const x = witnesses[k].witness!;
          const steps = stepNumbers(x);
          const eventsOf = (s: string) => x.events.filter((e) => steps.get(e.id) === s).map((e) => e.id);
          // What the LKMM orders between two events of one thread, from its own relations.
          scratch(() => {
            const L = lkmmRelations(x);
            const M = x.sets.M;
            const ordered = L.ppo.or(L.strongFence, L.cumulFence, L.poLoc).and(x.rel.int).restrict(M, M).plus();
            for (const [a, b, what] of cycleSteps(block)) {
              expect(a, `self-step in\n${text}\n${trace}`).not.toBe(b);
              if (!what.includes('(reordered)')) continue;
              reordered++;
              for (const p of eventsOf(a)) for (const q of eventsOf(b)) {
                if (x.rel.po.has(p, q)) expect(ordered.has(p, q), `${a} -> ${b} is ordered\n${text}\n${trace}`).toBe(false);
              }
            }
          });
        });
      }),
      { numRuns: 30, examples: [[nonScOutcome(MP_WMB)]] },
    );
    expect(reordered).toBeGreaterThan(0);
  });

  it('every suggested fix, applied to the source, gives Never; no smaller subset of it does', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(allowed, async (text) => {
        await tick();
        if (!text) return;
        const r = checkSource(text, { model: lkmm, keepWitnesses: true });
        const trace = traceReport(r, builtinModel('lkmm')!, { tryFixes: true });
        const fixes = [...trace.matchAll(/^ {2}\d+\. (.*)$/gm)].map((m) => m[1].split('; and '));
        // Changes name the original lines: apply the last line's first.
        const lineOf = (c: string) => Number(/\(line (\d+)\)/.exec(c)![1]);
        const never = (changes: string[]) =>
          checkSource([...changes].sort((a, b) => lineOf(b) - lineOf(a)).reduce(applyChange, text), { model: lkmm }).observation === 'Never';
        for (const f of fixes) {
          checked++;
          expect(never(f), `fix ${f.join(' + ')} does not forbid\n${text}`).toBe(true);
          // Every proper non-empty subset leaves the outcome reachable.
          for (let mask = 1; mask < (1 << f.length) - 1; mask++) {
            const sub = f.filter((_, i) => mask & (1 << i));
            expect(never(sub), `subset ${sub.join(' + ')} of a fix also forbids\n${text}`).toBe(false);
          }
        }
      }),
      // MP (with smp_wmb() on the writer) always among them.
      { numRuns: 15, examples: [[nonScOutcome(MP_WMB)]] },
    );
    expect(checked).toBeGreaterThan(0);
  });
});

// The explorer's pruning (load-buffering cycles, lock order, prefix checks)
// must never change an answer: for every model, built-in or compiled from
// cat, exploring with the model's own pruning gives exactly the states,
// counts and flags of exploring with none (every candidate judged whole).
describe('pruning is sound for every model', () => {
  const unpruned = (m: Model): Model => ({
    ...m,
    mayCycleThrough: () => true,
    lockOrders: () => false,
    judgesCoherence: () => true,
    forbiddenSources: undefined,
    check: (x, opts) => (opts?.prefix ? { consistent: true, flags: [] } : m.check(x)),
  });
  // checkEveryPrefix: the prefix checks (deferred past fences, skipped for
  // reads of the last write, the LKMM's quick rcu proof) from the first
  // choice on, as the explorer makes them in larger tests.
  const summary = (text: string, m: Model, checkEveryPrefix = false, maxExecutions?: number) => {
    const r = checkSource(text, { model: m, checkEveryPrefix, maxExecutions });
    return `${r.observation} ${r.positive} ${r.negative} [${r.flags}] ${[...stateSet(r)].sort().join(' | ')} ${r.stats.cutPaths}`;
  };
  const ownSc = (() => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-prune-'));
    writeFileSync(join(dir, 'sc.cat'), '"SC"\ninclude "cos.cat"\nempty rmw & (fre ; coe) as atomic\nacyclic po | rf | co | fr as sc\n');
    return compileModelFiles({ cat: join(dir, 'sc.cat'), variants: [], searchDirs: [dir], skipChecks: [] });
  })();
  const models: [string, Model][] = [['lkmm', lkmm], ['sc', sc], ['x86-tso', x86tso], ['sc.cat', ownSc]];
  if (HAVE_LKMM) {
    models.push(['linux-kernel.cat', compileModelFiles({
      cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'],
      searchDirs: [LKMM_DIR], skipChecks: [], besideIncluder: true,
    })]);
  }
  it(`holds on generated programs (fences, dependencies, locks, RCU, SRCU) for ${models.map(([n]) => n).join(', ')}`, () => {
    fc.assert(
      fc.property(fc.oneof(gen, genSync), (g) => {
        const text = render(g);
        for (const [name, m] of models) {
          const whole = summary(text, unpruned(m));
          expect(summary(text, m), `${name}\n${text}`).toBe(whole);
          expect(summary(text, m, true), `${name}, every prefix checked\n${text}`).toBe(whole);
        }
      }),
      { numRuns: Math.min(RUNS, 60) },
    );
  });
  // The shapes that once hid wrong answers (scripts/fuzz-shapes.ts, also the
  // differential fuzz's): load-buffering rings whose reads are acquires,
  // lock-protected or RMWs and whose writes are plain, marked or carry a
  // data dependency; a lock held forever beside trylock, spin_is_locked()
  // and lock-unlock threads; arrays in the initial state; loop keywords as
  // register names. Pruned as the models prune, and with every prefix
  // checked, against every candidate judged whole; and no consistent
  // execution judged twice (a doubly built one is counted twice by both).
  it(`holds on the shapes of the differential fuzz, each execution judged once, for ${models.map(([n]) => n).join(', ')}`, () => {
    const kinds = SHAPE_KINDS.filter((k) => k !== 'empty-block');
    let judged = 0;
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.integer({ min: 1, max: 0x7fffffff }), (kind, seed) => {
        const text = shapeProgram(kind, new Rng(seed), `${kind}-${seed}`);
        for (const [name, m] of models) {
          let whole: string;
          try {
            whole = summary(text, unpruned(m));
          } catch (e) {
            // A read of an array's byte that no write can give a value: refused by every mode alike.
            expect(() => summary(text, m), `${name}\n${text}`).toThrow((e as Error).message);
            continue;
          }
          expect(summary(text, m), `${name}\n${text}`).toBe(whole);
          expect(summary(text, m, true), `${name}, every prefix checked\n${text}`).toBe(whole);
          const seen = new Set<string>();
          const once: Model = {
            ...m,
            check(x, opts) {
              const v = m.check(x, opts);
              if (!opts?.prefix && v.consistent) {
                const id = (i: number) => (i < 0 ? '' : `${x.events[i].thread}.${x.events[i].poIndex}${x.events[i].kind}`);
                const key = `${x.events.map((_, i) => `${id(i)}<${id(x.rfSource[i])}`).join(' ')} co ${x.co.map((l) => l.map(id).join(',')).join(';')}`;
                expect(seen.has(key), `${name}: an execution judged twice\n${text}`).toBe(false);
                seen.add(key);
                judged++;
              }
              return v;
            },
          };
          checkSource(text, { model: once });
        }
      }),
      { numRuns: 60 },
    );
    expect(judged).toBeGreaterThan(0);
  });
  // The LKMM's sources forbidden at the read (Model.forbiddenSources) on
  // RCU-heavy programs: with every prefix checked (the test from the first
  // read on) and as a check makes it, against every candidate judged whole.
  // Shapes the generator draws rarely, each with a reader P0 and an updater
  // P1 that writes y, waits for a grace period and writes x (P2 writes x=2
  // after it, where given): sections seen from reads before their lock,
  // after their unlock, left open, closed on one path only, and a read of
  // x=2 co-after the updater's x=1.
  const rcuShape = (reader: Instr[], third?: Instr[]): [Gen] => [{
    threads: [reader, [{ k: 'w', loc: 'y', v: 1 }, { k: 'gp', kind: 'rcu' }, { k: 'w', loc: 'x', v: 1 }], ...(third ? [third] : [])],
    picks: [{ reg: 0, v: 1 }, { reg: 1, v: 0 }],
    memPick: { loc: 'x', v: 1 },
    quantifier: 'exists',
    connective: '/\\',
  }];
  const rx: Instr = { k: 'r', loc: 'x' };
  const ry: Instr = { k: 'r', loc: 'y' };
  const lock: Instr = { k: 'rcu', op: 'lock' };
  const unlock: Instr = { k: 'rcu', op: 'unlock' };
  const rcuShapes: [Gen][] = [
    rcuShape([{ k: 'section', kind: 'rcu', body: [rx, ry] }]),
    rcuShape([{ k: 'section', kind: 'rcu', body: [ry, rx] }]),
    rcuShape([rx, { k: 'section', kind: 'rcu', body: [ry] }]),
    rcuShape([{ k: 'section', kind: 'rcu', body: [rx] }, ry]),
    rcuShape([lock, unlock, rx, ry]),
    rcuShape([lock, rx, ry]),
    rcuShape([lock, rx, { k: 'if', v: 1, body: [unlock] }, ry]),
    rcuShape([lock, rx, { k: 'if', v: 1, body: [unlock] }, ry, unlock]),
    rcuShape([lock, { k: 'section', kind: 'rcu', body: [rx] }, ry]),
    rcuShape([{ k: 'section', kind: 'rcu', body: [rx, ry] }], [{ k: 'w', loc: 'x', v: 2 }]),
  ];
  it('holds on RCU-heavy generated programs, with sources the LKMM forbids at the read', async () => {
    let forbidden = 0;
    let skipped = 0;
    const counting: Model = {
      ...lkmm,
      forbiddenSources(prog) {
        const test = lkmm.forbiddenSources!(prog);
        return test && ((x, r, w) => {
          const no = test(x, r, w);
          if (no) forbidden++;
          return no;
        });
      },
    };
    await fc.assert(
      fc.asyncProperty(genRcu, async (g) => {
        await tick();
        const text = render(g);
        let whole: string;
        try {
          // Coherent candidates, each judged whole (the explorer's coherence filter is the other properties' matter).
          whole = summary(text, { ...unpruned(lkmm), judgesCoherence: undefined }, false, 600);
        } catch (e) {
          if (e instanceof LimitError) return void skipped++;
          throw e;
        }
        expect(summary(text, counting, true), `every prefix checked\n${text}`).toBe(whole);
        expect(summary(text, lkmm), text).toBe(whole);
      }),
      { numRuns: 100, examples: rcuShapes },
    );
    expect(forbidden).toBeGreaterThan(100);
    expect(skipped).toBeLessThan(30);
  });
  // The bench's families at small sizes: several readers waiting for one
  // write, critical sections against grace periods, locks handed on.
  // Each grows while the unpruned search stays under 3,000 candidates.
  it('holds on the bench families at small sizes (built-in models)', () => {
    let compared = 0;
    for (const f of FAMILIES) {
      for (const [name, m] of models.slice(0, 3)) {
        for (let n = f.minN; n <= f.minN + 4; n++) {
          const text = f.make(n);
          let whole: string;
          try {
            whole = summary(text, unpruned(m), false, 3000);
          } catch (e) {
            if (e instanceof LimitError) break;
            throw e;
          }
          expect(summary(text, m), `${name} ${f.name} N=${n}`).toBe(whole);
          expect(summary(text, m, true), `${name} ${f.name} N=${n}, every prefix checked`).toBe(whole);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(20);
  });
});
