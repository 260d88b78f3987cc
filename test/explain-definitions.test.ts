// Explanations from the model's own definitions (models/cat/explain.ts):
// each kept program-order step of a witness named by the smallest
// definition that gives it, each forbidden cycle by its check's `as` name,
// the same words under the built-in model, its text, the kernel's files
// unedited and comment-edited; a semantic edit explained by the edited
// definitions; under files, where each name is defined.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinModel, getModel, filesSpec } from '../models/index.js';
import { compileModelFiles } from '../models/cat/model.js';
import { filesOfConf } from '../models/cat/files.js';
import { modelTextDir, modelTextFiles } from '../models/texts.js';
import { checkSource } from '../src/check.js';
import type { Model } from '../src/model/model.js';
import { traceReport } from '../src/report/trace.js';
import { copyLkmm, HAVE_LKMM, LKMM_DIR } from './util.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-explain-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const test = (name: string, p0: string, p1: string, cond: string, params = 'int *x, int *y') =>
  `C ${name}\n{}\nP0(${params}) { int r0; int r1; ${p0} }\nP1(${params}) { int r0; int r1; ${p1} }\nexists (${cond})\n`;

/** The traced tests, each with a claim its trace makes under every form of the LKMM. */
const TRACED: { name: string; text: string; claims: string[] }[] = [
  {
    name: 'MP with smp_load_acquire()',
    text: test('MP+o-o+acq-o', 'WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1);', 'r0 = smp_load_acquire(y); r1 = READ_ONCE(*x);', '1:r0=1 /\\ 1:r1=0'),
    claims: ['P1.1 -> P1.2: program order, kept by acquire (smp_load_acquire) (acq-po)', 'P0.1 -> P0.2: program order, which M does not keep here'],
  },
  {
    name: 'MP with smp_store_release()',
    text: test('MP+o-rel+o-o', 'WRITE_ONCE(*x, 1); smp_store_release(y, 1);', 'r0 = READ_ONCE(*y); r1 = READ_ONCE(*x);', '1:r0=1 /\\ 1:r1=0'),
    claims: ['P0.1 -> P0.2: program order, kept by release (smp_store_release) (po-rel)'],
  },
  {
    name: 'MP with smp_wmb()',
    text: test('MP+wmb+o-o', 'WRITE_ONCE(*x, 1); smp_wmb(); WRITE_ONCE(*y, 1);', 'r0 = READ_ONCE(*y); r1 = READ_ONCE(*x);', '1:r0=1 /\\ 1:r1=0'),
    claims: ['P0.1 -> P0.3: program order, kept by smp_wmb() (wmb)'],
  },
  {
    name: 'MP with smp_rmb()',
    text: test('MP+o-o+rmb', 'WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1);', 'r0 = READ_ONCE(*y); smp_rmb(); r1 = READ_ONCE(*x);', '1:r0=1 /\\ 1:r1=0'),
    claims: ['P1.1 -> P1.3: program order, kept by smp_rmb() (rmb)'],
  },
  {
    name: 'SB with smp_mb() on one side',
    text: test('SB+mb+o', 'WRITE_ONCE(*x, 1); smp_mb(); r0 = READ_ONCE(*y);', 'WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x);', '0:r0=0 /\\ 1:r0=0'),
    claims: ['P0.1 -> P0.3: program order, kept by smp_mb() (mb)'],
  },
  {
    name: 'LB with a control dependency on one side',
    text: test('LB+ctrl+o', 'r0 = READ_ONCE(*x); if (r0) WRITE_ONCE(*y, 1);', 'r0 = READ_ONCE(*y); WRITE_ONCE(*x, 1);', '0:r0=1 /\\ 1:r0=1'),
    claims: ['P0.1 -> P0.2: program order, kept by a control dependency (ctrl)'],
  },
  {
    name: 'MP through two critical sections (Never)',
    text: test('MP+locks+rmb', 'spin_lock(l); WRITE_ONCE(*x, 1); spin_unlock(l); spin_lock(l); WRITE_ONCE(*y, 1); spin_unlock(l);', 'r0 = READ_ONCE(*y); smp_rmb(); r1 = READ_ONCE(*x);', '1:r0=1 /\\ 1:r1=0', 'int *x, int *y, spinlock_t *l'),
    claims: ['the happens-before cycle: P1.3 -fr-> P0.2 -po-unlock-lock-po-> P0.5 -rfe-> P1.1 -rmb-> P1.3'],
  },
  {
    name: 'MP with release and acquire (Never)',
    text: test('MP+rel+acq', 'WRITE_ONCE(*x, 1); smp_store_release(y, 1);', 'r0 = smp_load_acquire(y); r1 = READ_ONCE(*x);', '1:r0=1 /\\ 1:r1=0'),
    claims: ['the happens-before cycle: P1.2 -fr-> P0.1 -po-rel-> P0.2 -rfe-> P1.1 -acq-po-> P1.2'],
  },
  {
    name: 'a grace period against a read-side critical section (Never)',
    text: test('RCU+sync', 'rcu_read_lock(); WRITE_ONCE(*x, 1); WRITE_ONCE(*y, 1); rcu_read_unlock();', 'r0 = READ_ONCE(*x); synchronize_rcu(); r1 = READ_ONCE(*y);', '1:r0=1 /\\ 1:r1=0'),
    claims: ['the rcu cycle: P0.2 -rfe-> P1.1 -rcu-fence-> P0.2'],
  },
];

