// The explorer's shortcuts against runs without any (`--no-shortcuts`,
// src/model/model.ts withoutShortcuts): the same counts, states and flags.

import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, litmus, runNode } from './util.js';
import { SHAPES } from './shapes.js';
import { getModel, withoutShortcutsSpec } from '../models/index.js';

interface JsonEntry {
  name: string;
  observation: string;
  positive: number;
  negative: number;
  flags: string[];
  states: unknown[];
}

/** What a --json run says of each test, its time aside. */
function answers(stdout: string): string[] {
  const report = JSON.parse(stdout) as { results: JsonEntry[] };
  return report.results.map((r) => JSON.stringify([r.name, r.observation, r.positive, r.negative, r.flags, r.states]));
}

describe('--no-shortcuts', () => {
  it('names the same model without its pruning', () => {
    const m = getModel(withoutShortcutsSpec('lkmm'))!;
    expect(m.name).toBe('lkmm');
    expect(m.lockOrders({} as never, {} as never)).toBe(false);
    expect(m.mayCycleThrough([])).toBe(true);
    expect(m.forbiddenSources).toBeUndefined();
    expect(m.latestReadKeepsConsistency).toBe(false);
    expect(withoutShortcutsSpec(withoutShortcutsSpec('sc'))).toBe(withoutShortcutsSpec('sc'));
  });

  it('gives the default run\'s answers on the classic shapes, under each built-in model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-noshortcuts-'));
    for (const s of SHAPES) writeFileSync(join(dir, `${s.name.split(' ')[0]}.litmus`), litmus(s.name.split(' ')[0], s.procs, s.cond));
    for (const model of ['lkmm', 'sc', 'x86-tso']) {
      const [a, b] = await Promise.all([
        runNode([CLI, 'check', '--json', '-j', '1', '-m', model, dir], dir),
        runNode([CLI, 'check', '--json', '-j', '1', '-m', model, '--no-shortcuts', dir], dir),
      ]);
      expect(a.stderr).toBe('');
      expect(b.stderr).toBe('');
      expect(answers(b.stdout)).toEqual(answers(a.stdout));
      expect(answers(a.stdout).length).toBe(SHAPES.length);
    }
  }, 120_000);
});
