// Generated programs of the shapes where litmus once gave another answer
// than herd7 (for the differential fuzz, scripts/fuzz-herd7.ts, and the
// property tests): load-buffering rings whose reads are acquires, lock-
// protected reads or RMWs and whose writes are plain, marked or carry a
// data dependency; a lock held forever beside trylock, spin_is_locked()
// and lock-unlock threads; arrays in the initial state reached by pointer
// arithmetic; loop keywords used as register names; empty blocks and
// statements (which herd7 refuses); cycles of copies whose value no
// constant determines (out-of-thin-air values, which herd7 names after its
// solver variables: the copies, branches and arithmetic around them change
// the numbering). A seed and a kind always give the same program.

import { Rng } from './fuzz-mutate.js';

export const SHAPE_KINDS = ['lb-ring', 'lock-held', 'array-init', 'keyword-names', 'empty-block', 'oota'] as const;
export type ShapeKind = (typeof SHAPE_KINDS)[number];

/** A program of `kind` drawn from `rng`, named `name`. */
export function shapeProgram(kind: ShapeKind, rng: Rng, name: string): string {
  switch (kind) {
    case 'lb-ring':
      return lbRing(rng, name);
    case 'lock-held':
      return lockHeld(rng, name);
    case 'array-init':
      return arrayInit(rng, name);
    case 'keyword-names':
      return keywordNames(rng, name);
    case 'empty-block':
      return emptyBlock(rng, name);
    case 'oota':
      return oota(rng, name);
  }
}

function test(name: string, init: string, procs: { params: string; body: string[] }[], cond: string): string {
  const ps = procs.map((p, i) => `P${i}(${p.params})\n{\n${p.body.map((l) => (l ? `\t${l}` : '')).join('\n')}\n}\n`).join('\n');
  return `C ${name}\n\n{\n${init ? `\t${init}\n` : ''}}\n\n${ps}\nexists (${cond})\n`;
}

// ---------------------------------------------------------------- load-buffering rings

/** How a thread of a ring reads its location `l` into `r` (with spinlock `s` where it takes one). */
const RING_READS: ((l: string, r: string) => string[])[] = [
  (l, r) => [`${r} = READ_ONCE(*${l});`],
  (l, r) => [`${r} = smp_load_acquire(${l});`],
  (l, r) => ['spin_lock(s);', `${r} = READ_ONCE(*${l});`, 'spin_unlock(s);'],
  (l, r) => [`${r} = xchg(${l}, 2);`],
  (l, r) => [`${r} = xchg_relaxed(${l}, 2);`],
  (l, r) => [`${r} = xchg_acquire(${l}, 2);`],
  (l, r) => [`${r} = cmpxchg(${l}, 1, 2);`],
  (l, r) => [`${r} = cmpxchg_acquire(${l}, 1, 2);`],
];

/** How it writes the next location `l` (the value 1, or the read register `r`: a data dependency). */
const RING_WRITES: ((l: string, r: string) => string[])[] = [
  (l) => [`*${l} = 1;`],
  (l, r) => [`*${l} = ${r};`],
  (l) => [`WRITE_ONCE(*${l}, 1);`],
  (l, r) => [`WRITE_ONCE(*${l}, ${r});`],
  (l) => [`smp_store_release(${l}, 1);`],
  (l) => ['smp_mb();', `*${l} = 1;`],
  (l) => ['smp_wmb();', `WRITE_ONCE(*${l}, 1);`],
];

function lbRing(rng: Rng, name: string): string {
  const n = rng.next() < 0.7 ? 2 : 3;
  const locs = ['x', 'y', 'z'].slice(0, n);
  const lock = { used: false };
  const procs = locs.map((l, i) => {
    const r = `r${i}`;
    const read = rng.pick(RING_READS)(l, r);
    if (read.some((s) => s.includes('spin_'))) lock.used = true;
    const write = rng.pick(RING_WRITES)(locs[(i + 1) % n], r);
    return { params: '', body: [`int ${r};`, '', ...read, ...write] };
  });
  const params = [...locs.map((l) => `int *${l}`), ...(lock.used ? ['spinlock_t *s'] : [])].join(', ');
  for (const p of procs) p.params = params;
  const cond = locs.map((_, i) => `${i}:r${i}=1`).join(' /\\ ');
  return test(name, '', procs, cond);
}

// ---------------------------------------------------------------- a lock held forever

