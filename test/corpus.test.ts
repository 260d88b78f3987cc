// Conformance with herd7 on the shared corpus (../shared/corpus or
// $LITMUS_CORPUS): every row of expected.tsv, verdict, P/N, flags and states.

import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { builtinModel } from '../models/index.js';
import { compileModelFiles } from '../models/cat/model.js';
import { modelTextFiles } from '../models/texts.js';
import { forbiddenCandidate } from '../src/explore/forbidden.js';
import { herdBlock } from '../src/report/herd.js';
import { corpusDir, flagsOf, normaliseFlags, normaliseStates, readRows, statesOf } from '../scripts/corpus.js';

const dir = corpusDir();

if (!dir) {
  describe('herd7 corpus', () => {
    console.log('corpus.test.ts: no corpus at ../shared/corpus (set LITMUS_CORPUS); skipping the herd7 conformance tests');
    it.skip('corpus absent: set LITMUS_CORPUS to a folder with expected.tsv', () => {});
  });
} else {
  const rows = readRows(dir);

  describe('herd7 corpus', () => {
    it('has rows to check', () => {
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(['Always', 'Sometimes', 'Never'], r.test).toContain(r.verdict);
    });

    for (const row of rows) {
      it(row.test, () => {
        const r = checkSource(readFileSync(join(dir, row.test), 'utf8'), { model: lkmm });
        expect({ verdict: r.observation, positive: r.positive, negative: r.negative }).toEqual({
          verdict: row.verdict,
          positive: row.positive,
          negative: row.negative,
        });
        expect(flagsOf(r)).toBe(normaliseFlags(row.flags));
        expect(statesOf(r)).toBe(normaliseStates(row.states));
        // A kernel test's own Result: line agrees too (DEADLOCK: no execution).
        if (r.expected !== undefined) expect(r.matches, `Result: ${r.expected}`).toBe(true);
      });
    }
  });
}

// herd7's own output for the herd-linux tests (the .expected files): our
// block must be the same line for line (herd's Hash= and Time lines aside).
if (dir) {
  const herdDir = join(dir, 'herd-linux');
  const withExpected = existsSync(herdDir) ? readdirSync(herdDir).filter((f) => f.endsWith('.litmus') && existsSync(join(herdDir, `${f}.expected`))) : [];
  describe('herd7 output, line for line', () => {
    for (const f of withExpected) {
      it(f, () => {
        const expected = readFileSync(join(herdDir, `${f}.expected`), 'utf8')
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('Hash=') && !l.startsWith('Time '));
        const ours = herdBlock(checkSource(readFileSync(join(herdDir, f), 'utf8'), { model: lkmm })).split('\n');
        expect(ours).toEqual(expected);
      });
    }
  });
}

// Explanations of the Never tests: the forbidden candidate found for each
// breaks the axiom it is said to break, and every step of the cycle shown is
// an edge of the relation it is labelled with (a closed walk, except for an
// atomicity violation, which is a path from an RMW's read to its write).
if (dir) {
  const nevers = readRows(dir).filter((r) => r.verdict === 'Never');
  describe('explanations of Never', () => {
    const explained = builtinModel('lkmm')!;
    const text = compileModelFiles(modelTextFiles('lkmm'));
    for (const row of nevers) {
      it(row.test, () => {
        const r = checkSource(readFileSync(join(dir, row.test), 'utf8'), { model: lkmm });
        const { found, stopped } = forbiddenCandidate(r, lkmm);
        expect(stopped).toBeUndefined();
        if (!found) return; // the program itself rules the condition out (checked in cli.test.ts)
        expect(lkmm.check(found.exec)).toMatchObject({ consistent: false, violated: found.axiom });
        if (!['coherence', 'atomic', 'happens-before', 'propagation', 'rcu'].includes(found.axiom)) return;
        // Explained from the definitions of the model's text: each step's label names a definition that holds it.
        const why = explained.explain!(found.exec, found.axiom)!;
        expect(why).toBeDefined();
        expect(why.name).toBe(found.axiom);
        why.edges.forEach(([a, b], i) => {
          const label = why.labels?.[i] ?? why.name;
          expect(text.holds(found.exec, label, a, b), `${label}(${a}, ${b})`).toBe(true);
          if (!why.path && found.axiom !== 'atomic') expect(why.edges[(i + 1) % why.edges.length][0]).toBe(b);
        });
      });
    }
  });
}
