// The one integer arithmetic of litmus, herd7's for C tests: every value is
// a 32-bit signed integer in two's complement, and every operation wraps
// (herd7 runs C tests on OCaml's Int32). The parser, the program layer, the
// explorer and its value domain, the primitive table's RMWs and the
// TypeScript suite reader all compute through this module.
//
// Limits, as herd7's: a constant must be an Int32 as OCaml reads one (a
// decimal from -2147483648 to 2147483647; a hexadecimal up to 0xffffffff,
// read as its two's-complement value); a division or remainder by zero
// stops herd7, so it is an error here too (see DIVIDES).

/** The value v wraps to: v modulo 2^32, as a signed 32-bit integer. */
export const wrap32 = (v: number): number => v | 0;

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** The binary operators, each on two Int32 values (comparisons give 1 or 0). */
export type BinaryOp =
  | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '&~' | '<<' | '>>'
  | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||';
export type UnaryOp = '-' | '!' | '~';

/** The operators a zero right operand makes undefined (herd7: OCaml's Division_by_zero). */
export const DIVIDES: ReadonlySet<string> = new Set(['/', '%']);

/** Thrown by binary32 for a division or remainder by zero; callers that know a position report it. */
export class DivisionByZero extends Error {
  constructor(readonly op: string) {
    super(`division by zero ("${op}" of 0)`);
  }
}

/**
 * op on a and b (Int32 values), wrapped as herd7 wraps it: `+ - *` modulo
 * 2^32, `/` truncated toward zero (INT32_MIN / -1 is INT32_MIN), `%` with the
 * dividend's sign, shifts by the count's low 5 bits, `>>` arithmetic.
 */
export function binary32(op: string, a: number, b: number): number {
  switch (op) {
    case '+': return (a + b) | 0;
    case '-': return (a - b) | 0;
    case '*': return Math.imul(a, b);
    case '/':
      if (b === 0) throw new DivisionByZero(op);
      return (a / b) | 0;
    case '%':
      if (b === 0) throw new DivisionByZero(op);
      return (a % b) | 0;
    case '&': return a & b;
    case '|': return a | b;
    case '^': return a ^ b;
    case '&~': return a & ~b;
    case '<<': return a << b;
    case '>>': return a >> b;
    case '==': return a === b ? 1 : 0;
    case '!=': return a !== b ? 1 : 0;
    case '<': return a < b ? 1 : 0;
    case '<=': return a <= b ? 1 : 0;
    case '>': return a > b ? 1 : 0;
    case '>=': return a >= b ? 1 : 0;
    case '&&': return a !== 0 && b !== 0 ? 1 : 0;
    case '||': return a !== 0 || b !== 0 ? 1 : 0;
    default: throw new Error(`unknown operator ${op}`);
  }
}

/** op on a (an Int32 value), wrapped: -INT32_MIN is INT32_MIN. */
export function unary32(op: string, a: number): number {
  switch (op) {
    case '-': return -a | 0;
    case '!': return a === 0 ? 1 : 0;
    case '~': return ~a;
    default: throw new Error(`unknown operator ${op}`);
  }
}

/**
 * The value of a numeric constant as herd7 reads it (OCaml's
 * Int32.of_string): `digits` is its text without sign or integer suffix,
 * `negative` whether a minus sign precedes it. A string says why herd7
 * refuses it.
 */
export function constant32(digits: string, negative: boolean): number | string {
  const hex = /^0[xX][0-9a-fA-F]+$/.test(digits);
  if (!hex && !/^[0-9]+$/.test(digits)) return `"${digits}" is not a number`;
  const v = BigInt(digits);
  const shown = `${negative ? '-' : ''}${digits}`;
  if (hex) {
    if (v > 0xffffffffn) return `the constant ${shown} does not fit in 32 bits (herd7 reads constants as 32-bit integers: at most 0xffffffff)`;
    return wrap32((negative ? -1 : 1) * Number(v));
  }
  const signed = negative ? -v : v;
  if (signed < BigInt(INT32_MIN) || signed > BigInt(INT32_MAX)) {
    return `the constant ${shown} does not fit in 32 bits (herd7 reads constants as 32-bit signed integers: -2147483648 to 2147483647)`;
  }
  return Number(signed);
}