/** Threads beside a lock held forever: what each does with spinlock s (and x). */
const LOCK_THREADS: { body: string[]; regs: string[] }[] = [
  { body: ['spin_lock(s);'], regs: [] },
  { body: ['spin_lock(s);', 'WRITE_ONCE(*x, 1);'], regs: [] },
  { body: ['r0 = spin_trylock(s);'], regs: ['r0'] },
  { body: ['r0 = spin_trylock(s);', 'if (r0)', '\tspin_unlock(s);'], regs: ['r0'] },
  { body: ['r0 = spin_is_locked(s);'], regs: ['r0'] },
  { body: ['r0 = spin_is_locked(s);', 'r1 = spin_is_locked(s);'], regs: ['r0', 'r1'] },
  { body: ['spin_lock(s);', 'spin_unlock(s);'], regs: [] },
  { body: ['spin_lock(s);', 'r0 = READ_ONCE(*x);', 'spin_unlock(s);'], regs: ['r0'] },
  { body: ['r0 = READ_ONCE(*x);', 'r1 = spin_is_locked(s);'], regs: ['r0', 'r1'] },
];

function lockHeld(rng: Rng, name: string): string {
  const n = 2 + rng.int(3);
  // The first thread takes the lock and never releases it.
  const threads = [LOCK_THREADS[rng.int(2)], ...Array.from({ length: n - 1 }, () => rng.pick(LOCK_THREADS.slice(2)))];
  const procs = threads.map((t) => ({ params: 'spinlock_t *s, int *x', body: [...t.regs.map((r) => `int ${r};`), ...(t.regs.length ? [''] : []), ...t.body] }));
  const regs = threads.flatMap((t, i) => t.regs.map((r) => `${i}:${r}`));
  const cond = regs.length ? regs.slice(0, 2).map((r) => `${r}=${rng.int(2)}`).join(' /\\ ') : 'x=0';
  return test(name, '', procs, cond);
}

// ---------------------------------------------------------------- arrays in the initial state

function arrayInit(rng: Rng, name: string): string {
  const type = rng.pick(['int', 'int', 'char', 'long']);
  const size = type === 'char' ? 1 : 4;
  const n = 2 + rng.int(2);
  const init = rng.next() < 0.5 ? `${type} a[${n}];` : `${type} a[${n}] = {${Array.from({ length: n }, () => rng.int(3)).join(', ')}};`;
  // Offsets in bytes: elements, and the bytes between them (locations of their own, no initial write).
  const offsets = [0, size, 1, 2 * size, size + 1].filter((o) => o < n * size + 2);
  const off = () => rng.pick(offsets);
  const at = (o: number) => (o === 0 ? '*a' : `*(a+${o})`);
  const o1 = off();
  const o2 = rng.next() < 0.6 ? o1 : off();
  const writer = [`WRITE_ONCE(${at(o1)}, 1);`, ...(rng.next() < 0.5 ? ['smp_wmb();', 'WRITE_ONCE(*x, 1);'] : [])];
  const reader = ['int r0;', 'int r1;', '', ...(writer.length > 1 ? ['r1 = READ_ONCE(*x);', 'smp_rmb();'] : []), `r0 = READ_ONCE(${at(o2)});`];
  const params = `${type} *a, int *x`;
  const elem = rng.int(n);
  const cond = rng.next() < 0.5 ? `1:r0=${rng.int(3)}` : `1:r0=${rng.int(2)} /\\ a[${elem}]=${rng.int(3)}`;
  return test(name, init, [{ params, body: writer }, { params, body: reader }], cond);
}

// ---------------------------------------------------------------- loop keywords as names

function keywordNames(rng: Rng, name: string): string {
  const [k0, k1] = [rng.pick(['continue', 'break', 'do', 'return', 'for']), rng.pick(['continue', 'break', 'r1'])];
  const p0 = [`int ${k0};`, '', `${k0} = READ_ONCE(*x);`, `if (${k0})`, `\tWRITE_ONCE(*y, ${k0});`];
  const p1 = [`int ${k1};`, '', `${k1} = READ_ONCE(*y);`, ...(rng.next() < 0.5 ? ['smp_mb();'] : []), `WRITE_ONCE(*x, ${k1} + 1);`];
  return test(name, '', [{ params: 'int *x, int *y', body: p0 }, { params: 'int *x, int *y', body: p1 }], `0:${k0}=1 /\\ 1:${k1}=1`);
}

// ---------------------------------------------------------------- empty blocks

function emptyBlock(rng: Rng, name: string): string {
  const empty = rng.pick(['if (r0) { }', 'if (r0) {} else WRITE_ONCE(*y, 2);', 'while (r0 == 2) {}', '{ }', ';', 'if (r0) ;']);
  const p0 = ['int r0;', '', 'r0 = READ_ONCE(*x);', empty, 'WRITE_ONCE(*y, 1);'];
  const p1 = ['int r1;', '', 'r1 = READ_ONCE(*y);', 'WRITE_ONCE(*x, 1);'];
  return test(name, '', [{ params: 'int *x, int *y', body: p0 }, { params: 'int *x, int *y', body: p1 }], '0:r0=1 /\\ 1:r1=1');
}

// ---------------------------------------------------------------- out-of-thin-air copies

