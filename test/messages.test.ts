// Messages that put raw bytes on the terminal: a NUL or an escape byte of a
// test (or of a file's name) printed as it is.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printable } from '../src/parse/errors.js';
import { CLI, runNode } from './util.js';
import { MP_REL_ACQ } from './shapes.js';

let dir: string;
const litmus = (...args: string[]) => runNode([CLI, ...args], dir);
/** Control bytes but newline and tab. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-messages-'));
  writeFileSync(join(dir, 'mp.litmus'), MP_REL_ACQ);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('no raw control byte in a message', () => {
  it('a NUL, an escape and a bell in a test are written as escapes', async () => {
    writeFileSync(join(dir, 'nul.litmus'), 'C nul\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\x00\n}\nexists (x=1)\n');
    writeFileSync(join(dir, 'esc.litmus'), 'C esc\n{}\nP0(int *x)\n{\n\tfoo\x1b[2J(x);\n}\nexists (x=1)\n');
    writeFileSync(join(dir, 'bel.litmus'), 'C bel\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1 /\\ "\x07")\n');
    const r = await litmus('check', 'nul.litmus', 'esc.litmus', 'bel.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toContain('nul.litmus:5:20: unexpected character "\\x00"');
    expect(r.stderr).toContain('esc.litmus:5:5: unexpected character "\\x1b"');
    expect(r.stderr).toContain('found "\\x07"');
  });

  it('nor in a file\'s name', async () => {
    mkdirSync(join(dir, 'names'));
    writeFileSync(join(dir, 'names', 'a\x1b[2Jb.litmus'), 'junk');
    const r = await litmus('check', 'names');
    expect(r.status).toBe(2);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toContain('names/a\\x1b[2Jb.litmus:1:1: ');
  });

  it('nor in what any command says of a name it was given', async () => {
    const esc = 'a\x1b[2Jb';
    const cases = [
      ['check', `${esc}.litmus`],
      ['check', '--model', `${esc}.cat`, 'mp.litmus'],
      ['check', `--${esc}`, 'mp.litmus'],
      ['audit', `${esc}.litmus`],
      ['export', '--out', 'out', `${esc}.litmus`],
      ['merge', `${esc}.json`],
      ['history', 'compare', `${esc}.hist`, '.'],
      ['new', esc],
      ['herd7', `${esc}.litmus`],
      ['mselect7', `${esc}.litmus`],
    ];
    for (const args of cases) {
      const r = await litmus(...args);
      expect(r.stderr, args.join(' ')).toContain('a\\x1b[2Jb');
      expect(r.stderr, args.join(' ')).not.toMatch(CONTROL);
    }
  });

  it('printable keeps newlines and tabs, escapes the rest, and the Unicode controls that reorder text', () => {
    expect(printable('a\tb\nc')).toBe('a\tb\nc');
    expect(printable('\x00\x1b\x7f\u202e')).toBe('\\x00\\x1b\\x7f\\u202e');
  });
});
