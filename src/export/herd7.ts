// What herd7's C front end accepts, for `litmus export` and the
// `--herd-compatible` lint. Learnt from herdtools7's lib/CLexer.mll (the
// words it turns into keywords), lib/CParser.mly (the grammar of process
// code), lib/stateParser.mly (the initial state) and lib/splitter.mll (how a
// file is cut into sections); written down here, not copied.

/**
 * Words herd7's C lexer does not return as plain names: an identifier
 * spelled like one of these is a syntax error in process code.
 */
export const HERD_RESERVED: ReadonlySet<string> = new Set([
  // C keywords and types
  'volatile', 'const', '_Atomic', 'atomic', 'char', 'int', 'long', 'struct', 'void', 'if', 'else', 'while',
  'int8_t', 'uint8_t', 'int16_t', 'uint16_t', 'int32_t', 'uint32_t', 'int64_t', 'uint64_t',
  '__int128_t', '__uint128_t', '__int128', '__uint128', 'intptr_t', 'uintptr_t',
  'mtx_t', 'spinlock_t', 'atomic_t', 'atomic_int', 'srcu_struct', 'regions',
  // C11 atomics and mutexes
  'atomic_fetch_add_explicit', 'atomic_fetch_sub_explicit', 'atomic_fetch_or_explicit',
  'atomic_fetch_xor_explicit', 'atomic_fetch_and_explicit',
  'memory_order_acquire', 'memory_order_release', 'memory_order_acq_rel', 'memory_order_seq_cst',
  'memory_order_relaxed', 'memory_order_consume',
  'atomic_thread_fence', 'atomic_load_explicit', 'atomic_store_explicit', 'atomic_exchange_explicit',
  'lock', 'mtx_lock', 'unlock', 'mtx_unlock', 'WCAS', 'SCAS',
  'atomic_compare_exchange_weak', 'atomic_compare_exchange_strong',
  'atomic_compare_exchange_weak_explicit', 'atomic_compare_exchange_strong_explicit',
  // the internal forms linux-kernel.def is written in
  '__fence', '__load', '__store', '__srcu', '__xchg', '__cmpxchg', '__lock', '__trylock', '__islocked',
  '__unlock', '__atomic_op', '__atomic_op_return', '__atomic_fetch_op', '__atomic_add_unless',
]);

/** Whether herd7 would not read `name` as an identifier (`P3` is a process name to its lexer). */
export function isHerdReserved(name: string): boolean {
  return HERD_RESERVED.has(name) || /^P\d+$/.test(name);
}

/** Base types herd7's C grammar knows (a `struct` must be `struct srcu_struct`). */
export const HERD_BASE_TYPES: ReadonlySet<string> = new Set([
  'int', 'long', 'char', 'void', 'atomic_int', 'int8_t', 'uint8_t', 'int16_t', 'uint16_t', 'int32_t', 'uint32_t',
  'int64_t', 'uint64_t', 'intptr_t', 'uintptr_t', 'mtx_t', 'spinlock_t', 'atomic_t',
]);

/** Qualifiers herd7 accepts around a base type. */
const QUALIFIERS = new Set(['const', 'volatile', '_Atomic']);

/** Whether herd7 reads a type written as these words (stars included, e.g. `unsigned long *`). */
export function isHerdType(type: string): boolean {
  const words = type.replace(/\*/g, ' ').split(/\s+/).filter(Boolean);
  const base = words.filter((w) => !QUALIFIERS.has(w));
  if (base.length === 2) return base[0] === 'struct' && base[1] === 'srcu_struct';
  return base.length === 1 && HERD_BASE_TYPES.has(base[0]);
}

/**
 * The nearest type herd7 reads: sign and size words dropped (`unsigned long`
 * is `long`, `bool` is `int`), kernel aliases mapped to herd's. The type of
 * a location does not change what the LKMM allows.
 */
export function herdType(type: string): string {
  if (isHerdType(type)) return type;
  const stars = (type.match(/\*/g) ?? []).join('');
  const words = type.replace(/\*/g, ' ').split(/\s+/).filter((w) => w && !QUALIFIERS.has(w));
  let base = 'int';
  if (words.includes('raw_spinlock_t')) base = 'spinlock_t';
  else if (words.includes('atomic_long_t')) base = 'atomic_t';
  else if (words.includes('struct') && words.includes('srcu_struct')) base = 'struct srcu_struct';
  else if (words.includes('long') || words.some((w) => /^[us]64$/.test(w)) || words.includes('size_t')) base = 'long';
  else if (words.includes('char')) base = 'char';
  return stars ? `${base} ${stars}` : base;
}

/** Binary operators of herd7's C expressions (it has no shifts, `%`, `&&`, `||`). */
export const HERD_BINOPS: ReadonlySet<string> = new Set(['+', '-', '*', '/', '&', '|', '^', '==', '!=', '<', '<=', '>', '>=']);

/**
 * Words that end the process section wherever they appear in it, comments
 * included (herd7's splitter looks for the final clause before parsing C).
 */
export const SECTION_ENDERS = ['final', 'forall', 'exists', 'cases', 'observed', 'Observed', 'locations', 'filter'];
