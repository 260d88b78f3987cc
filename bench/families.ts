// Scalable litmus-test families for benchmarking the checker. Each family
// generates kernel-C litmus text (herd7-compatible) for a size parameter N:
// the total number of threads, except where a family's description says
// otherwise.

export interface Family {
  name: string;
  description: string;
  /** Smallest meaningful N (the benchmark starts there). */
  minN: number;
  /** The verdict LKMM should give at size N (checked by the bench). */
  expected(n: number): 'Always' | 'Sometimes' | 'Never';
  make(n: number): string;
  /** Also measured with --speedcheck (a witness search), not only counted exhaustively. */
  speedcheck?: boolean;
  /**
   * Its threads wait (herd7's read-then-while spin loops): check reads them
   * exactly, so its counts are not herd7's (herd7 counts each number of idle
   * passes up to its bound and cuts the rest); the bench compares herd7's
   * Observation only, and names the family of the same test with each wait
   * replaced by one read, which it measures beside it.
   */
  waits?: { oneRead: string };
}

function checkN(name: string, n: number, min: number): void {
  if (!Number.isInteger(n) || n < min) throw new RangeError(`${name}: N must be an integer >= ${min} (got ${n})`);
}

function proc(i: number, params: string[], regs: string[], body: string[]): string {
  const lines = [`P${i}(${params.join(', ')})`, '{'];
  for (const r of regs) lines.push(`\tint ${r};`);
  if (regs.length) lines.push('');
  for (const b of body) lines.push(`\t${b}`);
  lines.push('}');
  return lines.join('\n');
}

function test(name: string, procs: string[], cond: string, init = '{}'): string {
  return `C ${name}\n\n${init}\n\n${procs.join('\n\n')}\n\n${cond}\n`;
}

/**
 * mp-chain: P0 writes data x0 then release-stores flag x1; each middle thread
 * Pi acquire-loads xi and release-stores the value into x(i+1); the last
 * thread acquire-loads x(N-1) and reads x0. Release/acquire is transitive
 * along the chain, so "saw the flag but not the data" is forbidden.
 */
function mpChain(n: number): string {
  checkN('mp-chain', n, 2);
  const procs: string[] = [];
  procs.push(proc(0, ['int *x0', 'int *x1'], [], ['WRITE_ONCE(*x0, 1);', 'smp_store_release(x1, 1);']));
  for (let i = 1; i < n - 1; i++) {
    procs.push(
      proc(i, [`int *x${i}`, `int *x${i + 1}`], ['r0'], [
        `r0 = smp_load_acquire(x${i});`,
        `smp_store_release(x${i + 1}, r0);`,
      ]),
    );
  }
  const last = n - 1;
  procs.push(
    proc(last, ['int *x0', `int *x${last}`], ['r0', 'r1'], [`r0 = smp_load_acquire(x${last});`, 'r1 = READ_ONCE(*x0);']),
  );
  return test(`MP-chain-${n}`, procs, `exists (${last}:r0=1 /\\ ${last}:r1=0)`);
}

/**
 * rcu: N-1 readers, each with a read-side critical section reading x then y;
 * one updater writes y, waits for a grace period, then writes x. A reader that
 * sees the post-grace-period write x=1 must see the pre-grace-period write
 * y=1; the exists clause asks whether any reader violates that. The updater
 * is the last thread (P(N-1)); rcu-updater-first is the same test with the
 * updater as P0, to show how thread order affects the exploration.
 */
function rcu(n: number, updaterFirst = false): string {
  checkN(updaterFirst ? 'rcu-updater-first' : 'rcu', n, 2);
  const readers = n - 1;
  const first = updaterFirst ? 1 : 0; // thread number of reader 0
  const updater = proc(updaterFirst ? 0 : readers, ['int *x', 'int *y'], [], [
    'WRITE_ONCE(*y, 1);',
    'synchronize_rcu();',
    'WRITE_ONCE(*x, 1);',
  ]);
  const procs: string[] = [];
  if (updaterFirst) procs.push(updater);
  for (let i = 0; i < readers; i++) {
    procs.push(
      proc(first + i, ['int *x', 'int *y'], ['r1', 'r2'], [
        'rcu_read_lock();',
        'r1 = READ_ONCE(*x);',
        'r2 = READ_ONCE(*y);',
        'rcu_read_unlock();',
      ]),
    );
  }
  if (!updaterFirst) procs.push(updater);
  const disj = Array.from({ length: readers }, (_, i) => `(${first + i}:r1=1 /\\ ${first + i}:r2=0)`).join(' \\/ ');
  return test(`RCU-${updaterFirst ? 'updater-first-' : ''}readers-${readers}`, procs, `exists (${disj})`);
}

