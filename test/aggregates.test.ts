// Arrays and structs in C tests (issue #20, item 2): each element and field
// its own location, named as the test writes it; bounds; and `litmus export`
// writing one variable per element and field, which checks the same.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSource, type CheckResult } from '../src/check.js';
import { exportLitmus } from '../src/export/export.js';
import { herdFindings, refusals } from '../src/export/lint.js';
import { parseLitmus } from '../src/parse/parser.js';
import { lkmm } from '../models/lkmm.js';
import { litmusErrorOf } from './util.js';

const check = (text: string) => checkSource(text, { model: lkmm });
const summary = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative}`;
const states = (r: CheckResult) => r.states.map((s) => s.bindings.map(([k, v]) => `${k}=${v}`).join(' '));
const errorOf = (text: string): string => litmusErrorOf(() => check(text));

const MP_ARRAY = `C MP-array
{
\tint a[2] = {0, 5};
\tstruct s { int f; int g; } v;
\tv.g = 3;
}

P0(int *a, struct s *v)
{
\tWRITE_ONCE(a[1], 1);
\tsmp_store_release(&v->f, 1);
}

P1(int *a, struct s *v)
{
\tint r0;
\tint r1;
\tint r2;
\tr0 = smp_load_acquire(&v->f);
\tr1 = READ_ONCE(a[1]);
\tr2 = v.g;
}

locations [a[0]; v.g]
exists (1:r0=1 /\\ 1:r1=5)
`;

describe('arrays and structs', () => {
  it('elements and fields are locations of their own, named as the test writes them', () => {
    const r = check(MP_ARRAY);
    expect(summary(r)).toBe('Never 0 3');
    expect(r.program.locations).toEqual(['a[0]', 'a[1]', 'v.f', 'v.g']);
    // herd7 names an element without brackets (`a[1]=2;`), after the variables.
    expect(states(r)).toContain('1:r0=0 1:r1=5 a[0]=0 v.g=3');
  });

  it('a struct parameter whose fields are read as v.f and p->f, an initialiser list, a value given to one field', () => {
    const t = `C s
{
\tstruct pair { int a; int b; } p = {1, 2};
\tp.b = 7;
}

P0(struct pair *p)
{
\tint r0;
\tint r1;
\tr0 = READ_ONCE(p->a);
\tr1 = p.b;
}

exists (0:r0=1 /\\ 0:r1=7 /\\ p.a=1)
`;
    expect(summary(check(t))).toBe('Always 1 0');
  });

  it('arrays of structs and structs holding arrays', () => {
    const t = `C nest
{
\tstruct c { int n[2]; int total; } cpu[2];
}

P0(struct c *cpu)
{
\tWRITE_ONCE(cpu[1].n[0], 3);
\tWRITE_ONCE(cpu[0].total, 4);
}

