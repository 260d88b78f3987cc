// herd7's arithmetic (every value an Int32, every operation wrapping at 32
// bits, constants read as OCaml reads an Int32) and herd7's scoping (a name a
// process does not declare is its register, 0): issue 18's "silent wrong
// answers", each case end to end, and the arithmetic module against BigInt
// two's-complement arithmetic on random operands.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binary32, constant32, DivisionByZero, unary32 } from '../src/program/arith.js';
import { checkSource } from '../src/check.js';
import { LitmusError } from '../src/parse/errors.js';
import { lkmm } from '../models/lkmm.js';
import { readSuite } from '../src/suite/read.js';
import { CLI, litmus, ROOT, runNode } from './util.js';

const int32 = fc.integer({ min: -2147483648, max: 2147483647 });
/** Operands near the edges of the range, where wrapping shows, as well as anywhere. */
const operand = fc.oneof(int32, fc.constantFrom(0, 1, -1, 2, 2147483647, -2147483648, 2147483646, -2147483647, 65536, 46341));
const big = (v: bigint): number => Number(BigInt.asIntN(32, v));
const bool = (b: boolean): number => (b ? 1 : 0);

/** Each operator on exact integers (BigInt), then taken modulo 2^32 as a signed value: the Int32 oracle. */
const ORACLE: Record<string, (a: bigint, b: bigint) => number> = {
  '+': (a, b) => big(a + b),
  '-': (a, b) => big(a - b),
  '*': (a, b) => big(a * b),
  '/': (a, b) => big(a / b), // BigInt division truncates toward zero, as C and OCaml's Int32.div
  '%': (a, b) => big(a % b), // the remainder has the dividend's sign
  '&': (a, b) => big(a & b),
  '|': (a, b) => big(a | b),
  '^': (a, b) => big(a ^ b),
  '&~': (a, b) => big(a & ~b),
  '<<': (a, b) => big(a << (b & 31n)),
  '>>': (a, b) => big(a >> (b & 31n)),
  '==': (a, b) => bool(a === b),
  '!=': (a, b) => bool(a !== b),
  '<': (a, b) => bool(a < b),
  '<=': (a, b) => bool(a <= b),
  '>': (a, b) => bool(a > b),
  '>=': (a, b) => bool(a >= b),
  '&&': (a, b) => bool(a !== 0n && b !== 0n),
  '||': (a, b) => bool(a !== 0n || b !== 0n),
};

