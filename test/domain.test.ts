// The explorer's value domain (src/explore/domain.ts): addresses read off
// the code where they can be, values found only when a guessed read needs
// them, and the refusal when they grow past DOMAIN_CAP only then.

import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import { analyseValues, computeDomain, fixedAddresses } from '../src/explore/domain.js';
import { LimitError } from '../src/parse/errors.js';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram } from '../src/program/program.js';
import { lkmm } from '../models/lkmm.js';
import { corpusDir } from '../scripts/corpus.js';

/** A thread that reads two locations and writes `a * scale + b + add` to a third. */
function combine(n: number, a: string, b: string, out: string, scale: number, add = 0): string {
  const plus = add ? ` + ${add}` : '';
  return `P${n}(int *${a}, int *${b}, int *${out})\n{\n\tint r0;\n\tint r1;\n\n\tr0 = READ_ONCE(*${a});\n\tr1 = READ_ONCE(*${b});\n\tWRITE_ONCE(*${out}, r0 * ${scale} + r1${plus});\n}\n`;
}

/**
 * Nine threads whose last write can take 65,537 values (1..65,536 and the
 * initial 0): e and f are 0 or 1; c and d combine them (0..3), a and b
 * combine those (0..15), x and y (0..255), and z = x * 256 + y + 1. No read
 * has to guess its value, so no value set is needed.
 */
const PRODUCTS = [
  'C products\n\n{}\n',
  'P0(int *e)\n{\n\tWRITE_ONCE(*e, 1);\n}\n',
  'P1(int *f)\n{\n\tWRITE_ONCE(*f, 1);\n}\n',
  combine(2, 'e', 'f', 'c', 2),
  combine(3, 'e', 'f', 'd', 2),
  combine(4, 'c', 'd', 'a', 4),
  combine(5, 'c', 'd', 'b', 4),
  combine(6, 'a', 'b', 'x', 16),
  combine(7, 'a', 'b', 'y', 16),
  combine(8, 'x', 'y', 'z', 256, 1),
  'exists (8:r0=0)\n',
].join('\n');

/** The same with one more thread whose store goes through a pointer read from memory: its address needs the values. */
const THROUGH_POINTER = PRODUCTS.replace('{}', '{\n\tint *p = e;\n}').replace(
  'exists',
  'P9(int **p)\n{\n\tint *r0;\n\n\tr0 = READ_ONCE(*p);\n\tWRITE_ONCE(*r0, 1);\n}\n\nexists',
);

const programOf = (text: string) => buildProgram(parseLitmus(text));

describe('the value domain', () => {
  it('reads fixed addresses off the code and leaves the values until a guess asks for them', () => {
    const prog = programOf(PRODUCTS);
    const domain = computeDomain(prog);
    const z = prog.locations.indexOf('z');
    expect([...domain.addresses[8].flatMap((s) => [...s])]).toContain(z);
    // Asked for, the values are refused: more than DOMAIN_CAP for z.
    expect(() => domain.mayWrite).toThrow(LimitError);
    expect(() => domain.mayWrite).toThrow(/unbounded/);
  });

  it('checks such a test, as herd7 does (herd7 7.58: 100 states, Sometimes 12232 4152, in 45 s)', () => {
    const r = checkSource(PRODUCTS, { model: lkmm });
    expect([r.observation, r.positive, r.negative, r.states.length]).toEqual(['Sometimes', 12232, 4152, 100]);
  });

  it('refuses up front where an address needs the values and they are unbounded', () => {
    expect(fixedAddresses(programOf(THROUGH_POINTER))).toBeUndefined();
    expect(() => checkSource(THROUGH_POINTER, { model: lkmm })).toThrow(/unbounded/);
  });

  const dir = corpusDir();
  if (!dir) console.log('domain.test.ts: no corpus at ../shared/corpus (set LITMUS_CORPUS); skipping the comparison with the value analysis');
  it.skipIf(!dir)('gives the value analysis\'s addresses wherever it reads them off the code (kernel corpus)', () => {
    const files: string[] = [];
    const walk = (d: string) => readdirSync(d).forEach((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : f.endsWith('.litmus') && files.push(join(d, f))));
    walk(join(dir!, 'kernel'));
    walk(join(dir!, 'herd-linux'));
    let fixed = 0;
    for (const f of files) {
      const prog = programOf(readFileSync(f, 'utf8'));
      const addresses = fixedAddresses(prog);
      if (!addresses) continue;
      fixed++;
      const analysed = analyseValues(prog).addresses;
      expect(addresses.map((th) => th.map((s) => [...s].sort())), f).toEqual(analysed.map((th) => th.map((s) => [...s].sort())));
    }
    expect(fixed).toBeGreaterThan(100);
  });
});
