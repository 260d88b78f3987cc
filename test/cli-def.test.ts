// `litmus check --macros FILE.def`, end to end: an edited copy of the
// kernel's linux-kernel.def (from ../shared/lkmm, skipped without it) is
// followed, a macro added to it is a primitive, a malformed or unusable
// file stops the run with file:line:col and exit 2.

import { describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI, ROOT, litmus, runNode } from './util.js';

const LKMM_DIR = process.env.LITMUS_LKMM ?? resolve(ROOT, '..', 'shared', 'lkmm');
const KERNEL_DEF = join(LKMM_DIR, 'linux-kernel.def');

const sb = (fence: string) =>
  litmus('SB+fencembonceonces', [`WRITE_ONCE(*x, 1);\n${fence};\nint r0 = READ_ONCE(*y);`, `WRITE_ONCE(*y, 1);\n${fence};\nint r1 = READ_ONCE(*x);`], 'exists (0:r0=0 /\\ 1:r1=0)', { result: 'Never' });

async function withDir(f: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'litmus-cli-def-'));
  try {
    await f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const check = (dir: string, ...args: string[]) => runNode([CLI, 'check', '-q', ...args], dir);

describe('litmus check --macros', () => {
  it.skipIf(!existsSync(KERNEL_DEF))('follows an edited linux-kernel.def: smp_mb() as a compiler barrier makes SB Sometimes; a new macro works (skipped without ../shared/lkmm)', () =>
    withDir(async (dir) => {
      const def = join(dir, 'linux-kernel.def');
      const edited = readFileSync(KERNEL_DEF, 'utf8').replace(/^smp_mb\(\).*$/m, 'smp_mb() { __fence{barrier}; }') + '\nmy_mb() { __fence{MB}; }\n';
      writeFileSync(def, edited);
      writeFileSync(join(dir, 'SB.litmus'), sb('smp_mb()'));
      writeFileSync(join(dir, 'SB+my.litmus'), sb('my_mb()'));
      const builtin = await check(dir, 'SB.litmus');
      expect([builtin.status, builtin.stdout.trim()]).toEqual([0, 'SB+fencembonceonces: Never (0 of 3 executions) under lkmm; Result: Never matches']);
      const followed = await check(dir, '--macros', def, 'SB.litmus');
      expect([followed.status, followed.stdout.trim()]).toEqual([1, 'SB+fencembonceonces: Sometimes (1 of 4 executions) under lkmm; Result: Never MISMATCH']);
      const mine = await check(dir, '--macros', def, 'SB+my.litmus');
      expect([mine.status, mine.stdout.trim()]).toEqual([0, 'SB+fencembonceonces: Never (0 of 3 executions) under lkmm; Result: Never matches']);
      // Without the .def, the new macro is unknown.
      const unknown = await check(dir, 'SB+my.litmus');
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toMatch(/^SB\+my\.litmus:\d+:\d+: unknown primitive "my_mb"/);
    }));

  it('refuses a malformed .def, a missing one and a tag the built-in model does not know, with file:line:col and exit 2', () =>
    withDir(async (dir) => {
      writeFileSync(join(dir, 'SB.litmus'), sb('smp_mb()'));
      writeFileSync(join(dir, 'bad.def'), 'WRITE_ONCE(X,V) { __store{ONCE}(X,V); }\nsmp_mb( { __fence{MB}; }\n');
      const bad = await check(dir, '--macros', 'bad.def', 'SB.litmus');
      expect([bad.status, bad.stdout, bad.stderr.trim()]).toEqual([2, '', 'bad.def:2:9: expected a parameter name of smp_mb, found "{"']);
      const missing = await check(dir, '--macros', 'none.def', 'SB.litmus');
      expect([missing.status, missing.stderr.trim()]).toEqual([2, 'none.def:1:1: cannot read the macro file: no such file']);
      writeFileSync(join(dir, 'tag.def'), 'WRITE_ONCE(X,V) { __store{ONCE}(X,V); }\nREAD_ONCE(X) __load{ONCE}(X)\nsmp_mb() { __fence{full}; }\n');
      const tag = await check(dir, '--macros', 'tag.def', 'SB.litmus');
      expect(tag.status).toBe(2);
      expect(tag.stderr.trim()).toMatch(/^tag\.def:3:20: tag "full" of smp_mb is not among the built-in LKMM's fence tags \(MB, rmb, /);
    }));

  it('checks with a .def of its own: the test\'s primitives as the file defines them', () =>
    withDir(async (dir) => {
      writeFileSync(join(dir, 'SB.litmus'), sb('smp_mb()'));
      writeFileSync(join(dir, 'weak.def'), 'WRITE_ONCE(X,V) { __store{ONCE}(X,V); }\nREAD_ONCE(X) __load{ONCE}(X)\nsmp_mb() { __fence{wmb}; }\n');
      const r = await check(dir, '--macros', 'weak.def', 'SB.litmus');
      expect([r.status, r.stdout.trim()]).toEqual([1, 'SB+fencembonceonces: Sometimes (1 of 4 executions) under lkmm; Result: Never MISMATCH']);
    }));

  it.skipIf(!existsSync(KERNEL_DEF))('follows the .def a configuration names: check --conf and litmus herd7 -conf; a macro the .def lacks is herd7\'s Unknown macro (skipped without ../shared/lkmm)', () =>
    withDir(async (dir) => {
      for (const f of readdirSync(LKMM_DIR)) copyFileSync(join(LKMM_DIR, f), join(dir, f));
      const def = join(dir, 'linux-kernel.def');
      writeFileSync(def, readFileSync(KERNEL_DEF, 'utf8').replace(/^smp_mb\(\).*$/m, 'smp_mb() { __fence{barrier}; }'));
      writeFileSync(join(dir, 'SB.litmus'), sb('smp_mb()'));
      const viaConf = await check(dir, '--conf', 'linux-kernel.cfg', 'SB.litmus');
      expect([viaConf.status, viaConf.stdout]).toEqual([1, expect.stringContaining('SB+fencembonceonces: Sometimes (1 of 4 executions)')]);
      const herd = await runNode([CLI, 'herd7', '-conf', 'linux-kernel.cfg', 'SB.litmus'], dir);
      expect(herd.stdout).toContain('Observation SB+fencembonceonces Sometimes 1 3');
      writeFileSync(def, readFileSync(KERNEL_DEF, 'utf8').replace(/^smp_mb\(\).*$/m, ''));
      const lacking = await runNode([CLI, 'herd7', '-conf', 'linux-kernel.cfg', 'SB.litmus'], dir);
      expect(lacking.stderr).toContain('Warning: File "SB.litmus": Unknown macro smp_mb (User error)');
      writeFileSync(def, readFileSync(KERNEL_DEF, 'utf8') + '\nsmp_rmb( {\n');
      const broken = await runNode([CLI, 'herd7', '-conf', 'linux-kernel.cfg', 'SB.litmus'], dir);
      expect([broken.status, broken.stderr.trim()]).toEqual([2, expect.stringMatching(/linux-kernel\.def:\d+:10: expected a parameter name of smp_rmb, found "\{"$/)]);
    }));

  it('gives a tag the LKMM does not have to a model read from .cat files, which names it', () =>
    withDir(async (dir) => {
      writeFileSync(join(dir, 'mine.bell'), '"mine"\nenum Mine = \'my-order\ninstructions F[Mine]\n');
      writeFileSync(join(dir, 'mine.cat'), '"mine"\nlet fr = rf^-1 ; co\nlet ord = po ; [My-order] ; po\nacyclic ord | rf | co | fr | po-loc as main\n');
      writeFileSync(join(dir, 'mine.def'), 'my_fence() { __fence{my-order}; }\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }\nREAD_ONCE(X) __load{ONCE}(X)\n');
      writeFileSync(join(dir, 'SB.litmus'), sb('my_fence()'));
      writeFileSync(join(dir, 'SB0.litmus'), sb('barrier()').replace(/barrier\(\);/g, ''));
      const fenced = await check(dir, '--model', 'mine.cat', '--bell', 'mine.bell', '--macros', 'mine.def', 'SB.litmus');
      expect([fenced.status, fenced.stdout.trim()]).toEqual([0, 'SB+fencembonceonces: Never (0 of 3 executions) under mine.cat; Result: Never matches']);
      const bare = await check(dir, '--model', 'mine.cat', '--bell', 'mine.bell', '--macros', 'mine.def', 'SB0.litmus');
      expect([bare.status, bare.stdout.trim()]).toEqual([1, 'SB+fencembonceonces: Sometimes (1 of 4 executions) under mine.cat; Result: Never MISMATCH']);
      // The built-in model would ignore the tag: refused where it is written.
      const builtin = await check(dir, '--macros', 'mine.def', 'SB.litmus');
      expect([builtin.status, builtin.stderr]).toEqual([2, expect.stringMatching(/^mine\.def:1:22: tag "my-order" of my_fence is not among/)]);
    }));

  it('litmus audit --macros judges the test with the file\'s primitives', () =>
    withDir(async (dir) => {
      writeFileSync(join(dir, 'SB.litmus'), sb('smp_mb()'));
      writeFileSync(join(dir, 'weak.def'), 'WRITE_ONCE(X,V) { __store{ONCE}(X,V); }\nREAD_ONCE(X) __load{ONCE}(X)\nsmp_mb() { __fence{barrier}; }\n');
      const builtin = await runNode([CLI, 'audit', 'SB.litmus'], dir);
      expect(builtin.stdout).toMatch(/^SB\+fencembonceonces: Never under lkmm; each ordering device weakened alone/);
      const weak = await runNode([CLI, 'audit', '--macros', 'weak.def', 'SB.litmus'], dir);
      expect(weak.stdout).toMatch(/^SB\+fencembonceonces: Sometimes under lkmm; nothing to audit/);
      writeFileSync(join(dir, 'bad.def'), 'smp_mb( {\n');
      const bad = await runNode([CLI, 'audit', '--macros', 'bad.def', 'SB.litmus'], dir);
      expect([bad.status, bad.stderr.trim()]).toEqual([2, 'bad.def:1:9: expected a parameter name of smp_mb, found "{"']);
    }));
});

describe('--macros everywhere a model is named', () => {
  const weakDef = 'WRITE_ONCE(X,V) { __store{ONCE}(X,V); }\nREAD_ONCE(X) __load{ONCE}(X)\nsmp_mb() { __fence{barrier}; }\n';

  it('serve judges a test with the file\'s primitives (the .def travels in the model spec to its threads)', async () => {
    const { explainSource } = await import('../src/serve/explain.js');
    const { withMacros } = await import('../models/index.js');
    await withDir(async (dir) => {
      writeFileSync(join(dir, 'weak.def'), weakDef);
      const limits = { maxExecutions: 1_000_000, timeoutMs: 60_000 };
      const builtin = explainSource(sb('smp_mb()'), { ...limits, model: 'lkmm' }, false);
      const weak = explainSource(sb('smp_mb()'), { ...limits, model: withMacros('lkmm', join(dir, 'weak.def')) }, false);
      expect([builtin.error, builtin.observation, weak.error, weak.observation]).toEqual([undefined, 'Never', undefined, 'Sometimes']);
    });
  });

  it('history record follows --macros: the block is the one the .def gives', () =>
    withDir(async (dir) => {
      writeFileSync(join(dir, 'weak.def'), weakDef);
      writeFileSync(join(dir, 'SB.litmus'), sb('smp_mb()'));
      const r = await runNode([CLI, 'history', 'record', '--macros', 'weak.def', '--out', 'weak.hist', 'SB.litmus'], dir);
      expect(r.status).toBe(0);
      expect(readFileSync(join(dir, 'weak.hist'), 'utf8')).toContain('Observation SB+fencembonceonces Sometimes 1 3');
      const missing = await runNode([CLI, 'history', 'record', '--macros', 'nowhere.def', '--out', 'x.hist', 'SB.litmus'], dir);
      expect([missing.status, missing.stderr.trim()]).toEqual([2, expect.stringContaining('nowhere.def:1:1: cannot read the macro file: no such file')]);
    }));

  it('export --macros keeps a macro the file defines (for herd7 -macros with the same file); without it the macro is unknown', () =>
    withDir(async (dir) => {
      writeFileSync(join(dir, 'my.def'), `${weakDef}my_mb() { __fence{MB}; }\n`);
      writeFileSync(join(dir, 'SB.litmus'), sb('my_mb()'));
      const plain = await runNode([CLI, 'export', '--out', 'plain', 'SB.litmus'], dir);
      expect([plain.status, plain.stderr]).toEqual([2, expect.stringContaining('my_mb')]);
      const r = await runNode([CLI, 'export', '--macros', 'my.def', '--out', 'out', 'SB.litmus'], dir);
      expect([r.status, r.stdout.trim()]).toEqual([0, 'exported 1 of 1 test to out']);
      expect(readFileSync(join(dir, 'out', 'SB.litmus'), 'utf8')).toContain('my_mb();');
    }));

  it('litmus herd7 -macros with no model: the built-in LKMM with the file\'s primitives, and a note saying so', () =>
    withDir(async (dir) => {
      writeFileSync(join(dir, 'weak.def'), weakDef);
      writeFileSync(join(dir, 'SB.litmus'), sb('smp_mb()'));
      const r = await runNode([CLI, 'herd7', '-macros', 'weak.def', 'SB.litmus'], dir);
      expect(r.stdout).toContain('Observation SB+fencembonceonces Sometimes 1 3');
      expect(r.stderr).toContain("no -conf or -model: litmus's built-in LKMM (herd7 would use its default C model");
    }));
});