describe('the arithmetic module agrees with Int32 two\'s-complement arithmetic', () => {
  for (const [op, oracle] of Object.entries(ORACLE)) {
    it(`"${op}" on random operands`, () => {
      fc.assert(
        fc.property(operand, operand, (a, b) => {
          if ((op === '/' || op === '%') && b === 0) {
            expect(() => binary32(op, a, b)).toThrow(DivisionByZero);
            return;
          }
          const got = binary32(op, a, b);
          expect(Object.is(got, -0)).toBe(false);
          expect(got).toBe(oracle(BigInt(a), BigInt(b)));
          // And with JavaScript's own 32-bit operations where it has them.
          if (op === '*') expect(got).toBe(Math.imul(a, b));
          if (op === '+') expect(got).toBe((a + b) | 0);
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('unary "-", "~" and "!"', () => {
    fc.assert(
      fc.property(operand, (a) => {
        expect(unary32('-', a)).toBe(big(-BigInt(a)));
        expect(unary32('~', a)).toBe(big(~BigInt(a)));
        expect(unary32('!', a)).toBe(bool(a === 0));
      }),
      { numRuns: 2000 },
    );
  });

  it('INT32_MIN / -1 is INT32_MIN (OCaml\'s Int32.div), and x % -1 is 0', () => {
    expect(binary32('/', -2147483648, -1)).toBe(-2147483648);
    expect(Object.is(binary32('%', -2147483648, -1), 0)).toBe(true);
    expect(binary32('/', -7, 2)).toBe(-3);
    expect(binary32('%', -7, 2)).toBe(-1);
  });

  it('constants: decimals in the signed range, hexadecimals up to 0xffffffff (as OCaml\'s Int32.of_string)', () => {
    const wide = fc.bigInt({ min: -(1n << 45n), max: 1n << 45n });
    fc.assert(
      fc.property(wide, (v) => {
        const negative = v < 0n;
        const mag = negative ? -v : v;
        const dec = constant32(mag.toString(), negative);
        if (v >= -(1n << 31n) && v < 1n << 31n) expect(dec).toBe(Number(v));
        else expect(typeof dec).toBe('string');
        if (!negative) {
          const hex = constant32(`0x${mag.toString(16)}`, false);
          if (mag <= 0xffffffffn) expect(hex).toBe(big(mag));
          else expect(typeof hex).toBe('string');
        }
      }),
      { numRuns: 2000 },
    );
    expect(constant32('2147483647', false)).toBe(2147483647);
    expect(constant32('2147483648', true)).toBe(-2147483648);
    expect(typeof constant32('2147483648', false)).toBe('string');
    expect(typeof constant32('4294967295', false)).toBe('string');
    expect(constant32('0xffffffff', false)).toBe(-1);
    expect(constant32('0x80000000', false)).toBe(-2147483648);
    expect(typeof constant32('0x100000000', false)).toBe('string');
  });
});

const check = (text: string) => checkSource(text, { model: lkmm });
const verdict = (text: string) => {
  const r = check(text);
  return `${r.observation} ${r.positive} ${r.negative}`;
};
function errorOf(text: string): LitmusError {
  try {
    check(text);
  } catch (e) {
    if (e instanceof LitmusError) return e;
    throw e;
  }
  throw new Error('expected a LitmusError, but the test was accepted');
}
const one = (body: string, cond: string, init = '') => litmus('t', [body], cond, { init, params: ['int *x'] });

describe('issue 18: values wrap at 32 bits everywhere, as in herd7', () => {
  it('"+", "-" and "*" in the program', () => {
    expect(verdict(one('int r0;\n\tr0 = 2147483647 + 1;\n\tWRITE_ONCE(*x, r0);', 'exists (x=-2147483648)'))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = -2147483648 - 1;\n\tWRITE_ONCE(*x, r0);', 'exists (x=2147483647)'))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = 65536 * 65536;\n\tWRITE_ONCE(*x, r0);', 'exists (x=0)'))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = 2147483647 * 2;\n\tWRITE_ONCE(*x, r0);', 'exists (x=-2)'))).toBe('Always 1 0');
  });

  it('"/" truncates, and INT_MIN / -1 wraps', () => {
    expect(verdict(one('int r0;\n\tr0 = -7 / 2;\n\tWRITE_ONCE(*x, r0);', 'exists (x=-3)'))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = -2147483648 / -1;\n\tWRITE_ONCE(*x, r0);', 'exists (x=-2147483648)'))).toBe('Always 1 0');
  });

  it('r0 == (r0 | 0) for r0 = INT_MAX + 1', () => {
    expect(verdict(one('int r0;\n\tint r1;\n\tr0 = 2147483647 + 1;\n\tr1 = (r0 == (r0 | 0));\n\tWRITE_ONCE(*x, r1);', 'exists (x=1)'))).toBe('Always 1 0');
  });

  it('a condition: if (INT_MAX + 1 < 0)', () => {
    expect(verdict(one('if (2147483647 + 1 < 0) WRITE_ONCE(*x, 1);', 'exists (x=1)'))).toBe('Always 1 0');
  });

  it('RMWs: atomic_inc on INT_MAX, atomic_add_return, atomic_dec_and_test, a cmpxchg comparing with the wrapped value', () => {
    const init = 'x=2147483647;';
    expect(verdict(one('atomic_inc(x);', 'exists (x=-2147483648)', init))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = atomic_add_return(2, x);', 'exists (0:r0=-2147483647 /\\ x=-2147483647)', init))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = atomic_fetch_add(1, x);', 'exists (0:r0=2147483647 /\\ x=-2147483648)', init))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = atomic_inc_return(x);\n\tr0 = cmpxchg(x, r0, 5);', 'exists (x=5)', init))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = atomic_add_negative(1, x);', 'exists (0:r0=1)', init))).toBe('Always 1 0');
    expect(verdict(one('int r0;\n\tr0 = atomic_add_unless(x, 1, 0);', 'exists (0:r0=1 /\\ x=-2147483648)', init))).toBe('Always 1 0');
  });

  it('an initial value, read and incremented', () => {
    expect(verdict(one('int r0;\n\tr0 = READ_ONCE(*x) + 1;', 'exists (0:r0=-2147483648)', 'x=2147483647;'))).toBe('Always 1 0');
  });

  it('hexadecimal constants up to 0xffffffff are their two\'s-complement values', () => {
    expect(verdict(one('int r0;\n\tr0 = READ_ONCE(*x) + 1;', 'exists (0:r0=0)', 'x=0xffffffff;'))).toBe('Always 1 0');
    expect(verdict(one('WRITE_ONCE(*x, 1);', 'exists (x=1)', 'x=0x80000000;'))).toBe('Always 1 0');
  });

  it('the final condition compares 32-bit values', () => {
    expect(verdict(one('WRITE_ONCE(*x, -2147483648);', 'exists (x=-2147483648)'))).toBe('Always 1 0');
  });
});

describe('issue 18: constants herd7 refuses are refused, with their position', () => {
  it('2^53+1, which a double rounds to 2^53', () => {
    const e = errorOf(one('WRITE_ONCE(*x, 9007199254740993);', 'exists (x=9007199254740992)'));
    expect(e.format('t.litmus')).toMatch(/^t\.litmus:9:16: the constant 9007199254740993 does not fit in 32 bits/);
  });

  it('two different 40-digit numbers (which doubles would find equal)', () => {
    const e = errorOf(one('WRITE_ONCE(*x, 1);', 'exists (x=1234567890123456789012345678901234567891)', 'x=1234567890123456789012345678901234567890;'));
    expect(e.message).toMatch(/^the constant 1234567890123456789012345678901234567890 does not fit in 32 bits/);
    expect(e.pos).toEqual({ line: 4, col: 3 });
    const c = errorOf(one('WRITE_ONCE(*x, 1);', 'exists (x=1234567890123456789012345678901234567891)'));
    expect(c.pos).toEqual({ line: 12, col: 11 });
  });

  it('2147483648 and 4294967295 (decimal), in the code, the initial state and the condition; -2147483648 is fine', () => {
    expect(errorOf(one('WRITE_ONCE(*x, 2147483648);', 'exists (x=0)')).pos).toEqual({ line: 9, col: 16 });
    expect(errorOf(one('WRITE_ONCE(*x, 1);', 'exists (x=1)', 'x=4294967295;')).pos).toEqual({ line: 4, col: 3 });
    expect(errorOf(one('WRITE_ONCE(*x, 1);', 'exists (x=-2147483649)')).pos).toEqual({ line: 12, col: 11 });
    expect(errorOf(one('WRITE_ONCE(*x, 0x100000000);', 'exists (x=0)')).message).toMatch(/at most 0xffffffff/);
    expect(verdict(one('WRITE_ONCE(*x, -2147483648);', 'exists (x=-2147483648)', 'x=-2147483648;'))).toBe('Always 1 0');
  });

  it('a division by zero (herd7 stops on it)', () => {
    const e = errorOf(one('int r0;\n\tint r1;\n\tr1 = READ_ONCE(*x);\n\tr0 = 5 / r1;', 'exists (0:r0=0)'));
    expect(e.format('t.litmus')).toBe('t.litmus:12:9: division by zero: the right side of "/" is 0 here (herd7 stops on it)');
  });

  it('on the command line: file:line:col and exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-arith-'));
    writeFileSync(join(dir, 'big.litmus'), one('WRITE_ONCE(*x, 9007199254740993);', 'exists (x=0)'));
    const r = await runNode([CLI, 'check', 'big.litmus'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^big\.litmus:9:16: the constant 9007199254740993 does not fit in 32 bits/);
  });

  it('a TypeScript suite: its literals are read as herd7 reads constants, its constants folded in the same arithmetic', async () => {
    const kernel = join(ROOT, 'litmus', 'kernel.js');
    const write = (src: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'litmus-arith-ts-'));
      writeFileSync(join(dir, 't.ts'), src.replaceAll('KERNEL', kernel));
      return join(dir, 't.ts');
    };
    const scenario = (value: string) =>
      `import { WRITE_ONCE, scenario, type Ref } from 'KERNEL';\ninterface S { x: Ref }\n` +
      `export default scenario({ name: 't', says: 'a value', threads: [(s: S) => WRITE_ONCE(s.x, ${value})], exists: (_p, mem) => mem.x === -2147483648 });\n`;
    await expect(readSuite(write(scenario('2147483648')), { fresh: true })).rejects.toThrow(/the constant 2147483648 does not fit in 32 bits/);
    const folded = await readSuite(write(scenario('2147483647 + 1')), { fresh: true });
    expect(check((await import('../src/parse/printer.js')).printLitmus(folded.tests[0].test)).observation).toBe('Always');
  });
});

