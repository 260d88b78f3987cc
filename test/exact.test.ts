// Programs on which litmus once gave another answer than herd7 7.58 with
// the kernel's LKMM: each case holds herd7's own block (Time and Hash
// lines aside) and its Observation under -speedcheck true, and is run as
// `litmus herd7` runs it, with the built-in LKMM and with the kernel's
// files (-conf linux-kernel.cfg), and under -speedcheck true. Beside each
// group, a test of the cause itself.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOne } from '../src/cli/herd7-test.js';
import { parseHerdArgs } from '../src/cli/herd7-args.js';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { compileModelFiles } from '../models/cat/model.js';
import type { Model } from '../src/model/model.js';
import { CLI, copyLkmm, HAVE_LKMM, LKMM_DIR, runNode, stateSet } from './util.js';
import { herdFindings, refusals } from '../src/export/lint.js';
import { parseLitmus } from '../src/parse/parser.js';
import { corpusDir } from '../scripts/corpus.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-exact-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `litmus herd7 ARGS FILE` on `text`: its stdout without Time and Hash lines, or its warnings. */
function herd7(name: string, text: string, args: string[] = []): string {
  const file = join(dir, `${name}.litmus`);
  writeFileSync(file, text);
  const out = checkOne(file, parseHerdArgs(args).opts, new Map());
  if (out.failed) return out.warnings.join('\n');
  return out.output.split('\n').filter((l) => l !== '' && !/^(Time|Hash=)/.test(l)).join('\n');
}

const KERNEL = ['-I', LKMM_DIR, '-conf', 'linux-kernel.cfg'];

interface Case {
  name: string;
  text: string;
  /** herd7's block, Time and Hash aside. */
  herd: string;
  /** herd7's Observation line with -speedcheck true. */
  speed: string;
}

/** The case run every way `litmus herd7` runs it, each compared with herd7. */
function agreesWithHerd7(c: Case): void {
  it(`${c.name}: herd7's block, built-in and with the kernel's files, and its -speedcheck answer`, () => {
    expect(herd7(c.name, c.text)).toBe(c.herd);
    if (HAVE_LKMM) expect(herd7(c.name, c.text, KERNEL)).toBe(c.herd);
    const speed = herd7(c.name, c.text, ['-speedcheck', 'true']).split('\n').find((l) => l.startsWith('Observation'));
    expect(speed).toBe(c.speed);
  });
}

/** herd7's block for an `exists` test: its states (in herd7's order), counts and flags. */
function block(name: string, states: string[], cond: string, positive: number, negative: number, flags: string[] = []): string {
  const verdict = positive === 0 ? 'Never' : negative === 0 ? 'Always' : 'Sometimes';
  return [`Test ${name} Allowed`, `States ${states.length}`, ...states, positive > 0 ? 'Ok' : 'No', 'Witnesses', `Positive: ${positive} Negative: ${negative}`,
    ...flags.map((f) => `Flag ${f}`), `Condition ${cond}`, `Observation ${name} ${verdict} ${positive} ${negative}`].join('\n');
}

/** herd7's block for a test over registers `regs` (0 or 1 each) with the states `reached` (by default every combination), flagged a data race. */
function allStates(name: string, regs: string[], cond: string, positive: number, negative: number, reached?: number[]): string {
  const rows = (reached ?? [...Array(1 << regs.length).keys()]).map((k) => regs.map((r, i) => `${r}=${(k >> (regs.length - 1 - i)) & 1};`).join(' '));
  return block(name, rows, cond, positive, negative, ['data-race']);
}

/** The built-in LKMM, and the kernel's files compiled where they are at hand. */
function modelsUnderTest(): [string, () => Model][] {
  const models: [string, () => Model][] = [['lkmm', () => lkmm]];
  if (HAVE_LKMM) {
    models.push(['linux-kernel.cat', () => compileModelFiles({
      cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'],
      searchDirs: [LKMM_DIR], skipChecks: [], besideIncluder: true,
    })]);
  }
  return models;
}

const lb = (name: string, p0: string, p1: string) => `C ${name}\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n${p0}\n}\n\nP1(int *x, int *y)\n{\n\tint r1;\n\n${p1}\n}\n\nexists (0:r0=1 /\\ 1:r1=1)\n`;
const LB_COND = 'exists (0:r0=1 /\\ 1:r1=1)';

// ---------------------------------------------------------------- load buffering

