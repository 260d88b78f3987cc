// Models read from their files: herd's cat language (models/cat/), the
// kernel's LKMM files compiled and compared with the built-in model, edits
// of those files followed, bad files refused with their position, and the
// model options of litmus check and litmus herd7.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCat } from '../models/cat/parser.js';
import { ModelError } from '../models/cat/lexer.js';
import { compileModelFiles, fingerprintOfFiles } from '../models/cat/model.js';
import { getModel, KERNEL_LKMM_FINGERPRINT } from '../models/index.js';
import { lkmm } from '../models/lkmm.js';
import { sc } from '../models/sc.js';
import type { CatExpr } from '../models/cat/ast.js';
import { resolveInputs } from '../src/cli/inputs.js';
import { checkSource, type CheckResult } from '../src/check.js';
import { SHAPES, type Shape } from './shapes.js';
import { CLI, copyLkmm, HAVE_LKMM, LKMM_DIR, litmus, ROOT, runNode } from './util.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-cat-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An expression's shape, operators and names only (positions left out). */
function shape(e: CatExpr): string {
  switch (e.kind) {
    case 'var':
      return e.name;
    case 'binary':
      return `${e.op}(${e.args.map(shape).join(', ')})`;
    case 'unary':
      return `${e.op}(${shape(e.arg)})`;
    case 'app':
      return `${shape(e.fn)}[${shape(e.arg)}]`;
    case 'empty':
      return '0';
    case 'universe':
      return '_';
    case 'tuple':
      return `(${e.elems.map(shape).join(', ')})`;
    default:
      return e.kind;
  }
}

const exprOf = (src: string): string => {
  const f = parseCat(`let x = ${src}`, 't.cat');
  const ins = f.instrs[0];
  if (ins.kind !== 'let') throw new Error('not a let');
  return shape(ins.bindings[0].expr);
};

describe('reading cat', () => {
  it("follows herd's precedences: | then ++ then ; then \\ then &, postfix and ~ tightest, application tighter still", () => {
    expect(exprOf('a ; b \\ c')).toBe('seq(a, diff(b, c))');
    expect(exprOf('~M | IW')).toBe('union(comp(M), IW)');
    expect(exprOf('a | b & c')).toBe('union(a, inter(b, c))');
    expect(exprOf('a \\ b \\ c')).toBe('diff(diff(a, b), c)');
    expect(exprOf('hb* ; pb*')).toBe('seq(star(hb), star(pb))');
    expect(exprOf('Plain * M')).toBe('cartesian(Plain, M)');
    expect(exprOf('rcu-rscs^-1 ; po?')).toBe('seq(inv(rcu-rscs), opt(po))');
    expect(exprOf('[M] ; fencerel(Rmb) ; [M]')).toBe('seq(toid(M), fencerel[Rmb], toid(M))');
    expect(exprOf('f e ++ do_map S')).toBe('add(f[e], do_map[S])');
    expect(exprOf('(rf ; rmw)*')).toBe('star(seq(rf, rmw))');
  });

  it('names the file, line and column of a problem', () => {
    const bad = (text: string): string => {
      try {
        parseCat(text, 'm.cat');
      } catch (e) {
        if (e instanceof ModelError) return e.format();
        throw e;
      }
      return 'no error';
    };
    expect(bad('let x = po ;\n\nacyclic x')).toBe('m.cat:3:1: expected an expression, found "acyclic"');
    expect(bad('"t"\nlet a = (po')).toBe('m.cat:2:12: expected ")", found the end of the file');
    expect(bad('(* never closed')).toBe('m.cat:1:1: unterminated comment: "(*" without "*)"');
    expect(bad('let x = po $ rf')).toBe('m.cat:1:12: unexpected character "$"');
  });
});

/** An SC model written here, as a user would write one: herd's library does the coherence orders. */
const SC_CAT = `"Sequential consistency, for tests"
include "cos.cat"
empty rmw & (fre ; coe) as atomic
acyclic po | rf | co | fr as sc
`;

