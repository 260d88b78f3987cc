// The idioms of issue 22, one small test each: fixes found wherever they
// exist (after a loop, on several CPUs, in the kernel's words, cheapest
// first), the culprit the checked fixes confirm, failed RMWs and
// smp_store_mb() shown as the model sees them, herd7's text for != and
// ~exists.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkSource } from '../src/check.js';
import { herdBlock } from '../src/report/herd.js';
import { traceReport } from '../src/report/trace.js';
import { builtinModel } from '../models/index.js';

/** The built-in LKMM, explained from its definitions (models/text/lkmm.cat, models/cat/explain.ts). */
const lkmm = builtinModel('lkmm')!;
import { auditProgram } from '../src/report/audit.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT, runNode, stateSet } from './util.js';
import { candidateChanges, findFixes, MAX_CHANGES, satisfiable, type Change } from '../src/report/fixes.js';
import { applyEdits } from '../src/program/edit.js';
import { sc } from '../models/sc.js';
import { readSuite } from '../src/suite/read.js';
import { printLitmus } from '../src/parse/printer.js';
import { exportLitmus } from '../src/export/export.js';
import { newTest, shapes } from '../src/cli/new.js';

const trace = (text: string) => traceReport(checkSource(text, { model: lkmm, keepWitnesses: true }), lkmm, { tryFixes: true });
const fixesOf = (t: string) => [...t.matchAll(/^ {2}(\d+)\. (.*)$/gm)].map((m) => m[2]);

const LOOP = `C spin-wait-then-read

{}

P0(int *data, int *flag)
{
	WRITE_ONCE(*data, 1);
	smp_store_release(flag, 1);
}

P1(int *data, int *flag)
{
	int r0;
	int r1;

	r0 = READ_ONCE(*flag);
	while (r0 == 0)
		r0 = READ_ONCE(*flag);
	r1 = READ_ONCE(*data);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

const CMPXCHG = `C failed-cmpxchg-then-read

{}

P0(int *data, int *flag)
{
	WRITE_ONCE(*data, 1);
	smp_store_release(flag, 1);
}