// The LKMM's hb links marked accesses only: a strong read (acquire, a
// lock's, an RMW that always succeeds with a full barrier) followed by a
// plain write leaves the load-buffering cycle open, and herd7 allows it.
describe('load buffering through strong reads and plain writes', () => {
  const sometimes = (name: string, p0: string, p1: string, reached?: number[]): Case => ({
    name, text: lb(name, p0, p1), herd: allStates(name, ['0:r0', '1:r1'], LB_COND, 1, 3, reached), speed: `Observation ${name} Always 1 0`,
  });
  const cases: Case[] = [
    sometimes('LB+acq-plain', '\tr0 = smp_load_acquire(x);\n\t*y = 1;', '\tr1 = smp_load_acquire(y);\n\t*x = 1;'),
    sometimes('LB+xchg-plain', '\tr0 = xchg(x, 2);\n\t*y = 1;', '\tr1 = xchg(y, 2);\n\t*x = 1;'),
    sometimes('LB+xchg-acquire-plain', '\tr0 = xchg_acquire(x, 2);\n\t*y = 1;', '\tr1 = xchg_acquire(y, 2);\n\t*x = 1;'),
    sometimes('LB+cmpxchg-plain', '\tr0 = cmpxchg(x, 1, 2);\n\t*y = 1;', '\tr1 = cmpxchg(y, 1, 2);\n\t*x = 1;'),
    sometimes('LB+acq-data-plain', '\tr0 = smp_load_acquire(x);\n\t*y = r0;', '\tr1 = smp_load_acquire(y);\n\t*x = 1;', [0, 2, 3]),
    sometimes('LB+acq-mb-plain', '\tr0 = smp_load_acquire(x);\n\tsmp_mb();\n\t*y = 1;', '\tr1 = smp_load_acquire(y);\n\t*x = 1;'),
    {
      name: 'LB+lock-plain',
      text: 'C LB+lock-plain\n\n{}\n\nP0(int *x, int *y, spinlock_t *l)\n{\n\tint r0;\n\n\tspin_lock(l);\n\tr0 = READ_ONCE(*x);\n\tspin_unlock(l);\n\t*y = 1;\n}\n\n'
        + 'P1(int *x, int *y)\n{\n\tint r1;\n\n\tr1 = smp_load_acquire(y);\n\t*x = 1;\n}\n\nexists (0:r0=1 /\\ 1:r1=1)\n',
      herd: allStates('LB+lock-plain', ['0:r0', '1:r1'], LB_COND, 1, 3),
      speed: 'Observation LB+lock-plain Always 1 0',
    },
    {
      name: 'LB3+acq-plain',
      text: 'C LB3+acq-plain\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n\tr0 = smp_load_acquire(x);\n\t*y = 1;\n}\n\n'
        + 'P1(int *y, int *z)\n{\n\tint r1;\n\n\tr1 = smp_load_acquire(y);\n\t*z = 1;\n}\n\n'
        + 'P2(int *z, int *x)\n{\n\tint r2;\n\n\tr2 = smp_load_acquire(z);\n\t*x = 1;\n}\n\nexists (0:r0=1 /\\ 1:r1=1 /\\ 2:r2=1)\n',
      herd: allStates('LB3+acq-plain', ['0:r0', '1:r1', '2:r2'], 'exists (0:r0=1 /\\ 1:r1=1 /\\ 2:r2=1)', 1, 7),
      speed: 'Observation LB3+acq-plain Always 1 0',
    },
    // Where both stores are marked, or one is and the other store's thread has an acquire, hb closes the cycle.
    {
      name: 'LB+acq-once',
      text: lb('LB+acq-once', '\tr0 = smp_load_acquire(x);\n\tWRITE_ONCE(*y, 1);', '\tr1 = smp_load_acquire(y);\n\tWRITE_ONCE(*x, 1);'),
      herd: block('LB+acq-once', ['0:r0=0; 1:r1=0;', '0:r0=0; 1:r1=1;', '0:r0=1; 1:r1=0;'], LB_COND, 0, 3),
      speed: 'Observation LB+acq-once Never 0 0',
    },
    {
      name: 'LB+acq-once-plain',
      text: lb('LB+acq-once-plain', '\tr0 = smp_load_acquire(x);\n\tWRITE_ONCE(*y, 1);', '\tr1 = smp_load_acquire(y);\n\t*x = 1;'),
      herd: block('LB+acq-once-plain', ['0:r0=0; 1:r1=0;', '0:r0=0; 1:r1=1;', '0:r0=1; 1:r1=0;'], LB_COND, 0, 3, ['data-race']),
      speed: 'Observation LB+acq-once-plain Never 0 0',
    },
  ];
  for (const c of cases) agreesWithHerd7(c);

  // The cause: the shortcut (Model.mayCycleThrough) dropped the deadlock of
  // the two waiting reads. With it and without it, the same answers.
  const unpruned = (m: Model): Model => ({ ...m, mayCycleThrough: () => true });
  it.each(modelsUnderTest())('the load-buffering shortcut of %s keeps every cycle through a plain write', (_, model) => {
    const m = model();
    for (const c of cases) {
      const a = checkSource(c.text, { model: m });
      const b = checkSource(c.text, { model: unpruned(m) });
      expect([a.observation, a.positive, a.negative, a.flags], c.name).toEqual([b.observation, b.positive, b.negative, b.flags]);
    }
  });
});

// ---------------------------------------------------------------- locks held forever

