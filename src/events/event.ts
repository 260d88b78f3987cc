// What an execution is made of. One Event per memory access, fence, lock or
// SRCU operation; src/events/primitives.ts says which events each kernel
// primitive produces.

import type { Pos } from '../parse/ast.js';

export type EventKind = 'R' | 'W' | 'F';

/**
 * The annotation a primitive puts on an access, as the LKMM's .def file does:
 * herd's syntactic tags ONCE, ACQUIRE, RELEASE, MB, NORETURN; PLAIN for C
 * accesses without a macro.
 */
export const ANNOTS = ['ONCE', 'ACQUIRE', 'RELEASE', 'MB', 'NORETURN', 'PLAIN'] as const;
export type Annot = (typeof ANNOTS)[number];

/**
 * The fence tags of the LKMM's linux-kernel.bell (`enum Barriers`), as herd
 * writes them: smp_mb()'s fence is `MB`, the tag its fully ordered accesses
 * carry too.
 */
export const FENCE_KINDS = [
  'MB', 'rmb', 'wmb', 'barrier', 'rcu-lock', 'rcu-unlock', 'sync-rcu',
  'before-atomic', 'after-atomic', 'after-spinlock', 'after-unlock-lock',
  'after-srcu-read-unlock',
] as const;
export type FenceKind = (typeof FENCE_KINDS)[number];

/**
 * A tag an event carries, as a .def macro wrote it (`__load{TAG}`,
 * `__fence{TAG}`): one of the LKMM's (Annot, FenceKind) or any other name a
 * user's .def gives, which a model read from a .cat file may name. The
 * built-in models know only the LKMM's (src/events/def.ts refuses others for them).
 */
export type AccessTag = Annot | (string & {});
export type FenceTag = FenceKind | (string & {});

/** Lock events of the LKMM's lock.cat. */
export const LOCK_KINDS = ['LKR', 'LKW', 'UL', 'LF', 'RL', 'RU'] as const;
export type LockKind = (typeof LOCK_KINDS)[number];

export const SRCU_KINDS = ['srcu-lock', 'srcu-unlock', 'sync-srcu'] as const;
export type SrcuKind = (typeof SRCU_KINDS)[number];

export interface Event {
  id: number;
  /** Thread index, or -1 for an initial write. */
  thread: number;
  /** Position in the thread's program order. */
  poIndex: number;
  kind: EventKind;
  /** Location id for accesses (and SRCU/lock events), -1 for fences. */
  loc: number;
  value: number;
  annot: AccessTag;
  fence?: FenceTag;
  lock?: LockKind;
  srcu?: SrcuKind;
  /** Part of an RMW instruction (successful or not). */
  isRmw: boolean;
  /** The other half of a successful RMW pair (the rmw relation), or -1. */
  rmwPartner: number;
  /**
   * Reads this access's address, written value and position depend on: a
   * bit per event id in an Execution's events; while the explorer builds
   * them (src/explore), a bit per program-order position in the event's
   * own thread (dependencies never cross threads), which is what the
   * structure cache keys on.
   */
  addrDeps: bigint;
  dataDeps: bigint;
  ctrlDeps: bigint;
  /** For reads: the write read from, or -1 while unknown. */
  rf: number;
  /** Where the instruction is in the test, and what it is. */
  pos?: Pos;
  text?: string;
  /** Index of the instruction in its thread's code (-1 for initial writes). */
  pc: number;
  /** Lock writes (LKW) of the critical sections its thread was in. */
  held?: readonly number[];
  /**
   * The event's shape relative to its thread, taken by the structure cache
   * the first time the event is judged (src/model/execution.ts).
   */
  shape?: EventShape;
}

/**
 * What of an event its execution's structure depends on, with dependencies
 * as positions in its thread (events of the same shape may share one).
 */
export interface EventShape {
  /** Interned by `owner`: equal shapes have equal ids. */
  id: number;
  owner: object;
  thread: number;
  kind: EventKind;
  loc: number;
  annot: AccessTag;
  fence: FenceTag | undefined;
  lock: LockKind | undefined;
  srcu: SrcuKind | undefined;
  isRmw: boolean;
  /** The program-order index of the event's rmwPartner, or -1 (the partner is set after the event is made). */
  partner: number;
  addr: bigint;
  data: bigint;
  ctrl: bigint;
}

export const isRead = (e: Event): boolean => e.kind === 'R';
export const isWrite = (e: Event): boolean => e.kind === 'W';