/** The explanation lines of a trace (the steps, the cycle, the verdict on them), with the model's name as M. */
function explanation(model: Model, text: string): string[] {
  const t = traceReport(checkSource(text, { model, keepWitnesses: true }), model);
  return t.split('\n').filter((l) => /program order|cycle:|kept|allows the cycle|not atomic/.test(l)).map((l) => l.replace(`which ${model.name} does`, 'which M does').replace(`yet ${model.name} allows`, 'yet M allows'));
}

/** Where the trace says the names it used are defined. */
function definedAt(model: Model, text: string): string | undefined {
  return traceReport(checkSource(text, { model, keepWitnesses: true }), model).split('\n').find((l) => l.startsWith('  (as the model defines them: '));
}

/** A copy of a model's folder with one line replaced (or, for a comment, added); returns the model. */
function editedCopy(name: string, from: string, file: string, edit: (text: string) => string, cfg: string): Model {
  const at = join(dir, name);
  cpSync(from, at, { recursive: true });
  const path = join(at, file);
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  expect(after, `the edit of ${file} applies`).not.toBe(before);
  writeFileSync(path, after);
  return compileModelFiles({ ...filesOfConf(join(at, cfg)), compiled: true });
}

const text = compileModelFiles(modelTextFiles('lkmm'));
const builtin = builtinModel('lkmm')!;

