// The audit against the devices removed by hand, on generated tests.
//
// Each generated test is a classic shape (message passing, through a
// pointer too, load buffering, S, WRC) whose threads carry ordering
// devices: fences, acquire and release, and address, data and control
// dependencies. Of those whose condition is Never under the LKMM, each
// audit row is compared with the same test written again without that
// device (a fence dropped or weakened, an acquire or release made ONCE, a
// dependency replaced by the value the condition gives its register: a
// read through the pointer by a read of the variable it points to, a write
// of the value read by a write of that value, an `if` by its body), checked
// afresh with every shortcut of the model off. The audit calls a device
// load-bearing exactly when that rewritten test is no longer Never, and
// every device of the test has its row.
//
// Why the rewrite is the same test for the condition: it pins each
// register a dependency starts from, so the executions that satisfy it are
// those of the rewritten test that satisfy it, with the same events and
// values; the model, given no dependency in either, judges them alike.
// (Only one thread of each test writes a value it read, so no value is made
// by a cycle of values, which a rewrite by hand could make.) herd7 7.58 with
// the LKMM gives the generated tests and their rewrites the answers litmus
// gives (the 432 of this seed's run, checked once by hand); the property
// fails if the cut is not given to the model, or if the explorer's
// load-buffering shortcut is used on a program with a cut.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinModel } from '../models/index.js';
import { checkSource } from '../src/check.js';
import { withoutShortcuts } from '../src/model/model.js';
import { parseLitmus } from '../src/parse/parser.js';
import { buildProgram } from '../src/program/program.js';
import { auditProgram } from '../src/report/audit.js';

const lkmm = builtinModel('lkmm')!;
const unpruned = withoutShortcuts(lkmm);

type Fence = 'smp_mb' | 'smp_rmb' | 'smp_wmb';

/** A thread that writes twice: `*a = v; [fence]; *b = 1` (b by release, or a pointer to x). */
interface Writer {
  k: 'writer';
  a: string;
  v: number;
  fence?: Fence;
  release: boolean;
  b: string;
  /** Writes the pointer &x to b (message passing through a pointer). */
  pointer?: boolean;
}

/** A thread that reads twice: `r0 = *a (acquire?); [fence]; r1 = *b`, or `r1 = *r0` (an address dependency), or inside `if (r0 == 1)`. */
interface Reader {
  k: 'reader';
  a: string;
  acquire: boolean;
  fence?: Fence;
  b: string;
  dep?: 'addr' | 'ctrl';
}

/** A thread that reads then writes: `r0 = *a (acquire?); [fence]; *b = 1` by release, of r0 (a data dependency), or inside `if (r0 == 1)`. */
interface ReadWrite {
  k: 'readwrite';
  a: string;
  acquire: boolean;
  fence?: Fence;
  b: string;
  release: boolean;
  deps: ('data' | 'ctrl')[];
}

type ThreadDesc = Writer | Reader | ReadWrite;

interface Desc {
  name: string;
  init?: string;
  threads: ThreadDesc[];
  exists: string;
}

/** The device of a thread weakened by hand: its name as the audit gives it, and what it becomes. */
interface ByHand {
  thread: number;
  name: string;
  to: string;
}

const fenceArb = fc.option(fc.constantFrom<Fence>('smp_mb', 'smp_rmb', 'smp_wmb'), { freq: 2 });
const writer = (a: string, v: number, b: string, pointer = false): fc.Arbitrary<Writer> =>
  fc.record({ fence: fenceArb, release: fc.boolean() }).map(({ fence, release }) => ({ k: 'writer', a, v, b, release, pointer, ...(fence ? { fence } : {}) }));
const reader = (a: string, b: string, deps: ('addr' | 'ctrl')[]): fc.Arbitrary<Reader> =>
  fc.record({ acquire: fc.boolean(), fence: fenceArb, dep: fc.option(fc.constantFrom(...deps)) }).map(({ acquire, fence, dep }) => ({
    k: 'reader', a, b, acquire, ...(fence ? { fence } : {}), ...(dep ? { dep } : {}),
  }));
const readWrite = (a: string, b: string, data: boolean): fc.Arbitrary<ReadWrite> =>
  fc.record({ acquire: fc.boolean(), fence: fenceArb, release: fc.boolean(), data: data ? fc.boolean() : fc.constant(false), ctrl: fc.boolean() }).map(
    ({ acquire, fence, release, data: d, ctrl }) => ({
      k: 'readwrite', a, b, acquire, release, ...(fence ? { fence } : {}),
      deps: [...(d ? ['data' as const] : []), ...(ctrl ? ['ctrl' as const] : [])],
    }),
  );

/** The shapes: only one thread writes a value it read (LB's P0, S's and WRC's P1). */
const descs: fc.Arbitrary<Desc> = fc.oneof(
  fc.tuple(writer('x', 1, 'y'), reader('y', 'x', ['ctrl'])).map(([w, r]): Desc => ({ name: 'MP', threads: [w, r], exists: '1:r0=1 /\\ 1:r1=0' })),
  fc.tuple(writer('x', 1, 'p', true), reader('p', 'x', ['addr'])).map(([w, r]): Desc => ({ name: 'MP-pointer', init: 'p=z;', threads: [w, r], exists: '1:r0=x /\\ 1:r1=0' })),
  fc.tuple(readWrite('x', 'y', true), readWrite('y', 'x', false)).map(([a, b]): Desc => ({ name: 'LB', threads: [a, b], exists: '0:r0=1 /\\ 1:r0=1' })),
  fc.tuple(writer('x', 2, 'y'), readWrite('y', 'x', true)).map(([w, rw]): Desc => ({ name: 'S', threads: [w, rw], exists: '1:r0=1 /\\ x=2' })),
  fc.tuple(readWrite('x', 'y', true), reader('y', 'x', ['ctrl'])).map(([rw, r]): Desc => ({
    name: 'WRC', threads: [{ k: 'writer', a: 'x', v: 1, b: '', release: false }, rw, r], exists: '1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0',
  })),
);

