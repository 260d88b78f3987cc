// C that herd7 answers is answered the same; what herd7 refuses is refused
// (issue #20, item 1). Each case: herd7 7.58's reading, found in herdtools7's
// CLexer/CParser (no `true`, `false`), CSem (`Bad __store argument`), symbValue
// (an offset from a symbol is a symbol of its own) and mem.ml (a read of such
// a symbol with no write rejects the test).

import { describe, expect, it } from 'vitest';
import { checkSource } from '../src/check.js';
import { herdFindings, refusals } from '../src/export/lint.js';
import { parseLitmus } from '../src/parse/parser.js';
import { lkmm } from '../models/lkmm.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, litmus, litmusErrorOf, runNode } from './util.js';

const check = (text: string) => checkSource(text, { model: lkmm });
const verdict = (text: string) => {
  const r = check(text);
  return `${r.observation} ${r.positive} ${r.negative}`;
};
const errorOf = (text: string): string => litmusErrorOf(() => check(text));
const notes = (text: string) => herdFindings(parseLitmus(text), text).filter((f) => f.note).map((f) => f.message);

describe('what herd7 answers, answered the same', () => {
  it('spin_lock on an int * (herd7 types no C): checked as a lock', () => {
    const t = litmus('lck', ['spin_lock(lck);\nWRITE_ONCE(*x, 1);\nspin_unlock(lck);', 'int r0;\nspin_lock(lck);\nr0 = READ_ONCE(*x);\nspin_unlock(lck);'], 'exists (1:r0=0)', {
      params: ['int *lck, int *x', 'int *lck, int *x'],
    });
    expect(verdict(t)).toBe('Sometimes 1 1');
    expect(refusals(herdFindings(parseLitmus(t), t))).toEqual([]);
    expect(notes(t)[0]).toMatch(/^type clash: spin_lock needs a spinlock_t \*, but "lck" is int \*/);
  });

  it('true and false: herd7 reads them as registers no one assigns, holding 0, so neither branch is taken', () => {
    const t = litmus('tf', ['if (true)\n WRITE_ONCE(*x, 1);\nif (false)\n WRITE_ONCE(*x, 2);'], 'exists (x=0)', { params: ['int *x'] });
    expect(verdict(t)).toBe('Always 1 0');
    expect(notes(t)).toEqual([
      'herd7\'s C has no "true": it reads it as a register no one assigns, 0 (write 1)',
      'herd7\'s C has no "false": it reads it as a register no one assigns, 0 (write 0)',
    ]);
  });

  it('a location no process names holds 0 (herd7: Never 0 2)', () => {
    const t = litmus('z', ['WRITE_ONCE(*x, 1);', 'int r0;\nr0 = READ_ONCE(*x);'], 'exists (z=1)', { params: ['int *x', 'int *x'] });
    expect(verdict(t)).toBe('Never 0 2');
    expect(check(t).states.map((s) => s.bindings.map((b) => b.join('=')).join(' '))).toEqual(['[z]=0']);
    expect(notes(t)).toEqual(['no process and no initial value names "z": herd7 takes it as a location holding 0']);
  });

  it('a register the process does not have holds 0 (herd7: Always 2 0)', () => {
    const t = litmus('r7', ['WRITE_ONCE(*x, 1);', 'int r0;\nr0 = READ_ONCE(*x);'], 'exists (1:r7=0)', { params: ['int *x', 'int *x'] });
    expect(verdict(t)).toBe('Always 2 0');
    expect(notes(t)).toEqual(['P1 has no register "r7": herd7 takes it as holding 0']);
  });
});