// A lock never released (P0) beside a lock-unlock thread: spin_lock()
// calls wait for their place in the lock's order. A spin_is_locked() or a
// failed spin_trylock() once took a waiting lock's write directly and was
// also offered it when the lock went on: the execution was counted twice.
describe('spin_is_locked() and spin_trylock() beside a lock held forever', () => {
  const proc = (t: number, body: string, regs: string[] = []) =>
    `P${t}(spinlock_t *s)\n{\n${regs.map((r) => `\tint ${r};\n`).join('')}\n\t${body}\n}\n`;
  const test = (name: string, probe: string, regs: string[], cond: string, extra = '') =>
    `C ${name}\n\n{}\n\n${proc(0, 'spin_lock(s);')}\n${proc(1, probe, regs)}\n${proc(2, 'spin_lock(s);\n\tspin_unlock(s);')}\n${extra}\nexists (${cond})\n`;
  const cases: Case[] = [
    {
      name: 'held+is_locked', text: test('held+is_locked', 'r0 = spin_is_locked(s);', ['r0'], '1:r0=0'),
      herd: block('held+is_locked', ['1:r0=0;', '1:r0=1;'], 'exists (1:r0=0)', 2, 2), speed: 'Observation held+is_locked Always 2 0',
    },
    {
      name: 'held+trylock', text: test('held+trylock', 'r0 = spin_trylock(s);', ['r0'], '1:r0=0'),
      herd: block('held+trylock', ['1:r0=0;'], 'exists (1:r0=0)', 2, 0), speed: 'Observation held+trylock Always 2 0',
    },
    {
      name: 'held+is_locked2', text: test('held+is_locked2', 'r0 = spin_is_locked(s);\n\tr1 = spin_is_locked(s);', ['r0', 'r1'], '1:r0=0'),
      herd: block('held+is_locked2', ['1:r0=0;', '1:r0=1;'], 'exists (1:r0=0)', 6, 4), speed: 'Observation held+is_locked2 Always 6 0',
    },
    {
      // Two lock-unlock threads: the second is placed after the first's unlock, and the read would take its write before it goes on.
      name: 'held+is_locked2+2', text: test('held+is_locked2+2', 'r0 = spin_is_locked(s);\n\tr1 = spin_is_locked(s);', ['r0', 'r1'], '1:r0=0 /\\ 1:r1=0',
        proc(3, 'spin_lock(s);\n\tspin_unlock(s);')),
      herd: block('held+is_locked2+2', ['1:r0=0; 1:r1=0;', '1:r0=0; 1:r1=1;', '1:r0=1; 1:r1=0;', '1:r0=1; 1:r1=1;'], 'exists (1:r0=0 /\\ 1:r1=0)', 12, 30),
      speed: 'Observation held+is_locked2+2 Always 12 0',
    },
  ];
  for (const c of cases) agreesWithHerd7(c);

  // The cause: an execution built twice. Each consistent execution the
  // model judges (its events, rf and co) must be new.
  it.each(modelsUnderTest())('%s judges each execution once', (_, model) => {
    for (const c of cases) {
      const m = model();
      const seen = new Set<string>();
      let twice = 0;
      const counting: Model = {
        ...m,
        check(x, opts) {
          const v = m.check(x, opts);
          if (!opts?.prefix && v.consistent) {
            const id = (i: number) => (i < 0 ? '' : `${x.events[i].thread}.${x.events[i].poIndex}${x.events[i].kind}`);
            const key = `${x.events.map((_, i) => `${id(i)}<${id(x.rfSource[i])}`).join(' ')} co ${x.co.map((l) => l.map(id).join(',')).join(';')}`;
            if (seen.has(key)) twice++;
            seen.add(key);
          }
          return v;
        },
      };
      const r = checkSource(c.text, { model: counting });
      expect(twice, c.name).toBe(0);
      // Besides the counted executions, those in which a thread waits forever at the held lock (judged for liveness).
      expect(r.positive + r.negative + (r.liveness?.hangs ?? 0), c.name).toBe(seen.size);
    }
  });
});

// ---------------------------------------------------------------- arrays in the initial state