/** N threads, each reading c into r0 and then writing c (write(i)) inside spin_lock(l). */
function underLock(n: number, write: (i: number) => string): string[] {
  return Array.from({ length: n }, (_, i) =>
    proc(i, ['spinlock_t *l', 'int *c'], ['r0'], ['spin_lock(l);', 'r0 = READ_ONCE(*c);', write(i), 'spin_unlock(l);']),
  );
}

/**
 * spinlock-counter: N threads each increment a shared counter inside a
 * spin_lock critical section; the exists clause asks whether an increment
 * was lost (final c differs from N).
 */
function spinlockCounter(n: number): string {
  checkN('spinlock-counter', n, 1);
  return test(`Spinlock-counter-${n}`, underLock(n, () => 'WRITE_ONCE(*c, r0 + 1);'), `exists (not (c=${n}))`);
}

/**
 * spinlock-handoff: like spinlock-counter but without arithmetic: thread i
 * stores the constant i+1 in its critical section, so the value domain of c
 * is exactly {0..N}. The exists clause asks whether two threads both saw the
 * initial value (both "first" into the critical section), which mutual
 * exclusion forbids. Separates lock exploration cost from value-domain cost.
 */
function spinlockHandoff(n: number): string {
  checkN('spinlock-handoff', n, 2);
  return test(`Spinlock-handoff-${n}`, underLock(n, (i) => `WRITE_ONCE(*c, ${i + 1});`), 'exists (0:r0=0 /\\ 1:r0=0)');
}

/**
 * iriw: two writers (P0: x=1, P1: y=1) and N-2 readers; even-numbered readers
 * read x then y, odd-numbered readers read y then x, with smp_mb() between.
 * The exists clause asks whether two readers disagree on the order of the two
 * independent writes (forbidden by smp_mb()); with a single reader (N=3) it
 * asks for the (allowed) "saw x but not yet y" outcome.
 */
function iriw(n: number): string {
  checkN('iriw', n, 3);
  const procs: string[] = [];
  procs.push(proc(0, ['int *x'], [], ['WRITE_ONCE(*x, 1);']));
  procs.push(proc(1, ['int *y'], [], ['WRITE_ONCE(*y, 1);']));
  for (let i = 2; i < n; i++) {
    const [a, b] = i % 2 === 0 ? ['x', 'y'] : ['y', 'x'];
    procs.push(
      proc(i, ['int *x', 'int *y'], ['r0', 'r1'], [`r0 = READ_ONCE(*${a});`, 'smp_mb();', `r1 = READ_ONCE(*${b});`]),
    );
  }
  const cond =
    n === 3 ? 'exists (2:r0=1 /\\ 2:r1=0)' : 'exists (2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)';
  return test(`IRIW-mb-${n}`, procs, cond);
}

/**
 * rcu-gp-chain: the shape of the auto/ `C-RR-G+RR-G+...` tests of Paul
 * McKenney's collection. N threads each read x(i), wait for a grace period
 * and read x(i+1) (the last wraps round to x0); one more thread writes every
 * x(i). "Each thread sees its first location written but not its second"
 * would need every grace period to end before the one that follows it in
 * the cycle starts: a cycle of N grace periods, which RCU forbids.
 */
function rcuGpChain(n: number): string {
  checkN('rcu-gp-chain', n, 1);
  const x = (i: number) => `x${i % n}`;
  const procs: string[] = [];
  for (let i = 0; i < n; i++) {
    procs.push(
      proc(i, [`int *${x(i)}`, `int *${x(i + 1)}`].filter((p, j, a) => a.indexOf(p) === j), ['r1', 'r2'], [
        `r1 = READ_ONCE(*${x(i)});`,
        'synchronize_rcu();',
        `r2 = READ_ONCE(*${x(i + 1)});`,
      ]),
    );
  }
  const all = Array.from({ length: n }, (_, i) => `int *x${i}`);
  procs.push(proc(n, all, [], Array.from({ length: n }, (_, i) => `WRITE_ONCE(*x${i}, 1);`)));
  const cond = Array.from({ length: n }, (_, i) => `${i}:r1=1 /\\ ${i}:r2=0`).join(' /\\ ');
  return test(`RCU-gp-chain-${n}`, procs, `exists (${cond})`);
}