P1(int *data, int *flag)
{
	int r0;
	int r1;

	r0 = cmpxchg(flag, 0, 2);
	r1 = READ_ONCE(*data);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

const RELAY = `C relay-ctrl-addr

{
	int *p = &z;
}

P0(int *x)
{
	WRITE_ONCE(*x, 1);
}

P1(int *x, int *y)
{
	int r0;

	r0 = READ_ONCE(*x);
	if (r0)
		WRITE_ONCE(*y, 1);
}

P2(int *x, int *y)
{
	int r1;
	int r2;

	r1 = READ_ONCE(*y);
	smp_rmb();
	r2 = READ_ONCE(*x);
}

exists (1:r0=1 /\\ 2:r1=1 /\\ 2:r2=0)
`;

const BITUNLOCK = `C two-unlockers

{
	flags = 3;
}

P0(int *a, int *flags)
{
	WRITE_ONCE(*a, 1);
	clear_bit(0, flags);
}

P1(int *b, int *flags)
{
	WRITE_ONCE(*b, 1);
	clear_bit(1, flags);
}

P2(int *a, int *b, int *flags)
{
	int r0;
	int r1;
	int r2;

	r0 = READ_ONCE(*flags);
	smp_rmb();
	r1 = READ_ONCE(*a);
	r2 = READ_ONCE(*b);
}

exists (2:r0=0 /\\ (2:r1=0 \\/ 2:r2=0))
`;

const STOREMB = `C store-mb-waiter

{}

P0(int *x, int *y)
{
	int r0;

	smp_store_mb(*x, 1);
	r0 = READ_ONCE(*y);
}

P1(int *x, int *y)
{
	int r1;

	WRITE_ONCE(*y, 1);
	r1 = READ_ONCE(*x);
}

exists (0:r0=0 /\\ 1:r1=0)
`;

const ISLOCKED = `C lock-vs-is-locked

{}

P0(spinlock_t *l, int *x, int *y)
{
	int r0;

	spin_lock(l);
	WRITE_ONCE(*y, 1);
	r0 = READ_ONCE(*x);
	spin_unlock(l);
}

P1(spinlock_t *l, int *x, int *y)
{
	int r1;
	int r2;

	WRITE_ONCE(*x, 1);
	smp_mb();
	r1 = spin_is_locked(l);
	r2 = READ_ONCE(*y);
}

exists (0:r0=0 /\\ 1:r1=0 /\\ 1:r2=0)
`;

const NEQ = `C neq

{}

P0(int *x)
{
	WRITE_ONCE(*x, 1);
}

P1(int *x)
{
	int r;
	r = READ_ONCE(*x);
}

~exists (1:r!=9 /\\ 1:r<>42)
`;

// The kernel's Z6.0+pooncelock+pooncelock+pombonce: P1's lock reads from P0's unlock.
const Z6_UNLOCK_LOCK = `C Z6.0-unlock-lock

{}

P0(int *x, int *y, spinlock_t *mylock)
{
	spin_lock(mylock);
	WRITE_ONCE(*x, 1);
	WRITE_ONCE(*y, 1);
	spin_unlock(mylock);
}

P1(int *y, int *z, spinlock_t *mylock)
{
	int r0;

	spin_lock(mylock);
	r0 = READ_ONCE(*y);
	WRITE_ONCE(*z, 1);
	spin_unlock(mylock);
}

P2(int *x, int *z)
{
	int r1;

	WRITE_ONCE(*z, 2);
	smp_mb();
	r1 = READ_ONCE(*x);
}

exists (1:r0=1 /\\ z=2 /\\ 2:r1=0)
`;

// Store buffering where P0 releases one lock and takes another between its accesses.
const UNLOCK_LOCK_PO = `C unlock-lock-two-locks

{}

P0(spinlock_t *a, spinlock_t *b, int *x, int *y)
{
	int r0;

	spin_lock(a);
	WRITE_ONCE(*x, 1);
	spin_unlock(a);
	spin_lock(b);
	r0 = READ_ONCE(*y);
	spin_unlock(b);
}

P1(int *x, int *y)
{
	int r1;

	WRITE_ONCE(*y, 1);
	smp_mb();
	r1 = READ_ONCE(*x);
}

exists (0:r0=0 /\\ 1:r1=0)
`;

// Message passing through helper functions, each called twice.
const HELPERS = `C helper-twice

{}

static int get(int *p)
{
	return READ_ONCE(*p);
}

static void put(int *p)
{
	WRITE_ONCE(*p, 1);
}

P0(int *x, int *y)
{
	put(x);
	put(y);
}

P1(int *x, int *y)
{
	int r0;
	int r1;

	r0 = get(y);
	r1 = get(x);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

const WW = `C unrelated-ww

{}

P0(int *x, int *y, int *z)
{
	WRITE_ONCE(*x, 1);
	WRITE_ONCE(*z, 1);
	smp_store_release(y, 1);
}

P1(int *x, int *y)
{
	int r0;
	int r1;

	r0 = READ_ONCE(*y);
	r1 = READ_ONCE(*x);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

const ACQ_RMW = `C acquire-rmw-step

{}

P0(int *x, int *y)
{
	int r0;
	int r1;

	r0 = xchg_acquire(x, 1);
	r1 = READ_ONCE(*y);
}

P1(int *x, int *y)
{
	int r2;

	WRITE_ONCE(*y, 1);
	smp_mb();
	r2 = READ_ONCE(*x);
}

exists (0:r1=0 /\\ 1:r2=0)
`;

const AFTER_ATOMIC = `C after-atomic-sb

{}

P0(atomic_t *x, int *y)
{
	int r0;

	atomic_inc(x);
	r0 = READ_ONCE(*y);
}

P1(atomic_t *x, int *y)
{
	int r1;

	WRITE_ONCE(*y, 1);
	smp_mb();
	r1 = atomic_read(x);
}

exists (0:r0=0 /\\ 1:r1=0)
`;

const BEFORE_ATOMIC = `C before-atomic-sb

{}

P0(atomic_t *x, int *y)
{
	int r0;

	r0 = READ_ONCE(*y);
	atomic_inc(x);
}

P1(atomic_t *x, int *y)
{
	int r1;

	r1 = atomic_read(x);
	smp_mb();
	WRITE_ONCE(*y, 1);
}

exists (0:r0=1 /\\ 1:r1=1)
`;

// A spin-wait in a helper function, then a read in the caller.
const WAIT_HELPER = `C wait-helper

{}

static int wait_flag(int *f)
{
	int r;

	r = READ_ONCE(*f);
	while (r == 0)
		r = READ_ONCE(*f);
	return r;
}

P0(int *data, int *flag)
{
	WRITE_ONCE(*data, 1);
	smp_store_release(flag, 1);
}

P1(int *data, int *flag)
{
	int r0;
	int r1;

	r0 = wait_flag(flag);
	r1 = READ_ONCE(*data);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

// Two CPUs running the same unlock path, written once as a helper.
const BIT_HELPER = `C two-unlockers-helper

{
	flags = 3;
}

static void release(int *p, int *flags, int bit)
{
	WRITE_ONCE(*p, 1);
	clear_bit(bit, flags);
}

P0(int *a, int *flags)
{
	release(a, flags, 0);
}

P1(int *b, int *flags)
{
	release(b, flags, 1);
}

P2(int *a, int *b, int *flags)
{
	int r0;
	int r1;
	int r2;

	r0 = READ_ONCE(*flags);
	smp_rmb();
	r1 = READ_ONCE(*a);
	r2 = READ_ONCE(*b);
}

exists (2:r0=0 /\\ (2:r1=0 \\/ 2:r2=0))
`;

describe('fixes over the outcome', () => {
  it('a spin-wait loop then a read: smp_rmb() after the loop, not inside it', () => {
    const t = trace(LOOP);
    expect(fixesOf(t)[0]).toBe('smp_rmb() after the loop of line 17, before P1.3 (line 19)');
  });

  it('a failed cmpxchg then a read: smp_rmb() (cost 2) is offered first; the failed read is not [mb]', () => {
    const t = trace(CMPXCHG);
    expect(fixesOf(t)[0]).toBe('smp_rmb() between P1.1 (line 16) and P1.2 (line 17)');
    expect(t).toMatch(/cmpxchg +R flag=1 \[failed RMW: unordered\]/);
    expect(t).not.toMatch(/R flag=1 \[mb\]/);
    // smp_mb() at the same place is not minimal next to smp_rmb().
    expect(fixesOf(t).some((f) => f.startsWith('smp_mb() between P1.1'))).toBe(false);
  });

  it('two CPUs running the same unlock path: a change on both, clear_bit_unlock() named as such', () => {
    const t = trace(BITUNLOCK);
    expect(fixesOf(t)[0]).toBe('clear_bit → clear_bit_unlock at P0.2 (line 10); and clear_bit → clear_bit_unlock at P1.2 (line 16)');
  });

  it('a lock and spin_is_locked(): smp_mb__after_spinlock() on one CPU with smp_rmb() on the other', () => {
    const t = trace(ISLOCKED);
    expect(fixesOf(t)).toContain('smp_mb__after_spinlock() between P0.1 (line 9) and P0.2 (line 10); and smp_rmb() between P1.3 (line 22) and P1.4 (line 23)');
  });

  it("smp_mb__after_unlock_lock() after a lock that reads from another CPU's unlock (checked in herd7: Never)", () => {
    const f = fixesOf(trace(Z6_UNLOCK_LOCK));
    expect(f).toContain('smp_mb__after_unlock_lock() between P1.1 (line 17) and P1.2 (line 18)');
    // It orders less than smp_mb__after_spinlock() there, and suffices: the stronger one is not minimal.
    expect(f.some((x) => x.startsWith('smp_mb__after_spinlock() between P1.1'))).toBe(false);
  });

  it('smp_mb__after_unlock_lock() after an unlock of one lock and a lock of another on the same CPU (herd7: Never)', () => {
    expect(fixesOf(trace(UNLOCK_LOCK_PO))).toContain('smp_mb__after_unlock_lock() between P0.4 (line 12) and P0.5 (line 13)');
  });

  it('smp_mb__after_unlock_lock() is not offered after a lock no unlock can precede', () => {
    const prog = checkSource(ISLOCKED, { model: lkmm }).program;
    expect(candidateChanges(prog).some((c) => c.text.startsWith('smp_mb__after_unlock_lock'))).toBe(false);
  });

  it('helper functions: a fence between two calls of one helper is a place, named by the calls (herd7: Never)', () => {
    expect(fixesOf(trace(HELPERS))).toEqual([
      'WRITE_ONCE → smp_store_release at P0.2 (line 12, in put() called at line 18); and READ_ONCE → smp_load_acquire at P1.1 (line 7, in get() called at line 26)',
      'smp_wmb() between the call of put() (line 17) and the call of put() (line 18); and READ_ONCE → smp_load_acquire at P1.1 (line 7, in get() called at line 26)',
      'WRITE_ONCE → smp_store_release at P0.2 (line 12, in put() called at line 18); and smp_rmb() between the call of get() (line 26) and the call of get() (line 27)',
    ]);
  });

  it('smp_mb__after_atomic() after a non-returning atomic (herd7: Never)', () => {
    expect(fixesOf(trace(AFTER_ATOMIC))).toContain('smp_mb__after_atomic() between P0.1 (line 9) and P0.2 (line 10)');
  });

  it('smp_mb__before_atomic() before one: a candidate, and a fix when applied (herd7: Never)', () => {
    const prog = checkSource(BEFORE_ATOMIC, { model: lkmm }).program;
    const c = candidateChanges(prog).find((x) => x.text === 'smp_mb__before_atomic() between P0 (line 9) and P0 (line 10)');
    expect(c).toBeDefined();
    expect(satisfiable(applyEdits(prog, c!.edits), lkmm, {})).toBe(false);
    // Cheaper fixes come first: an acquire (1), a release RMW (1).
    expect(fixesOf(trace(BEFORE_ATOMIC)).slice(0, 2)).toEqual(['READ_ONCE → smp_load_acquire at P0.1 (line 9)', 'atomic_inc → atomic_fetch_inc_release at P0.2 (line 10)']);
  });

  it("a helper ending in a spin-wait loop: the fence goes after the call, where the caller writes it (herd7: Never)", () => {
    expect(fixesOf(trace(WAIT_HELPER))[0]).toBe('smp_rmb() between the call of wait_flag() (line 26) and P1.3 (line 27)');
  });

  it('two CPUs calling one helper: the change written once in the helper, made at each call, is one change (herd7: Never)', () => {
    expect(fixesOf(trace(BIT_HELPER)).slice(0, 2)).toEqual([
      'clear_bit → clear_bit_unlock at line 10 in release(), at each of its 2 calls',
      'smp_wmb() between line 9 and line 10 in release(), at each of its 2 calls',
    ]);
    // The same edits as changes of each copy are not printed again.
    expect(fixesOf(trace(BIT_HELPER))).not.toContain('clear_bit → clear_bit_unlock at P0.2 (line 10, in release() called at line 15); and clear_bit → clear_bit_unlock at P1.2 (line 10, in release() called at line 20)');
  });

  it('smp_store_mb() for a full barrier after a WRITE_ONCE()', () => {
    const t = trace(STOREMB);
    expect(fixesOf(t)).toEqual(['WRITE_ONCE → smp_store_mb at P1.1 (line 17), i.e. smp_mb() between P1.1 (line 17) and P1.2 (line 18)']);
  });
});

describe('diagnosis', () => {
  it('a relay with a control dependency on P1: P1 is the culprit, and only the confirmed fixes are named', () => {
    const t = trace(RELAY);
    expect(t).toContain('P1.1 -> P1.2 is ordered on P1 by');
    expect(t).toContain('The checked fixes 1, 2 below change P1.');
    expect(t).not.toMatch(/A release at P2/);
    expect(fixesOf(t)).toEqual(['WRITE_ONCE → smp_store_release at P1.2 (line 18)', 'smp_mb() between P1.1 (line 16) and P1.2 (line 18)']);
  });

  it("smp_store_mb()'s own barrier orders its store before the load", () => {
    const t = trace(STOREMB);
    expect(t).toMatch(/P0\.1 -> P0\.2: program order, kept by smp_store_mb\(\) \(mb\)/);
  });

  it("a shortest cycle: a writer's unrelated write in between is not a step", () => {
    const t = trace(WW);
    expect(t).toContain('P0.1 -> P0.3: program order, kept by release (smp_store_release) (po-rel)');
    expect(t).not.toMatch(/P0\.1 -> P0\.2|P0\.2 -> P0\.3/);
  });

  it("a step out of an acquire RMW: its read is kept by the acquire, only its write is reordered", () => {
    expect(trace(ACQ_RMW)).toContain("P0.1 -> P0.2: program order: P0.1's read is kept before P0.2 by acquire (xchg_acquire) (acq-po), its write is not (reordered)");
  });

  it('loop iterations have their own step numbers', () => {
    const t = trace(LOOP);
    const p1 = t.split('  P1:\n')[1].split('  coherence')[0];
    const numbers = [...p1.matchAll(/^ +(\d+)\. /gm)].map((m) => Number(m[1]));
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});

describe("herd7's text", () => {
  it('!= and <> print as not (...)', () => {
    const r = checkSource(NEQ, { model: lkmm });
    expect(herdBlock(r)).toContain('Condition ~exists (not (1:r=9) /\\ not (1:r=42))');
  });

  it('litmus herd7 prints != as herd7 does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-neq-'));
    writeFileSync(join(dir, 'neq.litmus'), NEQ);
    const r = await runNode([CLI, 'herd7', 'neq.litmus'], dir);
    expect(r.stdout).toContain('Condition ~exists (not (1:r=9) /\\ not (1:r=42))');
  });

  it('forall that fails: the trace shows an execution failing the proposition, not one satisfying it', () => {
    const t = traceReport(checkSource(NEQ.replace('~exists (1:r!=9 /\\ 1:r<>42)', 'forall (1:r=1)'), { model: lkmm, keepWitnesses: true }), lkmm, { tryFixes: true });
    expect(t).toContain('Witness for 1:r=0; (fails the proposition, so "forall (1:r=1)" fails), 1 execution:');
    expect(t).not.toContain('1:r=1; (');
  });

  it('~exists: no execution satisfies the proposition means every one satisfies the condition', () => {
    const t = traceReport(checkSource(NEQ.replace('~exists (1:r!=9 /\\ 1:r<>42)', '~exists (1:r=9)'), { model: lkmm, keepWitnesses: true }), lkmm);
    expect(t).toBe('No consistent execution satisfies (1:r=9) under lkmm, so every one satisfies "~exists (1:r=9)".\nNot even an inconsistent candidate execution reaches it: the program (its values, branches and\nlocks) rules it out before any memory model is asked.');
  });
});

const AUDIT_SRCU = `C srcu-unplug

{}

P0(struct srcu_struct *s, int *x, int *y)
{
	int idx;
	int r0;
	int r1;

	idx = srcu_read_lock(s);
	r0 = READ_ONCE(*x);
	r1 = READ_ONCE(*y);
	srcu_read_unlock(s, idx);
}

P1(struct srcu_struct *s, int *x, int *y)
{
	WRITE_ONCE(*y, 1);
	synchronize_srcu(s);
	WRITE_ONCE(*x, 1);
}

exists (0:r0=1 /\\ 0:r1=0)
`;

const AUDIT_RCU = `C rcu-gp

{}

P0(int *x, int *y)
{
	int r0;
	int r1;

	rcu_read_lock();
	r0 = READ_ONCE(*x);
	r1 = READ_ONCE(*y);
	rcu_read_unlock();
}

P1(int *x, int *y, int *z)
{
	int r2;

	smp_store_mb(*y, 1);
	synchronize_rcu();
	WRITE_ONCE(*x, 1);
	r2 = READ_ONCE(*z);
}

exists (0:r0=1 /\\ 0:r1=0)
`;

const AUDIT_LOCKS = `C lock-sections

{}

P0(spinlock_t *l, int *x, int *y)
{
	spin_lock(l);
	WRITE_ONCE(*x, 1);
	WRITE_ONCE(*y, 1);
	spin_unlock(l);
}

P1(spinlock_t *l, int *x, int *y)
{
	int r0;
	int r1;

	spin_lock(l);
	r0 = READ_ONCE(*y);
	r1 = READ_ONCE(*x);
	spin_unlock(l);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

const auditRows = (text: string) => {
  const r = checkSource(text, { model: lkmm });
  return auditProgram(r.program, lkmm, {}, text.split('\n')).rows.map((row) => `P${row.device.thread} ${row.device.name} -> ${row.to}: ${row.verdict}`);
};

describe('a complete audit', () => {
  it('SRCU: the read-side section and synchronize_srcu() (dropped, or made smp_mb()) are load-bearing', () => {
    expect(auditRows(AUDIT_SRCU)).toEqual([
      'P0 srcu_read_lock … srcu_read_unlock -> (section removed): Sometimes',
      'P1 synchronize_srcu -> (removed): Sometimes',
      'P1 synchronize_srcu -> smp_mb: Sometimes',
    ]);
  });

  it('RCU: synchronize_rcu(), the read-side section and smp_store_mb()', () => {
    expect(auditRows(AUDIT_RCU)).toEqual([
      'P0 rcu_read_lock … rcu_read_unlock -> (section removed): Sometimes',
      'P1 smp_store_mb -> WRITE_ONCE: Never',
      'P1 synchronize_rcu -> (removed): Sometimes',
      'P1 synchronize_rcu -> smp_mb: Sometimes',
    ]);
  });

  it('the smp_mb__*() family and release/fully ordered RMWs', () => {
    const z6 = Z6_UNLOCK_LOCK.replace('\tspin_lock(mylock);\n\tr0', '\tspin_lock(mylock);\n\tsmp_mb__after_unlock_lock();\n\tr0');
    expect(auditRows(z6)).toContain('P1 smp_mb__after_unlock_lock -> (removed): Sometimes');
    const aa = AFTER_ATOMIC.replace('\tatomic_inc(x);', '\tatomic_inc(x);\n\tsmp_mb__after_atomic();');
    expect(auditRows(aa)).toContain('P0 smp_mb__after_atomic -> (removed): Sometimes');
    const rel = BEFORE_ATOMIC.replace('\tatomic_inc(x);', '\tatomic_fetch_inc_release(x);');
    expect(auditRows(rel)).toContain('P0 atomic_fetch_inc_release -> atomic_fetch_inc_relaxed: Sometimes');
    const full = AFTER_ATOMIC.replace('\tatomic_inc(x);', '\tatomic_fetch_inc(x);');
    expect(auditRows(full)).toContain('P0 atomic_fetch_inc -> atomic_fetch_inc_relaxed: Sometimes');
  });

  it('spinlock critical sections', () => {
    expect(auditRows(AUDIT_LOCKS)).toEqual([
      'P0 spin_lock … spin_unlock -> (section removed): Sometimes',
      'P1 spin_lock … spin_unlock -> (section removed): Sometimes',
    ]);
  });
});

describe('machine-readable, and suites', () => {
  it('--json --trace carries the trace and the fix search', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-explain-'));
    writeFileSync(join(dir, 'relay.litmus'), RELAY);
    const r = await runNode([CLI, 'check', '--json', '--trace', 'relay.litmus'], dir);
    const out = JSON.parse(r.stdout);
    const res = out.results[0];
    expect(res.trace).toContain('Not sequentially consistent');
    expect(res.fixes.found).toEqual([
      { changes: ['WRITE_ONCE → smp_store_release at P1.2 (line 18)'], cost: 1 },
      { changes: ['smp_mb() between P1.1 (line 16) and P1.2 (line 18)'], cost: 4 },
    ]);
    expect(res.fixes.candidates.length).toBeGreaterThan(0);
    expect(res.fixes.sets).toBeGreaterThanOrEqual(res.fixes.checks - res.fixes.candidates.length - 1);
  });

  it("a TypeScript suite's grid and verdict line are in --json; --fail-on-bad-outcome exits 1 where the version under review reaches it", async () => {
    const r = await runNode([CLI, 'check', '--json', 'clear_invalid_mapping'], ROOT);
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout).suites;
    expect(s).toHaveLength(1);
    expect(s[0].underReview).toBe('v1');
    expect(s[0].underReviewReaches).toBe(true);
    expect(s[0].verdict).toMatch(/^Version "v1" \(under review\): .* CAN happen, in 4 of 7 scenarios/);
    expect(s[0].rows).toHaveLength(28);
    expect(s[0].rows).toContainEqual(expect.objectContaining({ scenario: 's2-twosetters', version: 'v1', verdict: 'Sometimes' }));
    const strict = await runNode([CLI, 'check', '-q', '--fail-on-bad-outcome', 'clear_invalid_mapping'], ROOT);
    expect(strict.status).toBe(1);
  });

  it('where the condition is reachable under SC, the execution shown is one SC allows (not one that reorders)', async () => {
    const r = await runNode([CLI, 'check', 'clear_invalid_mapping'], ROOT);
    const cells = r.stdout.split(/\n(?=\S+ in v1: how the bad outcome happens)/).slice(1);
    const sequential = cells.filter((c) => c.includes('reachable even under sequential consistency'));
    expect(sequential.length).toBeGreaterThanOrEqual(4);
    for (const c of sequential) {
      expect(c).toContain('This outcome is also possible under sequential consistency');
      expect(c).not.toContain('Not sequentially consistent');
    }
  });

  it("a suite's fix lines name file:line", async () => {
    const r = await runNode([CLI, 'check', 'nfsd_io_stats'], ROOT);
    expect(r.stdout).toMatch(/^ {2}1\. .* at P\d+\.\d+ \(\.\.\/percpu_counter\/scenarios\.ts:\d+\)/m);
    // Before a call of a helper, where a reviewer writes it; inside one, with the call it is in.
    expect(r.stdout).toContain('smp_rmb() between P1.1 (../percpu_counter/scenarios.ts:53) and the call of percpu_counter_sum() (../percpu_counter/scenarios.ts:54)');
    // The same in --json --trace: each failing cell's trace with its fixes.
    const j = JSON.parse((await runNode([CLI, 'check', '--json', '--trace', 'nfsd_io_stats'], ROOT)).stdout);
    const fixes = j.suites[0].traces.flatMap((t: { fixes?: { found: { changes: string[] }[] } }) => t.fixes?.found ?? []).flatMap((f: { changes: string[] }) => f.changes);
    expect(fixes).toContain('smp_rmb() between P1.1 (../percpu_counter/scenarios.ts:53) and the call of percpu_counter_sum() (../percpu_counter/scenarios.ts:54)');
    expect(r.stdout).toMatch(/smp_rmb\(\) between P1\.2 \(\.\.\/percpu_counter\/percpu_counter\.ts:\d+\) and P1\.3 \(\.\.\/percpu_counter\/percpu_counter\.ts:\d+\), in percpu_counter_sum\(\) called at \.\.\/percpu_counter\/scenarios\.ts:54/);
  });
});

const CONDLOAD = `C cond-load-acquire

{}

P0(int *data, int *flag)
{
	WRITE_ONCE(*data, 1);
	smp_store_release(flag, 1);
}

P1(int *data, int *flag)
{
	int r0;
	int r1;

	r0 = smp_cond_load_acquire(flag, VAL != 0);
	r1 = READ_ONCE(*data);
}

exists (1:r0=1 /\\ 1:r1=0)
`;
const CONDRELAXED = `C cond-load-relaxed

{}

P0(int *data, int *flag)
{
	WRITE_ONCE(*data, 1);
	smp_store_release(flag, 1);
}

P1(int *data, int *flag)
{
	int r0;
	int r1;

	r0 = smp_cond_load_relaxed(flag, VAL != 0);
	r1 = READ_ONCE(*data);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

describe('smp_cond_load_acquire() and smp_cond_load_relaxed()', () => {
  it('spin on a condition over VAL, then (for _acquire) order the last load before what follows', () => {
    expect(checkSource(CONDLOAD, { model: lkmm }).observation).toBe('Never');
    expect(checkSource(CONDRELAXED, { model: lkmm }).observation).toBe('Sometimes');
    // The spin is a loop bounded by --unroll: with VAL never 1, no execution completes.
    const stuck = checkSource(CONDLOAD.replace('VAL != 0', 'VAL == 7'), { model: lkmm });
    expect(stuck.positive + stuck.negative).toBe(0);
  });

  it('the fix for the relaxed form is the acquire form, named so', () => {
    expect(fixesOf(trace(CONDRELAXED))[0]).toBe('smp_cond_load_relaxed → smp_cond_load_acquire at P1.1 (line 16)');
  });

  it('export writes it as the loop of .def primitives, with the same verdict', () => {
    const out = exportLitmus(CONDLOAD);
    expect(out).toContain('VAL = smp_load_acquire(flag);');
    // herd7 refuses chained comparisons (`VAL != 0 == 0`): the loop's condition is parenthesized.
    expect(out).toContain('while ((VAL != 0) == 0)');
    expect(out).not.toContain('smp_cond_load');
    // Judged alike as herd7 reads loops (read exactly, the export's first read is outside its loop: more executions, the same verdict).
    const a = checkSource(out, { model: lkmm, waits: 'unrolled' });
    const b = checkSource(CONDLOAD, { model: lkmm, waits: 'unrolled' });
    expect([a.observation, a.positive, a.negative]).toEqual([b.observation, b.positive, b.negative]);
    expect(checkSource(out, { model: lkmm }).observation).toBe(checkSource(CONDLOAD, { model: lkmm }).observation);
  });

  it('in a TypeScript test, the condition is an arrow function of VAL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-cond-'));
    const kernel = join(ROOT, 'litmus', 'kernel.js');
    writeFileSync(join(dir, 'wait.ts'), `import { READ_ONCE, WRITE_ONCE, smp_store_release, smp_cond_load_acquire, scenario, type Ref } from '${kernel}';
interface S { data: Ref; flag: Ref }
export default scenario({
  name: 'wait',
  says: 'a waiter sees the data published before the flag',
  threads: [(s: S) => { WRITE_ONCE(s.data, 1); smp_store_release(s.flag, 1); }, (s: S) => { smp_cond_load_acquire(s.flag, (VAL) => VAL !== 0); return { got: READ_ONCE(s.data) }; }],
  exists: ([, p1]) => p1.got === 0,
});
`);
    const s = await readSuite(join(dir, 'wait.ts'));
    const c = printLitmus(s.tests[0].test);
    expect(c).toMatch(/smp_cond_load_acquire\(flag, VAL != 0\)/);
    expect(checkSource(c, { model: lkmm }).observation).toBe('Never');
  });
});

// ------------------------------------------------------------ properties

/** Every set of up to MAX_CHANGES changes with distinct sites, checked without any pruning. */
function bruteForce(text: string): { min?: number; forbidding: Change[][] } {
  const prog = checkSource(text, { model: lkmm }).program;
  const changes = candidateChanges(prog).filter((c) => !c.hidden);
  const forbidding: Change[][] = [];
  const grow = (from: number, cur: Change[], used: Set<string>) => {
    if (cur.length && satisfiable(applyEdits(prog, cur.flatMap((c) => c.edits)), lkmm, {}) === false) forbidding.push(cur);
    if (cur.length === MAX_CHANGES) return;
    for (let i = from; i < changes.length; i++) {
      if (changes[i].sites.some((x) => used.has(x))) continue;
      grow(i + 1, [...cur, changes[i]], new Set([...used, ...changes[i].sites]));
    }
  };
  grow(0, [], new Set());
  const cost = (f: Change[]) => f.reduce((n, c) => n + c.cost, 0);
  return { min: forbidding.length ? Math.min(...forbidding.map(cost)) : undefined, forbidding };
}

type GenOp = { k: 'w'; loc: string; v: number } | { k: 'r'; loc: string } | { k: 'f'; f: string };
const genOp = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('w' as const), loc: fc.constantFrom('x', 'y'), v: fc.constantFrom(1, 2) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('r' as const), loc: fc.constantFrom('x', 'y') }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('f' as const), f: fc.constantFrom('smp_wmb', 'smp_rmb', 'smp_mb') }) },
);
const genThreads = fc.array(fc.array(genOp, { minLength: 2, maxLength: 3 }), { minLength: 2, maxLength: 3 });

/** A C test of the threads whose condition is the first outcome the LKMM allows and SC does not, or undefined. */
function nonSc(threads: GenOp[][]): string | undefined {
  const procs = threads.map((ops, t) => {
    let n = 0;
    const decls: string[] = [];
    const body = ops.map((op) => {
      if (op.k === 'w') return `\tWRITE_ONCE(*${op.loc}, ${op.v});`;
      if (op.k === 'f') return `\t${op.f}();`;
      decls.push(`\tint r${n};`);
      return `\tr${n++} = READ_ONCE(*${op.loc});`;
    });
    return `P${t}(int *x, int *y)\n{\n${[...decls, ...body].join('\n')}\n}\n`;
  });
  const regs = threads.flatMap((ops, t) => ops.filter((o) => o.k === 'r').map((_, i) => `${t}:r${i}`));
  const base = `C gen\n\n{}\n\n${procs.join('\n')}\nlocations [${['x', 'y', ...regs].join('; ')}]\nexists (true)\n`;
  const scStates = stateSet(checkSource(base, { model: sc }));
  const state = [...stateSet(checkSource(base, { model: lkmm }))].find((st) => !scStates.has(st));
  if (!state) return undefined;
  const cond = state.split(';').map((b) => b.trim()).filter(Boolean).map((b) => (/^\d+:/.test(b) ? b : b.replace(/^(\w+)=/, '[$1]='))).join(' /\\ ');
  return base.replace('exists (true)', `exists (${cond})`);
}

describe('the fix search, against brute force over the same bound', () => {
  const SB4 = `C SB4

{}

${[0, 1, 2, 3].map((i) => `P${i}(int *a, int *b, int *c, int *d)\n{\n\tint r0;\n\n\tWRITE_ONCE(*${'abcd'[i]}, 1);\n\tr0 = READ_ONCE(*${'abcd'[(i + 1) % 4]});\n}\n`).join('\n')}
exists (0:r0=0 /\\ 1:r0=0 /\\ 2:r0=0 /\\ 3:r0=0)
`;

  it('a four-CPU store-buffering ring needs four changes: "no set of up to 3" is right, and says why', () => {
    const t = trace(SB4);
    expect(t).toMatch(/No set of up to 3 changes forbids it under lkmm: every fix must change 4 places/);
    expect(bruteForce(SB4).forbidding).toEqual([]);
  });

  /** The search and brute force agree on one test's outcome (false when the test has no non-SC outcome). */
  const agrees = (threads: GenOp[][]): boolean => {
    const text = nonSc(threads);
    if (!text) return false;
    const prog = checkSource(text, { model: lkmm }).program;
    const search = findFixes(prog, lkmm, candidateChanges(prog), {});
    expect(search.stopped).toBeUndefined();
    const brute = bruteForce(text);
    const cost = (f: Change[]) => f.reduce((n, c) => n + c.cost, 0);
    expect(search.fixes.length === 0, text).toBe(brute.min === undefined);
    if (brute.min !== undefined) expect(cost(search.fixes[0]), text).toBe(brute.min);
    // Each fix printed forbids the outcome, and is cheapest first.
    for (const f of search.fixes) expect(satisfiable(applyEdits(prog, f.flatMap((c) => c.edits)), lkmm, {})).toBe(false);
    const costs = search.fixes.map(cost);
    expect(costs).toEqual([...costs].sort((a, b) => a - b));
    return true;
  };

  /** A line's decorations: an access made stronger or left, a fence after it or none. */
  const decoration = fc.record({
    access: fc.constantFrom('keep', 'keep', 'strong', 'rmw'),
    fence: fc.constantFrom('', '', '', 'smp_rmb', 'smp_wmb', 'smp_mb'),
  });
  const SB4_SHAPE = SB4.replace(/P(\d)\(int \*a/g, 'P$1(int *a');
  /** A shape (or the four-CPU ring, which needs four changes) decorated line by line, some CPUs inside a critical section of one lock. */
  const decorated = fc.record({
    base: fc.constantFrom(...shapes(), 'SB4'),
    lines: fc.array(decoration, { minLength: 8, maxLength: 8 }),
    // At most one CPU in a critical section (locks make the most candidates).
    locked: fc.constantFrom(-1, -1, -1, 0, 1, 2, 3).map((k) => [0, 1, 2, 3].map((i) => i === k)),
  }).map(({ base, lines, locked }) => {
    const text = base === 'SB4' ? SB4_SHAPE : newTest('t', base, false).replace(/\(\*[\s\S]*?\*\)\n\n/, '');
    let n = 0;
    let t = 0;
    return text
      .replace(/^P(\d+)\(([^)]*)\)\n\{\n([\s\S]*?)\n\}/gm, (_, i: string, params: string, body: string) => {
        const lock = locked[t++ % 4];
        const out = body.split('\n').map((line) => {
          const w = /^\tWRITE_ONCE\(\*(\w+), (\d+)\);$/.exec(line);
          const r = /^\t(\w+) = READ_ONCE\(\*(\w+)\);$/.exec(line);
          if (!w && !r) return line;
          const d = lines[n++ % lines.length];
          let l = line;
          if (w && d.access === 'strong') l = `\tsmp_store_release(${w[1]}, ${w[2]});`;
          if (w && d.access === 'rmw') l = `\tatomic_add(${w[2]}, ${w[1]});`;
          if (r && d.access === 'strong') l = `\t${r[1]} = smp_load_acquire(${r[2]});`;
          if (r && d.access === 'rmw') l = `\t${r[1]} = atomic_fetch_add_relaxed(0, ${r[2]});`;
          return d.fence ? `${l}\n\t${d.fence}();` : l;
        });
        const decls = out.filter((l) => /^\tint /.test(l) || l === '');
        const code = out.filter((l) => !(/^\tint /.test(l) || l === ''));
        const wrapped = lock ? ['\tspin_lock(l);', ...code, '\tspin_unlock(l);'] : code;
        return `P${i}(${params}, spinlock_t *l)\n{\n${[...decls, ...wrapped].join('\n')}\n}`;
      });
  });

  /** The search and brute force on a decorated shape whose outcome lkmm allows and SC does not: 'fix', 'none', or undefined when not such a test. */
  const compare = (text: string): 'fix' | 'none' | undefined => {
    const r = checkSource(text, { model: lkmm });
    if (r.observation !== 'Sometimes' || checkSource(text, { model: sc }).observation !== 'Never') return undefined;
    const search = findFixes(r.program, lkmm, candidateChanges(r.program), {});
    expect(search.stopped, text).toBeUndefined();
    const brute = bruteForce(text);
    const cost = (f: Change[]) => f.reduce((n, c) => n + c.cost, 0);
    expect(search.fixes.length === 0, text).toBe(brute.min === undefined);
    if (brute.min !== undefined) expect(cost(search.fixes[0]), text).toBe(brute.min);
    for (const f of search.fixes) expect(brute.forbidding.some((b) => b.length === f.length && b.every((c) => f.some((x) => x.text === c.text))), text).toBe(true);
    return search.fixes.length ? 'fix' : 'none';
  };

  it('on decorated shapes (acquire/release, RMWs, fences, critical sections): the search and brute force agree, both where a fix exists and where none does', async () => {
    const seen = { fix: 0, none: 0 };
    // The ring needs four changes (smp_wmb() on each CPU orders nothing it needs); with smp_mb() on one CPU, three do.
    expect(compare(SB4_SHAPE.replace(/(WRITE_ONCE\(\*\w, 1\);)/g, '$1\n\tsmp_wmb();'))).toBe('none');
    expect(compare(SB4_SHAPE.replace('WRITE_ONCE(*a, 1);', 'WRITE_ONCE(*a, 1);\n\tsmp_mb();'))).toBe('fix');
    // A helper called on two CPUs: its changes made at each call are candidates too.
    expect(compare(BIT_HELPER)).toBe('fix');
    await fc.assert(
      fc.asyncProperty(decorated, async (text) => {
        await new Promise((done) => setImmediate(done));
        const got = compare(text);
        if (got) seen[got]++;
      }),
      { numRuns: 8 },
    );
    // Draws are real comparisons, not all skipped (about 2 in 3 keep an outcome lkmm allows and SC does not).
    expect(seen.fix + seen.none).toBeGreaterThanOrEqual(1);
  }, 180_000);

  it('on generated tests, the cheapest fix printed costs what brute force finds cheapest, and none is printed exactly when brute force finds none', async () => {
    // Two tests that surely have a non-SC outcome (store buffering, message passing), then random ones.
    const w = (loc: string): GenOp => ({ k: 'w', loc, v: 1 });
    const r = (loc: string): GenOp => ({ k: 'r', loc });
    expect(agrees([[w('x'), r('y')], [w('y'), r('x')]])).toBe(true);
    expect(agrees([[w('x'), w('y')], [r('y'), r('x')]])).toBe(true);
    await fc.assert(
      fc.asyncProperty(genThreads, async (threads) => {
        await new Promise((done) => setImmediate(done));
        agrees(threads);
      }),
      { numRuns: 25 },
    );
  });
});
