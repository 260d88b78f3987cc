// Every kernel primitive a litmus test may call, and what it does, following
// the LKMM's linux-kernel.def. This table is the one place where a
// primitive's meaning lives: the program layer looks names up here, the
// explorer turns each kind into events (src/explore/explorer.ts, `exec*`).

import type { Annot, FenceKind } from './event.js';

/** How an address argument is written: `READ_ONCE(*x)` or `smp_load_acquire(x)`. */
export type AddrStyle = 'lvalue' | 'pointer';

export type RmwOp = '+' | '-' | '&' | '|' | '^' | '&~';

export type Primitive =
  /** A load; returns the value read. */
  | { kind: 'load'; annot: Annot; addr: AddrStyle }
  /** A store of args[1] (no value). */
  | { kind: 'store'; annot: Annot; addr: AddrStyle; thenFence?: FenceKind }
  | { kind: 'fence'; fence: FenceKind }
  /** xchg(X, V): returns the old value. */
  | { kind: 'xchg'; annot: Annot }
  /** cmpxchg(X, old, new): returns the old value; writes only on a match. */
  | { kind: 'cmpxchg'; annot: Annot }
  /**
   * atomic_OP(V, X) and friends. `ret` says what is returned: nothing, the
   * new value, the old value; `test` post-processes the new value.
   */
  | { kind: 'atomic'; op: RmwOp; annot: Annot; ret: 'none' | 'new' | 'old'; test?: 'zero' | 'negative'; operand: 'arg' | number }
  /** atomic_add_unless(X, a, u): adds a unless the value is u; returns whether it added. */
  | { kind: 'add_unless'; annot: Annot }
  | { kind: 'spin_lock' }
  | { kind: 'spin_unlock' }
  | { kind: 'spin_trylock' }
  | { kind: 'spin_is_locked' }
  | { kind: 'srcu_lock' }
  | { kind: 'srcu_unlock' }
  | { kind: 'srcu_sync' };

export interface PrimitiveInfo {
  prim: Primitive;
  /** Number of arguments. */
  arity: number;
  /** Index of the address argument. */
  addrArg: number;
  /** Whether the call yields a value (may stand in an expression). */
  returns: boolean;
}

const table = new Map<string, PrimitiveInfo>();

function def(name: string, prim: Primitive, arity: number, addrArg: number, returns: boolean): void {
  table.set(name, { prim, arity, addrArg, returns });
}

// ONCE, acquire/release and friends.
def('READ_ONCE', { kind: 'load', annot: 'ONCE', addr: 'lvalue' }, 1, 0, true);
def('WRITE_ONCE', { kind: 'store', annot: 'ONCE', addr: 'lvalue' }, 2, 0, false);
def('smp_load_acquire', { kind: 'load', annot: 'ACQUIRE', addr: 'pointer' }, 1, 0, true);
def('smp_store_release', { kind: 'store', annot: 'RELEASE', addr: 'pointer' }, 2, 0, false);
def('rcu_dereference', { kind: 'load', annot: 'ONCE', addr: 'lvalue' }, 1, 0, true);
def('rcu_assign_pointer', { kind: 'store', annot: 'RELEASE', addr: 'lvalue' }, 2, 0, false);
def('smp_store_mb', { kind: 'store', annot: 'ONCE', addr: 'lvalue', thenFence: 'mb' }, 2, 0, false);
def('atomic_read', { kind: 'load', annot: 'ONCE', addr: 'pointer' }, 1, 0, true);
def('atomic_set', { kind: 'store', annot: 'ONCE', addr: 'pointer' }, 2, 0, false);
def('atomic_read_acquire', { kind: 'load', annot: 'ACQUIRE', addr: 'pointer' }, 1, 0, true);
def('atomic_set_release', { kind: 'store', annot: 'RELEASE', addr: 'pointer' }, 2, 0, false);

// Fences.
const fences: [string, FenceKind][] = [
  ['smp_mb', 'mb'], ['smp_rmb', 'rmb'], ['smp_wmb', 'wmb'], ['barrier', 'barrier'],
  ['smp_mb__before_atomic', 'before-atomic'], ['smp_mb__after_atomic', 'after-atomic'],
  ['smp_mb__after_spinlock', 'after-spinlock'], ['smp_mb__after_unlock_lock', 'after-unlock-lock'],
  ['smp_mb__after_srcu_read_unlock', 'after-srcu-read-unlock'],
  ['rcu_read_lock', 'rcu-lock'], ['rcu_read_unlock', 'rcu-unlock'],
  ['synchronize_rcu', 'sync-rcu'], ['synchronize_rcu_expedited', 'sync-rcu'],
];
for (const [name, fence] of fences) def(name, { kind: 'fence', fence }, 0, -1, false);