/**
 * copy-chain: a value passed from thread to thread by plain copies (the
 * shape of an alias-analysis benchmark of another LKMM tool). x0 starts at
 * 1; P0 copies x0 into x1, then reads x(N) and stores what it read into y;
 * each other Pi copies x(i) into x(i+1). y=1 needs every copy to read the
 * latest write: one execution of 2^N. `reversed` numbers the threads the
 * other way round (the copy of x0 is the last thread, P0 copies x(N-1)),
 * so that each copy comes before its source in the explorer's order.
 * `cond` is the final clause (exists (y=1) unless given); `name` the family's.
 */
function copyChain(n: number, name: string, reversed = false, cond = 'exists (y=1)'): string {
  checkN(name, n, 2);
  const copies: string[] = [];
  for (let i = 1; i < n; i++) {
    copies.push(
      proc(reversed ? n - 1 - i : i, [`int *x${i}`, `int *x${i + 1}`], ['r0'], [`r0 = READ_ONCE(*x${i});`, `WRITE_ONCE(*x${i + 1}, r0);`]),
    );
  }
  const first = proc(reversed ? n - 1 : 0, ['int *x0', 'int *x1', `int *x${n}`, 'int *y'], ['r0', 't'], [
    'r0 = READ_ONCE(*x0);',
    'WRITE_ONCE(*x1, r0);',
    `t = READ_ONCE(*x${n});`,
    'WRITE_ONCE(*y, t);',
  ]);
  const procs = reversed ? [...copies.reverse(), first] : [first, ...copies];
  const title = name.replace(/^c/, 'C');
  return test(`${title}-${n}`, procs, cond, '{ x0 = 1; }');
}

/**
 * wait-readers: P0 writes data, then releases flag; P1..P(N-1) each wait
 * for the flag (acquire loads) and read data: "a reader saw the flag but
 * not the data" is forbidden, and every wait terminates. With `oneRead`,
 * each wait is one acquire load (wait-readers-reads): the same test
 * without its loops, the yardstick of what a wait costs.
 */
function waitReaders(n: number, oneRead = false): string {
  checkN('wait-readers', n, 2);
  const procs = [proc(0, ['int *data', 'int *flag'], [], ['WRITE_ONCE(*data, 1);', 'smp_store_release(flag, 1);'])];
  const wait = oneRead ? ['r0 = smp_load_acquire(flag);'] : ['r0 = smp_load_acquire(flag);', 'while (r0 == 0)', '\tr0 = smp_load_acquire(flag);'];
  for (let i = 1; i < n; i++) procs.push(proc(i, ['int *data', 'int *flag'], ['r0', 'r1'], [...wait, 'r1 = READ_ONCE(*data);']));
  const bad = Array.from({ length: n - 1 }, (_, i) => `${i + 1}:r0=1 /\\ ${i + 1}:r1=0`).join(' \\/ ');
  return test(`${oneRead ? 'Wait-readers-reads' : 'Wait-readers'}-${n}`, procs, `exists (${bad})`);
}

/**
 * mcs-handoff: an MCS-style hand-off along N CPUs. P0 holds the lock; each
 * CPU increments the counter in its critical section, then hands the lock
 * to the next by a release store to that CPU's `locked` flag; CPU i>0 first
 * waits on its own flag (acquire loads). "The counter lost an increment"
 * is forbidden and every wait terminates. With `oneRead`
 * (mcs-handoff-reads), each wait is one acquire load and the condition asks
 * for the increments lost where every load saw its flag set.
 */
function mcsHandoff(n: number, oneRead = false): string {
  checkN('mcs-handoff', n, 2);
  const procs: string[] = [];
  for (let i = 0; i < n; i++) {
    const params = ['int *c', ...(i > 0 ? [`int *l${i}`] : []), ...(i < n - 1 ? [`int *l${i + 1}`] : [])];
    const wait = i === 0 ? [] : oneRead ? [`r0 = smp_load_acquire(l${i});`] : [`r0 = smp_load_acquire(l${i});`, 'while (r0 == 0)', `\tr0 = smp_load_acquire(l${i});`];
    const handoff = i < n - 1 ? [`smp_store_release(l${i + 1}, 1);`] : [];
    procs.push(proc(i, params, [...(i > 0 ? ['r0'] : []), 'r1'], [...wait, 'r1 = READ_ONCE(*c);', 'WRITE_ONCE(*c, r1 + 1);', ...handoff]));
  }
  const saw = Array.from({ length: n - 1 }, (_, i) => `${i + 1}:r0=1 /\\ `).join('');
  return test(`${oneRead ? 'MCS-handoff-reads' : 'MCS-handoff'}-${n}`, procs, `exists (${oneRead ? saw : ''}~c=${n})`);
}

