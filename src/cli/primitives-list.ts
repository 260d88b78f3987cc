// `litmus primitives`: every name a test may call, with one line saying what
// it does and how it orders, written from the primitive table itself
// (src/events/primitives.ts) so that the two cannot drift apart.

import type { Annot, FenceKind } from '../events/event.js';
import { lookupPrimitive, primitiveNames, RMW_OPS, type Lowered, type PrimitiveInfo } from '../events/primitives.js';
import type { Expr, Stmt } from '../parse/ast.js';
import { printExpr } from '../parse/printer.js';

export function primitiveLines(): string[] {
  const rows = primitiveNames().map((name) => {
    const info = lookupPrimitive(name)!;
    return 'lower' in info ? describeLowered(name, info) : [`${name}${signature(info)}`, describePrimitive(info)];
  });
  const width = Math.max(...rows.map(([s]) => s.length));
  return rows.map(([s, d]) => `${s.padEnd(width)}  ${d}`);
}

/** An operation linux-kernel.def lacks: its expansion, and how the primitive it rests on orders. */
function describeLowered(name: string, info: Lowered): [string, string] {
  const at = { line: 0, col: 0 };
  const args: Expr[] = ['nr', 'x'].slice(0, info.arity).map((n) => ({ kind: 'name', name: n, pos: at }));
  const expansion = info.lower(args, at);
  const text = 'kind' in expansion && expansion.kind === 'assign' ? `${printExpr(expansion.target)} = ${printExpr(expansion.value)}` : printExpr(exprOf(expansion));
  const inner = firstCall(exprOf(expansion));
  const innerInfo = inner && lookupPrimitive(inner);
  const order = innerInfo && !('lower' in innerInfo) && 'annot' in innerInfo.prim ? ORDERING[innerInfo.prim.annot] : 'plain accesses: not atomic, orders nothing';
  return [`${name}(${args.map((a) => (a.kind === 'name' ? a.name : '')).join(', ')})`, `is ${text}; ${order}`];
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
  mb: 'full barrier: every access before it is ordered before every access after it',
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

/** How a call is written: the address as `*x` or `x`, then the other arguments. */
function signature(info: PrimitiveInfo): string {
  const p = info.prim;
  const at = 'addr' in p && p.addr === 'lvalue' ? '*x' : 'x';
  switch (p.kind) {
    case 'load':
      return `(${at})`;
    case 'store':
      return `(${at}, v)`;
    case 'fence':
      return '()';
    case 'xchg':
      return '(x, v)';
    case 'cmpxchg':
      return '(x, old, new)';
    case 'atomic':
      return p.operand === 'arg' ? '(i, v)' : '(v)';
    case 'add_unless':
      return '(v, a, u)';
    case 'srcu_unlock':
      return '(s, idx)';
    case 'srcu_lock':
    case 'srcu_sync':
      return '(s)';
    case 'spin_lock':
    case 'spin_unlock':
    case 'spin_trylock':
    case 'spin_is_locked':
      return '(l)';
    default:
      return `(${Array.from({ length: info.arity }, (_, i) => `a${i}`).join(', ')})`;
  }
}

/** One line: what the primitive does, then how it orders. */
export function describePrimitive(info: PrimitiveInfo): string {
  const p = info.prim;
  switch (p.kind) {
    case 'load':
      return `reads x; ${ORDERING[p.annot]}`;
    case 'store':
      if (p.thenFence) return 'writes v to x, then a full barrier (smp_mb): the write and every earlier access are ordered before every later access';
      return `writes v to x; ${ORDERING[p.annot]}`;
    case 'fence':
      return FENCES[p.fence];
    case 'xchg':
      return `writes v to x and returns the old value, atomically; ${ORDERING[p.annot]}`;
    case 'cmpxchg':
      return `writes new to x if it holds old, returns the value found, atomically; ${ORDERING[p.annot]} (a failed one is a relaxed read)`;
    case 'atomic': {
      const verb = p.operand === 'arg' ? RMW_OPS[p.op].verb : p.op === '+' ? 'adds 1 to' : p.op === '-' ? 'subtracts 1 from' : `${RMW_OPS[p.op].verb.replace(' i', ` ${p.operand}`)}`;
      const ret =
        p.test === 'zero' ? 'returns whether the new value is 0' :
        p.test === 'negative' ? 'returns whether the new value is negative' :
        p.ret === 'new' ? 'returns the new value' : p.ret === 'old' ? 'returns the old value' : 'returns nothing';
      return `${verb} v atomically, ${ret}; ${ORDERING[p.annot]}`;
    }
    case 'add_unless':
      return `adds a to v unless v is u, returns whether it added, atomically; ${ORDERING[p.annot]} when it adds`;
    case 'spin_lock':
      return 'takes the lock, waiting while another CPU holds it; acquire: the critical section stays after it';
    case 'spin_unlock':
      return 'releases the lock; release: the critical section stays before it';
    case 'spin_trylock':
      return 'takes the lock if it is free and returns 1, else returns 0; acquire when it takes it';
    case 'spin_is_locked':
      return 'returns whether the lock is held; orders nothing';
    case 'srcu_lock':
      return 'starts an SRCU read-side critical section of s and returns its index';
    case 'srcu_unlock':
      return 'ends the SRCU read-side critical section of s that returned idx';
    case 'srcu_sync':
      return 'waits for every SRCU read-side critical section of s that began before it; a full barrier too';
    default:
      return 'see src/events/primitives.ts';
  }
}
