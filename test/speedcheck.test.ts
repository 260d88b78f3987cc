// Condition-directed search (--speedcheck, src/explore/speedcheck.ts): the
// three-valued condition, the same verdicts as the exhaustive run on the
// corpora, and the command line. The property over generated tests is in
// properties.test.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSource, judge } from '../src/check.js';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram, type StateView } from '../src/program/program.js';
import { speedView } from '../src/cli/herd7-test.js';
import { filterPrunes } from '../src/explore/speedcheck.js';
import { lkmm } from '../models/lkmm.js';
import { corpusDir, readRows } from '../scripts/corpus.js';
import { CLI, runNode } from './util.js';
import { MP_REL_ACQ } from './shapes.js';
import { FAMILIES } from '../bench/families.js';

/** A two-thread test whose condition is `cond` (P0 has r0, r1; locations x, y). */
function withCondition(cond: string): string {
  return `C cond\n\n{}\n\nP0(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\n\tr0 = READ_ONCE(*x);\n\tr1 = READ_ONCE(*y);\n}\n\nP1(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*y, 2);\n}\n\n${cond}\n`;
}

/** The condition of `cond` over a state where only `known` is known (r0, r1 of P0; x, y). */
function decide(cond: string, known: { r0?: number; r1?: number; x?: number; y?: number }): boolean | undefined {
  const prog = buildProgram(parseLitmus(withCondition(cond)));
  const regs = prog.threads[0].regs;
  const view: StateView = {
    reg: (t, r) => (t === 0 ? (known as Record<string, number | undefined>)[regs[r]] : undefined),
    mem: (l) => (known as Record<string, number | undefined>)[prog.locations[l]],
  };
  return prog.final.decide(view);
}

describe('the condition over a partly known state (Kleene logic)', () => {
  it('a conjunction is false as soon as one settled atom is, and unknown until then', () => {
    expect(decide('exists (0:r0=1 /\\ y=2)', { y: 1 })).toBe(false);
    expect(decide('exists (0:r0=1 /\\ y=2)', { y: 2 })).toBeUndefined();
    expect(decide('exists (0:r0=1 /\\ y=2)', { r0: 1, y: 2 })).toBe(true);
  });

  it('a disjunction is true as soon as one settled atom is', () => {
    expect(decide('exists (0:r0=1 \\/ 0:r1=2)', { r1: 2 })).toBe(true);
    expect(decide('exists (0:r0=1 \\/ 0:r1=2)', { r1: 0 })).toBeUndefined();
    expect(decide('exists (0:r0=1 \\/ 0:r1=2)', { r0: 0, r1: 0 })).toBe(false);
  });

  it('negation, implication, a register on the right and <> follow the same logic', () => {
    expect(decide('exists (~0:r0=1)', {})).toBeUndefined();
    expect(decide('exists (~0:r0=1)', { r0: 0 })).toBe(true);
    expect(decide('exists (0:r0=1 => 0:r1=2)', { r0: 0 })).toBe(true);
    expect(decide('exists (0:r0=1 => 0:r1=2)', { r1: 2 })).toBe(true);
    expect(decide('exists (0:r0=1 => 0:r1=2)', { r0: 1 })).toBeUndefined();
    expect(decide('exists (0:r0=1 => 0:r1=2)', { r0: 1, r1: 0 })).toBe(false);
    expect(decide('exists (0:r0=0:r1)', { r0: 1 })).toBeUndefined();
    expect(decide('exists (0:r0=0:r1)', { r0: 1, r1: 1 })).toBe(true);
    expect(decide('exists (0:r0<>1)', { r0: 1 })).toBe(false);
  });

  it('an equality whose unknown side cannot end as its value is false (regMay, memMay), and its negation true', () => {
    const prog = buildProgram(parseLitmus(withCondition('exists (0:r0=1 /\\ y=2)')));
    const unknown = (may: boolean): StateView => ({ reg: () => undefined, mem: () => undefined, regMay: () => may, memMay: (_l, v) => may && v !== 2 });
    expect(prog.final.decide(unknown(true))).toBe(false); // y cannot end as 2
    expect(prog.final.decide(unknown(false))).toBe(false);
    const neg = buildProgram(parseLitmus(withCondition('exists (0:r0<>1 /\\ ~(y=2))')));
    expect(neg.final.decide(unknown(false))).toBe(true);
    expect(neg.final.decide(unknown(true))).toBeUndefined();
  });

  it('on a final state, decide is holds', () => {
    const prog = buildProgram(parseLitmus(withCondition('forall (0:r0=1 \\/ ~(x=1 /\\ 0:r1=0))')));
    for (const r0 of [0, 1]) {
      for (const r1 of [0, 2]) {
        const fs = { regs: [[r0, r1, 0, 0].slice(0, prog.threads[0].regs.length), []], mem: [1, 2] };
        const view: StateView = { reg: (t, r) => fs.regs[t][r], mem: (l) => fs.mem[l] };
        expect(prog.final.decide(view)).toBe(prog.final.holds(fs));
      }
    }
  });
});