describe('pointer arithmetic: an offset from a variable is a location of its own (herd7)', () => {
  const shifted = (params: string, offset: string) =>
    litmus('ptr', ['int r0;\nint r1;\nint r2;\nr0 = atomic_read(x);\nr1 = 1;\nr2 = r0 ' + offset + ';\natomic_set(y + r2, r1);', 'atomic_set(x, 1);'], 'exists (y=1)', {
      params: [params, 'atomic_t *x, atomic_t *y'],
    });

  it('y - 1 is not x, whichever order the variables are declared in: 2 executions', () => {
    expect(verdict(shifted('atomic_t *x, atomic_t *y', '- 1'))).toBe('Sometimes 1 1');
    expect(verdict(shifted('atomic_t *y, atomic_t *x', '- 1'))).toBe('Sometimes 1 1');
  });

  it('writes to y+1 and y+2 are executions like any other (none writes y)', () => {
    expect(verdict(shifted('atomic_t *x, atomic_t *y', '+ 1'))).toBe('Never 0 2');
  });

  it('a read of an offset no write reaches is refused, with herd7\'s reason', () => {
    const t = litmus('rd', ['int r0;\nr0 = READ_ONCE(*(x + 1));'], 'exists (0:r0=0)', { params: ['int *x'] });
    expect(errorOf(t)).toBe('10:6 this reads x+1, an address no variable declares, and no write of the test can give it a value: herd7 refuses the test ("mixed-size test rejected (symbol [x+1])")');
  });

  it('a read of an offset a write reaches reads only that write: no initial write there (herd7: Never 0 1)', () => {
    const t = litmus('rdw', ['WRITE_ONCE(*(x + 1), 1);', 'int r0;\nr0 = READ_ONCE(*(x + 1));'], 'exists (1:r0=0)', { params: ['int *x', 'int *x'] });
    expect(verdict(t)).toBe('Never 0 1');
  });
});

describe('what herd7 refuses, refused', () => {
  it('WRITE_ONCE(x, 1) without the "*" is herd7\'s "Bad __store argument"; READ_ONCE(x) its "Bad __load argument"', () => {
    const w = litmus('w', ['WRITE_ONCE(x, 1);'], 'exists (x=1)', { params: ['int *x'] });
    expect(errorOf(w)).toBe('9:12 WRITE_ONCE needs a location such as "*x", not an address (herd7: "Bad __store argument")');
    const r = litmus('r', ['int r0;\nr0 = READ_ONCE(x);'], 'exists (0:r0=0)', { params: ['int *x'] });
    expect(errorOf(r)).toBe('10:16 READ_ONCE needs a location such as "*x", not an address (herd7: "Bad __load argument")');
  });

  it('a value-returning cmpxchg() as a statement is a refusal herd7 makes (Unknown macro)', () => {
    const t = litmus('c', ['cmpxchg(x, 0, 1);'], 'exists (x=1)', { params: ['int *x'] });
    expect(refusals(herdFindings(parseLitmus(t), t)).map((f) => f.message)).toEqual([
      'herd7 refuses cmpxchg() as a statement ("Unknown macro"): assign its value or write (void)cmpxchg(...)',
    ]);
  });
});

describe('litmus herd7 refuses what herd7 refuses', () => {
  it('a value-returning cmpxchg() as a statement: herd7\'s "Unknown macro", no Observation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-herd-reads-'));
    try {
      writeFileSync(join(dir, 'c.litmus'), litmus('c', ['cmpxchg(x, 0, 1);'], 'exists (x=1)', { params: ['int *x'] }));
      const { stdout, stderr } = await runNode([CLI, 'herd7', 'c.litmus'], dir);
      expect(stdout).not.toMatch(/Observation/);
      expect(stderr).toMatch(/^Warning: File "c\.litmus": Unknown macro cmpxchg \(User error\)/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a minus herd7\'s lexer does not take into the number (found by scripts/fuzz-herd7.ts; herd7 7.58: "unexpected \'-\'")', () => {
  const one = (value: string) => litmus('neg', [`WRITE_ONCE(*x, ${value});`], 'exists (x=7)', { params: ['int *x'] });
  it('-7 is a number; - 7, --7 and -(7) are a unary minus herd7 refuses: litmus herd7 refuses them, check answers with the value and --herd-compatible warns', () => {
    const refused = (t: string) => refusals(herdFindings(parseLitmus(t), t)).map((f) => f.message);
    expect(refused(one('-7'))).toEqual([]);
    for (const v of ['- 7', '--7', '-(7)']) expect(refused(one(v)), v).toEqual([`herd7's C has no unary "-": only a number written with its minus (-7, no space, no second minus); litmus export writes the value`]);
    expect(verdict(one('--7'))).toBe('Always 1 0');
    expect(verdict(one('- 7'))).toBe('Never 0 1');
  });
});
