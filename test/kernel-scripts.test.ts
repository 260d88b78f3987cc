// The kernel's tools/memory-model scripts with litmus's commands: mselect7
// (litmus mselect7, litmus-mselect7) as herdtools7's, and the command lines
// the scripts run, in a shell, with links named herd7 and mselect7 first on
// PATH (the scripts themselves are the kernel's: scripts/kernel-scripts.sh
// runs them all where LITMUS_KERNEL_SCRIPTS names a tools/memory-model).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { inInterval, mselect7Main, parseInterval } from '../src/cli/mselect7.js';
import { HAVE_LKMM, LKMM_DIR, ROOT, litmus } from './util.js';

const DIST = join(ROOT, 'dist', 'src', 'cli');
let dir: string;
let bin: string;

const MP = litmus('MP', ['\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, 1);', '\tint r0;\n\tint r1;\n\n\tr0 = smp_load_acquire(y);\n\tr1 = READ_ONCE(*x);'], 'exists (1:r0=1 /\\ 1:r1=0)', { result: 'Never' });
const SB3 = litmus('SB3', ['\tWRITE_ONCE(*x, 1);', '\tWRITE_ONCE(*y, 1);', '\tint r0;\n\n\tr0 = READ_ONCE(*z);'], 'exists (2:r0=0)', { result: 'Always' });
const ARM = 'AArch64 MP+dmb\n{\n0:X1=x; 0:X3=y;\n}\n P0          ;\n MOV W0,#1   ;\n STR W0,[X1] ;\nexists (0:X0=1)\n';
const BROKEN = 'C Broken\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\nexists (x=1)\n';

function sh(script: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, LITMUS_CACHE_DIR: join(dir, 'cache'), ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-kernel-scripts-'));
  bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(join(DIST, 'litmus-herd7'), join(bin, 'herd7'));
  symlinkSync(join(DIST, 'mselect7-start.cjs'), join(bin, 'mselect7'));
  mkdirSync(join(dir, 'litmus', 'manual'), { recursive: true });
  writeFileSync(join(dir, 'litmus', 'manual', 'MP.litmus'), MP);
  writeFileSync(join(dir, 'litmus', 'manual', 'SB3.litmus'), SB3);
  writeFileSync(join(dir, 'litmus', 'manual', 'ARM.litmus'), ARM);
  writeFileSync(join(dir, 'litmus', 'manual', 'Broken.litmus'), BROKEN);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mselect(argv: string[], stdin = ''): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = mselect7Main(argv, { out: (s) => (out += s), err: (s) => (err += s), stdin: () => stdin });
  return { code, out, err };
}