describe('the search prunes and stops', () => {
  // Seven threads each reading x: 2^7 final states, one of which the condition names.
  const readers = Array.from({ length: 7 }, (_, i) => `P${i}(int *x)\n{\n\tint r0;\n\n\tr0 = READ_ONCE(*x);\n}\n`).join('\n');
  const wide = (cond: string) => `C wide\n\n{}\n\n${readers}\nP7(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\n${cond}\n`;

  it('decides from two executions where the exhaustive run counts 128, with the same verdict', () => {
    const text = wide('exists (0:r0=1 /\\ 6:r0=0)');
    const all = checkSource(text, { model: lkmm });
    const fast = checkSource(text, { model: lkmm, speedcheck: 'decide' });
    expect([all.observation, all.positive + all.negative]).toEqual(['Sometimes', 128]);
    expect(fast.observation).toBe('Sometimes');
    expect(fast.positive).toBe(1);
    expect(fast.negative).toBe(1);
    expect(fast.stats.candidates).toBeLessThan(10);
  });

  it('-speedcheck true counts exactly the executions that satisfy the condition, judging no other', () => {
    const text = wide('exists (0:r0=1 /\\ 1:r0=1)');
    const all = checkSource(text, { model: lkmm });
    const only = checkSource(text, { model: lkmm, speedcheck: 'true' });
    expect(only.positive).toBe(all.positive);
    expect(only.negative).toBe(0);
    expect(only.stats.candidates).toBe(all.positive);
    expect(speedView(only, 'true')).toMatchObject({ positive: all.positive, observation: 'Always' });
  });
});

describe('the witness is looked for where it is likely (likely.ts)', () => {
  const family = (name: string) => FAMILIES.find((f) => f.name === name)!;

  it('a copy chain through 60 threads is decided from two executions, in either thread order and for forall', () => {
    for (const name of ['copy-chain', 'copy-chain-reversed', 'copy-chain-forall']) {
      const r = checkSource(family(name).make(60), { model: lkmm, speedcheck: 'decide' });
      expect(r.observation, name).toBe('Sometimes');
      expect(r.stats.candidates, name).toBe(2);
      expect(r.stats.pruned, name).toBeLessThan(10);
    }
  });

  it('at a size the exhaustive run can count, the same verdict as the count (one execution of 2^N witnesses)', () => {
    for (const name of ['copy-chain', 'copy-chain-reversed', 'copy-chain-forall']) {
      const text = family(name).make(8);
      const all = checkSource(text, { model: lkmm });
      const d = checkSource(text, { model: lkmm, speedcheck: 'decide' });
      expect([all.observation, all.positive + all.negative], name).toEqual(['Sometimes', 256]);
      expect([d.observation, d.ok], name).toEqual([all.observation, all.ok]);
    }
  });

  it('a value the value analysis rules out decides the condition at once; at a countable size, the verdicts of the count', () => {
    for (const cond of ['~exists (y=2)', 'exists (0:t=3 \\/ x3=5)', 'forall (y<>2)']) {
      const big = checkSource(family('copy-chain').make(40).replace('exists (y=1)', cond), { model: lkmm, speedcheck: 'decide' });
      expect(big.stats.candidates, cond).toBe(1);
      expect(big.stats.pruned, cond).toBeLessThan(100);
      const text = family('copy-chain').make(6).replace('exists (y=1)', cond);
      const all = checkSource(text, { model: lkmm });
      const d = checkSource(text, { model: lkmm, speedcheck: 'decide' });
      expect([d.observation, d.ok, big.observation], cond).toEqual([all.observation, all.ok, all.observation]);
    }
  });

  it('a condition no execution meets is still proved: every execution that could meet it is ruled out', () => {
    // y=1 needs P1 to copy 1; with 1:r0=0 no execution has it.
    const text = family('copy-chain').make(8).replace('exists (y=1)', 'exists (y=1 /\\ 1:r0=0)');
    const all = checkSource(text, { model: lkmm });
    const d = checkSource(text, { model: lkmm, speedcheck: 'decide' });
    expect(all.observation).toBe('Never');
    expect([d.observation, d.ok]).toEqual([all.observation, all.ok]);
  });
});

describe('the Result: judgement when not every execution was built', () => {
  const base = { expected: 'Never', observation: 'Never' as const, executions: 1, flags: [] as string[] };
  it('a data race not found is not taken as absent: the Observation alone is judged, and the line says so', () => {
    expect(judge({ ...base, expectsDataRace: true }).matches).toBe(false);
    const partial = judge({ ...base, expectsDataRace: true, flagsPartial: true });
    expect(partial.matches).toBe(true);
    expect(partial.why).toMatch(/does not look for data races/);
    expect(judge({ ...base, expectsDataRace: false, flagsPartial: true, observation: 'Sometimes' }).matches).toBe(false);
  });

  it('a race that was found still counts', () => {
    expect(judge({ ...base, expectsDataRace: false, flags: ['data-race'], flagsPartial: true }).matches).toBe(false);
    expect(judge({ ...base, expectsDataRace: true, flags: ['data-race'], flagsPartial: true })).toEqual({ matches: true });
  });
});