describe('a trace names the model\'s own definitions', () => {
  it.each(TRACED)('$name: under the built-in model and its text alike', ({ text: t, claims }) => {
    const want = explanation(builtin, t);
    for (const c of claims) expect(want.some((l) => l.includes(c)), `${c}\n${want.join('\n')}`).toBe(true);
    expect(explanation(text, t)).toEqual(want);
  });

  it.skipIf(!HAVE_LKMM).each(TRACED)("$name: under the kernel's files, unedited and with comments added, word for word", ({ text: t }) => {
    const want = explanation(builtin, t);
    const kernel = compileModelFiles({ ...filesOfConf(join(LKMM_DIR, 'linux-kernel.cfg')), compiled: true });
    expect(explanation(kernel, t)).toEqual(want);
    const commented = editedCopy('commented', LKMM_DIR, 'linux-kernel.cat', (s) => s.replace('let acq-po =', '(* a comment *)\n(* another *)\nlet acq-po =').concat('\n(* the end *)\n'), 'linux-kernel.cfg');
    expect(explanation(commented, t)).toEqual(want);
    // The kernel's unchanged files run on the built-in copy: explained from those files themselves.
    const spec = filesSpec(filesOfConf(join(LKMM_DIR, 'linux-kernel.cfg')));
    expect(explanation(getModel(spec)!, t)).toEqual(want);
  });

  it('under files, the trace says where each name it used is defined, at that definition', () => {
    const line = definedAt(text, TRACED[0].text)!;
    expect(line).toMatch(/acq-po \S*lkmm\.cat:\d+/);
    const [, file, n] = /acq-po (\S+):(\d+)/.exec(line)!;
    const source = readFileSync(file.startsWith('/') ? file : join(process.cwd(), file), 'utf8').split('\n');
    expect(source[Number(n) - 1]).toMatch(/^let acq-po = /);
    // The built-in model is not a file of the user's: no such line.
    expect(definedAt(builtin, TRACED[0].text)).toBeUndefined();
  });

  it('a semantic edit is explained by the edited definitions: ctrl dropped from rwdep', () => {
    const lb = TRACED[5].text;
    const edited = editedCopy('no-ctrl', modelTextDir(), 'lkmm.cat', (s) => s.replace('let rwdep = (dep | ctrl) ; [W]', 'let rwdep = dep ; [W]'), 'lkmm.cfg');
    const lbmb = test('LB+ctrl+mb', 'r0 = READ_ONCE(*x); if (r0) WRITE_ONCE(*y, 1);', 'r0 = READ_ONCE(*y); smp_mb(); WRITE_ONCE(*x, 1);', '0:r0=1 /\\ 1:r0=1');
    expect(checkSource(lbmb, { model: builtin }).observation).toBe('Never');
    expect(checkSource(lbmb, { model: edited }).observation).toBe('Sometimes');
    const lines = explanation(edited, lbmb);
    expect(lines).toContain('    P0.1 -> P0.2: program order, which M does not keep here: P0.2 can take effect before P0.1 (reordered)');
    expect(lines).toContain('    P1.1 -> P1.3: program order, kept by smp_mb() (mb)');
    expect(explanation(edited, lb).join('\n')).not.toContain('(ctrl)');
  });

  it('a semantic edit is explained by the edited definitions: acq-po renamed, its new name and line', () => {
    const renamed = editedCopy('renamed', modelTextDir(), 'lkmm.cat', (s) => s.replace('let acq-po = ', 'let acquire-order = ').replace('| po-rel | acq-po', '| po-rel | acquire-order'), 'lkmm.cfg');
    const lines = explanation(renamed, TRACED[0].text);
    expect(lines).toContain('    P1.1 -> P1.2: program order, kept by acquire (smp_load_acquire) (acquire-order)');
    expect(definedAt(renamed, TRACED[0].text)).toMatch(/acquire-order \S+lkmm\.cat:\d+/);
  });

  it('a cycle of kept steps that is still allowed: the step that is not cumulative is named (a control dependency), not a release or smp_mb()', () => {
    const wrc = (p1: string) => `C WRC\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nP1(int *x, int *y) { int r0; ${p1} }\nP2(int *x, int *y) { int r1; int r2; r1 = READ_ONCE(*y); smp_rmb(); r2 = READ_ONCE(*x); }\nexists (1:r0=1 /\\ 2:r1=1 /\\ 2:r2=0)\n`;
    const ctrl = traceReport(checkSource(wrc('r0 = READ_ONCE(*x); if (r0) WRITE_ONCE(*y, 1);'), { model: builtin, keepWitnesses: true }), builtin).replace(/\n\s+/g, ' ');
    expect(ctrl).toContain('P1.1 -> P1.2 is ordered on P1 by');
    expect(ctrl).toContain('a control dependency, which is not cumulative');
    // A release is cumulative: the outcome is forbidden.
    expect(checkSource(wrc('r0 = READ_ONCE(*x); smp_store_release(y, 1);'), { model: builtin }).observation).toBe('Never');
  });

  it('under SC and x86-TSO: the check by its name, each step by the definitions of their texts', () => {
    const mp = TRACED[7].text;
    expect(explanation(builtinModel('x86-tso')!, mp)).toContain('  the tso cycle: P1.2 -fr-> P0.1 -ppo-> P0.2 -rfe-> P1.1 -ppo-> P1.2');
    expect(explanation(builtinModel('sc')!, mp)).toContain('  the sc cycle: P1.2 -fr-> P0.1 -po-> P0.2 -rf-> P1.1 -po-> P1.2');
    const sb = TRACED[4].text;
    expect(explanation(builtinModel('x86-tso')!, sb)).toContain('    P1.1 -> P1.2: program order, which M does not keep here: P1.2 can take effect before P1.1 (reordered)');
  });

  it('under the kernel\'s files, a Never of coherence is explained by the check the files break first', () => {
    const corr = test('CoRR', 'WRITE_ONCE(*x, 1);', 'r0 = READ_ONCE(*x); r1 = READ_ONCE(*x);', '1:r0=1 /\\ 1:r1=0');
    expect(explanation(builtin, corr)).toEqual(['  the coherence cycle: P1.2 -fr-> P0.1 -rf-> P1.1 -po-loc-> P1.2']);
    expect(explanation(text, corr).join('\n')).toMatch(/the ConsCo cycle: /);
  });
});
