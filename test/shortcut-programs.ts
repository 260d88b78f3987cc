// Generated programs with the shapes where the explorer's shortcuts go
// wrong, for comparing pruned with unpruned runs (test/shortcuts.test.ts):
// acquire, RMW (xchg, cmpxchg) and lock reads followed by plain and marked
// writes in load-buffering rings, and writes where no read of the ring
// waits; spin_lock / spin_trylock /
// spin_is_locked triads with a lock never released; RCU and SRCU read-side
// critical sections open, nested and closed on one path; plain accesses
// racing. Not a test file itself.

import fc from 'fast-check';

type Loc = 'x' | 'y' | 'z';

export type Op =
  | { k: 'w'; loc: Loc; v: number; how: 'once' | 'plain' | 'release' }
  | { k: 'r'; loc: Loc; how: 'once' | 'plain' | 'acquire' }
  | { k: 'xchg'; loc: Loc; v: number; how: '' | '_relaxed' | '_acquire' | '_release' }
  | { k: 'cmpxchg'; loc: Loc; old: number; v: number }
  /** A write of the last register read (a data dependency), or of v when none was read. */
  | { k: 'copy'; loc: Loc; v: number; how: 'once' | 'plain' | 'release' }
  | { k: 'fence'; f: 'smp_mb' | 'smp_rmb' | 'smp_wmb' }
  | { k: 'lock' }
  | { k: 'unlock' }
  | { k: 'trylock' }
  | { k: 'islocked' }
  | { k: 'rcu'; op: 'lock' | 'unlock' }
  | { k: 'gp'; kind: 'rcu' | 'srcu' }
  | { k: 'srcu'; op: 'lock' | 'unlock' }
  /** `if (last register == v) { body }`: a section closed on one path, a conditional write. */
  | { k: 'if'; v: number; body: Op[] };

export interface Program {
  threads: Op[][];
  /** Register picks for the condition: by index into all registers, and values. */
  picks: { reg: number; v: number }[];
  mem: { loc: Loc; v: number };
}

const loc = fc.constantFrom<Loc>('x', 'y');
const val = fc.integer({ min: 1, max: 2 });
const write = fc.record({ k: fc.constant('w' as const), loc, v: val, how: fc.constantFrom('once' as const, 'plain' as const, 'release' as const) });
const read = fc.record({ k: fc.constant('r' as const), loc, how: fc.constantFrom('once' as const, 'plain' as const, 'acquire' as const) });
const rmw: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant('xchg' as const), loc, v: val, how: fc.constantFrom('' as const, '_relaxed' as const, '_acquire' as const, '_release' as const) }),
  fc.record({ k: fc.constant('cmpxchg' as const), loc, old: fc.integer({ min: 0, max: 1 }), v: val }),
);
const copy = fc.record({ k: fc.constant('copy' as const), loc, v: val, how: fc.constantFrom('once' as const, 'plain' as const, 'release' as const) });
const fence = fc.record({ k: fc.constant('fence' as const), f: fc.constantFrom('smp_mb' as const, 'smp_rmb' as const, 'smp_wmb' as const) });

/** A write to any location, the ring's or one no read of the ring waits at (z in a ring of two). */
const sideWrite = fc.record({ k: fc.constant('w' as const), loc: fc.constantFrom<Loc>('x', 'y', 'z'), v: val, how: fc.constantFrom('once' as const, 'plain' as const, 'release' as const) });

