// Waits and liveness (src/explore/liveness.ts): can a waiter wait forever?
//
// Each case is a test with waits and its expected answer. The answer is
// worked out from herd7's answer on the matching final-state encoding: the
// same test with each wait replaced by one read (the wait's final pass),
// the code after a wait run only when that read lets the wait end, and a
// condition saying that some waiting thread read a value that keeps it
// waiting and that value is the location's final one (herd7 cannot name the
// coherence-last write; a final value equal to what was read stands for
// it), every other waiting thread either done waiting or waiting so too.
// herd7 7.58 + LKMM's answer on each encoding is recorded in the case
// (`herd7`), and checked three ways: litmus checks the encoding (loops read
// as herd7 reads them) and must give that answer; the liveness verdict must
// be "hang" exactly where the encoding is reachable; and where herd7 is
// installed it is run on the encoding.

import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSource, type CheckOptions, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { sc } from '../models/sc.js';
import { x86tso } from '../models/x86tso.js';
import { compileModelFiles } from '../models/cat/model.js';
import type { Model } from '../src/model/model.js';
import { humanLine } from '../src/report/herd.js';
import { traceWithWaits } from '../src/report/waits.js';
import { HAVE_LKMM, LKMM_DIR, stateSet } from './util.js';

const HERD = '/root/herd/bin/lkmm-herd';

interface Case {
  name: string;
  /** The test, with its waits. */
  test: string;
  /** The expected answer: which thread waits forever, at which line, reading what (or undefined: every wait terminates). */
  hang?: { thread: number; line: number; words: string };
  /** The final-state encoding (see the file's comment) and herd7's Observation on it. */
  encoding: string;
  herd7: 'Always' | 'Sometimes' | 'Never';
}

const lostWakeup = (waiterMb: boolean, wakerMb: boolean): string => `C lost-wakeup${waiterMb ? '+mb' : ''}${wakerMb ? '+mb' : ''}

(* The waiter says it sleeps, then checks the condition; the waker sets the condition, then looks for a sleeper. *)

{}

P0(int *cond, int *sleeping, int *woken)
{
	int r0;
	int r1;

	WRITE_ONCE(*sleeping, 1);
${waiterMb ? '\tsmp_mb();\n' : ''}	r0 = READ_ONCE(*cond);
	if (r0 == 0) {
		r1 = READ_ONCE(*woken);
		while (r1 == 0)
			r1 = READ_ONCE(*woken);
	}
}

P1(int *cond, int *sleeping, int *woken)
{
	int r2;

	WRITE_ONCE(*cond, 1);
${wakerMb ? '\tsmp_mb();\n' : ''}	r2 = READ_ONCE(*sleeping);
	if (r2 == 1)
		WRITE_ONCE(*woken, 1);
}

exists (0:r0=0 /\\ 1:r2=0)
`;

// The encoding: the wait on woken is one read; P0 waits forever if it read cond=0 and woken=0, the final woken.
const lostWakeupEncoding = (waiterMb: boolean, wakerMb: boolean): string => `C lost-wakeup-encoding

{}

P0(int *cond, int *sleeping, int *woken)
{
	int r0;
	int r1;

	WRITE_ONCE(*sleeping, 1);
${waiterMb ? '\tsmp_mb();\n' : ''}	r0 = READ_ONCE(*cond);
	r1 = READ_ONCE(*woken);
}

P1(int *cond, int *sleeping, int *woken)
{
	int r2;

	WRITE_ONCE(*cond, 1);
${wakerMb ? '\tsmp_mb();\n' : ''}	r2 = READ_ONCE(*sleeping);
	if (r2 == 1)
		WRITE_ONCE(*woken, 1);
}

exists (0:r0=0 /\\ 0:r1=0 /\\ woken=0)
`;

/** The line of the first line of text holding fragment. */
const lineOf = (text: string, fragment: string): number => text.split('\n').findIndex((l) => l.includes(fragment)) + 1;