exists (cpu[1].n[0]=3 /\\ cpu[0].total=4 /\\ cpu[1].total=0)
`;
    const r = check(t);
    expect(r.program.locations).toEqual(['cpu[0].n[0]', 'cpu[0].n[1]', 'cpu[0].total', 'cpu[1].n[0]', 'cpu[1].n[1]', 'cpu[1].total']);
    expect(summary(r)).toBe('Always 1 0');
  });

  it('a constant index out of bounds is an error at its position', () => {
    const t = 'C b\n{\n\tint a[2];\n}\n\nP0(int *a)\n{\n\tWRITE_ONCE(a[2], 1);\n}\n\nexists (a[1]=0)\n';
    expect(errorOf(t)).toBe('8:15 index 2 is out of bounds: a has 2 elements');
  });

  it('a computed index out of bounds drops the execution, flagged index-out-of-bounds', () => {
    const t = 'C c\n{\n\tint a[2];\n\tint i = 1;\n}\n\nP0(int *a, int *i)\n{\n\tint r0;\n\tr0 = READ_ONCE(*i);\n\tWRITE_ONCE(a[r0], 1);\n}\n\nP1(int *i)\n{\n\tWRITE_ONCE(*i, 2);\n}\n\nexists (a[1]=1)\n';
    const r = check(t);
    expect(summary(r)).toBe('Always 1 0');
    expect(r.flags).toEqual(['index-out-of-bounds']);
  });

  it('a field the struct lacks, a location the condition names that is none', () => {
    const t = (body: string, cond = 'exists (v.f=0)') => `C f\n{\n\tstruct s { int f; } v;\n}\n\nP0(struct s *v)\n{\n\t${body}\n}\n\n${cond}\n`;
    expect(errorOf(t('WRITE_ONCE(v->g, 1);'))).toBe('8:14 struct s has no field "g"');
    expect(errorOf(t('WRITE_ONCE(v->f, 1);', 'exists (v.h=0)'))).toBe('11:9 no location "v.h": v has no such element or field');
  });

  it('herd7 reads none of it (--herd-compatible), and litmus export writes one variable per element and field', () => {
    expect(refusals(herdFindings(parseLitmus(MP_ARRAY), MP_ARRAY)).every((f) => f.exportable)).toBe(true);
    const out = exportLitmus(MP_ARRAY);
    expect(out).toContain('int a_1 = 5;');
    expect(out).toContain('P0(int *a_0, int *a_1, int *v_f, int *v_g)');
    expect(out).toContain('smp_store_release(v_f, 1);');
    expect(refusals(herdFindings(parseLitmus(out), out))).toEqual([]);
    expect(summary(check(out))).toBe(summary(check(MP_ARRAY)));
  });

  it('a computed index cannot be exported: an error at its position', () => {
    const t = 'C c\n{\n\tint a[2];\n}\n\nP0(int *a)\n{\n\tint r0 = 1;\n\tWRITE_ONCE(a[r0], 1);\n}\n\nexists (a[1]=1)\n';
    expect(() => exportLitmus(t)).toThrow(/index computed at run time/);
  });
});

// Generated tests over an array a[2] and a struct v {f, g}: each thread a few
// accesses with constant indices; the exported test (one variable per
// element and field) must give the same verdict and counts.
const LVALUES = ['a[0]', 'a[1]', 'v->f', 'v.g'];
const access = fc.oneof(
  fc.record({ op: fc.constant('w' as const), at: fc.integer({ min: 0, max: 3 }), v: fc.integer({ min: 1, max: 2 }), kind: fc.constantFrom('WRITE_ONCE', 'smp_store_release') }),
  fc.record({ op: fc.constant('r' as const), at: fc.integer({ min: 0, max: 3 }), kind: fc.constantFrom('READ_ONCE', 'smp_load_acquire', 'plain') }),
  fc.record({ op: fc.constant('f' as const), kind: fc.constantFrom('smp_mb', 'smp_wmb', 'smp_rmb') }),
);
const program = fc.array(fc.array(access, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 3 });

function render(threads: fc.infer<typeof program>): string {
  const conds: string[] = [];
  const bodies = threads.map((ops, t) => {
    const lines: string[] = [];
    ops.forEach((o, k) => {
      if (o.op === 'f') lines.push(`\t${o.kind}();`);
      else if (o.op === 'w') lines.push(o.kind === 'WRITE_ONCE' ? `\tWRITE_ONCE(${LVALUES[o.at]}, ${o.v});` : `\tsmp_store_release(&${LVALUES[o.at]}, ${o.v});`);
      else {
        lines.push(`\tint r${k};`);
        const e = o.kind === 'plain' ? LVALUES[o.at] : o.kind === 'READ_ONCE' ? `READ_ONCE(${LVALUES[o.at]})` : `smp_load_acquire(&${LVALUES[o.at]})`;
        lines.push(`\tr${k} = ${e};`);
        conds.push(`${t}:r${k}=1`);
      }
    });
    return `P${t}(int *a, struct s *v)\n{\n${lines.join('\n')}\n}\n`;
  });
  const cond = conds.length ? conds.slice(0, 3).join(' /\\ ') : 'a[0]=0';
  return `C gen\n{\n\tint a[2];\n\tstruct s { int f; int g; } v;\n}\n\n${bodies.join('\n')}\nexists (${cond})\n`;
}

describe('litmus export of arrays and structs (property)', () => {
  it('the exported test (one variable per element and field) has the same verdict, counts, flags and number of states', () => {
    fc.assert(
      fc.property(program, (threads) => {
        const text = render(threads);
        const a = check(text);
        const b = check(exportLitmus(text));
        expect(`${summary(b)} ${b.flags.join(',')} ${b.states.length}`).toBe(`${summary(a)} ${a.flags.join(',')} ${a.states.length}`);
      }),
      { numRuns: 60 },
    );
  });
});