describe('mselect7', () => {
  it("reads herd's intervals", () => {
    expect(inInterval(parseInterval('3'), 3)).toBe(true);
    expect(inInterval(parseInterval('3'), 2)).toBe(false);
    const closed = parseInterval('[2..4]');
    expect([1, 2, 3, 4, 5].map((n) => inInterval(closed, n))).toEqual([false, true, true, true, false]);
    const open = parseInterval(']2..4[');
    expect([2, 3, 4].map((n) => inInterval(open, n))).toEqual([false, true, false]);
    expect(inInterval(parseInterval('[3..['), 1000)).toBe(true);
    expect(() => parseInterval('2-4')).toThrow(/not an interval/);
  });

  it('-arch C lists the C tests it reads, in order, from the arguments or standard input; warns of one that does not parse', () => {
    const names = ['MP', 'ARM', 'Broken', 'SB3'].map((n) => join(dir, 'litmus', 'manual', `${n}.litmus`));
    const args = mselect(['-arch', 'C', ...names]);
    expect(args.out.split('\n').filter(Boolean)).toEqual([names[0], names[3]]);
    expect(args.err).toMatch(/Broken\.litmus/);
    expect(args.code).toBe(0);
    const stdin = mselect(['-arch', 'C'], `${names.join('\n')}\n\n# a comment\n`);
    expect(stdin.out).toBe(args.out);
    // Without -arch, a test of another architecture is listed too; -arch AArch64 lists only it.
    expect(mselect([names[2 - 1]]).out).toBe(`${names[1]}\n`);
    expect(mselect(['-arch', 'AArch64', ...names]).out).toBe(`${names[1]}\n`);
  });

  it('-threads, @index files, -q, and options it does not follow (exit 2)', () => {
    const idx = join(dir, 'litmus', '@all');
    writeFileSync(idx, 'manual/MP.litmus\nmanual/SB3.litmus\n');
    expect(mselect(['-threads', '3', idx]).out).toBe(`${join(dir, 'litmus', 'manual', 'SB3.litmus')}\n`);
    expect(mselect(['-threads', '[1..2]', idx]).out).toBe(`${join(dir, 'litmus', 'manual', 'MP.litmus')}\n`);
    expect(mselect(['-q', '-threads', '3', idx]).code).toBe(1);
    expect(mselect(['-q', '-threads', '2', idx]).code).toBe(0);
    for (const bad of [['-ins', '3'], ['-names', 'x'], ['-frobnicate']]) expect(mselect(bad).code).toBe(2);
  });

  it('is the litmus-mselect7 command, and litmus mselect7', () => {
    const bins = (spawnSync('node', ['-e', `console.log(JSON.stringify(require(${JSON.stringify(join(ROOT, 'package.json'))}).bin))`], { encoding: 'utf8' }).stdout);
    expect(JSON.parse(bins)['litmus-mselect7']).toBe('dist/src/cli/mselect7-start.cjs');
    const viaLitmus = spawnSync(process.execPath, [join(DIST, 'start.cjs'), 'mselect7', '-arch', 'C'], { input: 'litmus/manual/MP.litmus\n', cwd: dir, encoding: 'utf8' });
    expect(viaLitmus.stdout).toBe('litmus/manual/MP.litmus\n');
  });
});

describe("the scripts' command lines, with herd7 and mselect7 on PATH", () => {
  it("newlitmushist.sh and checkghlitmus.sh's list: find | mselect7 -arch C", () => {
    const r = sh("find litmus -name '*.litmus' -print | sort | mselect7 -arch C");
    expect(r.stdout).toBe('litmus/manual/MP.litmus\nlitmus/manual/SB3.litmus\n');
  });

  it("runlitmushist.sh's run of a test, and what judgelitmus.sh greps in its .litmus.out", () => {
    // herd7 without -conf: litmus's built-in LKMM (the kernel's files: when ../shared/lkmm is here).
    const opts = HAVE_LKMM ? `-I ${LKMM_DIR} -conf linux-kernel.cfg` : '';
    const r = sh(`/usr/bin/time timeout 1m herd7 ${opts} litmus/manual/MP.litmus > litmus/manual/MP.litmus.out 2>&1; echo $?; cat litmus/manual/MP.litmus.out`);
    expect(r.stdout.split('\n')[0]).toBe('0');
    expect(r.stdout).toMatch(/^Observation MP Never 0 3$/m);
    expect(r.stdout).toMatch(/maxresident\)k/);
    // An unknown primitive: judgelitmus.sh's ': Unknown macro NAME (User error)'.
    writeFileSync(join(dir, 'litmus', 'manual', 'Old.litmus'), litmus('Old', ['\tint r0;\n\n\tr0 = lockless_dereference(*x);'], 'exists (0:r0=1)'));
    const old = sh(`herd7 ${opts} litmus/manual/Old.litmus 2>&1 | grep ': Unknown macro ' | sed -e 's/^.*: Unknown macro //' -e 's/ (User error).*$//'`);
    expect(old.stdout.trim()).toBe('lockless_dereference');
  });
});

describe.skipIf(!process.env.LITMUS_KERNEL_SCRIPTS)('the kernel scripts themselves (LITMUS_KERNEL_SCRIPTS: a tools/memory-model)', () => {
  it('scripts/kernel-scripts.sh: every script does what it does with herd7', () => {
    const r = spawnSync('bash', [join(ROOT, 'scripts', 'kernel-scripts.sh'), process.env.LITMUS_KERNEL_SCRIPTS!, '--sample', '200'], { encoding: 'utf8', timeout: 900_000 });
    expect(r.stdout).not.toMatch(/DIFFERS/);
    expect(r.status).toBe(0);
  }, 900_000);
});
