// The files the commands write, as a careless or hostile neighbour would
// meet them: a symbolic link planted in a shared output folder with an
// output's name is replaced, never written through; a link planted as a
// folder below it is refused; a full disk leaves the old history whole and
// no empty exported file; a history cut short is refused by its reader.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, fill, runNode, smallDisk } from './util.js';
import { MP_REL_ACQ, sbTest } from './shapes.js';

let dir: string;
const litmus = (cwd: string, ...args: string[]) => runNode([CLI, ...args], cwd);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-outputs-'));
  mkdirSync(join(dir, 'tests'));
  writeFileSync(join(dir, 'tests', 'mp.litmus'), MP_REL_ACQ);
  writeFileSync(join(dir, 'tests', 'sb.litmus'), sbTest());
  writeFileSync(join(dir, 'victim'), 'precious\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const victim = () => readFileSync(join(dir, 'victim'), 'utf8');

/** A fresh output folder holding a link, named `name`, to the victim file. */
function plantedFolder(out: string, name: string): string {
  const d = join(dir, out);
  mkdirSync(join(d, ...name.split('/').slice(0, -1)), { recursive: true });
  symlinkSync(join(dir, 'victim'), join(d, name));
  return d;
}

describe('a link planted with an output\'s name is replaced, its target untouched', () => {
  it('export --out', async () => {
    const out = plantedFolder('export-out', 'mp.litmus');
    const r = await litmus(dir, 'export', 'tests/mp.litmus', '--out', out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(victim()).toBe('precious\n');
    expect(lstatSync(join(out, 'mp.litmus')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(out, 'mp.litmus'), 'utf8')).toMatch(/^C MP\+pooncerelease\+poacquireonce/);
  });

  it('check --svg and --dot', async () => {
    const out = plantedFolder('pictures', 'mp.svg');
    symlinkSync(join(dir, 'victim'), join(out, 'mp.dot'));
    const r = await litmus(dir, 'check', 'tests/mp.litmus', '--svg', out, '--dot', out, '-q');
    expect(r.status).toBe(0);
    expect(victim()).toBe('precious\n');
    expect(readFileSync(join(out, 'mp.svg'), 'utf8')).toMatch(/<svg/);
    expect(readFileSync(join(out, 'mp.dot'), 'utf8')).toMatch(/digraph/);
  });

  it('history record --destdir and --out', async () => {
    const out = plantedFolder('destdir', 'tests/mp.litmus.out');
    symlinkSync(join(dir, 'victim'), join(dir, 'planted.hist'));
    const r = await litmus(dir, 'history', 'record', 'tests', '--destdir', out, '--out', 'planted.hist', '-j', '1');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(victim()).toBe('precious\n');
    expect(readFileSync(join(out, 'tests', 'mp.litmus.out'), 'utf8')).toMatch(/^Test MP\+pooncerelease\+poacquireonce Allowed/);
    expect(readFileSync(join(dir, 'planted.hist'), 'utf8')).toMatch(/^# litmus history: 2 tests/);
  });

  it('a link planted as a folder below the output folder is refused, nothing written through it', async () => {
    const out = join(dir, 'export-sub');
    mkdirSync(out);
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(out, 'sub'));
    mkdirSync(join(dir, 'nested', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'nested', 'sub', 'sb.litmus'), sbTest());
    const r = await litmus(dir, 'export', 'nested', '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/nested\/sub\/sb\.litmus: cannot write under .*export-sub\/sub: a symbolic link inside the output folder .* \(not followed\)/);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
  });

  it('litmus new never writes through a link, even a dangling one', async () => {
    symlinkSync(join(dir, 'made-through-link.litmus'), join(dir, 'NEW.litmus'));
    const r = await litmus(dir, 'new', 'NEW');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/exists already/);
    expect(existsSync(join(dir, 'made-through-link.litmus'))).toBe(false);
  });
});

describe('a history cut short', () => {
  it('is refused by compare, saying so, at every cut', async () => {
    expect((await litmus(dir, 'history', 'record', 'tests', '--out', 'whole.hist', '-j', '1')).status).toBe(0);
    const whole = readFileSync(join(dir, 'whole.hist'));
    // Cut inside the last entry, just before the last line, between two entries, and to nothing.
    for (const at of [whole.length - 40, whole.indexOf('==== end'), whole.indexOf('=== sb.litmus'), 0]) {
      expect(at).toBeGreaterThanOrEqual(0);
      writeFileSync(join(dir, 'cut.hist'), whole.subarray(0, at));
      const r = await litmus(dir, 'history', 'compare', 'cut.hist', 'tests', '-j', '1');
      expect(r.status, `cut at ${at}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr, `cut at ${at}`).toMatch(/^litmus history: cut\.hist: cut short: .*: the file was not written whole/);
    }
    const r = await litmus(dir, 'history', 'compare', 'whole.hist', 'tests', '-j', '1');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('a full disk (on a small tmpfs, where one can be mounted)', () => {
  it('history record --out leaves the old history whole and says why; export leaves no empty file', async (ctx) => {
    const disk = smallDisk(128);
    if (!disk) return ctx.skip();
    try {
      const hist = join(disk.path, 'H');
      expect((await litmus(dir, 'history', 'record', 'tests/mp.litmus', '--out', hist, '-j', '1')).status).toBe(0);
      const old = readFileSync(hist, 'utf8');
      fill(disk.path);
      const r = await litmus(dir, 'history', 'record', 'tests', '--out', hist, '-j', '1');
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^litmus history: cannot write .*\/H: no space left on the device \(ENOSPC\); the file there is unchanged\n$/);
      expect(readFileSync(hist, 'utf8')).toBe(old);
      const e = await litmus(dir, 'export', 'tests', '--out', join(disk.path, 'x'));
      expect(e.status).toBe(2);
      expect(e.stderr).toMatch(/tests\/mp\.litmus: cannot write .*mp\.litmus: no space left on the device/);
      expect(existsSync(join(disk.path, 'x')) ? readdirSync(join(disk.path, 'x')) : []).toEqual([]);
      expect(readdirSync(disk.path).filter((n) => !n.startsWith('.fill'))).toEqual(['H', ...(existsSync(join(disk.path, 'x')) ? ['x'] : [])]);
    } finally {
      disk.unmount();
    }
  });
});