// herd7 reads `int a[2];` (one dimension, a type it knows the size of) in
// the initial state, and its pointer arithmetic counts bytes: `*(a+4)` is
// a[1], with its initial write; `*(a+1)` is a location of its own with no
// initial write, read only from a write of the test (the whole test is
// refused where a read there has none). States name an element `a[1]`,
// after the variables; a register holding an element's address is `a+4`.
describe('arrays in the initial state', () => {
  const one = (name: string, init: string, procs: string[], cond: string) =>
    `C ${name}\n\n{ ${init} }\n\n${procs.map((p, i) => `P${i}(${/char/.test(init) ? 'char' : 'int'} *a, int *x)\n{\n${p}\n}\n`).join('\n')}\nexists (${cond})\n`;
  const cases: Case[] = [
    {
      name: 'array+1', text: one('array+1', 'int a[2];', ['\tWRITE_ONCE(*(a+1), 1);', '\tint r0;\n\n\tr0 = READ_ONCE(*(a+1));'], '1:r0=0'),
      herd: block('array+1', ['1:r0=1;'], 'exists (1:r0=0)', 0, 1), speed: 'Observation array+1 Never 0 0',
    },
    {
      name: 'array+1x2', text: one('array+1x2', 'int a[2];', ['\tWRITE_ONCE(*(a+1), 1);', '\tWRITE_ONCE(*(a+1), 2);', '\tint r0;\n\tint r1;\n\n\tr0 = READ_ONCE(*(a+1));\n\tr1 = READ_ONCE(*(a+1));'], '2:r0=2 /\\ 2:r1=1'),
      herd: block('array+1x2', ['2:r0=1; 2:r1=1;', '2:r0=1; 2:r1=2;', '2:r0=2; 2:r1=1;', '2:r0=2; 2:r1=2;'], 'exists (2:r0=2 /\\ 2:r1=1)', 1, 5),
      speed: 'Observation array+1x2 Always 1 0',
    },
    {
      name: 'array+4', text: one('array+4', 'int a[2];', ['\tWRITE_ONCE(*(a+4), 1);', '\tint r0;\n\n\tr0 = READ_ONCE(*(a+4));'], 'a[1]=1 /\\ 1:r0=0'),
      herd: block('array+4', ['1:r0=0; a[1]=1;', '1:r0=1; a[1]=1;'], 'exists (a[1]=1 /\\ 1:r0=0)', 1, 1), speed: 'Observation array+4 Always 1 0',
    },
    {
      name: 'array-values', text: one('array-values', 'int a[2] = {1, 2};', ['\tint r0;\n\n\tr0 = READ_ONCE(*(a+4));'], '0:r0=2'),
      herd: block('array-values', ['0:r0=2;'], 'exists (0:r0=2)', 1, 0), speed: 'Observation array-values Always 1 0',
    },
    {
      name: 'array-char', text: one('array-char', 'char a[4];', ['\tWRITE_ONCE(*(a+1), 1);', '\tint r0;\n\n\tr0 = READ_ONCE(*(a+1));'], '1:r0=0'),
      herd: block('array-char', ['1:r0=0;', '1:r0=1;'], 'exists (1:r0=0)', 1, 1), speed: 'Observation array-char Always 1 0',
    },
    {
      name: 'array-names', text: one('array-names', 'int a[2];', ['\tWRITE_ONCE(*x, 5);\n\tWRITE_ONCE(*(a+1), 1);\n\tWRITE_ONCE(*(a+4), 2);'], 'x=5 /\\ a[1]=2'),
      herd: block('array-names', ['[x]=5; a[1]=2;'], 'exists ([x]=5 /\\ a[1]=2)', 1, 0), speed: 'Observation array-names Always 1 0',
    },
    {
      name: 'array-address', text: one('array-address', 'int a[2];', ['\tint *r1;\n\tint r0;\n\n\tr1 = a+4;\n\tr0 = READ_ONCE(*r1);'], '0:r1=a'),
      herd: block('array-address', ['0:r1=a+4;'], 'exists (0:r1=a)', 0, 1), speed: 'Observation array-address Never 0 0',
    },
  ];
  for (const c of cases) agreesWithHerd7(c);

  // The causes: addresses count bytes, and an address no variable declares has no initial write.
  it('*(a+4) and a[1] of an int array are one location; *(a+1) another, with no initial write', () => {
    const r = checkSource(one('bytes', 'int a[2];', ['\tWRITE_ONCE(a[1], 1);\n\tWRITE_ONCE(*(a+1), 2);', '\tint r0;\n\tint r1;\n\n\tr0 = READ_ONCE(*(a+4));\n\tr1 = READ_ONCE(*(a+1));'], '1:r0=1 /\\ 1:r1=2'), { model: lkmm });
    expect(r.program.locations).toEqual(['a[0]', 'a[1]', 'x', 'a+1']);
    // r0 reads a[1]'s initial 0 or the 1 written there; r1 only the 2 written at a+1.
    expect([...stateSet(r)].sort()).toEqual(['1:r0=0; 1:r1=2;', '1:r0=1; 1:r1=2;']);
  });

  it('a read of a+1 that no write can give a value is refused, as herd7 refuses the test', () => {
    const text = one('array+1-unwritten', 'int a[2];', ['\tint r0;\n\n\tr0 = READ_ONCE(*(a+1));'], '0:r0=0');
    expect(() => checkSource(text, { model: lkmm })).toThrow(/mixed-size test rejected \(symbol \[a\+1\]\)/);
    expect(herd7('array+1-unwritten', text)).toMatch(/line 9, character 6: .*mixed-size test rejected/);
    // Also where the condition is decided before the read is reached (herd7 refuses before solving).
    const decided = one('array+1-decided', 'int a[2];', ['\tWRITE_ONCE(*(a+5), 1);', '\tint r0;\n\n\tr0 = READ_ONCE(*(a+1));'], '1:r0=1 /\\ a[0]=2');
    expect(herd7('array+1-decided', decided, ['-speedcheck', 'true'])).toMatch(/mixed-size test rejected \(symbol \[a\+1\]\)/);
  });

  it('what herd7 refuses of arrays is refused by litmus herd7, with herd7\'s reason', () => {
    const refused: [string, string, RegExp][] = [
      ['int a[2][2];', 'a[1]=0', /one dimension/],
      ['spinlock_t a[2];', 'a[1]=0', /Cannot find the size of type spinlock_t/],
      ['int a[2] = {1};', 'a[1]=0', /Declared size of array a does not match initial value size/],
      ['int a[2];', 'a[5]=0', /Out of bounds access on array a/],
    ];
    for (const [init, cond, why] of refused) expect(herd7('refused', one('refused', init, ['\tint r0;\n\n\tr0 = READ_ONCE(*a);'], cond)), init).toMatch(why);
  });
});