/** A strong read (acquire, an RMW, a lock) then writes, plain or marked (the ring's, and maybe one elsewhere): one thread of a load-buffering ring. */
const ringThread = (from: Loc, to: Loc): fc.Arbitrary<Op[]> =>
  fc.tuple(
    fc.constantFrom<Op>(
      { k: 'r', loc: from, how: 'acquire' },
      { k: 'r', loc: from, how: 'once' },
      { k: 'xchg', loc: from, v: 2, how: '' },
      { k: 'xchg', loc: from, v: 2, how: '_acquire' },
      { k: 'cmpxchg', loc: from, old: 1, v: 2 },
      { k: 'lock' },
    ),
    fc.option(fc.constantFrom<Op>({ k: 'fence', f: 'smp_mb' }), { freq: 3 }),
    fc.constantFrom<Op['k']>('w', 'copy'),
    fc.constantFrom<'once' | 'plain' | 'release'>('once', 'plain', 'release'),
    fc.option(sideWrite, { freq: 2 }),
  ).map(([r, f, kind, how, side]) => {
    const w: Op = kind === 'w' ? { k: 'w', loc: to, v: 1, how } : { k: 'copy', loc: to, v: 1, how };
    // A lock read's thread reads its location inside, then releases.
    const body: Op[] = r.k === 'lock' ? [r, { k: 'r', loc: from, how: 'once' }] : [r];
    return [...body, ...(f ? [f] : []), w, ...(side ? [side] : []), ...(r.k === 'lock' ? [{ k: 'unlock' } as Op] : [])];
  });

const ring: fc.Arbitrary<Op[][]> = fc.integer({ min: 2, max: 3 }).chain((n) =>
  fc.tuple(...Array.from({ length: n }, (_, i) => ringThread((['x', 'y', 'z'] as Loc[])[i], (['x', 'y', 'z'] as Loc[])[(i + 1) % n]))),
);

/** Lock operations: sections, trylocks, is_locked, and a lock never released. */
const lockThread: fc.Arbitrary<Op[]> = fc.oneof(
  fc.tuple(fc.array(fc.oneof(write, read), { minLength: 1, maxLength: 2 }), fc.boolean()).map(([body, release]) => [{ k: 'lock' } as Op, ...body, ...(release ? [{ k: 'unlock' } as Op] : [])]),
  fc.tuple(fc.oneof(write, read)).map(([a]) => [{ k: 'trylock' } as Op, { k: 'if', v: 1, body: [a, { k: 'unlock' }] } as Op]),
  fc.tuple(fc.oneof(write, read)).map(([a]) => [a, { k: 'islocked' } as Op]),
);

/** RCU and SRCU: sections open, nested, closed on one path; grace periods between accesses. */
const rcuThread: fc.Arbitrary<Op[]> = fc.oneof(
  fc.tuple(fc.oneof(read, write), fc.oneof(read, write)).map(([a, b]): Op[] => [{ k: 'rcu', op: 'lock' }, a, b, { k: 'rcu', op: 'unlock' }]),
  fc.tuple(read, read).map(([a, b]): Op[] => [{ k: 'rcu', op: 'lock' }, a, { k: 'if', v: 1, body: [{ k: 'rcu', op: 'unlock' }] }, b]),
  fc.tuple(read, read).map(([a, b]): Op[] => [{ k: 'rcu', op: 'lock' }, a, { k: 'rcu', op: 'lock' }, b, { k: 'rcu', op: 'unlock' }]),
  fc.tuple(read, read).map(([a, b]): Op[] => [{ k: 'srcu', op: 'lock' }, a, b, { k: 'srcu', op: 'unlock' }]),
  fc.tuple(write, fc.constantFrom<'rcu' | 'srcu'>('rcu', 'srcu'), fc.oneof(write, read)).map(([a, kind, b]): Op[] => [a, { k: 'gp', kind }, b]),
);

/** Anything, plain accesses racing among them. */
const anyOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: write },
  { weight: 4, arbitrary: read },
  { weight: 2, arbitrary: rmw },
  { weight: 1, arbitrary: copy },
  { weight: 2, arbitrary: fence },
);
const anyThread = fc.array(anyOp, { minLength: 1, maxLength: 3 });