describe('issue 18: herd7\'s scoping (a name a process does not declare is its register, holding 0)', () => {
  const LOCKS = (p1Params: string) =>
    litmus(
      'locks',
      [
        'int r0;\n\tspin_lock(l);\n\tWRITE_ONCE(*x, 1);\n\tr0 = READ_ONCE(*x);\n\tWRITE_ONCE(*x, 0);\n\tspin_unlock(l);',
        'int r1;\n\tspin_lock(l);\n\tr1 = READ_ONCE(*x);\n\tspin_unlock(l);',
      ],
      'exists (1:r1=1)',
      { params: ['spinlock_t *l, int *x', p1Params] },
    );

  it('P1 locks "l" but its parameters name "m": it locks location 0, not P0\'s lock (herd7: Sometimes 1 2)', () => {
    expect(verdict(LOCKS('spinlock_t *m, int *x'))).toBe('Sometimes 1 2');
    expect(verdict(LOCKS('spinlock_t *l, int *x'))).toBe('Never 0 2');
  });

  it('a write through a name the process does not take is refused where a path reaches it, as herd7 refuses it (checked against herd7 7.58)', () => {
    const t = litmus('w', ['WRITE_ONCE(*y, 1);', 'WRITE_ONCE(*y, 2);'], 'exists (y=2)', { params: ['int *y', 'int *x'] });
    const e = errorOf(t);
    expect(e.message).toMatch(/^"y" is not a parameter of P1: herd7 takes it for a register holding 0 and refuses this WRITE_ONCE at address 0 \("Non-symbolic memory access found on '\[0\]'"\)/);
    expect(e.pos?.line).toBe(14);
    // SRCU's read-side lock is such an access too; a grace period there is not.
    const srcu = (body: string) => litmus('s', [body, 'int r1;\n\tr1 = READ_ONCE(*x);'], 'exists (1:r1=1)', { params: ['int *x', 'int *x'] });
    expect(() => check(srcu('int r0;\n\tr0 = srcu_read_lock(s);\n\tWRITE_ONCE(*x, 1);\n\tsrcu_read_unlock(s, r0);'))).toThrow(/"s" is not a parameter of P0: .*srcu_read_lock at address 0/);
    expect(verdict(srcu('synchronize_srcu(s);\n\tWRITE_ONCE(*x, 1);'))).toBe('Sometimes 1 1');
    // On a path no execution takes, herd7 answers (it checks the executions it builds): so does litmus.
    expect(verdict(srcu('int r0;\n\tr0 = READ_ONCE(*x);\n\tif (r0 == 5) WRITE_ONCE(*y, 1);\n\tWRITE_ONCE(*x, 1);'))).toBe('Sometimes 1 1');
  });

  it('address 0 has no initial write: spin_is_locked() there reads only what a lock or unlock wrote (herd7: Never 0 0 alone, Sometimes 2 2 beside a critical section)', () => {
    const t = (p0: string) => litmus('il', [p0, 'int r1;\n\tr1 = spin_is_locked(l);\n\tr1 = READ_ONCE(*x);'], 'exists (1:r1=1)', { params: ['int *x', 'int *x'] });
    expect(verdict(t('WRITE_ONCE(*x, 1);'))).toBe('Never 0 0');
    expect(verdict(t('spin_lock(l);\n\tspin_unlock(l);\n\tWRITE_ONCE(*x, 1);'))).toBe('Sometimes 2 2');
  });

  it('a read through one is refused, where it is', () => {
    const t = litmus('r', ['WRITE_ONCE(*y, 1);', 'int r1;\n\tr1 = READ_ONCE(*y);'], 'exists (1:r1=1)', { params: ['int *y', 'int *x'], init: 'y=0;' });
    const e = errorOf(t);
    expect(e.format('r.litmus')).toMatch(/^r\.litmus:15:17: "y" is not a parameter of P1: herd7 takes it for a register holding 0 and refuses to read at address 0/);
    // The same for an RMW, which reads.
    expect(() => check(t.replace('r1 = READ_ONCE(*y);', 'r1 = xchg(y, 2);'))).toThrow(/"y" is not a parameter of P1/);
  });

  it('a read through one, where a write of the test may be at 0 (its address computed), waits for it: herd7 has no execution then, or refuses the write at 0 (checked against herd7 7.58)', () => {
    // P1 writes through a pointer it read: *z when x holds z (herd7: Never 0 0), at 0 when x holds 0 (herd7: refused).
    const ptr = (init: string, extra = '') =>
      litmus('p', ['int r0;\n\tr0 = READ_ONCE(*y);', 'int *r1;\n\tr1 = READ_ONCE(*x);\n\tWRITE_ONCE(*r1, 1);', ...(extra ? [extra] : [])], 'exists (0:r0=1)', {
        params: ['int *x', 'int **x, int *z', ...(extra ? ['int **x, int *z'] : [])],
        init,
      });
    expect(verdict(ptr('int *x = z;'))).toBe('Never 0 0');
    expect(errorOf(ptr('int *x = 0;')).message).toMatch(/^WRITE_ONCE writes at address 0, computed from what was read/);
    expect(errorOf(ptr('', 'WRITE_ONCE(*x, z);')).message).toMatch(/^WRITE_ONCE writes at address 0, computed from what was read/);
    // The reading thread's own later write through a pointer it read counts too (herd7: Never 0 0).
    const own = litmus('o', ['WRITE_ONCE(*x, 2);', 'int *r2;\n\tr2 = READ_ONCE(*x1);\n\tWRITE_ONCE(*r2, 3);'], 'exists (x=2)', { params: ['int *x', 'int *v'] });
    expect(verdict(own)).toBe('Never 0 0');
    // With no such write on the path taken, herd7 refuses the test ("Non symbolic location with no initial write").
    const dead = litmus('d', ['int r0;\n\tr0 = READ_ONCE(*y);', 'int r1;\n\tr1 = READ_ONCE(*x);\n\tif (r1 == 7) WRITE_ONCE(*y, 1);'], 'exists (0:r0=1)', { params: ['int *x', 'int *x'] });
    expect(errorOf(dead).message).toMatch(/^"y" is not a parameter of P0: herd7 takes it for a register holding 0 and refuses to read at address 0/);
  });

  it('a write at another number than 0, with no read deciding it, is refused rather than dropped', () => {
    const e = errorOf(one('WRITE_ONCE(*(l + 4), 1);\n\tWRITE_ONCE(*x, 1);', 'exists (x=1)'));
    expect(e.message).toBe('WRITE_ONCE acts on address 4, which is no location (litmus takes only 0, an undeclared name, for one)');
    expect(e.pos).toEqual({ line: 9, col: 1 });
  });

  it('NULL is such a register too: 0, and writing through it is refused as herd7 refuses it', () => {
    expect(() => check(one('int *r0;\n\tr0 = NULL;\n\tif (r0 == NULL) WRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*NULL, 3);', 'exists (x=1)'))).toThrow(/refuses this WRITE_ONCE at address 0/);
  });

  it('litmus\'s arrays and structs may still be named in code without being parameters', () => {
    const t = litmus('s', ['WRITE_ONCE(v.b, 1);\n\tWRITE_ONCE(a[1], 2);'], 'exists (v.b=1 /\\ a[1]=2)', {
      params: ['int *x'],
      init: 'struct pair { int a; int b; };\nstruct pair v;\nint a[2];',
    });
    expect(verdict(t)).toBe('Always 1 0');
  });

  it('a register the initial state gives a location is that location, as herd7', () => {
    const t = litmus('i', ['WRITE_ONCE(*y, 1);', 'int r1;\n\tr1 = READ_ONCE(*p);'], 'exists (1:r1=1)', { params: ['int *y', 'int *x'], init: '1:p=y;' });
    expect(verdict(t)).toBe('Sometimes 1 1');
  });
});

