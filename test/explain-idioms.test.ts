// The kernel's idioms in fixes and traces: beside an RMW that is not fully
// ordered the fixes offer smp_mb__after_atomic()/smp_mb__before_atomic()
// first (clear_bit_unlock() before wake_up_bit()), and a step out of (or
// into) half an RMW names the half. Every fix offered is applied and checked
// again here. Verdicts quoted are herd7's (7.58, the kernel's LKMM) on the
// same tests (clear_bit_unlock() as the .def's atomic_fetch_andnot_release(),
// test_bit() as READ_ONCE(), which herd7's .def lacks).

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { builtinModel } from '../models/index.js';
import { checkSource } from '../src/check.js';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram } from '../src/program/program.js';
import { applyEdits } from '../src/program/edit.js';
import { candidateChanges, findFixes, satisfiable } from '../src/report/fixes.js';
import { traceJson } from '../src/report/trace.js';

const lkmm = builtinModel('lkmm')!;

/** The waker clears the bit, then looks at the wait queue (wake_up_bit()); the sleeper queues itself, smp_mb(), tests the bit. */
const wakeBit = (clear: string, barrier = '') => `C wake-bit
{
	flags = 1;
}
P0(int *flags, int *wq)
{
	int r0;

	${clear}(0, flags);${barrier}
	r0 = READ_ONCE(*wq);
}
P1(int *flags, int *wq)
{
	int r1;

	WRITE_ONCE(*wq, 1);
	smp_mb();
	r1 = test_bit(0, flags);
}
exists (0:r0=0 /\\ 1:r1=1)
`;

/** refcount_dec_and_test() without its acquire: the last put reads the object, and must see the other CPU's write to it. */
const REFCOUNT = `C refcount-rel
{
	atomic_t refs = ATOMIC_INIT(2);
}
P0(int *obj, atomic_t *refs)
{
	int r0;

	WRITE_ONCE(*obj, 1);
	r0 = atomic_dec_return_release(refs);
}
P1(int *obj, atomic_t *refs)
{
	int r1;
	int r2;

	r1 = atomic_dec_return_release(refs);
	if (r1 == 0)
		r2 = READ_ONCE(*obj);
}
exists (1:r1=0 /\\ 1:r2=0)
`;

const trace = (text: string) => traceJson(checkSource(text, { model: lkmm, keepWitnesses: true }), lkmm, { tryFixes: true });

describe("the kernel's idioms", () => {
  it('clear_bit_unlock() before wake_up_bit(): smp_mb__after_atomic() comes first, and is Never', () => {
    // herd7: Sometimes 1 3; with smp_mb__after_atomic() after the clear: Never 0 3.
    expect(checkSource(wakeBit('clear_bit_unlock'), { model: lkmm }).observation).toBe('Sometimes');
    const j = trace(wakeBit('clear_bit_unlock'));
    expect(j.fixes!.found[0].changes).toEqual(['smp_mb__after_atomic() between P0.1 (line 9) and P0.2 (line 10)']);
    expect(j.fixes!.found.flatMap((f) => f.changes).some((c) => c.startsWith('smp_mb()'))).toBe(false);
    expect(checkSource(wakeBit('clear_bit_unlock', '\n\tsmp_mb__after_atomic();'), { model: lkmm }).observation).toBe('Never');
  });

  it('a step into a release RMW by its read, and out of one, names the half', () => {
    // herd7: Sometimes 1 2; with P1's RMW fully ordered (atomic_dec_return): Never.
    const t = trace(REFCOUNT).text;
    expect(t).toContain("P0.1 -> P0.2: program order: P0.1 is kept before P0.2's write by release (atomic_dec_return_release) (po-rel), not before its read, which the cycle passes through (reordered)");
    expect(t).toContain('P1.1 -> P1.2: program order, which lkmm keeps for neither half of P1.1 (its read and its write): P1.2 can take effect before P1.1 (reordered: atomic_dec_return_release is a release RMW, and a release orders what comes before its write, not what comes after it)');
    expect(checkSource(REFCOUNT.replace('r1 = atomic_dec_return_release(refs);', 'r1 = atomic_dec_return(refs);'), { model: lkmm }).observation).toBe('Never');
  });

  it('every fix offered beside an RMW forbids the outcome when applied (generated: RMW forms, sides, fences)', () => {
    const rmws = ['clear_bit', 'clear_bit_unlock', 'set_bit', 'change_bit'];
    const reads = ['test_bit(0, flags)', 'READ_ONCE(*flags)'];
    fc.assert(
      fc.property(fc.constantFrom(...rmws), fc.constantFrom(...reads), fc.boolean(), (rmw, read, mbOther) => {
        const text = wakeBit(rmw).replace('r1 = test_bit(0, flags);', `r1 = ${read};`).replace('\tsmp_mb();\n', mbOther ? '\tsmp_mb();\n' : '');
        const prog = buildProgram(parseLitmus(text));
        if (satisfiable(prog, lkmm, {}) !== true) return;
        const search = findFixes(prog, lkmm, candidateChanges(prog), {});
        for (const f of search.fixes) expect(satisfiable(applyEdits(prog, f.flatMap((c) => c.edits)), lkmm, {})).toBe(false);
        // Where the waker needs a full barrier after its RMW, the kernel's idiom is the one offered there.
        const p0Fences = search.fixes.flat().filter((c) => c.thread === 0 && c.text.includes('between P0'));
        for (const c of p0Fences) expect(c.text).not.toMatch(/^smp_mb\(\)/);
      }),
      { numRuns: 12 },
    );
  });
});