/** How a thread of a copy cycle reads location `l` into `r`. */
const OOTA_READS: ((l: string, r: string) => string)[] = [
  (l, r) => `${r} = READ_ONCE(*${l});`,
  (l, r) => `${r} = *${l};`,
  (l, r) => `${r} = smp_load_acquire(${l});`,
  (l, r) => `${r} = xchg_relaxed(${l}, 3);`,
  (l, r) => `${r} = cmpxchg_relaxed(${l}, 0, 3);`,
  (l, r) => `${r} = READ_ONCE(*${l}) + 0;`,
];

/** What a thread writes: a copy of `r` (as herd7 sees one: `r + 0`, `r | 0`), or a computation on it. */
const OOTA_VALUES: ((r: string) => string)[] = [
  (r) => r, (r) => r, (r) => `${r} + 0`, (r) => `0 + ${r}`, (r) => `${r} | 0`, (r) => `${r} * 1`, (r) => `${r} & ${r}`, (r) => `${r} ^ 0`, (r) => `${r} + 1`, (r) => `${r} - 0`, (r) => `${r} != 0`,
];

/** Statements that add reads, registers, branches or writes around the cycle (each may make herd7 solver variables). */
const OOTA_EXTRAS: ((r: string, q: string) => string[])[] = [
  () => ['smp_mb();'],
  () => ['WRITE_ONCE(*w, 1);'],
  (_r, q) => [`${q} = READ_ONCE(*w);`],
  (r, q) => [`${q} = ${r};`],
  (r, q) => [`${q} = ${r} + 2;`],
  (r) => [`if (${r} == 1)`, '\tWRITE_ONCE(*w, 2);'],
  (r) => [`if (${r})`, '\tsmp_wmb();', 'else', '\tWRITE_ONCE(*w, 3);'],
  (r, q) => [`if (${r} != 0) {`, `\t${q} = READ_ONCE(*w);`, '} else {', `\t${q} = 1;`, '}'],
  (_r, q) => [`${q} = 5;`],
  (_r, q) => [`${q} = 0;`, `while (${q} < 1)`, `\t${q} = ${q} + 1;`],
  (r, q) => [`if (${r} == 2) {`, `\tif (${q} == 1)`, `\t\tWRITE_ONCE(*w, 4);`, '\telse', `\t\t${q} = 3;`, '}'],
  (r, q) => [`if (${r} > 1)`, `\t${q} = 1;`, `if (${q} == 3)`, '\tsmp_mb();', 'else', `\t${q} = READ_ONCE(*w);`],
  (_r, q) => [`${q} = 0;`, `while (${q} < 2) {`, `\tif (${q} == 1)`, '\t\tWRITE_ONCE(*w, 5);', `\t${q} = ${q} + 1;`, '}'],
];

function oota(rng: Rng, name: string): string {
  const n = rng.next() < 0.75 ? 2 : 3;
  const locs = ['x', 'y', 'z'].slice(0, n);
  const params = [...locs, 'w'].map((l) => `int *${l}`).join(', ');
  const procs = locs.map((l, i) => {
    const [r, q] = [`r${i}`, `q${i}`];
    const before = rng.next() < 0.4 ? rng.pick(OOTA_EXTRAS)(r, q) : [];
    const read = rng.next() < 0.8 ? OOTA_READS[rng.int(2)](l, r) : rng.pick(OOTA_READS)(l, r);
    const after = rng.next() < 0.5 ? rng.pick(OOTA_EXTRAS)(r, q) : [];
    // Before the read, the extras may not use r yet.
    const safeBefore = before.some((x) => x.includes(r)) ? [] : before;
    const value = rng.next() < 0.6 ? r : rng.pick(OOTA_VALUES)(r);
    const dst = locs[(i + 1) % n];
    const write = rng.next() < 0.5 ? `WRITE_ONCE(*${dst}, ${value});` : `*${dst} = ${value};`;
    const tail = rng.next() < 0.3 ? rng.pick(OOTA_EXTRAS)(r, q) : [];
    return { params, body: [`int ${r};`, `int ${q};`, '', ...safeBefore, read, ...(rng.next() < 0.5 ? [...after, write] : [write, ...after]), ...tail] };
  });
  const conds = [
    () => locs.map((_, i) => `${i}:r${i}=0`).join(' /\\ '),
    () => `0:r0=${rng.int(3)}`,
    () => `${locs[n - 1]}=${rng.int(2)}`,
    () => `0:r0=0 /\\ 1:q1=${rng.int(3)}`,
    () => locs.map((_, i) => `${i}:r${i}=42`).join(' \\/ '),
  ];
  const cond = rng.pick(conds)();
  const quant = rng.next() < 0.8 ? 'exists' : '~exists';
  const init = rng.next() < 0.15 ? `0:q0=${rng.int(3)};` : '';
  return test(name, init, procs, cond).replace(/\nexists \(/, `\n${quant} (`);
}