// ---------------------------------------------------------------- -speedcheck's refusals

// herd7 refuses a candidate with a write at address 0 whatever the
// condition says (-speedcheck too); litmus's early stop once decided
// before reaching it and answered Never 0 0 (found by the differential fuzz).
describe('-speedcheck refuses what herd7 refuses before the condition is decided', () => {
  const cases: [string, string, RegExp][] = [
    ['through a name the process does not declare', 'C z1\n\n{}\n\nP0(int *y)\n{\n\tWRITE_ONCE(*y, 1);\n}\n\nP1(int *y)\n{\n\tint r0;\n\n\tr0 = READ_ONCE(*y);\n\tif (r0 == 1)\n\t\tWRITE_ONCE(*x, 1);\n}\n\nexists (y=2)\n',
      /"x" is not a parameter of P1: .*Non-symbolic memory access found on '\[0\]'/],
    ['at an address read as 0', 'C z2\n\n{ int *p = y; }\n\nP0(int **p, int *y)\n{\n\tWRITE_ONCE(*p, 0);\n}\n\nP1(int **p, int *y)\n{\n\tint *r0;\n\n\tr0 = READ_ONCE(*p);\n\tWRITE_ONCE(*r0, 1);\n}\n\nexists (y=2)\n',
      /WRITE_ONCE writes at address 0, computed from what was read: .*Non-symbolic memory access found on '\[0\]'/],
  ];
  it.each(cases)('a write at address 0 %s', (_, text, why) => {
    expect(herd7('zero', text, ['-speedcheck', 'true'])).toMatch(why);
    expect(herd7('zero', text)).toMatch(why);
  });
});

// ---------------------------------------------------------------- out-of-thin-air values