/** The devices a thread carries, by the names the audit gives them. */
function devicesOf(t: ThreadDesc): string[] {
  const out: string[] = [];
  if (t.k !== 'writer' && t.acquire) out.push('smp_load_acquire');
  if (t.fence) out.push(t.fence);
  if (t.k !== 'reader' && t.release && t.b) out.push('smp_store_release');
  if (t.k === 'reader' && t.dep) out.push(t.dep);
  if (t.k === 'readwrite') out.push(...t.deps);
  return out;
}

/** The test's text, with one device weakened by hand (`weak`), or as generated. */
function render(d: Desc, weak?: ByHand): string {
  const procs = d.threads.map((t, i) => {
    const w = (name: string) => (weak && weak.thread === i && weak.name === name ? weak.to : undefined);
    const body: string[] = [];
    const fence = t.fence && w(t.fence) !== '(removed)' ? `\t${w(t.fence) ?? t.fence}();` : undefined;
    const acquired = (a: string) => (t.k !== 'writer' && t.acquire && !w('smp_load_acquire') ? `smp_load_acquire(${a})` : `READ_ONCE(*${a})`);
    const store = (b: string, v: string, release: boolean) => (release && !w('smp_store_release') ? `smp_store_release(${b}, ${v});` : `WRITE_ONCE(*${b}, ${v});`);
    if (t.k === 'writer') {
      body.push(`\tWRITE_ONCE(*${t.a}, ${t.v});`);
      if (fence) body.push(fence);
      if (t.b) body.push(`\t${store(t.b, t.pointer ? 'x' : '1', t.release)}`);
      return { params: t.pointer ? 'int *x, int **p' : threadParams(d), regs: '', body };
    }
    body.push(`\tr0 = ${acquired(t.a)};`);
    if (fence) body.push(fence);
    if (t.k === 'reader') {
      const read = t.dep === 'addr' && !w('addr') ? `\tr1 = READ_ONCE(*r0);` : `\tr1 = READ_ONCE(*${t.b});`;
      if (t.dep === 'ctrl' && !w('ctrl')) body.push(`\tif (r0 == 1)`, `\t${read}`);
      else body.push(read);
      return { params: d.init ? 'int *x, int **p' : threadParams(d), regs: d.init ? '\tint *r0;\n\tint r1;\n' : '\tint r0;\n\tint r1;\n', body };
    }
    const value = t.deps.includes('data') && !w('data') ? 'r0' : '1';
    const write = `\t${store(t.b, value, t.release)}`;
    if (t.deps.includes('ctrl') && !w('ctrl')) body.push(`\tif (r0 == 1)`, `\t${write}`);
    else body.push(write);
    return { params: threadParams(d), regs: '\tint r0;\n', body };
  });
  const text = procs.map((p, i) => `P${i}(${p.params})\n{\n${p.regs}${p.regs ? '\n' : ''}${p.body.join('\n')}\n}`).join('\n');
  return `C ${d.name}\n{\n${d.init ?? ''}\n}\n${text}\nexists (${d.exists})\n`;
}

const threadParams = (d: Desc) => (d.init ? 'int *x, int **p' : 'int *x, int *y');

describe('the audit against the devices removed by hand, on generated Never tests', () => {
  it('a device is load-bearing exactly when the test without it is no longer Never, and every device has its row', () => {
    let never = 0;
    let rows = 0;
    let bearing = 0;
    const kinds = new Set<string>();
    fc.assert(
      fc.property(descs, (d) => {
        const text = render(d);
        if (checkSource(text, { model: lkmm }).observation !== 'Never') return;
        never++;
        const a = auditProgram(buildProgram(parseLitmus(text)), lkmm, {}, text.split('\n'));
        expect(a.verdict).toBe('Never');
        // Every device of the test is audited (the writer's write of the pointer is a device only where it is a release).
        const named = new Set(a.rows.map((r) => `${r.device.thread}:${r.device.name}`));
        d.threads.forEach((t, i) => {
          for (const dev of devicesOf(t)) expect(named, `${dev} of P${i} in\n${text}`).toContain(`${i}:${dev}`);
        });
        for (const r of a.rows) {
          const byHand = render(d, { thread: r.device.thread, name: r.device.name, to: r.to });
          expect(byHand).not.toBe(text);
          const v = checkSource(byHand, { model: unpruned }).observation;
          expect(r.loadBearing, `P${r.device.thread} ${r.device.source} → ${r.to}: by hand ${v}\n${text}\n${byHand}`).toBe(v !== 'Never');
          rows++;
          if (r.loadBearing) bearing++;
          kinds.add(`${r.device.name}:${r.loadBearing}`);
        }
      }),
      { numRuns: 120 },
    );
    // The run saw Never tests, load-bearing devices and redundant ones, dependencies of each kind among them.
    expect(never).toBeGreaterThan(20);
    expect(bearing).toBeGreaterThan(0);
    expect(rows - bearing).toBeGreaterThan(0);
    for (const k of ['addr', 'data', 'ctrl']) expect([...kinds].some((x) => x.startsWith(`${k}:true`)), `a load-bearing ${k} dependency`).toBe(true);
  });
});