const CASES: Case[] = [
  ...([[false, false, 'Sometimes'], [true, false, 'Sometimes'], [false, true, 'Sometimes'], [true, true, 'Never']] as const).map(([w, k, herd7]): Case => {
    const test = lostWakeup(w, k);
    return {
      name: `lost wake-up, ${w ? 'smp_mb()' : 'no barrier'} in the waiter, ${k ? 'smp_mb()' : 'none'} in the waker`,
      test,
      hang: herd7 === 'Never' ? undefined : { thread: 0, line: lineOf(test, 'while (r1 == 0)'), words: 'reads woken=0 forever' },
      encoding: lostWakeupEncoding(w, k),
      herd7,
    };
  }),
  {
    name: 'a flag wait with a writer',
    test: `C flag-wait

{}

P0(int *flag, int *data)
{
	int r0;
	int r1;

	r0 = smp_load_acquire(flag);
	while (r0 == 0)
		r0 = smp_load_acquire(flag);
	r1 = READ_ONCE(*data);
}

P1(int *flag, int *data)
{
	WRITE_ONCE(*data, 1);
	smp_store_release(flag, 1);
}

exists (0:r1=0)
`,
    encoding: `C flag-wait-encoding

{}

P0(int *flag)
{
	int r0;

	r0 = smp_load_acquire(flag);
}

P1(int *flag, int *data)
{
	WRITE_ONCE(*data, 1);
	smp_store_release(flag, 1);
}

exists (0:r0=0 /\\ flag=0)
`,
    herd7: 'Never',
  },
  {
    name: 'a flag wait with no writer',
    test: `C flag-wait-no-writer

{}

P0(int *flag, int *data)
{
	int r0;

	r0 = smp_cond_load_acquire(flag, VAL != 0);
}

P1(int *flag, int *data)
{
	WRITE_ONCE(*data, 1);
}

exists (0:r0=1)
`,
    hang: { thread: 0, line: 9, words: 'reads flag=0 forever' },
    encoding: `C flag-wait-no-writer-encoding

{}

P0(int *flag)
{
	int r0;

	r0 = smp_load_acquire(flag);
}

P1(int *data)
{
	WRITE_ONCE(*data, 1);
}

exists (0:r0=0 /\\ flag=0)
`,
    herd7: 'Always',
  },
  {
    name: 'a hand-off whose store is missing on one path',
    test: `C handoff-missing-store

(* P0 hands the lock to its successor only when it saw it queued; P1 queues, then waits to be handed the lock. *)

{}

P0(int *next, int *locked)
{
	int r0;

	r0 = READ_ONCE(*next);
	if (r0 == 1)
		smp_store_release(locked, 1);
}

P1(int *next, int *locked)
{
	int r1;

	WRITE_ONCE(*next, 1);
	r1 = smp_cond_load_acquire(locked, VAL);
}

exists (1:r1=1)
`,
    hang: { thread: 1, line: 21, words: 'reads locked=0 forever' },
    encoding: `C handoff-missing-store-encoding

{}

P0(int *next, int *locked)
{
	int r0;

	r0 = READ_ONCE(*next);
	if (r0 == 1)
		smp_store_release(locked, 1);
}

P1(int *next, int *locked)
{
	int r1;

	WRITE_ONCE(*next, 1);
	r1 = smp_load_acquire(locked);
}

exists (1:r1=0 /\\ locked=0)
`,
    herd7: 'Sometimes',
  },
  {
    name: 'a hand-off that stores on both paths',
    test: `C handoff-both-paths

{}

P0(int *next, int *locked)
{
	int r0;

	r0 = READ_ONCE(*next);
	if (r0 == 1)
		smp_store_release(locked, 1);
	else
		smp_store_release(locked, 2);
}

P1(int *next, int *locked)
{
	int r1;

	WRITE_ONCE(*next, 1);
	r1 = smp_cond_load_acquire(locked, VAL);
}

exists (1:r1=2)
`,
    encoding: `C handoff-both-paths-encoding

{}

P0(int *next, int *locked)
{
	int r0;

	r0 = READ_ONCE(*next);
	if (r0 == 1)
		smp_store_release(locked, 1);
	else
		smp_store_release(locked, 2);
}

P1(int *next, int *locked)
{
	int r1;

	WRITE_ONCE(*next, 1);
	r1 = smp_load_acquire(locked);
}

exists (1:r1=0 /\\ locked=0)
`,
    herd7: 'Never',
  },
  {
    // A grace period waits for a read-side critical section that began before it; this one waits for an update made after the grace period.
    name: 'a wait inside an RCU reader for an update made after synchronize_rcu()',
    test: `C rcu-reader-waits-for-update-after-gp

{}

P0(int *flag)
{
	int r0;

	rcu_read_lock();
	r0 = READ_ONCE(*flag);
	while (r0 == 0)
		r0 = READ_ONCE(*flag);
	rcu_read_unlock();
}

P1(int *flag)
{
	synchronize_rcu();
	WRITE_ONCE(*flag, 1);
}

exists (0:r0=1)
`,
    hang: { thread: 0, line: 11, words: 'reads flag=0 forever' },
    // herd7's Sometimes: the critical section can read flag=0 and be one the grace period waits for (it ends before it, in herd7's execution); with the wait, that section never ends, so neither does the grace period, and flag is never written.
    encoding: `C rcu-reader-waits-encoding

{}

P0(int *flag)
{
	int r0;

	rcu_read_lock();
	r0 = READ_ONCE(*flag);
	rcu_read_unlock();
}

P1(int *flag)
{
	synchronize_rcu();
	WRITE_ONCE(*flag, 1);
}

exists (0:r0=0)
`,
    herd7: 'Sometimes',
  },
  {
    name: 'a wait inside an RCU reader for an update made before synchronize_rcu()',
    test: `C rcu-reader-waits-for-update-before-gp

{}

P0(int *flag)
{
	int r0;

	rcu_read_lock();
	r0 = READ_ONCE(*flag);
	while (r0 == 0)
		r0 = READ_ONCE(*flag);
	rcu_read_unlock();
}

P1(int *flag)
{
	WRITE_ONCE(*flag, 1);
	synchronize_rcu();
}

exists (0:r0=1)
`,
    encoding: `C rcu-reader-waits-before-encoding

{}

P0(int *flag)
{
	int r0;

	rcu_read_lock();
	r0 = READ_ONCE(*flag);
	rcu_read_unlock();
}

P1(int *flag)
{
	WRITE_ONCE(*flag, 1);
	synchronize_rcu();
}

exists (0:r0=0 /\\ flag=0)
`,
    herd7: 'Never',
  },
  {
    name: 'two threads, each waiting for the other',
    test: `C each-waits-for-the-other

{}

P0(int *x, int *y)
{
	int r0;

	r0 = READ_ONCE(*y);
	while (r0 == 0)
		r0 = READ_ONCE(*y);
	WRITE_ONCE(*x, 1);
}

P1(int *x, int *y)
{
	int r1;

	r1 = READ_ONCE(*x);
	while (r1 == 0)
		r1 = READ_ONCE(*x);
	WRITE_ONCE(*y, 1);
}

exists (0:r0=1 /\\ 1:r1=1)
`,
    hang: { thread: 0, line: 10, words: 'reads y=0 forever' },
    encoding: `C each-waits-encoding

{}

P0(int *x, int *y)
{
	int r0;

	r0 = READ_ONCE(*y);
	if (r0 == 1)
		WRITE_ONCE(*x, 1);
}

P1(int *x, int *y)
{
	int r1;

	r1 = READ_ONCE(*x);
	if (r1 == 1)
		WRITE_ONCE(*y, 1);
}

exists (0:r0=0 /\\ y=0 /\\ (1:r1=1 \\/ 1:r1=0 /\\ x=0) \\/ 1:r1=0 /\\ x=0 /\\ 0:r0=1)
`,
    herd7: 'Always',
  },
  {
    name: 'two threads, each announcing itself, then waiting for the other',
    test: `C each-announces-then-waits

{}

P0(int *x, int *y)
{
	int r0;

	WRITE_ONCE(*x, 1);
	r0 = READ_ONCE(*y);
	while (r0 == 0)
		r0 = READ_ONCE(*y);
}

P1(int *x, int *y)
{
	int r1;

	WRITE_ONCE(*y, 1);
	r1 = READ_ONCE(*x);
	while (r1 == 0)
		r1 = READ_ONCE(*x);
}

exists (0:r0=1 /\\ 1:r1=1)
`,
    encoding: `C each-announces-encoding

{}

P0(int *x, int *y)
{
	int r0;

	WRITE_ONCE(*x, 1);
	r0 = READ_ONCE(*y);
}

P1(int *x, int *y)
{
	int r1;

	WRITE_ONCE(*y, 1);
	r1 = READ_ONCE(*x);
}

exists (0:r0=0 /\\ y=0 \\/ 1:r1=0 /\\ x=0)
`,
    herd7: 'Never',
  },
  {
    name: 'a chain of three threads, each waiting for the one before',
    test: `C chain-of-three

{}

P0(int *a)
{
	WRITE_ONCE(*a, 1);
}

P1(int *a, int *b)
{
	int r1;

	r1 = READ_ONCE(*a);
	while (r1 == 0)
		r1 = READ_ONCE(*a);
	WRITE_ONCE(*b, 1);
}

P2(int *b)
{
	int r2;

	r2 = READ_ONCE(*b);
	while (r2 == 0)
		r2 = READ_ONCE(*b);
}

exists (2:r2=1)
`,
    encoding: `C chain-of-three-encoding

{}

P0(int *a)
{
	WRITE_ONCE(*a, 1);
}

P1(int *a, int *b)
{
	int r1;

	r1 = READ_ONCE(*a);
	if (r1 == 1)
		WRITE_ONCE(*b, 1);
}

P2(int *b)
{
	int r2;

	r2 = READ_ONCE(*b);
}

exists (1:r1=0 /\\ a=0 \\/ 1:r1=1 /\\ 2:r2=0 /\\ b=0)
`,
    herd7: 'Never',
  },
  {
    name: 'a ring of three threads, each waiting for the one before',
    test: `C ring-of-three

{}

P0(int *a, int *c)
{
	int r0;

	r0 = READ_ONCE(*c);
	while (r0 == 0)
		r0 = READ_ONCE(*c);
	WRITE_ONCE(*a, 1);
}

P1(int *a, int *b)
{
	int r1;

	r1 = READ_ONCE(*a);
	while (r1 == 0)
		r1 = READ_ONCE(*a);
	WRITE_ONCE(*b, 1);
}

P2(int *b, int *c)
{
	int r2;

	r2 = READ_ONCE(*b);
	while (r2 == 0)
		r2 = READ_ONCE(*b);
	WRITE_ONCE(*c, 1);
}

exists (0:r0=1)
`,
    hang: { thread: 0, line: 10, words: 'reads c=0 forever' },
    encoding: `C ring-of-three-encoding

{}

P0(int *a, int *c)
{
	int r0;

	r0 = READ_ONCE(*c);
}

P1(int *a, int *b)
{
	int r1;

	r1 = READ_ONCE(*a);
}

P2(int *b, int *c)
{
	int r2;

	r2 = READ_ONCE(*b);
}

exists (0:r0=0 /\\ 1:r1=0 /\\ 2:r2=0 /\\ a=0 /\\ b=0 /\\ c=0)
`,
    herd7: 'Always',
  },
  {
    name: 'two locks taken in opposite orders (ABBA)',
    test: `C abba

{}

P0(spinlock_t *a, spinlock_t *b, int *x)
{
	spin_lock(a);
	spin_lock(b);
	WRITE_ONCE(*x, 1);
	spin_unlock(b);
	spin_unlock(a);
}

P1(spinlock_t *a, spinlock_t *b, int *x)
{
	spin_lock(b);
	spin_lock(a);
	WRITE_ONCE(*x, 2);
	spin_unlock(a);
	spin_unlock(b);
}

exists (x=1)
`,
    hang: { thread: 0, line: 8, words: 'b stays locked by P1' },
    // A spin_lock() that waits forever is a failed spin_trylock() that keeps failing.
    encoding: `C abba-encoding

{}

P0(spinlock_t *a, spinlock_t *b)
{
	int r0;

	spin_lock(a);
	r0 = spin_trylock(b);
}

P1(spinlock_t *a, spinlock_t *b)
{
	int r1;

	spin_lock(b);
	r1 = spin_trylock(a);
}

exists (0:r0=0 /\\ 1:r1=0)
`,
    herd7: 'Always',
  },
  {
    name: 'a lock that is never released',
    test: `C lock-never-released

{}

P0(spinlock_t *l, int *x)
{
	spin_lock(l);
	WRITE_ONCE(*x, 1);
}

P1(spinlock_t *l, int *x)
{
	int r0;

	spin_lock(l);
	r0 = READ_ONCE(*x);
	spin_unlock(l);
}

exists (1:r0=1)
`,
    hang: { thread: 1, line: 15, words: 'l stays locked by P0' },
    encoding: `C lock-never-released-encoding

{}

P0(spinlock_t *l, int *x)
{
	spin_lock(l);
	WRITE_ONCE(*x, 1);
}

P1(spinlock_t *l)
{
	int r0;

	r0 = spin_trylock(l);
}

exists (1:r0=0)
`,
    herd7: 'Always',
  },
];

