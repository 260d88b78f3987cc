// Input that herd7 reads and that `litmus` must read too: diy7 header lines,
// typed registers in the initial state, a ";" after the final condition, a
// test without a final condition, deep nesting.

import { describe, expect, it } from 'vitest';
import { parseLitmus } from '../src/parse/parser.js';
import { printLitmus } from '../src/parse/printer.js';
import { LitmusError } from '../src/parse/errors.js';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, stripPos } from './util.js';

function errorOf(text: string): LitmusError {
  try {
    checkSource(text, { model: lkmm });
  } catch (e) {
    if (e instanceof LitmusError) return e;
    throw e;
  }
  throw new Error('no error');
}

const DIY = `C C-Z6.4+pooncerelease+fencembonceonce
"PodWWOnceRelease WseReleaseOnce FenceMbdWROnceOnce"
Cycle=FreAcquireOnce PodWWOnceRelease WseReleaseOnce
Relax=FreAcquireOnce
Safe=FenceMbdWROnceOnce PodWWOnceRelease
Prefetch=0:x=F,0:y=W,1:y=F,1:z=T
Com=Ws Fr
Orig=PodWWOnceRelease WseReleaseOnce
Generator=diyone7 (version 7.56)
(* Result: Sometimes *)
{
}

P0(int *x, int *y)
{
	WRITE_ONCE(*x, 1);
	smp_store_release(y, 1);
}

P1(int *y, int *x)
{
	WRITE_ONCE(*y, 2);
	smp_mb();
	r0 = READ_ONCE(*x);
}

exists
(y=2 /\\ 1:r0=0)
`;

describe('diy7 header lines', () => {
  it('are kept in order, with their values', () => {
    const t = parseLitmus(DIY);
    expect(t.name).toBe('C-Z6.4+pooncerelease+fencembonceonce');
    expect(t.info.map((i) => i.key)).toEqual(['Cycle', 'Relax', 'Safe', 'Prefetch', 'Com', 'Orig', 'Generator']);
    expect(t.info[3]).toEqual({ key: 'Prefetch', value: '0:x=F,0:y=W,1:y=F,1:z=T' });
    expect(t.info[6]).toEqual({ key: 'Generator', value: 'diyone7 (version 7.56)' });
    expect(t.result).toBe('Sometimes');
  });

  it('do not disturb positions after them', () => {
    const t = parseLitmus(DIY);
    expect(t.processes[0].pos.line).toBe(15);
    expect(t.conditionPos).toEqual({ line: 27, col: 1 });
  });

  it('any key, spaces around "=", and a test without them has none', () => {
    const t = parseLitmus('C t\nFoo.bar-2 = some value  \n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n');
    expect(t.info).toEqual([{ key: 'Foo.bar-2', value: 'some value' }]);
    expect(parseLitmus('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n').info).toEqual([]);
  });

  it('other text before "{" is skipped, as herd7 skips it; a TeX name after the test name too', () => {
    const t = parseLitmus('C t (tex) ;\nsome words here\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n');
    expect(t.name).toBe('t');
    expect(t.info).toEqual([]);
  });

  it('survive the printer round trip', () => {
    const t = parseLitmus(DIY);
    expect(stripPos(parseLitmus(printLitmus(t)))).toEqual(stripPos(t));
  });

  it('are judged like any test', () => {
    const r = checkSource(DIY, { model: lkmm });
    expect(r.observation).toBe('Sometimes');
    expect(r.matches).toBe(true);
  });

  it('a missing "{" is still reported where the processes start', () => {
    const e = errorOf('C t\nCycle=Rfe\nP0(int *x)\n{\n}\nexists (x=1)\n');
    expect(e.message).toBe('expected "{" opening the initial state, found "P0"');
    expect(e.pos).toEqual({ line: 3, col: 1 });
  });
});

describe('--json', () => {
  it('shows the header lines as "info"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-input-'));
    try {
      writeFileSync(join(dir, 'diy.litmus'), DIY);
      const r = spawnSync(process.execPath, [CLI, 'check', '--json', 'diy.litmus'], { cwd: dir, encoding: 'utf8' });
      expect(r.status).toBe(0);
      const [res] = JSON.parse(r.stdout) as { info: Record<string, string> }[];
      expect(res.info.Cycle).toBe('FreAcquireOnce PodWWOnceRelease WseReleaseOnce');
      expect(Object.keys(res.info)).toEqual(['Cycle', 'Relax', 'Safe', 'Prefetch', 'Com', 'Orig', 'Generator']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