const picks = fc.array(fc.record({ reg: fc.nat(), v: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 2 });
const mem = fc.record({ loc, v: fc.integer({ min: 0, max: 2 }) });

/** Programs of every shape above, each with two or three threads. */
export const shortcutPrograms: fc.Arbitrary<Program> = fc.record({
  threads: fc.oneof(
    { weight: 3, arbitrary: ring },
    { weight: 2, arbitrary: fc.array(fc.oneof(lockThread, anyThread), { minLength: 2, maxLength: 3 }) },
    { weight: 2, arbitrary: fc.array(fc.oneof(rcuThread, anyThread), { minLength: 2, maxLength: 3 }) },
    { weight: 2, arbitrary: fc.array(anyThread, { minLength: 2, maxLength: 3 }) },
  ),
  picks,
  mem,
});

/** The litmus text of a generated program (every register and location in its states). */
export function renderProgram(p: Program, name = 'gen'): string {
  const regs: string[] = [];
  const procs = p.threads.map((ops, t) => {
    const decls: string[] = [];
    const body: string[] = [];
    let n = 0;
    let cookie = 0;
    let last: string | undefined;
    const reg = () => {
      const r = `r${n++}`;
      decls.push(`\tint ${r};`);
      regs.push(`${t}:${r}`);
      last = r;
      return r;
    };
    const emit = (o: Op, indent: string) => {
      const line = (s: string) => body.push(`${indent}${s}`);
      switch (o.k) {
        case 'w':
          line(o.how === 'plain' ? `*${o.loc} = ${o.v};` : o.how === 'release' ? `smp_store_release(${o.loc}, ${o.v});` : `WRITE_ONCE(*${o.loc}, ${o.v});`);
          break;
        case 'copy': {
          const v = last ?? String(o.v);
          line(o.how === 'plain' ? `*${o.loc} = ${v};` : o.how === 'release' ? `smp_store_release(${o.loc}, ${v});` : `WRITE_ONCE(*${o.loc}, ${v});`);
          break;
        }
        case 'r': {
          const r = reg();
          line(o.how === 'plain' ? `${r} = *${o.loc};` : o.how === 'acquire' ? `${r} = smp_load_acquire(${o.loc});` : `${r} = READ_ONCE(*${o.loc});`);
          break;
        }
        case 'xchg':
          line(`${reg()} = xchg${o.how}(${o.loc}, ${o.v});`);
          break;
        case 'cmpxchg':
          line(`${reg()} = cmpxchg(${o.loc}, ${o.old}, ${o.v});`);
          break;
        case 'fence':
          line(`${o.f}();`);
          break;
        case 'lock':
          line('spin_lock(l);');
          break;
        case 'unlock':
          line('spin_unlock(l);');
          break;
        case 'trylock':
          line(`${reg()} = spin_trylock(l);`);
          break;
        case 'islocked':
          line(`${reg()} = spin_is_locked(l);`);
          break;
        case 'rcu':
          line(o.op === 'lock' ? 'rcu_read_lock();' : 'rcu_read_unlock();');
          break;
        case 'gp':
          line(o.kind === 'rcu' ? 'synchronize_rcu();' : 'synchronize_srcu(s);');
          break;
        case 'srcu':
          if (o.op === 'lock') {
            const c = `c${cookie++}`;
            decls.push(`\tint ${c};`);
            line(`${c} = srcu_read_lock(s);`);
          } else line(`srcu_read_unlock(s, c${Math.max(0, cookie - 1)});`);
          break;
        case 'if': {
          const guard = last;
          if (guard) line(`if (${guard} == ${o.v}) {`);
          for (const b of o.body) emit(b, guard ? `${indent}\t` : indent);
          if (guard) line('}');
          break;
        }
      }
    };
    for (const o of ops) emit(o, '\t');
    return `P${t}(int *x, int *y, int *z, spinlock_t *l, struct srcu_struct *s)\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  const atoms = regs.length ? [...new Map(p.picks.map((k) => [regs[k.reg % regs.length], k.v])).entries()].map(([r, v]) => `${r}=${v}`) : [];
  atoms.push(`${p.mem.loc}=${p.mem.v}`);
  return `C ${name}\n\n{}\n\n${procs.join('\n')}\nlocations [${[...regs, 'x', 'y', 'z'].join('; ')}]\nexists (${atoms.join(' /\\ ')})\n`;
}
