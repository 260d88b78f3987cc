// Programs on which litmus once gave another answer than herd7 7.58 with
// the kernel's LKMM: each case holds herd7's own block (Time and Hash
// lines aside) and its Observation under -speedcheck true, and is run as
// `litmus herd7` runs it, with the built-in LKMM and with the kernel's
// files (-conf linux-kernel.cfg), and under -speedcheck true. Beside each
// group, a test of the cause itself.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOne } from '../src/cli/herd7-test.js';
import { parseHerdArgs } from '../src/cli/herd7-args.js';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { compileModelFiles } from '../models/cat/model.js';
import type { Model } from '../src/model/model.js';
import { HAVE_LKMM, LKMM_DIR } from './util.js';

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

/** herd7's block for an allowed test over `regs` (0 or 1 each) with the states `reached` (by default every combination), flagged a data race. */
function allStates(name: string, regs: string[], cond: string, positive: number, negative: number, reached?: number[]): string {
  const rows = (reached ?? [...Array(1 << regs.length).keys()]).map((k) => regs.map((r, i) => `${r}=${(k >> (regs.length - 1 - i)) & 1};`).join(' '));
  return [`Test ${name} Allowed`, `States ${rows.length}`, ...rows, 'Ok', 'Witnesses', `Positive: ${positive} Negative: ${negative}`,
    'Flag data-race', `Condition ${cond}`, `Observation ${name} Sometimes ${positive} ${negative}`].join('\n');
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
      herd: ['Test LB+acq-once Allowed', 'States 3', '0:r0=0; 1:r1=0;', '0:r0=0; 1:r1=1;', '0:r0=1; 1:r1=0;', 'No', 'Witnesses',
        'Positive: 0 Negative: 3', `Condition ${LB_COND}`, 'Observation LB+acq-once Never 0 3'].join('\n'),
      speed: 'Observation LB+acq-once Never 0 0',
    },
    {
      name: 'LB+acq-once-plain',
      text: lb('LB+acq-once-plain', '\tr0 = smp_load_acquire(x);\n\tWRITE_ONCE(*y, 1);', '\tr1 = smp_load_acquire(y);\n\t*x = 1;'),
      herd: ['Test LB+acq-once-plain Allowed', 'States 3', '0:r0=0; 1:r1=0;', '0:r0=0; 1:r1=1;', '0:r0=1; 1:r1=0;', 'No', 'Witnesses',
        'Positive: 0 Negative: 3', 'Flag data-race', `Condition ${LB_COND}`, 'Observation LB+acq-once-plain Never 0 3'].join('\n'),
      speed: 'Observation LB+acq-once-plain Never 0 0',
    },
  ];
  for (const c of cases) agreesWithHerd7(c);

  // The cause: the shortcut (Model.mayCycleThrough) dropped the deadlock of
  // the two waiting reads. With it and without it, the same answers.
  const unpruned = (m: Model): Model => ({ ...m, mayCycleThrough: () => true });
  const models: [string, () => Model][] = [['lkmm', () => lkmm]];
  if (HAVE_LKMM) {
    models.push(['linux-kernel.cat', () => compileModelFiles({
      cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'],
      searchDirs: [LKMM_DIR], skipChecks: [], besideIncluder: true,
    })]);
  }
  it.each(models)('the load-buffering shortcut of %s keeps every cycle through a plain write', (_, model) => {
    const m = model();
    for (const c of cases) {
      const a = checkSource(c.text, { model: m });
      const b = checkSource(c.text, { model: unpruned(m) });
      expect([a.observation, a.positive, a.negative, a.flags], c.name).toEqual([b.observation, b.positive, b.negative, b.flags]);
    }
  });
});
