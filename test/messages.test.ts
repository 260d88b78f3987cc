// Messages that said the wrong thing, or put raw bytes on the terminal: a
// .cat include loop reported inside litmus's own library, a `let rec`
// function that never stops reported as the test's search running out of
// stack, a NUL or an escape byte of a test (or of a file's name) printed as
// it is.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printable, printableName } from '../src/parse/errors.js';
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

describe('a .cat include loop', () => {
  it('is reported in the user\'s file, where the loop closes, naming the loop; never in litmus\'s own library', async () => {
    // The model is named like a library file that litmus's own cos.cat includes, and includes cos.cat.
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, 'lib', 'cross.cat'), '"mine"\ninclude "cos.cat"\nacyclic po as x\n');
    const r = await litmus('check', '--model', 'lib/cross.cat', 'mp.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^\S*lib\/cross\.cat:2:1: include "cos\.cat": files include each other in a loop \(cross\.cat -> cos\.cat \(litmus's own\) -> .*cross\.cat\)\n$/);
    expect(r.stderr).not.toContain('litmus:');
  });

  it('between two files of the user\'s: at the include that closes it', async () => {
    writeFileSync(join(dir, 'a.cat'), '"a"\ninclude "b.cat"\nacyclic po as x\n');
    writeFileSync(join(dir, 'b.cat'), '"b"\n\ninclude "a.cat"\n');
    const r = await litmus('check', '--model', 'a.cat', 'mp.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^\S*\/b\.cat:3:1: include "a\.cat": files include each other in a loop \(a\.cat -> b\.cat -> a\.cat\)\n$/);
  });

  it('a file that includes itself: at its include', async () => {
    writeFileSync(join(dir, 'self.cat'), '"self"\n\ninclude "self.cat"\n');
    const r = await litmus('check', '--model', 'self.cat', 'mp.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^\S*\/self\.cat:3:1: include "self\.cat": a file includes itself \(self\.cat -> self\.cat\)\n$/);
  });
});

describe('.cat files that include the next one twice', () => {
  it('are refused once the model has read 1,000 files in all, at the include, not read 2^25 times', async () => {
    mkdirSync(join(dir, 'diamond'));
    for (let i = 0; i < 25; i++) writeFileSync(join(dir, 'diamond', `f${i}.cat`), `"f${i}"\ninclude "f${i + 1}.cat"\ninclude "f${i + 1}.cat"\n`);
    writeFileSync(join(dir, 'diamond', 'f25.cat'), '"f25"\nlet x = po\n');
    const r = await litmus('check', '--model', 'diamond/f0.cat', 'mp.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^\S*diamond\/f\d+\.cat:\d+:1: include "f\d+\.cat": the model reads more than 1000 files in all \(a file included again is read again\)\n$/);
  });
});

describe('a let rec function that never stops', () => {
  it('is the model\'s error, at the call, saying so; not the test running out of stack', async () => {
    writeFileSync(join(dir, 'rec.cat'), '"rec"\nlet rec g x = g(x) | x\nlet h = g(po)\nacyclic h as x\n');
    const r = await litmus('check', '--model', 'rec.cat', 'mp.litmus');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^\S*rec\.cat:3:9: g calls itself without end \(a recursive function whose recursion does not stop/);
    expect(r.stderr).not.toContain('stack (an execution');
  });

  it('a recursion that stops is evaluated as before', async () => {
    writeFileSync(join(dir, 'fix.cat'), '"fix"\nlet rec r = po | (r ; po)\nacyclic r as x\n');
    const r = await litmus('check', '--model', 'fix.cat', 'mp.litmus');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Observation MP+pooncerelease+poacquireonce');
  });
});

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

  it('a newline or a tab in a file\'s name is escaped too: the name never starts a line of its own', async () => {
    mkdirSync(join(dir, 'lines'));
    writeFileSync(join(dir, 'lines', 'a\nok: b\t.litmus'), 'junk');
    const r = await litmus('check', 'lines');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^lines\/a\\nok: b\\t\.litmus:1:1: [^\n]*\n$/);
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
    expect(printableName('a\tb\nc\x1b')).toBe('a\\tb\\nc\\x1b');
  });
});