// herd7 names a value no constant determines (a load-buffering cycle of
// copies) after its solver variables, S1, S2, ... made per test as it builds
// each thread's events (src/explore/symbols.ts): litmus printed S0 where
// herd7 printed S8. And a successful cmpxchg's equation (the value read
// equals its old) fixes a value the cycle would leave open: herd7 solves
// the cycle there, where litmus dropped the execution (Always 3 0 against
// herd7's Always 4 0); also where old is a value no write makes
// (cmpxchg_acquire(y, 1, 2): herd7 Sometimes 1 3, litmus Never 0 3).
describe("out-of-thin-air values: herd7's names, and cycles a cmpxchg's equation solves", () => {
  const cases: Case[] = [
    {
      name: 'OOTA+copy',
      text: 'C OOTA+copy\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n\tr0 = *x;\n\t*y = r0;\n}\n\nP1(int *x, int *y)\n{\n\tint r1;\n\n\tr1 = *y;\n\t*x = r1 + 0;\n}\n\nexists (0:r0=0 \\/ 1:r1=0)\n',
      herd: 'Test OOTA+copy Allowed\nStates 2\n0:r0=S8; 1:r1=S8;\n0:r0=0; 1:r1=0;\nOk\nWitnesses\nPositive: 3 Negative: 1\nFlag data-race\nCondition exists (0:r0=0 \\/ 1:r1=0)\nObservation OOTA+copy Sometimes 3 1',
      speed: 'Observation OOTA+copy Always 3 0',
    },
    {
      name: 'OOTA+if',
      text: 'C OOTA+if\n\n{}\n\nP0(int *a, int *b, int *x, int *y)\n{\n\tint r0;\n\tint r1 = 0;\n\n\tr0 = READ_ONCE(*x);\n\tif (r0 == 1)\n\t\tr1 = *b;\n\tWRITE_ONCE(*a, r1);\n\tWRITE_ONCE(*y, 1);\n}\n\nP1(int *a, int *b, int *x, int *y)\n{\n\tint r0;\n\tint r1 = 0;\n\n\tr0 = READ_ONCE(*y);\n\tif (r0 == 1)\n\t\tr1 = *a;\n\tWRITE_ONCE(*b, r1);\n\tWRITE_ONCE(*x, 1);\n}\n\nexists (b=42)\n',
      herd: 'Test OOTA+if Allowed\nStates 2\n[b]=S23;\n[b]=0;\nNo\nWitnesses\nPositive: 0 Negative: 9\nFlag data-race\nCondition exists ([b]=42)\nObservation OOTA+if Never 0 9',
      speed: 'Observation OOTA+if Never 0 0',
    },
    {
      name: 'OOTA+loop',
      text: 'C OOTA+loop\n{}\nP0(int *x, int *y)\n{\n\tint r0;\n\tint q0;\n\tr0 = *x;\n\tq0 = 0;\n\twhile (q0 < 1)\n\t\tq0 = q0 + 1;\n\tWRITE_ONCE(*y, r0);\n}\nP1(int *x, int *y)\n{\n\tint r1;\n\tr1 = *y;\n\tWRITE_ONCE(*x, r1);\n}\nexists (0:r0=0)\n',
      herd: 'Test OOTA+loop Allowed\nStates 2\n0:r0=S22;\n0:r0=0;\nOk\nWitnesses\nPositive: 3 Negative: 1\nFlag data-race\nCondition exists (0:r0=0)\nObservation OOTA+loop Sometimes 3 1',
      speed: 'Observation OOTA+loop Always 3 0',
    },
    {
      name: 'OOTA+xchg-loop',
      text: 'C OOTA+xchg-loop\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n\tr0 = *x;\n\t*y = r0;\n}\n\nP1(int *x, int *y)\n{\n\tint r1;\n\tint q1;\n\n\tr1 = xchg_relaxed(y, 3);\n\t*x = r1;\n\tq1 = 0;\n\twhile (q1 < 1)\n\t\tq1 = q1 + 1;\n\tq1 = r1;\n}\n\nexists (0:r0=42 \\/ 1:r1=42)\n',
      herd: 'Test OOTA+xchg-loop Allowed\nStates 2\n0:r0=S20; 1:r1=S20;\n0:r0=0; 1:r1=0;\nNo\nWitnesses\nPositive: 0 Negative: 4\nFlag data-race\nCondition exists (0:r0=42 \\/ 1:r1=42)\nObservation OOTA+xchg-loop Never 0 4',
      speed: 'Observation OOTA+xchg-loop Never 0 0',
    },
    {
      name: 'OOTA+branches',
      text: 'C OOTA+branches\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n\tr0 = *x;\n\t*y = r0;\n}\n\nP1(int *x, int *y, int *z, int *w)\n{\n\tint r1;\n\tint q1;\n\n\tr1 = *y;\n\tq1 = READ_ONCE(*w);\n\tif (q1 == 1) {\n\t\tif (q1 == 2)\n\t\t\tsmp_mb();\n\t\telse\n\t\t\tWRITE_ONCE(*z, 1);\n\t} else\n\t\tq1 = 3;\n\tif (q1 > 2)\n\t\tq1 = 4;\n\t*x = r1;\n\tq1 = r1;\n}\n\nP2(int *w)\n{\n\tWRITE_ONCE(*w, 1);\n}\n\nexists (0:r0=0 /\\ 1:r1=0)\n',
      herd: 'Test OOTA+branches Allowed\nStates 3\n0:r0=S21; 1:r1=S21;\n0:r0=S26; 1:r1=S26;\n0:r0=0; 1:r1=0;\nOk\nWitnesses\nPositive: 6 Negative: 2\nFlag data-race\nCondition exists (0:r0=0 /\\ 1:r1=0)\nObservation OOTA+branches Sometimes 6 2',
      speed: 'Observation OOTA+branches Always 6 0',
    },
    {
      name: 'OOTA+locks',
      text: 'C OOTA+locks\n\n{}\n\nP0(int *x, int *y, spinlock_t *s)\n{\n\tint r0;\n\n\tspin_lock(s);\n\tr0 = READ_ONCE(*x);\n\tspin_unlock(s);\n\tspin_lock(s);\n\t*y = r0;\n\tspin_unlock(s);\n}\n\nP1(int *x, int *y, spinlock_t *s)\n{\n\tint r1;\n\tint q;\n\n\tq = READ_ONCE(*y);\n\tr1 = READ_ONCE(*y);\n\tif (q == 1)\n\t\tspin_lock(s);\n\t*x = r1;\n\tr1 = r1;\n}\n\nexists (0:r0=1 /\\ 1:r1=1)\n',
      herd: 'Test OOTA+locks Allowed\nStates 2\n0:r0=S18; 1:r1=S18;\n0:r0=0; 1:r1=0;\nNo\nWitnesses\nPositive: 0 Negative: 5\nFlag data-race\nCondition exists (0:r0=1 /\\ 1:r1=1)\nObservation OOTA+locks Never 0 5',
      speed: 'Observation OOTA+locks Never 0 0',
    },
    {
      name: 'LB+cmpxchg-copy',
      text: 'C LB+cmpxchg-copy\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n\tr0 = cmpxchg_relaxed(x, 0, 3);\n\t*y = r0;\n}\n\nP1(int *x, int *y)\n{\n\tint r1;\n\n\tr1 = READ_ONCE(*y) + 0;\n\tWRITE_ONCE(*x, r1 & r1);\n}\n\nexists (0:r0=0 /\\ 1:r1=0)\n',
      herd: 'Test LB+cmpxchg-copy Allowed\nStates 1\n0:r0=0; 1:r1=0;\nOk\nWitnesses\nPositive: 4 Negative: 0\nFlag data-race\nCondition exists (0:r0=0 /\\ 1:r1=0)\nObservation LB+cmpxchg-copy Always 4 0',
      speed: 'Observation LB+cmpxchg-copy Always 4 0',
    },
    {
      name: 'LB+cmpxchg-copy-never',
      text: 'C LB+cmpxchg-copy-never\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n\tr0 = cmpxchg_relaxed(x, 0, 3);\n\tWRITE_ONCE(*y, r0);\n}\n\nP1(int *x, int *y)\n{\n\tint r1;\n\n\tr1 = *y;\n\t*x = r1;\n}\n\nexists (0:r0=0 /\\ 1:r1=2)\n',
      herd: 'Test LB+cmpxchg-copy-never Allowed\nStates 1\n0:r0=0; 1:r1=0;\nNo\nWitnesses\nPositive: 0 Negative: 4\nFlag data-race\nCondition exists (0:r0=0 /\\ 1:r1=2)\nObservation LB+cmpxchg-copy-never Never 0 4',
      speed: 'Observation LB+cmpxchg-copy-never Never 0 0',
    },
    {
      name: 'LB+xchg-cmpxchg-old',
      text: 'C LB+xchg-cmpxchg-old\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\n\tr0 = xchg_relaxed(x, 2);\n\t*y = r0;\n}\n\nP1(int *x, int *y)\n{\n\tint r1;\n\n\tr1 = cmpxchg_acquire(y, 1, 2);\n\tWRITE_ONCE(*x, r1);\n}\n\nexists (0:r0=1 /\\ 1:r1=1)\n',
      herd: 'Test LB+xchg-cmpxchg-old Allowed\nStates 2\n0:r0=0; 1:r1=0;\n0:r0=1; 1:r1=1;\nOk\nWitnesses\nPositive: 1 Negative: 3\nFlag data-race\nCondition exists (0:r0=1 /\\ 1:r1=1)\nObservation LB+xchg-cmpxchg-old Sometimes 1 3',
      speed: 'Observation LB+xchg-cmpxchg-old Always 1 0',
    },
  ];
  for (const c of cases) agreesWithHerd7(c);

  it.each(modelsUnderTest())('a cycle through a successful cmpxchg is an execution under %s, named or not', (_, model) => {
    const m = model();
    const r = checkSource(cases.find((c) => c.name === 'LB+cmpxchg-copy')!.text, { model: m });
    expect([r.observation, r.positive, r.negative]).toEqual(['Always', 4, 0]);
  });

  // The collection's tests that print a symbolic value, with herd7 7.58's name for it.
  const collection: [string, string][] = [
    ['manual/oota/C-JO-OOTA-1', '[b]=S16;'], ['manual/oota/C-JO-OOTA-2', '[b]=S23;'],
    ['manual/oota/C-JO-OOTA-6', '0:r1=1; 0:r2=S23; 1:r1=1; 1:r2=S23;'], ['manual/plain/C-OOTA', '0:r1=S8; 1:r1=S8;'],
  ];
  const corpus = corpusDir();
  const coll = corpus ? join(corpus, 'paulmckrcu-litmus') : '';
  it.skipIf(!coll || !existsSync(coll)).each(collection)('%s prints %s as herd7 does', (test, state) => {
    const out = checkOne(join(coll, `${test}.litmus`), parseHerdArgs([]).opts, new Map());
    expect(out.output.split('\n')).toContain(state);
  });
});