const dir = corpusDir();

describe.skipIf(!dir)('--speedcheck gives the exhaustive verdicts on the corpora', () => {
  if (!dir) console.log('speedcheck.test.ts: no corpus at ../shared/corpus (set LITMUS_CORPUS); skipping the corpus comparisons');

  // expected.tsv holds herd7's results, which the exhaustive run gives (corpus.test.ts).
  it('every kernel-corpus test: the Observation, and -speedcheck true counts what herd7 counts', () => {
    const rows = readRows(dir!);
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) {
      const text = readFileSync(join(dir!, row.test), 'utf8');
      const d = checkSource(text, { model: lkmm, speedcheck: 'decide' });
      expect(d.observation, row.test).toBe(row.verdict);
      const t = speedView(checkSource(text, { model: lkmm, speedcheck: 'true' }), 'true');
      const wanted = d.quantifier === 'forall' ? row.negative : row.positive;
      expect(t.positive + t.negative, row.test).toBe(wanted);
    }
  });

  // A spread of the auto/ families (every 150th file), where the exhaustive
  // run finishes in a few seconds.
  const auto = join(dir ?? '', 'paulmckrcu-litmus', 'auto');
  it.skipIf(!existsSync(auto))('a sample of paulmckrcu auto/: the same Observation and Ok as the exhaustive run', () => {
    const files = readdirSync(auto).filter((f) => f.endsWith('.litmus')).sort().filter((_, i) => i % 150 === 0);
    let compared = 0;
    for (const f of files) {
      const text = readFileSync(join(auto, f), 'utf8');
      let all;
      try {
        all = checkSource(text, { model: lkmm, timeoutMs: 2000 });
      } catch {
        continue; // too big to count: nothing to compare with
      }
      const d = checkSource(text, { model: lkmm, speedcheck: 'decide' });
      expect([d.observation, d.ok], f).toEqual([all.observation, all.ok]);
      compared++;
    }
    expect(compared).toBeGreaterThan(files.length / 2);
  }, 60_000);
});

describe('litmus check --speedcheck', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'litmus-speedcheck-'));
    writeFileSync(join(tmp, 'MP.litmus'), MP_REL_ACQ);
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('prints the verdict and says that the counts were skipped; --json marks it', async () => {
    const plain = await runNode([CLI, 'check', 'MP.litmus'], tmp);
    const fast = await runNode([CLI, 'check', '--speedcheck', 'MP.litmus'], tmp);
    expect(fast.status).toBe(plain.status);
    const verdict = /Observation \S+ (\w+)/.exec(plain.stdout)![1];
    expect(fast.stdout).toMatch(new RegExp(`Observation \\S+ ${verdict} `));
    expect(fast.stdout).toMatch(/--speedcheck: decided from \d+ executions?; counts skipped/);
    const json = JSON.parse((await runNode([CLI, 'check', '--speedcheck', '--json', 'MP.litmus'], tmp)).stdout);
    expect(json.results[0]).toMatchObject({ observation: verdict, countsSkipped: true });
  });
});

describe('the filter in an exhaustive count (filterPrunes)', () => {
  const spinner = (filter: string) => `C spin\n\n{}\n\nP0(int *x)\n{\n\tint r0;\n\n\tr0 = READ_ONCE(*x);\n\twhile (r0 == 0)\n\t\tr0 = READ_ONCE(*x);\n}\n\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n\n${filter}exists (0:r0=1)\n`;
  it('drops what the filter rejects only in loop-free tests: a cut loop must still say Loop', () => {
    expect(filterPrunes(buildProgram(parseLitmus(withCondition('filter (0:r0=1)\nexists (0:r1=2)'))))).toBe(true);
    expect(filterPrunes(buildProgram(parseLitmus(withCondition('exists (0:r1=2)'))))).toBe(false);
    expect(filterPrunes(buildProgram(parseLitmus(spinner('filter (0:r0=1)\n'))))).toBe(false);
    // The spinning read's paths past the bound are cut whatever the filter says.
    const filtered = checkSource(spinner('filter (0:r0=1)\n'), { model: lkmm, waits: 'unrolled' });
    const plain = checkSource(spinner(''), { model: lkmm, waits: 'unrolled' });
    expect(filtered.stats.cutPaths).toBe(plain.stats.cutPaths);
    expect(filtered.stats.cutPaths).toBeGreaterThan(0);
  });
});
