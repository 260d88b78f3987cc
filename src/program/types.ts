// The C types a test's arrays and structs need: how many locations a
// variable of a type is made of (its leaves: each element of an array, each
// field of a struct, each its own location, as herd7 treats `x` and `y`),
// where each leaf is from the variable's first address, and their names as
// the test writes them (`a[1]`, `v.f`, `s[0].f`).

import type { LitmusTest, Pos, StructDef } from '../parse/ast.js';
import { fail } from '../parse/errors.js';

export type CType =
  /** int, atomic_t, spinlock_t, a pointer's own word: one location. */
  | { k: 'scalar'; name: string }
  | { k: 'array'; elem: CType; n: number }
  /** A struct, with the test's definitions its fields' types name. */
  | { k: 'struct'; def: StructDef; all: readonly StructDef[] }
  /** What a pointer points to (the pointer itself is a scalar where it is stored). */
  | { k: 'ptr'; to: CType };

export const SCALAR: CType = { k: 'scalar', name: 'int' };

/** The most locations one variable may have. */
export const MAX_LEAVES = 256;
/** The most bytes one variable may take (see VAR_STRIDE). */
export const MAX_BYTES = 2048;

/**
 * The type a declaration's words give (`int`, `struct s`, `struct s *`,
 * `atomic_t`), with an array's sizes; a struct must be defined.
 */
export function typeOf(words: string, dims: readonly number[], structs: readonly StructDef[], pos: Pos): CType {
  const stars = (words.match(/\*/g) ?? []).length;
  const base = words.replace(/\*/g, '').trim();
  const m = /^struct\s+(\w+)$/.exec(base);
  let t: CType;
  if (m) {
    const def = structs.find((d) => d.name === m[1]);
    // A struct the test does not define (srcu_struct, ...) is one word, as herd7 takes it.
    t = def ? { k: 'struct', def, all: structs } : { k: 'scalar', name: base };
  } else t = { k: 'scalar', name: base || 'int' };
  // `int *p` in a declaration: p is a scalar holding a pointer to int.
  if (stars > 0) t = SCALAR;
  for (let i = dims.length - 1; i >= 0; i--) t = { k: 'array', elem: t, n: dims[i] };
  if (sizeOf(t) > MAX_LEAVES) fail(`this variable has more than ${MAX_LEAVES} elements and fields: too large`, pos);
  if (byteSize(t) > MAX_BYTES) fail(`this variable takes more than ${MAX_BYTES} bytes: too large`, pos);
  return t;
}

/** What a pointer declared with these words points to (`struct s *` -> struct s), or undefined when it is no pointer. */
export function pointee(words: string, structs: readonly StructDef[], pos: Pos): CType | undefined {
  const stars = (words.match(/\*/g) ?? []).length;
  if (stars === 0) return undefined;
  if (stars > 1) return SCALAR;
  return typeOf(words.replace(/\*/g, ''), [], structs, pos);
}

/** How many locations a variable of type t is. */
export function sizeOf(t: CType): number {
  switch (t.k) {
    case 'scalar':
    case 'ptr':
      return 1;
    case 'array':
      return t.n * sizeOf(t.elem);
    case 'struct':
      return t.def.fields.reduce((n, f) => n + sizeOf(fieldType(t, f)), 0);
  }
}

type StructType = Extract<CType, { k: 'struct' }>;

/** A field's type (a struct defined earlier, or a scalar). */
export function fieldType(s: StructType, f: StructDef['fields'][number]): CType {
  // Only structs defined before this one: no struct contains itself.
  return typeOf(f.type, f.dims, s.all.slice(0, s.all.indexOf(s.def)), f.pos);
}

/**
 * How many bytes a value of type t takes: herd7's sizes for the scalar
 * types its C reads (lib/testType.ml: int, long, atomic_t, 32-bit integers
 * 4; char and 8-bit integers 1; short and 16-bit 2; 64-bit 8), 4 for any
 * other scalar (spinlock_t, a pointer's word: herd7 has no array of them);
 * an array its elements', a struct its fields' one after another. Addresses
 * count bytes, as herd7's do: `*(a+4)` is `a[1]` of an `int a[2]`, and
 * `*(a+1)` a location of its own (see addLocationAt).
 */
export function byteSize(t: CType): number {
  switch (t.k) {
    case 'scalar':
      return SCALAR_BYTES[t.name] ?? 4;
    case 'ptr':
      return 4;
    case 'array':
      return t.n * byteSize(t.elem);
    case 'struct':
      return t.def.fields.reduce((n, f) => n + byteSize(fieldType(t, f)), 0);
  }
}

const SCALAR_BYTES: Readonly<Record<string, number>> = {
  char: 1, int8_t: 1, uint8_t: 1,
  short: 2, int16_t: 2, uint16_t: 2,
  int64_t: 8, uint64_t: 8,
};

/** Field `name` of struct s: where it starts (in bytes) and its type, or undefined. */
export function fieldOf(s: StructType, name: string): { offset: number; type: CType } | undefined {
  let offset = 0;
  for (const f of s.def.fields) {
    const type = fieldType(s, f);
    if (f.name === name) return { offset, type };
    offset += byteSize(type);
  }
  return undefined;
}

/** The leaves of a variable of type t: the name each adds to the variable's (`[1]`, `.f`), its offset in bytes and type. */
export function leaves(t: CType): { path: string; offset: number; type: CType }[] {
  switch (t.k) {
    case 'scalar':
    case 'ptr':
      return [{ path: '', offset: 0, type: t }];
    case 'array': {
      const size = byteSize(t.elem);
      const inner = leaves(t.elem);
      const out: { path: string; offset: number; type: CType }[] = [];
      for (let i = 0; i < t.n; i++) for (const l of inner) out.push({ path: `[${i}]${l.path}`, offset: i * size + l.offset, type: l.type });
      return out;
    }
    case 'struct': {
      const out: { path: string; offset: number; type: CType }[] = [];
      for (const f of t.def.fields) {
        const { offset } = fieldOf(t, f.name)!;
        for (const l of leaves(fieldType(t, f))) out.push({ path: `.${f.name}${l.path}`, offset: offset + l.offset, type: l.type });
      }
      return out;
    }
  }
}

/** How a type is written in messages. */
export function typeName(t: CType): string {
  switch (t.k) {
    case 'scalar':
      return t.name;
    case 'ptr':
      return `${typeName(t.to)} *`;
    case 'array':
      return `${typeName(t.elem)}[${t.n}]`;
    case 'struct':
      return `struct ${t.def.name}`;
  }
}

/**
 * The shared variables a test declares, in order, with their types: the
 * initial state's (`int a[4]`, `struct s v`, untyped `x=1` a scalar), then
 * the parameters' (`struct s *v`: v is a struct s) not declared there.
 */
export function sharedVariables(test: LitmusTest): Map<string, CType> {
  const structs = test.structs ?? [];
  const out = new Map<string, CType>();
  for (const it of test.init) {
    if (it.thread !== null || /[[.]/.test(it.name) || out.has(it.name)) continue;
    out.set(it.name, it.type ? typeOf(it.type, it.dims ?? [], structs, it.pos) : SCALAR);
  }
  for (const p of test.processes) {
    for (const q of p.params) if (!out.has(q.name)) out.set(q.name, pointee(q.type, structs, q.pos) ?? SCALAR);
  }
  return out;
}