// ---------------------------------------------------------------- herd7's grammar at its edges

describe("herd7's grammar at its edges", () => {
  const proc = (body: string) => `C t\n\n{}\n\nP0(int *x)\n{\n${body}\n}\n\nexists (x=1)\n`;
  // herd7's C has no for, do, break, continue or return: there they name registers.
  const named = (name: string, body: string): string => proc(body).replace('C t', `C ${name}`);
  agreesWithHerd7({
    name: 'continue-named', text: named('continue-named', '\tint continue;\n\n\tcontinue = 1;\n\tif (continue)\n\t\tWRITE_ONCE(*x, 1);'),
    herd: block('continue-named', ['[x]=1;'], 'exists ([x]=1)', 1, 0), speed: 'Observation continue-named Always 1 0',
  });
  agreesWithHerd7({
    name: 'break-named', text: named('break-named', '\tint break;\n\n\tbreak = READ_ONCE(*x);\n\tWRITE_ONCE(*x, break);'),
    herd: block('break-named', ['[x]=0;'], 'exists ([x]=1)', 0, 1), speed: 'Observation break-named Never 0 0',
  });
  it('do, return and for are names where herd7 reads them so, and keywords where litmus\'s loops and helpers need them', () => {
    const r = checkSource(proc('\tint do;\n\tint return;\n\tint for;\n\n\tdo = 1;\n\treturn = do + 1;\n\tfor = return;\n\tdo {\n\t\tfor += 1;\n\t} while (for < 3);\n\tWRITE_ONCE(*x, for);'), { model: lkmm });
    expect([...stateSet(r)]).toEqual(['[x]=3;']);
  });

  // herd7 refuses an empty block, an empty statement and an empty process body ("unexpected '}'", "unexpected ';'");
  // litmus herd7 refuses them too, check --herd-compatible warns.
  it('empty blocks and statements are refused by litmus herd7 and found by --herd-compatible', () => {
    const cases: [string, RegExp][] = [
      ['\tint r0;\n\n\tr0 = READ_ONCE(*x);\n\tif (r0) { }', /line 10, character 9: herd7's C has no empty block: it stops at its "}" \("unexpected '}'"\)/],
      ['\tint r0;\n\n\tr0 = READ_ONCE(*x);\n\twhile (r0) {}', /line 10, character 12: herd7's C has no empty block/],
      ['\tint r0;\n\n\tr0 = READ_ONCE(*x);\n\tif (r0) ;', /line 10, character 9: herd7's C has no empty statement: it stops at this ";" \("unexpected ';'"\)/],
      ['', /line 6, character 0: herd7's C has no empty process body/],
    ];
    for (const [body, why] of cases) {
      expect(herd7('empty', proc(body)), body).toMatch(why);
      expect(refusals(herdFindings(parseLitmus(proc(body)), proc(body))).length, body).toBe(1);
      // check answers it (litmus reads it as C does).
      expect(checkSource(proc(body), { model: lkmm }).observation, body).toBe('Never');
    }
  });

  it('a location or register twice in the initial state: herd7 stops (an assertion fails), litmus herd7 refuses the test', () => {
    for (const init of ['x=1; x=2;', 'x=1; x=1;', 'int x; x=0;', '0:r0=1; 0:r0=2;']) {
      const text = `C twice\n\n{ ${init} }\n\nP0(int *x)\n{\n\tint r0;\n\n\tr0 = READ_ONCE(*x);\n}\n\nexists (0:r0=1)\n`;
      expect(herd7('twice', text), init).toMatch(/is in the initial state twice: herd7 stops on it.*Assertion failed/);
    }
  });
});

// A .cfg's unroll line, as herd7 -conf reads it: an integer bounds the loops (herd7 7.58, unroll 1: Always 2 0;
// 3: Always 4 0), anything else stops herd7 ("integer parameter expected"): check --conf follows both.
describe.skipIf(!HAVE_LKMM)("a .cfg's unroll line", () => {
  const loop = 'C loop\n\n{}\n\nP0(int *x)\n{\n\tint r0;\n\n\tr0 = READ_ONCE(*x);\n\twhile (r0 == 0)\n\t\tr0 = READ_ONCE(*x);\n}\n\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\nexists (0:r0=1)\n';
  const withUnroll = (u: string) => {
    const d = mkdtempSync(join(dir, 'unroll-'));
    copyLkmm(d);
    writeFileSync(join(d, 'linux-kernel.cfg'), `${readFileSync(join(d, 'linux-kernel.cfg'), 'utf8')}unroll ${u}\n`);
    writeFileSync(join(d, 'loop.litmus'), loop);
    return d;
  };
  it('bounds the loops of check --conf and litmus herd7 -conf, unless --unroll says otherwise', async () => {
    for (const [u, want] of [['1', 'Always 2 0'], ['3', 'Always 4 0']]) {
      const d = withUnroll(u);
      // (check reads a waiting loop exactly unless told to unroll it as herd7 does.)
      const c = await runNode([CLI, 'check', '--unroll-waits', '--conf', join(d, 'linux-kernel.cfg'), join(d, 'loop.litmus')], d);
      expect(c.stdout, u).toContain(`Observation loop ${want}`);
      expect(herd7('loop', loop, ['-I', d, '-conf', join(d, 'linux-kernel.cfg')])).toContain(`Observation loop ${want}`);
    }
    const d = withUnroll('1');
    const given = await runNode([CLI, 'check', '--unroll-waits', '--conf', join(d, 'linux-kernel.cfg'), '--unroll', '3', join(d, 'loop.litmus')], d);
    expect(given.stdout).toContain('Observation loop Always 4 0');
  });
  it('refuses one that is no integer, at its place', async () => {
    const d = withUnroll('x');
    const c = await runNode([CLI, 'check', '--conf', join(d, 'linux-kernel.cfg'), join(d, 'loop.litmus')], d);
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/linux-kernel\.cfg:\d+:1: unroll x: integer parameter expected/);
  });
});
