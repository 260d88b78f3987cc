// Data races in traces: a trace of an execution the model flags (the LKMM's
// data-race) names the racing accesses, the definition that finds each pair
// and what it subtracts, says the outcome rests on the race where the cycle
// passes through it, and offers marking the plain accesses as fixes, each
// checked by re-running; "no change forbids it" only after marking was
// tried. The verdicts quoted are herd7's (7.58, the kernel's LKMM:
// /root/herd/bin/lkmm-herd), checked on the same tests.

import { describe, expect, it } from 'vitest';
import { builtinModel } from '../models/index.js';
import { checkSource } from '../src/check.js';
import type { CatModel } from '../models/cat/model.js';
import { compileModelFiles } from '../models/cat/model.js';
import { modelTextFiles } from '../models/texts.js';
import { traceJson } from '../src/report/trace.js';

const lkmm = builtinModel('lkmm')!;

/** A seqcount writer updating two fields with plain C; the reader reads them between two reads of the count. */
const seqcount = (x: string, y: string, rx: string, ry: string) => `C seqcount
{}
P0(int *seq, int *x, int *y)
{
	WRITE_ONCE(*seq, 1);
	smp_wmb();
	${x};
	${y};
	smp_wmb();
	WRITE_ONCE(*seq, 2);
}
P1(int *seq, int *x, int *y)
{
	int s0; int r1; int r2; int s1;
	s0 = READ_ONCE(*seq);
	smp_rmb();
	r1 = ${rx};
	r2 = ${ry};
	smp_rmb();
	s1 = READ_ONCE(*seq);
}
exists (1:s0=0 /\\ 1:s1=0 /\\ 1:r2=1)
`;
const PLAIN = seqcount('*x = 1', '*y = 1', '*x', '*y');
const Y_MARKED = seqcount('*x = 1', 'WRITE_ONCE(*y, 1)', '*x', 'READ_ONCE(*y)');
const ALL_MARKED = seqcount('WRITE_ONCE(*x, 1)', 'WRITE_ONCE(*y, 1)', 'READ_ONCE(*x)', 'READ_ONCE(*y)');

const trace = (text: string) => traceJson(checkSource(text, { model: lkmm, keepWitnesses: true }), lkmm, { tryFixes: true });

describe('a data race in a trace', () => {
  it('agrees with herd7 on the verdicts and flags', () => {
    // herd7: Sometimes 2 19, Flag data-race; y marked: Never 0 19, Flag data-race; all marked: Never 0 18, no flag.
    const plain = checkSource(PLAIN, { model: lkmm });
    expect([plain.observation, plain.exploration.positive, plain.exploration.negative, plain.exploration.flags]).toEqual(['Sometimes', 2, 19, ['data-race']]);
    const y = checkSource(Y_MARKED, { model: lkmm });
    expect([y.observation, y.exploration.flags]).toEqual(['Never', ['data-race']]);
    const all = checkSource(ALL_MARKED, { model: lkmm });
    expect([all.observation, all.exploration.flags]).toEqual(['Never', []]);
  });

  it('names the racing accesses, the definition that finds each pair and what it subtracts', () => {
    const t = trace(PLAIN).text;
    expect(t).toContain('lkmm raises its flag data-race on this execution:');
    expect(t).toContain('P0.4 (W y=1 [plain]) and P1.4 (R y=1 [plain] (from P0.4)): wr-race (neither wr-vis nor rw-xbstar^-1 holds the pair)');
    expect(t).toContain('P1.3 (R x=0 [plain] (initial value)) and P0.3 (W x=1 [plain]): rw-race (rw-xbstar does not hold the pair)');
    expect(t).toContain('The outcome rests on a data race: the cycle passes through plain accesses that race');
    expect(t).toContain('(reordered; P0.4 is a plain access in the data race below)');
    expect(t).not.toContain('the propagation rule, pb');
    expect(t).not.toMatch(/No change of .* forbids it/);
  });

  it('offers marking the racing accesses, each fix checked, and says what still races', () => {
    const j = trace(PLAIN);
    expect(j.fixes!.candidates.filter((c) => c.startsWith('mark '))).toEqual([
      'mark x: plain store → WRITE_ONCE at P0.3 (line 7), plain load → READ_ONCE at P1.3 (line 17)',
      'mark y: plain store → WRITE_ONCE at P0.4 (line 8), plain load → READ_ONCE at P1.4 (line 18)',
    ]);
    expect(j.fixes!.found[0].changes).toEqual(['mark y: plain store → WRITE_ONCE at P0.4 (line 8), plain load → READ_ONCE at P1.4 (line 18)']);
    // herd7 agrees: with y marked, Never, and x still races.
    expect(j.text).toContain('(lkmm still flags data-race with it: the plain accesses of x are left as they are; mark what races too, or, where a race is intended, say so with data_race())');
  });

  it('does not offer marking where the model flags no race', () => {
    const j = trace(seqcount('WRITE_ONCE(*x, 1)', 'WRITE_ONCE(*y, 1)', 'READ_ONCE(*x)', 'READ_ONCE(*y)').replace('s0=0 /\\ 1:s1=0 /\\ 1:r2=1', 'r1=0 /\\ 1:r2=1'));
    expect(j.fixes!.candidates.some((c) => c.startsWith('mark '))).toBe(false);
    expect(j.text).not.toContain('data race');
  });

  it('each claim of a flagged pair is what the model computes, under the built-in model and its text', () => {
    const text = compileModelFiles(modelTextFiles('lkmm')) as CatModel;
    for (const model of [lkmm, text]) {
      const r = checkSource(PLAIN, { model: text, keepWitnesses: true });
      const x = r.exploration.outcomes.find((o) => o.positive)!.witness!;
      const f = model.flagged!(x, 'data-race')!;
      expect(f.pairs.length).toBeGreaterThan(0);
      for (const p of f.pairs) {
        expect(text.holds(x, p.label, p.from, p.to)).toBe(true);
        for (const u of p.unless) {
          const inverse = u.endsWith('^-1');
          const name = inverse ? u.slice(0, -3) : u;
          expect(inverse ? text.holds(x, name, p.to, p.from) : text.holds(x, name, p.from, p.to)).toBe(false);
        }
        expect(text.holds(x, 'pre-race', p.from, p.to)).toBe(true);
      }
    }
  });
});
