// Loops and helper functions in C tests (issue #20, item 3): for, do, break,
// continue bounded by --unroll as while is; helper functions inlined at each
// call, recursion refused; litmus export writes what herd7 reads and checks
// the same.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSource, type CheckResult } from '../src/check.js';
import { exportLitmus } from '../src/export/export.js';
import { herdFindings, refusals } from '../src/export/lint.js';
import { parseLitmus } from '../src/parse/parser.js';
import { lkmm } from '../models/lkmm.js';
import { litmusErrorOf } from './util.js';

const check = (text: string, unroll?: number, waits?: 'unrolled') => checkSource(text, { model: lkmm, unroll, waits });
const summary = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative} cut=${r.stats.cutPaths}`;
const errorOf = (text: string): string => litmusErrorOf(() => check(text));
const test = (p0: string, p1: string, cond: string, fns = '') =>
  `C t\n\n{\n\tint x;\n\tint y;\n}\n\n${fns}P0(int *x, int *y)\n{\n${p0}\n}\n\nP1(int *x, int *y)\n{\n${p1}\n}\n\nexists (${cond})\n`;

describe('loops', () => {
  const writer = '\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*x, 2);';

  it('for is init; while (cond) { body; step }: same counts and cut paths as the while written out', () => {
    const asFor = test(writer, '\tint i;\n\tint r0 = 0;\n\tfor (i = 0; i < 3; i++)\n\t\tr0 = r0 + READ_ONCE(*x);', '1:r0=3');
    const asWhile = test(writer, '\tint i;\n\tint r0 = 0;\n\ti = 0;\n\twhile (i < 3) {\n\t\tr0 = r0 + READ_ONCE(*x);\n\t\ti = i + 1;\n\t}', '1:r0=3');
    for (const unroll of [1, 2, 3]) expect(summary(check(asFor, unroll))).toBe(summary(check(asWhile, unroll)));
    expect(check(asFor, 2).stats.cutPaths).toBeGreaterThan(0);
    expect(check(asFor, 3).stats.cutPaths).toBe(0);
  });

  it('do s while (c) is s; while (c) s, bounded as the while (as herd7 reads loops; read exactly, the do loop\'s first pass is an iteration too)', () => {
    const asDo = test(writer, '\tint r0;\n\tdo\n\t\tr0 = READ_ONCE(*x);\n\twhile (r0 != 2);', '1:r0=2');
    const asWhile = test(writer, '\tint r0;\n\tr0 = READ_ONCE(*x);\n\twhile (r0 != 2)\n\t\tr0 = READ_ONCE(*x);', '1:r0=2');
    for (const unroll of [1, 2]) expect(summary(check(asDo, unroll, 'unrolled'))).toBe(summary(check(asWhile, unroll, 'unrolled')));
    // Read exactly: the do loop's passes that read 0 or 1 go round idle (r0 is written before it is read), so one
    // execution; the while's first read is outside its loop, whose head reads r0: a pass that changes r0 (0 to 1)
    // is no idle one, so 0-2, 0-1-2, 1-2 and 2.
    expect(summary(check(asDo))).toBe('Always 1 0 cut=0');
    expect(summary(check(asWhile))).toBe('Always 4 0 cut=0');
  });

  it('break leaves the loop; continue goes on with the next iteration (its step in a for)', () => {
    const brk = test(writer, '\tint r0;\n\tint n = 0;\n\tfor (;;) {\n\t\tr0 = READ_ONCE(*x);\n\t\tif (r0 == 2)\n\t\t\tbreak;\n\t\tn = n + 1;\n\t}', '1:r0=2');
    const r = check(brk, 3);
    expect(r.observation).toBe('Always');
    const cont = test(writer, '\tint i;\n\tint n = 0;\n\tfor (i = 0; i < 2; i++) {\n\t\tif (READ_ONCE(*x) == 0)\n\t\t\tcontinue;\n\t\tn = n + 1;\n\t}', '1:n=2');
    expect(summary(check(cont))).toMatch(/^Sometimes /);
    expect(check(cont).stats.cutPaths).toBe(0);
  });

  it('break and continue outside a loop are errors at their position; herd7 has neither (not exportable)', () => {
    expect(errorOf(test('\tbreak;', '', 'x=0'))).toBe('10:2 "break" outside a loop');
    const t = test(writer, '\tint r0;\n\twhile (1) {\n\t\tr0 = READ_ONCE(*x);\n\t\tif (r0 == 2)\n\t\t\tbreak;\n\t}', '1:r0=2');
    expect(refusals(herdFindings(parseLitmus(t), t)).some((f) => !f.exportable && /no "break"/.test(f.message))).toBe(true);
    expect(() => exportLitmus(t)).toThrow(/herd7's C has no "break"/);
  });
});

describe('helper functions', () => {
  const fns = 'static int get(int *p)\n{\n\tint v = READ_ONCE(*p);\n\tif (v == 0)\n\t\treturn 5;\n\treturn v;\n}\n\nstatic void put(int *p, int v)\n{\n\tWRITE_ONCE(*p, v);\n}\n\n';

  it('are inlined at each call: the same as the code written out', () => {
    const called = test('\tput(x, 1);\n\tsmp_wmb();\n\tput(y, 1);', '\tint r0;\n\tint r1;\n\tr0 = get(y);\n\tsmp_rmb();\n\tr1 = get(x);', '1:r0=1 /\\ 1:r1=5', fns);
    const written = test(
      '\tWRITE_ONCE(*x, 1);\n\tsmp_wmb();\n\tWRITE_ONCE(*y, 1);',
      '\tint r0;\n\tint r1;\n\tr0 = READ_ONCE(*y);\n\tif (r0 == 0)\n\t\tr0 = 5;\n\tsmp_rmb();\n\tr1 = READ_ONCE(*x);\n\tif (r1 == 0)\n\t\tr1 = 5;',
      '1:r0=1 /\\ 1:r1=5',
    );
    expect(summary(check(called))).toBe(summary(check(written)));
    expect(check(called).observation).toBe('Never');
  });

  it('recursion is refused at the call that recurses', () => {
    const rec = 'static int f(int *p)\n{\n\treturn f(p);\n}\n\n';
    expect(errorOf(test('\tint r0 = f(x);', '', 'x=0', rec))).toBe('10:9 recursion: f -> f (a helper function is inlined at each call, so it cannot call itself)');
  });

  it('a wrong number of arguments, a void function\'s value, a call in a loop header: errors at their position', () => {
    expect(errorOf(test('\tput(x);', '', 'x=0', fns))).toMatch(/^23:2 put takes 2 arguments, not 1$/);
    expect(errorOf(test('\tint r0 = put(x, 1);', '', 'x=0', fns))).toMatch(/^23:11 put returns void: its call has no value$/);
    expect(errorOf(test('\twhile (get(x) == 0) ;', '', 'x=0', fns))).toMatch(/^23:9 a call of the helper function get in a loop's header/);
  });

  it('litmus export writes them inlined, which herd7 reads, with the same answer', () => {
    const t = test('\tput(x, 1);\n\tsmp_wmb();\n\tput(y, 1);', '\tint r0;\n\tint r1;\n\tr0 = get(y);\n\tsmp_rmb();\n\tr1 = get(x);', '1:r0=1 /\\ 1:r1=5', fns);
    const out = exportLitmus(t);
    expect(out).not.toMatch(/static|get\(|put\(/);
    expect(refusals(herdFindings(parseLitmus(out), out))).toEqual([]);
    expect(summary(check(out))).toBe(summary(check(t)));
  });
});

// Generated tests: two threads, each a for or do loop (or none) around
// accesses, some made through helper functions; the exported test (while
// loops, functions inlined) must give the same verdict, counts and cut paths.
const op = fc.oneof(
  fc.record({ k: fc.constant('w' as const), loc: fc.constantFrom('x', 'y'), v: fc.integer({ min: 1, max: 2 }), helper: fc.boolean() }),
  fc.record({ k: fc.constant('r' as const), loc: fc.constantFrom('x', 'y'), helper: fc.boolean() }),
  fc.record({ k: fc.constant('f' as const), fence: fc.constantFrom('smp_mb', 'smp_wmb', 'smp_rmb') }),
);
const thread = fc.record({ loop: fc.constantFrom('none', 'for', 'do'), ops: fc.array(op, { minLength: 1, maxLength: 3 }) });
const program = fc.record({ threads: fc.tuple(thread, thread), unroll: fc.integer({ min: 1, max: 2 }) });

function render(threads: fc.infer<typeof thread>[]): string {
  const conds: string[] = [];
  const bodies = threads.map((t, ti) => {
    const lines = t.ops.map((o) => {
      if (o.k === 'f') return `${o.fence}();`;
      if (o.k === 'w') return o.helper ? `put(${o.loc}, ${o.v});` : `WRITE_ONCE(*${o.loc}, ${o.v});`;
      return `r0 = r0 + ${o.helper ? `get(${o.loc})` : `READ_ONCE(*${o.loc})`};`;
    });
    if (t.ops.some((o) => o.k === 'r')) conds.push(`${ti}:r0=1`);
    const body = lines.map((l) => `\t\t${l}`).join('\n');
    const loop =
      t.loop === 'for' ? `\tfor (i = 0; i < 2; i++) {\n${body}\n\t}` : t.loop === 'do' ? `\tdo {\n${body}\n\t\ti = i + 1;\n\t} while (i < 2);` : body;
    return `P${ti}(int *x, int *y)\n{\n\tint i = 0;\n\tint r0 = 0;\n${loop}\n}\n`;
  });
  const fns = 'static int get(int *p)\n{\n\treturn READ_ONCE(*p);\n}\n\nstatic void put(int *p, int v)\n{\n\tWRITE_ONCE(*p, v);\n}\n\n';
  return `C gen\n\n{\n\tint x;\n\tint y;\n}\n\n${fns}${bodies.join('\n')}\nexists (${conds.length ? conds.join(' /\\ ') : 'x=0'})\n`;
}

describe('litmus export of loops and helper functions (property)', () => {
  it('the exported test (while loops, functions inlined) has the same verdict, counts and cut paths', () => {
    fc.assert(
      fc.property(program, ({ threads, unroll }) => {
        const text = render(threads);
        expect(summary(check(exportLitmus(text), unroll))).toBe(summary(check(text, unroll)));
      }),
      { numRuns: 40 },
    );
  });
});

// The programs scripts/export-vs-herd7.ts gives herd7: an array, a struct,
// for/do loops and helper functions (one returning inside an if) together.
describe('litmus export of arrays, structs, loops and helpers together (property)', () => {
  it('the exported test has the same verdict, counts and cut paths, and nothing herd7 refuses', async () => {
    const { mixedProgram, renderMixed } = await import('../scripts/generated-programs.js');
    fc.assert(
      fc.property(mixedProgram, (p) => {
        const text = renderMixed(p);
        const out = exportLitmus(text);
        expect(refusals(herdFindings(parseLitmus(out), out))).toEqual([]);
        expect(summary(check(out))).toBe(summary(check(text)));
      }),
      { numRuns: 40 },
    );
  });
});
