// Which of the explorer's own filters a compiled model's checks imply
// (models/cat/implied.ts): where they reject every incoherent or
// non-atomic candidate, the explorer drops those candidates for the model;
// otherwise it builds them and the model judges them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileModelFiles } from '../models/cat/model.js';
import { impliesCoherence } from '../models/cat/implied.js';
import { checkSource } from '../src/check.js';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram } from '../src/program/program.js';
import { HAVE_LKMM, LKMM_DIR, litmus } from './util.js';
import { modelTextFiles } from '../models/texts.js';

const parseProgram = (text: string) => buildProgram(parseLitmus(text));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-implied-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A model of one file whose body is `text` (with litmus's own cos.cat for co and fr where it includes it). */
function model(name: string, text: string, skipChecks: string[] = []) {
  writeFileSync(join(dir, `${name}.cat`), `"${name}"\n${text}\n`);
  return compileModelFiles({ cat: join(dir, `${name}.cat`), variants: [], searchDirs: [dir], skipChecks });
}

const SB = litmus('SB', [
  'WRITE_ONCE(*x, 1);\n\tr0 = READ_ONCE(*y);',
  'WRITE_ONCE(*y, 1);\n\tr0 = READ_ONCE(*x);',
], 'exists (0:r0=0 /\\ 1:r0=0)');
const LOCKED = litmus('L', [
  'spin_lock(l);\n\tWRITE_ONCE(*x, 1);\n\tspin_unlock(l);',
  'spin_lock(l);\n\tr0 = READ_ONCE(*x);\n\tspin_unlock(l);',
], 'exists (1:r0=0)', { params: ['int *x, spinlock_t *l', 'int *x, spinlock_t *l'] });

describe('coherence implied by a model\'s own checks', () => {
  it('is proved for a model that checks po-loc | com acyclic and rmw & (fre ; coe) empty, with herd\'s own spellings', () => {
    const m = model('coh', 'let com = rf | co | fr\nacyclic po-loc | com as coherence\nlet fre = fr & ext\nlet coe = co & ext\nempty rmw & (fre ; coe) as atomic\nacyclic po | rf as weak');
    expect(impliesCoherence(m.compiled, new Set())).toBe(true);
    expect(m.judgesCoherence?.(parseProgram(SB))).toBe(false);
    // Herd's base relations leave lock operations out: at the lock's location the model judges, elsewhere the explorer.
    const p = parseProgram(LOCKED);
    expect(m.judgesCoherence?.(p)).toEqual(new Set([p.locations.indexOf('l')]));
  });

  it('is not proved where a part is missing, weakened, or skipped', () => {
    const atomic = 'let fre = fr & ext\nlet coe = co & ext\nempty rmw & (fre ; coe) as atomic';
    const cases: [string, string, string[]][] = [
      ['nofr', `acyclic po-loc | rf | co as coherence\n${atomic}`, []],
      ['noatomic', 'acyclic po-loc | rf | co | fr as coherence', []],
      ['weakened', `acyclic (po-loc | rf | co | fr) \\ (rf & ext) as coherence\n${atomic}`, []],
      ['inverted', `acyclic (po-loc | rf | co | fr)^-1 as coherence\n${atomic}`, []],
      ['flagged', `flag ~acyclic po-loc | rf | co | fr as coherence\n${atomic}`, []],
      ['negated', `~acyclic po-loc | rf | co | fr as coherence\n${atomic}`, []],
      ['skipped', `acyclic po-loc | rf | co | fr as coherence\n${atomic}`, ['coherence']],
      ['redefined', `let fr = fr & int\nacyclic po-loc | rf | co | fr as coherence\n${atomic}`, []],
    ];
    for (const [name, text, skip] of cases) {
      expect(impliesCoherence(model(name, text, skip).compiled, new Set(skip)), name).toBe(false);
    }
  });

  it('gives the same answers as judging every incoherent candidate, with far fewer candidates', () => {
    const text = 'let com = rf | co | fr\nacyclic po-loc | com as coherence\nlet fre = fr & ext\nlet coe = co & ext\nempty rmw & (fre ; coe) as atomic\nacyclic po | com as sc';
    const m = model('scc', text);
    const whole = { ...m, judgesCoherence: () => true };
    const test = litmus('W', [
      'WRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*x, 2);\n\tr0 = xchg(y, 1);',
      'r0 = READ_ONCE(*x);\n\tr1 = READ_ONCE(*x);\n\tr2 = xchg(y, 2);',
    ], 'exists (1:r0=2 /\\ 1:r1=1)');
    const a = checkSource(test, { model: m });
    const b = checkSource(test, { model: whole });
    expect([a.observation, a.positive, a.negative]).toEqual([b.observation, b.positive, b.negative]);
    expect(a.stats.candidates).toBeLessThan(b.stats.candidates);
  });

  it('with spinlocks, leaves the locks\' locations to the model and gives the answers of judging every incoherent candidate', () => {
    const m = compileModelFiles(modelTextFiles('lkmm'));
    // Coherence choices at x beside a lock taken, tried, tested and held forever.
    const test = litmus('LW', [
      'spin_lock(l);\n\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*x, 2);\n\tspin_unlock(l);\n\tspin_lock(l);',
      'r0 = READ_ONCE(*x);\n\tr1 = READ_ONCE(*x);\n\tr2 = spin_trylock(l);\n\tr3 = spin_is_locked(l);',
      'spin_lock(l);\n\tr0 = xchg(x, 3);\n\tspin_unlock(l);',
    ], 'exists (1:r0=2 /\\ 1:r1=1)', { params: Array(3).fill('int *x, spinlock_t *l') });
    const p = parseProgram(test);
    expect(m.judgesCoherence?.(p)).toEqual(new Set([p.locations.indexOf('l')]));
    const a = checkSource(test, { model: m });
    const b = checkSource(test, { model: { ...m, judgesCoherence: () => true } });
    expect([a.observation, a.positive, a.negative, a.flags]).toEqual([b.observation, b.positive, b.negative, b.flags]);
    expect(a.stats.candidates).toBeLessThan(b.stats.candidates);
  });

  it('leaves every location to the model where a lock\'s address is computed', () => {
    const m = model('cohc', 'let com = rf | co | fr\nacyclic po-loc | com as coherence\nlet fre = fr & ext\nlet coe = co & ext\nempty rmw & (fre ; coe) as atomic');
    const test = litmus('LP', [
      'spinlock_t *r0 = READ_ONCE(*p);\n\tspin_lock(r0);\n\tWRITE_ONCE(*x, 1);',
      'WRITE_ONCE(*x, 2);',
    ], 'exists (x=1)', { init: 'spinlock_t *p = l;', params: ['spinlock_t **p, int *x', 'int *x'] });
    expect(m.judgesCoherence?.(parseProgram(test))).toBe(true);
  });
});

describe.skipIf(!HAVE_LKMM)('coherence implied by the kernel\'s LKMM files', () => {
  const files = (skipChecks: string[] = []) => ({
    cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'],
    searchDirs: [LKMM_DIR], skipChecks, besideIncluder: true,
  });
  it('is proved (linux-kernel.cat checks coherence and atomicity) unless a check is skipped', () => {
    expect(impliesCoherence(compileModelFiles(files()).compiled, new Set())).toBe(true);
    expect(impliesCoherence(compileModelFiles(files(['coherence'])).compiled, new Set(['coherence']))).toBe(false);
    expect(impliesCoherence(compileModelFiles(files(['atomic'])).compiled, new Set(['atomic']))).toBe(false);
  });
});

describe.skipIf(!HAVE_LKMM)('the kernel\'s load-buffering shortcut under the compiled kernel files', () => {
  const files = (skipChecks: string[] = []) => ({
    cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'],
    searchDirs: [LKMM_DIR], skipChecks, besideIncluder: true,
  });
  // Three threads, each reading then writing, in order (data dependencies, a full fence): the cycle the shortcut drops.
  const LB3 = litmus('LB3', [
    'r0 = READ_ONCE(*x);\n\tWRITE_ONCE(*y, r0);',
    'r0 = READ_ONCE(*y);\n\tWRITE_ONCE(*z, r0);',
    'r0 = READ_ONCE(*z);\n\tsmp_mb();\n\tWRITE_ONCE(*x, 1);',
  ], 'exists (0:r0=1 /\\ 1:r0=1 /\\ 2:r0=1)');
  it('is taken where the model enforces the kernel\'s happens-before and coherence, with the answers of exploring every guess', () => {
    const m = compileModelFiles(files());
    const guessing = { ...m, mayCycleThrough: () => true };
    const a = checkSource(LB3, { model: m });
    const b = checkSource(LB3, { model: guessing });
    expect([a.observation, a.positive, a.negative, a.flags]).toEqual([b.observation, b.positive, b.negative, b.flags]);
    expect(a.observation).toBe('Never');
    expect(a.stats.pruned).toBeLessThan(b.stats.pruned);
  });
  it('is not taken with -skipchecks happens-before: every guess is explored', () => {
    const m = compileModelFiles(files(['happens-before']));
    const a = checkSource(LB3, { model: m });
    const b = checkSource(LB3, { model: { ...m, mayCycleThrough: () => true } });
    expect([a.observation, a.positive, a.negative, a.stats.pruned]).toEqual([b.observation, b.positive, b.negative, b.stats.pruned]);
  });
});