const testOf = (s: Shape) => litmus(s.name, s.procs, s.cond);
const summary = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative} [${r.flags}] ${r.states.map((x) => x.bindings.join(' ')).join(' | ')}`;

describe('a model of the user\'s own', () => {
  it('an SC model in cat gives the built-in SC model\'s states and counts on the classic shapes', () => {
    writeFileSync(join(dir, 'mysc.cat'), SC_CAT);
    const mine = compileModelFiles({ cat: join(dir, 'mysc.cat'), variants: [], searchDirs: [dir], skipChecks: [] });
    let compared = 0;
    for (const s of SHAPES) {
      const text = testOf(s);
      let want: CheckResult;
      try {
        want = checkSource(text, { model: sc });
      } catch {
        continue;
      }
      expect(summary(checkSource(text, { model: mine })), s.name).toBe(summary(want));
      compared++;
    }
    expect(compared).toBeGreaterThan(10);
  });

  it('litmus check --model FILE.cat follows it; a broken file is one positioned error, exit 2', async () => {
    writeFileSync(join(dir, 'mysc.cat'), SC_CAT);
    const sb = SHAPES.find((s) => s.name.startsWith('SB+poonceonces'))!;
    writeFileSync(join(dir, 'SB.litmus'), testOf(sb));
    const ok = await litmusCli(['check', '--model', join(dir, 'mysc.cat'), join(dir, 'SB.litmus')]);
    expect(ok.stdout).toMatch(/Observation \S+ Never 0 3/);
    writeFileSync(join(dir, 'broken.cat'), 'acyclic po | as sc\n');
    const bad = await litmusCli(['check', '--model', join(dir, 'broken.cat'), join(dir, 'SB.litmus')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe(`${join(dir, 'broken.cat')}:1:14: expected an expression, found "as"`);
    expect(bad.stdout).toBe('');
    writeFileSync(join(dir, 'unknown.cat'), 'include "cos.cat"\nacyclic po | rf | co | frr as sc\n');
    const unknown = await litmusCli(['check', '--model', join(dir, 'unknown.cat'), join(dir, 'SB.litmus')]);
    expect(unknown.stderr.trim()).toBe(`${join(dir, 'unknown.cat')}:2:24: unknown name "frr"`);
    writeFileSync(join(dir, 'noinc.cat'), 'include "nowhere.cat"\n');
    const noinc = await litmusCli(['check', '--model', join(dir, 'noinc.cat'), join(dir, 'SB.litmus')]);
    expect(noinc.stderr.trim()).toBe(`${join(dir, 'noinc.cat')}:1:1: Cannot find file nowhere.cat`);
    const garbage = await litmusCli(['check', '--model', join(ROOT, 'package.json'), join(dir, 'SB.litmus')]);
    expect(garbage.status).toBe(2);
    expect(garbage.stderr).toMatch(/package\.json:\d+:\d+: /);
  });

  it('a model without coherence allows incoherent executions: the explorer leaves coherence to the model', () => {
    writeFileSync(join(dir, 'anything.cat'), '"anything goes"\n');
    const any = compileModelFiles({ cat: join(dir, 'anything.cat'), variants: [], searchDirs: [dir], skipChecks: [] });
    const corr = litmus('CoRR', ['\tWRITE_ONCE(*x, 1);', '\tint r0;\n\tint r1;\n\tr0 = READ_ONCE(*x);\n\tr1 = READ_ONCE(*x);'], 'exists (1:r0=1 /\\ 1:r1=0)');
    expect(checkSource(corr, { model: sc }).observation).toBe('Never');
    const r = checkSource(corr, { model: any });
    expect(`${r.observation} ${r.states.length}`).toBe('Sometimes 4');
  });

  it('a model that includes itself is a loop, not a crash', async () => {
    writeFileSync(join(dir, 'self.cat'), 'include "self.cat"\n');
    const r = await litmusCli(['check', '--model', join(dir, 'self.cat'), join(dir, 'SB.litmus')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/self\.cat:1:1: include "self\.cat": a file includes itself \(self\.cat -> self\.cat\)/);
  });
});

function litmusCli(args: string[]) {
  return runNode([CLI, ...args], dir);
}

const corpus = join(ROOT, '..', 'shared', 'corpus');
const haveCorpus = existsSync(join(corpus, 'kernel'));


const kernelFiles = () => ({
  cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'],
  searchDirs: [LKMM_DIR], skipChecks: [] as string[], besideIncluder: true,
});

describe.skipIf(!HAVE_LKMM)("the kernel's LKMM files, compiled", () => {
  it('have the fingerprint litmus knows them by (so the kernel\'s unchanged files run on the built-in copy)', () => {
    const known = fingerprintOfFiles(kernelFiles());
    expect(known?.fingerprint).toBe(KERNEL_LKMM_FINGERPRINT);
    // Every file the compiled model reads is in the digest (an edit of any of them changes it).
    expect(compileModelFiles(kernelFiles()).compiled.files.filter((f) => !known!.files.includes(f))).toEqual([]);
    expect(known?.title).toBe(compileModelFiles(kernelFiles()).compiled.title);
  });

  it.skipIf(!haveCorpus)('give output identical to the built-in model on every test of the kernel corpus', () => {
    const compiled = compileModelFiles(kernelFiles());
    const files = resolveInputs([join(corpus, 'herd-linux'), join(corpus, 'kernel')]).files;
    expect(files.length).toBeGreaterThan(130);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(summary(checkSource(text, { model: compiled })), f).toBe(summary(checkSource(text, { model: lkmm })));
    }
  }, 120_000);
});

/** A copy of the kernel's files with one edit; returns the folder. */
function edited(name: string, file: string, from: string | RegExp, to: string): string {
  const d = join(dir, name);
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d);
  copyLkmm(d);
  const path = join(d, file);
  const text = readFileSync(path, 'utf8');
  const out = text.replace(from, to);
  expect(out, `the edit ${String(from)} applies`).not.toBe(text);
  writeFileSync(path, out);
  return d;
}

const observation = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative}`;

