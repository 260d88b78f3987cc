// Generated C litmus tests that use what litmus reads beyond herd7's C:
// an array, a struct (by value and through a pointer), for and do loops,
// and static helper functions (one with a return inside an if). Shared by
// the export property tests (test/*.test.ts) and scripts/export-vs-herd7.ts,
// which checks that herd7 gives the exported tests the answers litmus gives
// the originals.

import fc from 'fast-check';

/** A shared location as an lvalue and as a pointer. */
const LOCATIONS: readonly { lvalue: string; pointer: string }[] = [
  { lvalue: 'a[0]', pointer: '&a[0]' },
  { lvalue: 'a[1]', pointer: '&a[1]' },
  { lvalue: 'v.f', pointer: '&v.f' },
  { lvalue: 'v->g', pointer: '&v->g' },
  { lvalue: '*x', pointer: 'x' },
];
/** How each location is named in the final condition. */
const FINAL_NAMES = ['a[0]', 'a[1]', 'v.f', 'v.g', 'x'];

const at = fc.integer({ min: 0, max: LOCATIONS.length - 1 });
const value = fc.integer({ min: 1, max: 2 });
const op = fc.oneof(
  fc.record({ k: fc.constant('write' as const), at, v: value, how: fc.constantFrom('WRITE_ONCE', 'smp_store_release', 'put', 'putf') }),
  fc.record({ k: fc.constant('read' as const), at, how: fc.constantFrom('READ_ONCE', 'smp_load_acquire', 'get', 'plain', 'bump') }),
  fc.record({ k: fc.constant('xchg' as const), at, v: value }),
  fc.record({ k: fc.constant('fence' as const), fence: fc.constantFrom('smp_mb', 'smp_wmb', 'smp_rmb') }),
);
const thread = fc.record({ loop: fc.constantFrom('none', 'none', 'for', 'do'), ops: fc.array(op, { minLength: 1, maxLength: 3 }) });

/** A generated program: two threads, and what the final condition asks of P1's sum and of one location. */
export const mixedProgram = fc.record({
  threads: fc.tuple(thread, thread),
  sum: fc.integer({ min: 0, max: 2 }),
  loc: fc.option(fc.record({ at, v: fc.integer({ min: 0, max: 2 }) }), { nil: undefined }),
});
export type MixedProgram = typeof mixedProgram extends fc.Arbitrary<infer T> ? T : never;

const HELPERS = [
  'static int get(int *p)\n{\n\treturn READ_ONCE(*p);\n}\n',
  'static void put(int *p, int v)\n{\n\tWRITE_ONCE(*p, v);\n}\n',
  'static void putf(struct s *p, int v)\n{\n\tWRITE_ONCE(p->f, v);\n}\n',
  // A return inside an if: what follows runs on the other path only.
  'static int bump(int *p)\n{\n\tint t = READ_ONCE(*p);\n\tif (t == 0)\n\t\treturn 0;\n\tWRITE_ONCE(*p, t + 1);\n\treturn t;\n}\n',
].join('\n');

function line(o: MixedProgram['threads'][0]['ops'][0]): string {
  if (o.k === 'fence') return `${o.fence}();`;
  const { lvalue, pointer } = LOCATIONS[o.at];
  if (o.k === 'xchg') return `r0 = r0 + xchg(${pointer}, ${o.v});`;
  if (o.k === 'write') {
    if (o.how === 'WRITE_ONCE') return `WRITE_ONCE(${lvalue}, ${o.v});`;
    if (o.how === 'smp_store_release') return `smp_store_release(${pointer}, ${o.v});`;
    if (o.how === 'putf') return `putf(v, ${o.v});`;
    return `put(${pointer}, ${o.v});`;
  }
  if (o.how === 'READ_ONCE') return `r0 = r0 + READ_ONCE(${lvalue});`;
  if (o.how === 'smp_load_acquire') return `r0 = r0 + smp_load_acquire(${pointer});`;
  if (o.how === 'plain') return `r0 = r0 + ${lvalue};`;
  return `r0 = r0 + ${o.how}(${pointer});`;
}

/** The C text of a generated program, named `name`. */
export function renderMixed(p: MixedProgram, name = 'gen'): string {
  const bodies = p.threads.map((t, ti) => {
    const ops = t.ops.map(line);
    const body =
      t.loop === 'for'
        ? `\tfor (i = 0; i < 2; i++) {\n${ops.map((l) => `\t\t${l}`).join('\n')}\n\t}`
        : t.loop === 'do'
          ? `\tdo {\n${ops.map((l) => `\t\t${l}`).join('\n')}\n\t\ti = i + 1;\n\t} while (i < 2);`
          : ops.map((l) => `\t${l}`).join('\n');
    return `P${ti}(int *a, struct s *v, int *x)\n{\n\tint i = 0;\n\tint r0 = 0;\n${body}\n}\n`;
  });
  const conds = [`1:r0=${p.sum}`, ...(p.loc ? [`${FINAL_NAMES[p.loc.at]}=${p.loc.v}`] : [])];
  return `C ${name}\n\n{\n\tint a[2];\n\tstruct s { int f; int g; } v;\n\tint x;\n}\n\n${HELPERS}\n${bodies.join('\n')}\nexists (${conds.join(' /\\ ')})\n`;
}

/** `n` generated programs, the same ones for the same seed. */
export function samplePrograms(n: number, seed: number): MixedProgram[] {
  return fc.sample(mixedProgram, { numRuns: n, seed });
}