export const FAMILIES: Family[] = [
  {
    name: 'mp-chain',
    description: 'N-thread release/acquire message-passing chain (x0 data, x1..x(N-1) flags)',
    minN: 2,
    expected: () => 'Never',
    make: mpChain,
  },
  {
    name: 'rcu',
    description: 'N-1 RCU readers (x then y) vs one updater (y=1; synchronize_rcu(); x=1)',
    minN: 2,
    expected: () => 'Never',
    make: (n) => rcu(n),
  },
  {
    name: 'rcu-updater-first',
    description: 'same as rcu, but the updater is P0 and the readers are P1..P(N-1)',
    minN: 2,
    expected: () => 'Never',
    make: (n) => rcu(n, true),
  },
  {
    name: 'spinlock-counter',
    description: 'N threads incrementing a counter under one spinlock; exists lost update',
    minN: 2,
    expected: () => 'Never',
    make: spinlockCounter,
  },
  {
    name: 'spinlock-handoff',
    description: 'N threads each storing a constant under one spinlock; exists two threads both first (no arithmetic)',
    minN: 2,
    expected: () => 'Never',
    make: spinlockHandoff,
  },
  {
    name: 'iriw',
    description: 'IRIW with smp_mb(): 2 writers (x, y) and N-2 readers alternating x;mb;y / y;mb;x',
    minN: 3,
    expected: (n) => (n === 3 ? 'Sometimes' : 'Never'),
    make: iriw,
  },
  {
    name: 'rcu-gp-chain',
    description:
      'N = the number of grace-period threads (N+1 threads): each reads x(i), synchronize_rcu(), reads x(i+1 mod N); one more writes every x(i) (the shape of auto/C-RR-G+RR-G+...)',
    minN: 1,
    expected: () => 'Never',
    make: rcuGpChain,
  },
  {
    name: 'copy-chain',
    description:
      'N threads passing x0=1 along plain copies x(i) -> x(i+1); P0 also reads x(N) into y; exists y=1 (every copy reads the latest write)',
    minN: 2,
    expected: () => 'Sometimes',
    make: (n) => copyChain(n, 'copy-chain'),
    speedcheck: true,
  },
  {
    name: 'copy-chain-reversed',
    description: 'copy-chain with the threads numbered the other way round (each copy before its source in thread order)',
    minN: 2,
    expected: () => 'Sometimes',
    make: (n) => copyChain(n, 'copy-chain-reversed', true),
    speedcheck: true,
  },
  {
    name: 'copy-chain-forall',
    description: 'copy-chain-reversed asking forall (y=0): a violation is the one execution where the value reaches y',
    minN: 2,
    expected: () => 'Sometimes',
    make: (n) => copyChain(n, 'copy-chain-forall', true, 'forall (y=0)'),
    speedcheck: true,
  },
  {
    name: 'wait-readers',
    description: 'P0 writes data and releases a flag; N-1 readers each wait for the flag (a spin loop of acquire loads), then read data',
    minN: 2,
    expected: () => 'Never',
    make: (n) => waitReaders(n),
    waits: { oneRead: 'wait-readers-reads' },
  },
  {
    name: 'wait-readers-reads',
    description: 'wait-readers with each wait replaced by one acquire load',
    minN: 2,
    expected: () => 'Never',
    make: (n) => waitReaders(n, true),
  },
  {
    name: 'mcs-handoff',
    description: 'an MCS-style lock handed along N CPUs: each waits on its own flag, increments a counter, releases the next CPU\'s flag',
    minN: 2,
    expected: () => 'Never',
    make: (n) => mcsHandoff(n),
    waits: { oneRead: 'mcs-handoff-reads' },
  },
  {
    name: 'mcs-handoff-reads',
    description: 'mcs-handoff with each wait replaced by one acquire load',
    minN: 2,
    expected: () => 'Never',
    make: (n) => mcsHandoff(n, true),
  },
];
