// `litmus primitives`: every name a test may call, with one line saying what
// it does and how it orders, written from the primitive table itself
// (src/events/primitives.ts) so that the two cannot drift apart.

import type { Annot, FenceKind, FenceTag, SrcuKind } from '../events/event.js';
import { BUILTIN_PRIMITIVES, effectOf, isRunThen, lookupPrimitive, primitiveNames, type Effect, type EventShape, type Lowered, type PrimitiveInfo } from '../events/primitives.js';
import type { Expr, Stmt } from '../parse/ast.js';
import { printExpr } from '../parse/printer.js';

export function primitiveLines(): string[] {
  const rows = primitiveNames().map((name): [string, string] => {
    const info = lookupPrimitive(name)!;
    const [call, does] = 'lower' in info ? describeLowered(name, info) : [`${name}${signature(info)}`, describePrimitive(info)];
    // What the .def lacks says where its meaning comes from.
    const beyond = 'lower' in info || BUILTIN_PRIMITIVES.isExtension(name);
    return [call, beyond ? `${does} [${BUILTIN_PRIMITIVES.sourceOf(name)}]` : does];
  });
  const width = Math.max(...rows.map(([s]) => s.length));
  return rows.map(([s, d]) => `${s.padEnd(width)}  ${d}`);
}

/** An operation linux-kernel.def lacks: its expansion, and how the primitive it rests on orders. */
function describeLowered(name: string, info: Lowered): [string, string] {
  const at = { line: 0, col: 0 };
  const args: Expr[] = info.params.map((n) => ({ kind: 'name', name: n, pos: at }));
  const expansion = info.lower(args, at);
  if (isRunThen(expansion)) {
    // A spin: the loads of its loop, until the condition holds.
    const run = expansion.run;
    const first = run.kind === 'block' ? run.body[0] : run.kind === 'do' ? run.body : run;
    const load = firstCall(exprOf(first));
    const loadInfo = load && lookupPrimitive(load);
    const order = loadInfo && 'prim' in loadInfo ? ordering(effectOf(loadInfo.prim)) : '';
    return [`${name}(${info.params.join(', ')})`, `loads ${info.params[0]} with ${load} into VAL until cond (over VAL) holds (a wait: see liveness), returns VAL; each load: ${order}`];
  }
  const text = 'kind' in expansion && expansion.kind === 'assign' ? `${printExpr(expansion.target)} = ${printExpr(expansion.value)}` : printExpr(exprOf(expansion));
  const inner = firstCall(exprOf(expansion));
  const innerInfo = inner && lookupPrimitive(inner);
  const order = innerInfo && 'prim' in innerInfo ? ordering(effectOf(innerInfo.prim)) : 'plain accesses: not atomic, orders nothing';
  return [`${name}(${info.params.join(', ')})`, `is ${text}; ${order}`];
}

function exprOf(x: Expr | Stmt): Expr {
  if (x.kind === 'expr') return x.expr;
  if (x.kind === 'assign') return x.value;
  return x as Expr;
}

/** The outermost primitive call of an expression. */
function firstCall(e: Expr): string | undefined {
  switch (e.kind) {
    case 'call':
      return e.name;
    case 'binary':
      return firstCall(e.left) ?? firstCall(e.right);
    case 'unary':
    case 'cast':
    case 'deref':
    case 'addr':
      return firstCall(e.arg);
    default:
      return undefined;
  }
}

const ORDERING: Record<Annot, string> = {
  ONCE: 'relaxed: orders nothing by itself',
  NORETURN: 'relaxed: orders nothing by itself',
  PLAIN: 'plain: orders nothing, may race',
  ACQUIRE: 'acquire: later accesses stay after it',
  RELEASE: 'release: earlier accesses stay before it',
  MB: 'fully ordered: a full barrier before and after it',
};

const FENCES: Record<FenceKind, string> = {
  MB: 'full barrier: every access before it is ordered before every access after it',
  rmb: 'read barrier: earlier reads are ordered before later reads',
  wmb: 'write barrier: earlier writes are ordered before later writes',
  barrier: 'compiler barrier: orders nothing between CPUs (it only bounds plain accesses)',
  'before-atomic': 'full barrier together with the atomic RMW that follows it',
  'after-atomic': 'full barrier together with the atomic RMW that precedes it',
  'after-spinlock': 'full barrier together with the spin_lock that precedes it',
  'after-unlock-lock': 'full barrier together with the unlock and lock that precede it',
  'after-srcu-read-unlock': 'full barrier together with the srcu_read_unlock that precedes it',
  'rcu-lock': 'starts an RCU read-side critical section (orders nothing by itself)',
  'rcu-unlock': 'ends an RCU read-side critical section',
  'sync-rcu': 'waits for every RCU read-side critical section that began before it (a grace period); a full barrier too',
};

/** How a call is written: its parameters, the address as `*x` where the primitive takes an lvalue. */
function signature(info: PrimitiveInfo): string {
  const e = effectOf(info.prim);
  return `(${e.params.map((p, i) => (i === info.addrArg && e.addr === 'lvalue' ? `*${p}` : p)).join(', ')})`;
}

/**
 * One line: what the primitive does, then how it orders, from its Effect:
 * lock operations and SRCU by their events, fences by their kind, memory
 * accesses by what they read, write or compute and their annotation.
 */
export function describePrimitive(info: PrimitiveInfo): string {
  const e = effectOf(info.prim);
  if (e.shape !== 'access' && e.shape !== 'fence') return LOCKS[e.shape];
  if (e.srcu) return SRCU[e.srcu](e.params);
  if (e.fence && e.shape === 'fence') return fenceText(e.fence);
  const at = e.params[info.addrArg];
  const does = e.computes ?? (e.writes ? `writes ${e.params[e.valueArgs[0]]} to ${at}` : `reads ${at}`);
  return `${does}; ${ordering(e)}`;
}

/** How a memory access orders: its annotation, a failed RMW's read, the fence after it. */
function ordering(e: Effect): string {
  const own = ((ORDERING as Record<string, string>)[e.annot] ?? `tagged ${e.annot} (a tag of its .def that only a model read from a .cat file gives a meaning)`) +
    (e.mayFail ? ' (a failed one is a relaxed read)' : '');
  return e.fence ? `${own}; then a ${fenceText(e.fence)}` : own;
}

/** What a fence of this tag does, in words (a tag of a user's .def has only the meaning a .cat file gives it). */
function fenceText(tag: FenceTag): string {
  return (FENCES as Record<string, string>)[tag] ?? `fence tagged ${tag} (a tag of its .def that only a model read from a .cat file gives a meaning)`;
}

const LOCKS: Record<Exclude<EventShape, 'access' | 'fence'>, string> = {
  lock: 'takes the lock, waiting while another CPU holds it; acquire: the critical section stays after it',
  unlock: 'releases the lock; release: the critical section stays before it',
  trylock: 'takes the lock if it is free and returns 1, else returns 0; acquire when it takes it',
  'is-locked': 'returns whether the lock is held; orders nothing',
};

const SRCU: Record<SrcuKind, (params: readonly string[]) => string> = {
  'srcu-lock': ([s]) => `starts an SRCU read-side critical section of ${s} and returns its index`,
  'srcu-unlock': ([s, idx]) => `ends the SRCU read-side critical section of ${s} that returned ${idx}`,
  'sync-srcu': ([s]) => `waits for every SRCU read-side critical section of ${s} that began before it; a full barrier too`,
};