describe.skipIf(!HAVE_LKMM || !haveCorpus)("edits of the kernel's files are followed, never ignored", () => {
  const kernel = join(corpus, 'kernel');
  const modelAt = (d: string) => {
    const m = getModel(`files:${JSON.stringify({ ...kernelFiles(), cat: join(d, 'linux-kernel.cat'), bell: join(d, 'linux-kernel.bell'), searchDirs: [d] })}`)!;
    return m;
  };
  const run = (d: string, test: string) => checkSource(readFileSync(join(kernel, test), 'utf8'), { model: modelAt(d) });

  it('strong-fence = gp: smp_mb() no longer orders store buffering', () => {
    const d = edited('sf', 'linux-kernel.cat', /^let strong-fence = mb \| gp$/m, 'let strong-fence = gp');
    expect(observation(run(d, 'SB+fencembonceonces.litmus'))).toBe('Sometimes 1 3');
    expect(observation(checkSource(readFileSync(join(kernel, 'SB+fencembonceonces.litmus'), 'utf8'), { model: lkmm }))).toBe('Never 0 3');
  });

  it('the rcu axiom taken out: a grace period no longer waits for a reader', () => {
    const d = edited('rcu', 'linux-kernel.cat', /^irreflexive rb as rcu$/m, '(* irreflexive rb as rcu *)');
    const before = checkSource(readFileSync(join(kernel, 'doc', 'rcu', 'RCU+sync+read.litmus'), 'utf8'), { model: lkmm });
    const after = run(d, 'doc/rcu/RCU+sync+read.litmus');
    expect(before.observation).toBe('Never');
    expect(after.observation).toBe('Sometimes');
  });

  it('to-w dropped from ppo: a control dependency to a store no longer orders load buffering', () => {
    const d = edited('tow', 'linux-kernel.cat', /^let ppo = to-r \| to-w \| /m, 'let ppo = to-r | ');
    expect(observation(checkSource(readFileSync(join(kernel, 'LB+fencembonceonce+ctrlonceonce.litmus'), 'utf8'), { model: lkmm }))).toMatch(/^Never/);
    expect(run(d, 'LB+fencembonceonce+ctrlonceonce.litmus').observation).toBe('Sometimes');
  });

  it('ONCE taken out of Marked in the bell: READ_ONCE and WRITE_ONCE race like plain accesses', () => {
    const d = edited('once', 'linux-kernel.bell', 'IW | ONCE | RELEASE', 'IW | RELEASE');
    expect(checkSource(readFileSync(join(kernel, 'MP+poonceonces.litmus'), 'utf8'), { model: lkmm }).flags).toEqual([]);
    expect(run(d, 'MP+poonceonces.litmus').flags).toContain('data-race');
  });

  it('litmus check --conf and --model DIR read the edited files; the summary names them', async () => {
    const d = edited('sf2', 'linux-kernel.cat', /^let strong-fence = mb \| gp$/m, 'let strong-fence = gp');
    const test = join(kernel, 'SB+fencembonceonces.litmus');
    for (const args of [['--conf', join(d, 'linux-kernel.cfg')], ['--model', d]]) {
      const r = await litmusCli(['check', ...args, test]);
      expect(r.stdout, args.join(' ')).toMatch(/Observation SB\+fencembonceonces Sometimes 1 3/);
      expect(r.stdout).toMatch(/MISMATCH/);
      expect(r.status).toBe(1);
    }
  });

  it('litmus herd7 -conf in the edited folder gives the edited answers; -skipchecks drops a check', async () => {
    const d = edited('sf3', 'linux-kernel.cat', /^let strong-fence = mb \| gp$/m, 'let strong-fence = gp');
    const sb = join(kernel, 'SB+fencembonceonces.litmus');
    expect((await runNode([CLI, 'herd7', '-conf', 'linux-kernel.cfg', sb], d)).stdout).toContain('Observation SB+fencembonceonces Sometimes 1 3');
    const orig = mkdtempSync(join(dir, 'orig-'));
    copyLkmm(orig);
    const lb = join(kernel, 'LB+poacquireonce+pooncerelease.litmus');
    expect((await runNode([CLI, 'herd7', '-conf', 'linux-kernel.cfg', lb], orig)).stdout).toMatch(/Observation \S+ Never/);
    const skipped = await runNode([CLI, 'herd7', '-conf', 'linux-kernel.cfg', '-skipchecks', 'happens-before', lb], orig);
    expect(skipped.stdout).toMatch(/Observation \S+ Sometimes/);
    // Variants add up as in herd7 7.58: with the .cfg's lkmmv2 still set, lkmmv1 changes nothing.
    const fail2 = join(kernel, 'doc', 'atomic', 'cmpxchg-fail-ordered-2.litmus');
    const both = await runNode([CLI, 'herd7', '-conf', 'linux-kernel.cfg', '-variant', 'lkmmv1', fail2], orig);
    expect(both.stdout).toContain('Observation cmpxchg-fail-ordered-2 Never 0 3');
    expect(both.stdout).not.toContain('Flag');
    // Without lkmmv2 (herd7 7.58 on the corpus: the same answers, the bell's flag on each): a test without
    // RMWs is answered with the flag; one whose fully ordered RMW herd7 builds as legacy events is refused.
    const legacy = ['herd7', '-model', 'linux-kernel.cat', '-bell', 'linux-kernel.bell', '-macros', 'linux-kernel.def', '-variant', 'lkmmv1'];
    const v1 = await runNode([CLI, ...legacy, fail2], orig);
    expect(v1.status).toBe(0);
    expect(v1.stdout).toBe('');
    expect(v1.stderr).toMatch(/cmpxchg-fail-ordered-2\.litmus", line 17, character 6: cmpxchg\(\) is a read-modify-write: without the variant lkmmv2/);
    const sbV1 = await runNode([CLI, ...legacy, join(kernel, 'SB+fencembonceonces.litmus')], orig);
    expect(sbV1.stdout).toContain('Flag this-model-requires-variant-higher-than-lkmmv1\nCondition exists (0:r0=0 /\\ 1:r0=0)\nObservation SB+fencembonceonces Never 0 3');
  });

  it("a .def with a tag the built-in copy does not know runs the files' own model, even when the .cat and .bell are the kernel's", async () => {
    const d = mkdtempSync(join(dir, 'newtag-'));
    copyLkmm(d);
    writeFileSync(join(d, 'linux-kernel.def'), `${readFileSync(join(d, 'linux-kernel.def'), 'utf8')}\nmy_fence() { __fence{my-order}; }\n`);
    const sb = readFileSync(join(kernel, 'SB+fencembonceonces.litmus'), 'utf8').replaceAll('smp_mb()', 'my_fence()');
    writeFileSync(join(d, 'SB+my.litmus'), sb);
    const r = await litmusCli(['check', '--conf', join(d, 'linux-kernel.cfg'), join(d, 'SB+my.litmus')]);
    expect(r.stderr).toBe('');
    // The kernel's model does not mention the tag: the fence orders nothing.
    expect(r.stdout).toMatch(/Observation SB\+fencembonceonces Sometimes 1 3/);
  });

  it("a lock.cat whose lock reads may read from more than lock.cat's rules allow is refused at its with, not undercounted", async () => {
    const d = edited('ru', 'lock.cat', /\(\(\(UL \* \{e\}\) & po-loc\) \\\n\t+\(\[UL\] ; po-loc ; \[UL\] ; po-loc\)\)/, '((UL * {e}) & po-loc)');
    // P0's spin_is_locked() may now read its first unlock, which lock.cat (and the explorer) never offer.
    const test = join(d, 'RU.litmus');
    writeFileSync(test, `C RU\n\n{}\n\nP0(spinlock_t *l)\n{\n\tint r0;\n\n\tspin_lock(l);\n\tspin_unlock(l);\n\tspin_lock(l);\n\tspin_unlock(l);\n\tr0 = spin_is_locked(l);\n}\n\nP1(spinlock_t *l)\n{\n\tspin_lock(l);\n\tspin_unlock(l);\n}\n\nexists (0:r0=0)\n`);
    const before = await litmusCli(['check', '--model', LKMM_DIR, test]);
    expect(before.status).toBe(0);
    const r = await litmusCli(['check', '--conf', join(d, 'linux-kernel.cfg'), test]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/lock\.cat:\d+:\d+: with \.\.\. from: this model lets a lock read \(RU\) read from an event litmus's explorer never offers it/);
  });

  it('a file of garbage in place of linux-kernel.cat is one positioned error, exit 2', async () => {
    const d = mkdtempSync(join(dir, 'garbage-'));
    copyLkmm(d);
    writeFileSync(join(d, 'linux-kernel.cat'), 'this is not a model ~~ !!\n');
    const r = await litmusCli(['check', '--conf', join(d, 'linux-kernel.cfg'), join(kernel, 'SB+fencembonceonces.litmus')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/linux-kernel\.cat:1:\d+: /);
    expect(r.stdout).toBe('');
  });
});
