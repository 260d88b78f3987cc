// Which checks of a compiled model judge prefixes (models/cat/monotone.ts):
// a let rec whose bodies grow with its names grows; the nesting match of
// rcu_read_lock() and rcu_read_unlock() (the bell's rcu-rscs, however its
// parts are named) is stable by the lemma, and an edited one that the lemma
// does not hold of is not; so the rcu check judges prefixes of tests that
// take no lock, under litmus's LKMM text and the kernel's files. That the
// pruning keeps every answer is test/shortcuts.test.ts's (RCU and SRCU
// sections open, nested, closed on one path, against runs without any
// shortcut) and test/model-text.test.ts's.

import { describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileModelFiles, type CatModel } from '../models/cat/model.js';
import { filesOfConf } from '../models/cat/files.js';
import { prefixSafeChecks } from '../models/cat/monotone.js';
import { modelTextDir } from '../models/texts.js';
import { HAVE_LKMM, LKMM_DIR } from './util.js';

const NO_LOCKS = new Set(['LKR', 'LKW', 'UL', 'LF', 'RL', 'RU']);

/** The checks judging prefixes, by name (a test without locks unless `locks`). */
function safeChecks(m: CatModel, locks = false): string[] {
  const safe = prefixSafeChecks(m.compiled, locks ? new Set() : NO_LOCKS);
  return m.compiled.instrs.flatMap((ci, i) => (ci.instr.kind === 'test' && ci.instr.role === 'check' && safe.has(i) ? [ci.instr.name ?? '?'] : []));
}

/** A copy of a folder of model files with `file` edited. */
function edited(dir: string, conf: string, file: string, from: string | RegExp, to: string): CatModel {
  const copy = mkdtempSync(join(tmpdir(), 'litmus-monotone-'));
  cpSync(dir, copy, { recursive: true });
  const text = readFileSync(join(copy, file), 'utf8');
  const out = text.replace(from, to);
  if (out === text) throw new Error(`the edit of ${file} changed nothing`);
  writeFileSync(join(copy, file), out);
  return compileModelFiles(filesOfConf(join(copy, conf)));
}

function ownModel(text: string): CatModel {
  const dir = mkdtempSync(join(tmpdir(), 'litmus-monotone-own-'));
  writeFileSync(join(dir, 'm.cat'), text);
  return compileModelFiles({ cat: join(dir, 'm.cat'), variants: [], searchDirs: [dir], skipChecks: [], besideIncluder: true });
}

describe('prefix checks of a let rec', () => {
  it('a fixpoint whose body grows with its names grows; one that takes a difference of them is left to whole executions', () => {
    const grows = ownModel('"g"\ninclude "cos.cat"\nlet rec r = po | rf | (r ; r)\nacyclic r as grows\n');
    expect(safeChecks(grows)).toEqual(['grows']);
    const inner = ownModel('"g"\ninclude "cos.cat"\nlet t = let rec r = po | rf | (r ; r) in r\nacyclic t as grows\n');
    expect(safeChecks(inner)).toEqual(['grows']);
    const shrinks = ownModel('"s"\ninclude "cos.cat"\nlet rec r = (po | rf) \\ (r ; r)\nacyclic r as shrinks\n');
    expect(safeChecks(shrinks)).toEqual([]);
  });
});

describe("the rcu check judges prefixes of tests without locks", () => {
  const text = modelTextDir();
  it("under litmus's LKMM, SC and x86-TSO texts", () => {
    const lkmm = compileModelFiles(filesOfConf(join(text, 'lkmm.cfg')));
    expect(safeChecks(lkmm)).toContain('rcu');
    expect(safeChecks(lkmm, true)).not.toContain('rcu');
    for (const conf of ['sc.cfg', 'x86tso.cfg']) expect(safeChecks(compileModelFiles(filesOfConf(join(text, conf)))), conf).toContain('rcu');
  });

  it('but not when the matching of sections is one the lemma does not hold of', () => {
    // Pairs with unpaired markers between them: on a prefix, a section still open pairs differently.
    const loose = edited(text, 'lkmm.cfg', 'kernel-events.bell', '(([starts] ; po ; [ends]) \\ (loose ; loose))', '([starts] ; po ; [ends])');
    expect(safeChecks(loose)).not.toContain('rcu');
    // Renamed parts are the same matching.
    const renamed = edited(text, 'lkmm.cfg', 'kernel-events.bell', /\bloose\b/g, 'unpaired-po');
    expect(safeChecks(renamed)).toContain('rcu');
  });

  it.skipIf(!HAVE_LKMM)("under the kernel's files, whose bell names the matching's parts otherwise", () => {
    const kernel = compileModelFiles(filesOfConf(join(LKMM_DIR, 'linux-kernel.cfg')));
    expect(safeChecks(kernel)).toContain('rcu');
    const edit = edited(LKMM_DIR, 'linux-kernel.cfg', 'linux-kernel.bell', '(unmatched-locks-to-unlocks \\\n\t\t(unmatched-po ; unmatched-po))', 'unmatched-locks-to-unlocks');
    expect(safeChecks(edit)).not.toContain('rcu');
  });
});