// Exchange. The suffix picks the annotation; no suffix means a full barrier.
const orders: [string, Annot][] = [['', 'MB'], ['_relaxed', 'ONCE'], ['_acquire', 'ACQUIRE'], ['_release', 'RELEASE']];
for (const [sfx, annot] of orders) {
  for (const pre of ['', 'atomic_']) {
    def(`${pre}xchg${sfx}`, { kind: 'xchg', annot }, 2, 0, true);
    def(`${pre}cmpxchg${sfx}`, { kind: 'cmpxchg', annot }, 3, 0, true);
  }
}

// The atomic_t family.
const ops: [string, RmwOp][] = [['add', '+'], ['sub', '-'], ['and', '&'], ['or', '|'], ['xor', '^'], ['andnot', '&~']];
for (const [name, op] of ops) {
  def(`atomic_${name}`, { kind: 'atomic', op, annot: 'NORETURN', ret: 'none', operand: 'arg' }, 2, 1, false);
  for (const [sfx, annot] of orders) {
    if (name === 'add' || name === 'sub') {
      def(`atomic_${name}_return${sfx}`, { kind: 'atomic', op, annot, ret: 'new', operand: 'arg' }, 2, 1, true);
    }
    def(`atomic_fetch_${name}${sfx}`, { kind: 'atomic', op, annot, ret: 'old', operand: 'arg' }, 2, 1, true);
  }
}
def('atomic_inc', { kind: 'atomic', op: '+', annot: 'NORETURN', ret: 'none', operand: 1 }, 1, 0, false);
def('atomic_dec', { kind: 'atomic', op: '-', annot: 'NORETURN', ret: 'none', operand: 1 }, 1, 0, false);
for (const [sfx, annot] of orders) {
  def(`atomic_inc_return${sfx}`, { kind: 'atomic', op: '+', annot, ret: 'new', operand: 1 }, 1, 0, true);
  def(`atomic_dec_return${sfx}`, { kind: 'atomic', op: '-', annot, ret: 'new', operand: 1 }, 1, 0, true);
  def(`atomic_fetch_inc${sfx}`, { kind: 'atomic', op: '+', annot, ret: 'old', operand: 1 }, 1, 0, true);
  def(`atomic_fetch_dec${sfx}`, { kind: 'atomic', op: '-', annot, ret: 'old', operand: 1 }, 1, 0, true);
  def(`atomic_add_negative${sfx}`, { kind: 'atomic', op: '+', annot, ret: 'new', test: 'negative', operand: 'arg' }, 2, 1, true);
}
def('atomic_sub_and_test', { kind: 'atomic', op: '-', annot: 'MB', ret: 'new', test: 'zero', operand: 'arg' }, 2, 1, true);
def('atomic_dec_and_test', { kind: 'atomic', op: '-', annot: 'MB', ret: 'new', test: 'zero', operand: 1 }, 1, 0, true);
def('atomic_inc_and_test', { kind: 'atomic', op: '+', annot: 'MB', ret: 'new', test: 'zero', operand: 1 }, 1, 0, true);
def('atomic_add_unless', { kind: 'add_unless', annot: 'MB' }, 3, 0, true);

// Spinlocks.
def('spin_lock', { kind: 'spin_lock' }, 1, 0, false);
def('spin_unlock', { kind: 'spin_unlock' }, 1, 0, false);
def('spin_trylock', { kind: 'spin_trylock' }, 1, 0, true);
def('spin_is_locked', { kind: 'spin_is_locked' }, 1, 0, true);

// SRCU.
def('srcu_read_lock', { kind: 'srcu_lock' }, 1, 0, true);
def('srcu_down_read', { kind: 'srcu_lock' }, 1, 0, true);
def('srcu_read_unlock', { kind: 'srcu_unlock' }, 2, 0, false);
def('srcu_up_read', { kind: 'srcu_unlock' }, 2, 0, false);
def('synchronize_srcu', { kind: 'srcu_sync' }, 1, 0, false);
def('synchronize_srcu_expedited', { kind: 'srcu_sync' }, 1, 0, false);

export function lookupPrimitive(name: string): PrimitiveInfo | undefined {
  return table.get(name) ?? (name.startsWith('atomic_long_') ? table.get('atomic_' + name.slice(12)) : undefined);
}

export function primitiveNames(): string[] {
  return [...table.keys()].sort();
}