describe('herd7\'s arithmetic on addresses (found by scripts/fuzz-herd7.ts; each case checked against herd7 7.58)', () => {
  // P0 holds the addresses of a and x in r0 and r2, computes r1 from them and writes it to y.
  const on = (expr: string) =>
    litmus('op', [`int *r0 = a;\n\tint *r2 = x;\n\tint r1;\n\tr1 = ${expr};\n\tWRITE_ONCE(*y, r1);`], 'exists (y=0)', { params: ['int *x, int *y, int *a'] });
  const stored = (expr: string) => check(on(expr)).states.map((s) => s.bindings.map(([k, v]) => `${k}=${v}`).join(' '));

  it('offsets, comparisons, a difference of addresses (by name: a before x) and or/xor with what leaves them are computed as herd7 computes them', () => {
    expect(stored('r0 + 2')).toEqual(['[y]=a+2']);
    expect(stored('r0 - 2')).toEqual(['[y]=a+-2']);
    expect(stored('r0 | 0')).toEqual(['[y]=a']);
    expect(stored('r0 - r2')).toEqual(['[y]=-1']);
    expect(stored('r2 - r0')).toEqual(['[y]=1']);
    expect(stored('r0 ^ r0')).toEqual(['[y]=0']);
    expect(stored('r0 == 2')).toEqual(['[y]=0']);
    expect(stored('r0 != 2')).toEqual(['[y]=1']);
    expect(stored('r0 == r2')).toEqual(['[y]=0']);
    expect(stored('r0 < 0')).toEqual(['[y]=0']);
    expect(stored('0 < r0')).toEqual(['[y]=1']);
    expect(stored('r0 > 0')).toEqual(['[y]=1']);
    expect(stored('0 > r0')).toEqual(['[y]=0']);
  });

  it.each(['r0 * 2', 'r0 / 2', 'r0 / 1', 'r0 & 2', 'r0 ^ 0', 'r0 < 2', 'r0 <= 0', 'r0 + r2', '0 - r0', 'r0 | 5'])('%s is refused at its place, as herd7 refuses it ("Illegal operation")', (expr) => {
    const e = errorOf(on(expr));
    expect(e.message).toMatch(/^herd7 refuses ".+" on (an address and a number|two addresses) \("Illegal operation/);
    expect(e.pos?.line).toBe(12);
  });

  it('a write at address 0 computed from a read (a pointer minus itself) is refused, as herd7 refuses it', () => {
    const t = litmus('w0', ['int *r0 = x;\n\tWRITE_ONCE(*p, r0 - r0);', 'int *r1;\n\tr1 = READ_ONCE(*p);\n\tWRITE_ONCE(*r1, 1);'], 'exists (x=1)', { params: ['int *x, int **p', 'int *x, int **p'], init: 'int *p = x;' });
    expect(errorOf(t).message).toBe(`WRITE_ONCE writes at address 0, computed from what was read: herd7 refuses a write at a number ("Non-symbolic memory access found on '[0]'")`);
  });
});