const HERD7_READS = { waits: 'unrolled' } as const;
const check = (text: string, model: Model = lkmm, opts: Partial<CheckOptions> = {}): CheckResult => checkSource(text, { model, ...opts });
const kernelFiles = (): Model =>
  compileModelFiles({ cat: join(LKMM_DIR, 'linux-kernel.cat'), bell: join(LKMM_DIR, 'linux-kernel.bell'), variants: ['lkmmv2'], searchDirs: [LKMM_DIR], skipChecks: [], besideIncluder: true });

/** The liveness verdict in the summary's words. */
const words = (r: CheckResult): string => (r.liveness?.verdict === 'hang' ? `P${r.liveness.thread} line ${r.liveness.pos?.line}` : r.liveness?.verdict ?? 'none');

describe('can a waiter wait forever? each case against herd7\'s answer on its encoding', () => {
  for (const c of CASES) {
    it(c.name, () => {
      // herd7's recorded answer on the encoding is what litmus gives it too (herd7's reading of loops).
      expect(check(c.encoding, lkmm, HERD7_READS).observation).toBe(c.herd7);
      // A hang exactly where the encoding is reachable.
      expect(c.hang !== undefined).toBe(c.herd7 !== 'Never');
      const r = check(c.test);
      expect(r.liveness?.verdict).toBe(c.hang ? 'hang' : 'terminates');
      if (c.hang) {
        expect(words(r)).toBe(`P${c.hang.thread} line ${c.hang.line}`);
        expect(r.liveness!.hangs).toBeGreaterThan(0);
        expect(humanLine(r)).toContain(`can hang: P${c.hang.thread} waits forever at line ${c.hang.line} (${c.hang.words})`);
      } else expect(humanLine(r)).toContain('every wait terminates');
    });
  }

  it.skipIf(!HAVE_LKMM)('the same answers under the kernel\'s LKMM files, compiled (skipped without ../shared/lkmm)', () => {
    const files = kernelFiles();
    for (const c of CASES) expect([c.name, words(check(c.test, files))]).toEqual([c.name, words(check(c.test))]);
  });

  it.skipIf(!existsSync(HERD))('herd7 gives the recorded answer on each encoding (skipped without herd7)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'liveness-'));
    try {
      for (const [i, c] of CASES.entries()) {
        const file = join(dir, `e${i}.litmus`);
        writeFileSync(file, c.encoding);
        const out = execFileSync(HERD, [file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
        expect([c.name, /^Observation \S+ (\w+)/m.exec(out)?.[1]]).toEqual([c.name, c.herd7]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('waits read exactly', () => {
  const spin = `C spin

{}

P0(int *x)
{
	WRITE_ONCE(*x, 1);
}

P1(int *x)
{
	int r0;

	r0 = READ_ONCE(*x);
	while (r0 == 0)
		r0 = READ_ONCE(*x);
}

exists (1:r0=1)
`;

  it('a wait needs no bound: the same answer and counts at every --unroll from 1, nothing cut; herd7\'s reading cuts', () => {
    const at = (unroll: number, opts: Partial<CheckOptions> = {}) => {
      const r = check(spin, lkmm, { unroll, ...opts });
      return `${r.observation} ${r.positive} ${r.negative} cut=${r.stats.cutPaths} ${r.liveness?.verdict ?? '-'}`;
    };
    for (const n of [1, 2, 5, 20]) expect(at(n)).toBe('Always 2 0 cut=0 terminates');
    expect(at(2, HERD7_READS)).toBe('Always 3 0 cut=1 -');
    // --unroll 0 runs no loop body: the wait is not judged.
    expect(at(0)).toMatch(/ cut=1 unknown$/);
  });

  it('a wait that never ends is a hang with no execution ("Never 0 0", what the kernel\'s scripts call DEADLOCK)', () => {
    const text = spin.replace('\tWRITE_ONCE(*x, 1);\n', '').replace('C spin', 'C spin-alone\n\n(* Result: DEADLOCK *)');
    const r = check(text);
    expect([r.observation, r.positive, r.negative, r.matches]).toEqual(['Never', 0, 0, true]);
    expect(r.liveness).toMatchObject({ verdict: 'hang', thread: 1, reads: [{ location: 'x', value: '0' }] });
  });

  it('a wait on a value that stays is judged by the last write: two writes of x, the waiter waits for the first', () => {
    const text = spin.replace('WRITE_ONCE(*x, 1);', 'WRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*x, 0);');
    expect(check(text).liveness).toMatchObject({ verdict: 'hang', reads: [{ location: 'x', value: '0' }] });
    // Reading x=1 it leaves (its first read, or the loop's after a first read of 0): those executions are counted.
    expect(check(text).positive).toBe(2);
  });

  it('loops whose passes change something are bounded as herd7 bounds them: the same counts and cut paths', () => {
    const counting = spin.replace('\tr0 = READ_ONCE(*x);\n\twhile (r0 == 0)\n\t\tr0 = READ_ONCE(*x);', '\tint i;\n\n\tr0 = 0;\n\tfor (i = 0; i < 3; i++)\n\t\tr0 = r0 + READ_ONCE(*x);');
    for (const n of [1, 2, 3]) {
      const a = check(counting, lkmm, { unroll: n });
      const b = check(counting, lkmm, { unroll: n, ...HERD7_READS });
      expect([a.observation, a.positive, a.negative, a.stats.cutPaths]).toEqual([b.observation, b.positive, b.negative, b.stats.cutPaths]);
    }
  });

  it('a spin_trylock() or cmpxchg() retried until it succeeds is a wait (a failed one only reads); a lock never released makes it hang', () => {
    const spinOn = (take: string, release: string) => `C spin-on\n\n{}\n\nP0(spinlock_t *l, int *x)\n{\n\tint r0;\n\n\tr0 = ${take};\n\twhile (r0 == 0)\n\t\tr0 = ${take};\n\tWRITE_ONCE(*x, 1);\n${release}}\n\nP1(spinlock_t *l, int *x)\n{\n\tint r1;\n\n\tr1 = ${take};\n\twhile (r1 == 0)\n\t\tr1 = ${take};\n\tWRITE_ONCE(*x, 2);\n${release}}\n\nexists (x=1)\n`;
    const trylock = (release: string) => spinOn('spin_trylock(l)', release);
    expect(check(trylock('\tspin_unlock(l);\n')).liveness?.verdict).toBe('terminates');
    expect(check(trylock('')).liveness).toMatchObject({ verdict: 'hang', kind: 'loop', reads: [{ location: 'l', value: '1' }] });
    // cmpxchg(l, 0, 1) returns the old value: 0 when it took the lock.
    const cas = (release: string) => spinOn('cmpxchg(l, 0, 1)', release).replace(/while \((r[01]) == 0\)/g, 'while ($1 != 0)').replace(/spinlock_t \*l/g, 'int *l');
    expect(check(cas('\tsmp_store_release(l, 0);\n')).liveness?.verdict).toBe('terminates');
    expect(check(cas('')).liveness).toMatchObject({ verdict: 'hang', reads: [{ location: 'l', value: '1' }] });
  });

  it('a self-deadlock (a lock taken twice) is DEADLOCK, and the thread waits forever at its second lock', () => {
    const text = 'C self-deadlock\n\n(* Result: DEADLOCK *)\n\n{}\n\nP0(spinlock_t *sl)\n{\n\tspin_lock(sl);\n\tspin_lock(sl);\n\tspin_unlock(sl);\n\tspin_unlock(sl);\n}\n';
    const r = check(text);
    expect([r.observation, r.positive + r.negative, r.matches]).toEqual(['Never', 0, true]);
    expect(r.liveness).toMatchObject({ verdict: 'hang', thread: 0, kind: 'lock', lock: 'sl', holder: 0, pos: { line: 10 } });
  });
});

// Generated programs with waits: plain, marked, acquire and release accesses, fences, and waits written
// four ways (herd7's read-then-while, smp_cond_load_acquire(), a do loop, a while loop with a fence inside).
const LOCS = ['x', 'y'] as const;
const access = fc.oneof(
  fc.record({ k: fc.constant('w' as const), loc: fc.constantFrom(...LOCS), v: fc.integer({ min: 1, max: 2 }), how: fc.constantFrom('WRITE_ONCE', 'smp_store_release', 'plain') }),
  fc.record({ k: fc.constant('r' as const), loc: fc.constantFrom(...LOCS), how: fc.constantFrom('READ_ONCE', 'smp_load_acquire', 'plain') }),
  fc.record({ k: fc.constant('f' as const), fence: fc.constantFrom('smp_mb', 'smp_rmb', 'smp_wmb') }),
  fc.record({ k: fc.constant('wait' as const), loc: fc.constantFrom(...LOCS), v: fc.integer({ min: 0, max: 2 }), how: fc.constantFrom('herd', 'cond', 'do', 'fence') }),
);
const genThreads = fc.array(fc.array(access, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 3 });

function renderWaits(threads: fc.infer<typeof genThreads>): string {
  const observed: string[] = [];
  const procs = threads.map((ops, t) => {
    let n = 0;
    const lines = ops.map((o) => {
      if (o.k === 'f') return `\t${o.fence}();`;
      if (o.k === 'w') return o.how === 'plain' ? `\t*${o.loc} = ${o.v};` : o.how === 'WRITE_ONCE' ? `\tWRITE_ONCE(*${o.loc}, ${o.v});` : `\tsmp_store_release(${o.loc}, ${o.v});`;
      const r = `r${n++}`;
      observed.push(`${t}:${r}`);
      if (o.k === 'r') return o.how === 'plain' ? `\t${r} = *${o.loc};` : o.how === 'READ_ONCE' ? `\t${r} = READ_ONCE(*${o.loc});` : `\t${r} = smp_load_acquire(${o.loc});`;
      if (o.how === 'herd') return `\t${r} = READ_ONCE(*${o.loc});\n\twhile (${r} == ${o.v})\n\t\t${r} = READ_ONCE(*${o.loc});`;
      if (o.how === 'cond') return `\t${r} = smp_cond_load_acquire(${o.loc}, VAL != ${o.v});`;
      if (o.how === 'do') return `\tdo\n\t\t${r} = READ_ONCE(*${o.loc});\n\twhile (${r} == ${o.v});`;
      return `\t${r} = 0;\n\twhile (READ_ONCE(*${o.loc}) == ${o.v})\n\t\tsmp_mb();`;
    });
    const regs = Array.from({ length: n }, (_, i) => `\tint r${i};`);
    return `P${t}(int *x, int *y)\n{\n${[...regs, ...lines].join('\n')}\n}\n`;
  });
  return `C gen-waits\n\n{}\n\n${procs.join('\n')}\nlocations [${[...observed, 'x', 'y'].join('; ')}]\nexists (x=0)\n`;
}

describe('waits read exactly, on generated programs (properties)', () => {
  it('reach the final states and flags herd7\'s reading reaches, at the same --unroll (idle passes change no final state)', () => {
    fc.assert(
      fc.property(genThreads, fc.integer({ min: 1, max: 2 }), (threads, unroll) => {
        const text = renderWaits(threads);
        const exact = check(text, lkmm, { unroll });
        const herd = check(text, lkmm, { unroll, ...HERD7_READS });
        expect([...stateSet(exact)].sort()).toEqual([...stateSet(herd)].sort());
        expect(exact.flags).toEqual(herd.flags);
        expect(exact.stats.cutPaths).toBeLessThanOrEqual(herd.stats.cutPaths);
      }),
      { numRuns: 60 },
    );
  });

  it('a hang under SC is one under x86-TSO and under the LKMM (each allows what the one before allows)', () => {
    fc.assert(
      fc.property(genThreads, (threads) => {
        const text = renderWaits(threads);
        const verdicts = [sc, x86tso, lkmm].map((m) => check(text, m).liveness?.verdict);
        if (verdicts[0] === 'hang') expect(verdicts[1]).toBe('hang');
        if (verdicts[1] === 'hang') expect(verdicts[2]).toBe('hang');
      }),
      { numRuns: 60 },
    );
  });
});

describe('atomic_cond_read_acquire() and atomic_cond_read_relaxed()', () => {
  const text = (form: string) => `C atomic-cond-read

{}

P0(atomic_t *v, int *x)
{
	int r0;
	int r1;

	r0 = ${form}(v, VAL == 2);
	r1 = READ_ONCE(*x);
}

P1(atomic_t *v, int *x)
{
	WRITE_ONCE(*x, 1);
	atomic_inc(v);
	smp_mb__before_atomic();
	atomic_inc(v);
}

exists (0:r1=0)
`;
  it('wait on an atomic_t as smp_cond_load_*() does on its counter: every wait terminates; only the acquire form orders the read after it', () => {
    const acquire = check(text('atomic_cond_read_acquire'));
    const relaxed = check(text('atomic_cond_read_relaxed'));
    expect([acquire.observation, acquire.liveness?.verdict]).toEqual(['Never', 'terminates']);
    expect([relaxed.observation, relaxed.liveness?.verdict]).toEqual(['Sometimes', 'terminates']);
    // Never reaching 2 (one increment): a hang.
    expect(check(text('atomic_cond_read_acquire').replace('\tsmp_mb__before_atomic();\n\tatomic_inc(v);\n', '')).liveness).toMatchObject({ verdict: 'hang', reads: [{ location: 'v', value: '1' }] });
  });
});

describe('the trace of a hang: the stuck execution, why nothing releases the waiter, checked fixes', () => {
  const byName = (name: string) => CASES.find((c) => c.name.startsWith(name))!.test;
  const traced = (text: string, model: Model = lkmm) => traceWithWaits(check(text, model, { keepWitnesses: true }), model, { tryFixes: true });

  it('a lost wake-up: the waker\'s read that missed the waiter, and a barrier on each side as the fix, re-checked', () => {
    const test = byName('lost wake-up, no barrier');
    const at = (fragment: string) => `line ${lineOf(test, fragment)}`;
    const t = traced(test);
    expect(t.text).toContain('P0 can wait forever: an execution lkmm allows in which every other thread has finished:');
    expect(t.text).toContain(`P0's last pass of the loop at ${at('while (r1 == 0)')} (P0.4) reads woken=0 (the initial value), the last write to woken, and goes round again`);
    expect(t.text).toContain(`P1's WRITE_ONCE() (${at('WRITE_ONCE(*woken, 1)')}) would end the wait; it is never made: P1 went past it: its read of sleeping (P1.2, ${at('r2 = READ_ONCE(*sleeping)')}) read 0 (the initial value), not the 1 P0 wrote (P0.1, ${at('WRITE_ONCE(*sleeping, 1)')}): that write had not reached P1 (fre)`);
    const fixes = t.waits!.found.map((f) => f.changes.join('; and '));
    expect(fixes.length).toBeGreaterThan(0);
    // Every fix orders both sides: the waiter's write before its read, the waker's write before its read.
    for (const f of fixes) expect(f).toMatch(/P0\.1 .*P1\.1|P1\.1 .*P0\.1/);
    // With the barriers written in, every wait terminates (the case with both smp_mb()s).
    expect(traced(byName('lost wake-up, smp_mb() in the waiter, smp_mb() in the waker')).waits).toBeUndefined();
  });

  it('a hand-off missing its store on one path: the hand-off write is never made; no barrier can fix that (it hangs under SC)', () => {
    const t = traced(byName('a hand-off whose store'));
    expect(t.text).toContain("P0's smp_store_release() (line 13) would end the wait; it is never made: P0 went past it: its read of next");
    expect(t.text).toContain('A thread can wait forever even under sequential consistency');
    expect(t.waits?.sequentiallyConsistent).toBe(true);
  });

  it('locks: who holds the lock and why it is never released', () => {
    const leak = byName('a lock that is never released');
    expect(traced(leak).text).toContain(`P1 waits at spin_lock(l) (line 15): the last write to l is P0's spin_lock() (P0.1, line ${lineOf(leak, 'spin_lock(l)')}), never unlocked: P0 finished without unlocking it.`);
    const abba = byName('two locks taken');
    // P1's first lock is the second spin_lock(b) of the text, its second lock the line after.
    const p1 = abba.split('\n').findIndex((l, i) => l.includes('spin_lock(b)') && i + 1 > lineOf(abba, 'spin_lock(b)')) + 1;
    expect(traced(abba).text).toContain(`P0 waits at spin_lock(b) (line 8): the last write to b is P1's spin_lock() (P1.1, line ${p1}), never unlocked: P1 waits forever itself (spin_lock() at line ${p1 + 1}).`);
  });

  it('an RCU reader waiting for an update made after synchronize_rcu(): the grace period waits for the reader', () => {
    const t = traced(byName('a wait inside an RCU reader for an update made after')).text;
    expect(t).toContain("P1's WRITE_ONCE() (line 19) would end the wait; it is never made: P1 waits forever itself (synchronize_rcu() at line 18).");
    expect(t).toContain('P1 waits at synchronize_rcu() (line 18): its grace period waits for the read-side critical sections begun before it, and P0 waits forever inside its critical section (the loop at line 11).');
  });
});

describe('every hang of the cases has its trace', () => {
  for (const c of CASES.filter((x) => x.hang)) {
    it(c.name, () => {
      const r = check(c.test, lkmm, { keepWitnesses: true });
      const t = traceWithWaits(r, lkmm, {});
      expect(t.text).toContain(`P${c.hang!.thread} can wait forever: an execution lkmm allows in which`);
      // Each stuck thread is explained: a loop's last pass, a lock's holder, a grace period's reader.
      for (const st of r.liveness!.witness!.threads) expect(t.text).toMatch(new RegExp(`P${st.thread}('s last pass| waits at)`));
    });
  }
});
