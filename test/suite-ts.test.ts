// The TypeScript front end: the typed kernel module against the primitive
// table, inlining (version overrides, returns, short-circuits, ghosts), the
// tests it builds compared with the same tests written in C, its messages for
// what it does not support, and `litmus new`.

import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernelDeclarations } from '../src/suite/kernel-decl.js';
import { readSuite } from '../src/suite/read.js';
import { runSuite } from '../src/suite/run.js';
import { printLitmus } from '../src/parse/printer.js';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { KERNEL_IMPORT, newSuite, newTest, shapes } from '../src/cli/new.js';
import { primitiveNames } from '../src/events/primitives.js';
import { CLI, ROOT, runNode } from './util.js';

const KERNEL = join(ROOT, 'litmus', 'kernel.js');

/** Writes files into a fresh folder; returns the folder. */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'litmus-ts-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text.replaceAll('KERNEL', KERNEL));
  return dir;
}

const MP = `import { READ_ONCE, WRITE_ONCE, smp_load_acquire, smp_store_release, scenario, type Ref } from 'KERNEL';
interface S { data: Ref; flag: Ref }
export function publish(s: S): void {
  WRITE_ONCE(s.data, 1);
  WRITE_ONCE(s.flag, 1);
}
export function consume(s: S): number {
  if (READ_ONCE(s.flag) === 0) return -1;
  return READ_ONCE(s.data);
}
export default scenario({
  name: 'mp',
  says: 'message passing',
  threads: [(s: S) => publish(s), (s: S) => ({ got: consume(s) })],
  exists: ([, p1]) => p1.got === 0,
});
void smp_load_acquire; void smp_store_release;
`;

describe('the typed kernel module', () => {
  it('litmus/kernel.d.ts is what the primitive table generates (npm run gen:kernel)', () => {
    expect(readFileSync(join(ROOT, 'litmus', 'kernel.d.ts'), 'utf8')).toBe(kernelDeclarations());
  });

  it('declares every primitive, with its address typed by what it points to and the argument names litmus primitives shows', () => {
    const text = kernelDeclarations();
    for (const p of primitiveNames()) expect(text).toContain(`export declare function ${p}(`);
    expect(text).toContain('export declare function spin_lock(l: spinlock_t): void;');
    expect(text).toContain('export declare function smp_load_acquire(x: Ref): int;');
    expect(text).toContain('export declare function test_bit_acquire(nr: int, x: Ref): int;');
    expect(text).toContain('export declare function atomic_add(i: int, v: Ref): void;');
    expect(text).toContain('export declare function srcu_read_unlock(s: srcu_struct, idx: int): void;');
  });
});

describe('tuples of the state are C arrays', () => {
  const SUITE = `import { READ_ONCE, WRITE_ONCE, smp_load_acquire, smp_store_release, scenario, type Ref, type spinlock_t } from 'KERNEL';
interface S { c: [Ref, Ref, Ref]; done: [Ref, Ref]; l: [spinlock_t, spinlock_t] }
function put(s: S, cpu: number): void {
  WRITE_ONCE(s.c[cpu], READ_ONCE(s.c[cpu]) + 1);
  smp_store_release(s.done[cpu], 1);
}
export default scenario({
  name: 'arr',
  says: 'per-CPU slots',
  init: { c: [0, 5, 0] },
  threads: [(s: S) => put(s, 0), (s: S) => ({ d: smp_load_acquire(s.done[0]), v: READ_ONCE(s.c[0]) })],
  exists: ([, p1], mem: { c: [number, number, number] }) => p1.d === 1 && p1.v === 0 && mem.c[1] === 5,
});
`;
  it('an int tuple is an array of its length, indexed where the code indexes it; init and condition name its elements', async () => {
    const dir = folder({ 'arr.ts': SUITE });
    const s = await readSuite(join(dir, 'arr.ts'));
    const c = printLitmus(s.tests[0].test);
    expect(c).toContain('int c[3] = {0, 5, 0};');
    expect(c).toContain('int done[2];');
    expect(c).toMatch(/READ_ONCE\(c\[0\]\)/);
    expect(c).toMatch(/smp_store_release\(&done\[0\], 1\)/);
    expect(c).toMatch(/exists \(.*c\[1\]=5/);
    expect(c).toMatch(/P0\(int \*c, int \*done\)/);
    const r = checkSource(c, { model: lkmm });
    expect([r.observation, r.positive, r.negative]).toEqual(['Never', 0, 3]);
    // The same test with one name per element gives the same answer.
    const flat = c.replace('int c[3] = {0, 5, 0};', 'int c_0 = 0; int c_1 = 5; int c_2 = 0;').replace('int done[2];', 'int done_0; int done_1;')
      .replace(/int \*c, int \*done/g, 'int *c_0, int *c_1, int *c_2, int *done_0, int *done_1')
      .replace(/&?(c|done)\[(\d)\]/g, (_, a: string, i: string) => `*${a}_${i}`).replace(/smp_(store_release|load_acquire)\(\*/g, 'smp_$1(')
      .replace(/\*c_1=5/, 'c_1=5');
    const f = checkSource(flat, { model: lkmm });
    expect([f.observation, f.positive, f.negative]).toEqual([r.observation, r.positive, r.negative]);
  });
  it('a constant index past the tuple is an error at its position', async () => {
    const dir = folder({ 'arr.ts': SUITE.replace('put(s, 0)', 'put(s, 2)') });
    await expect(readSuite(join(dir, 'arr.ts'))).rejects.toThrow(/index 2 is out of bounds: the tuple has 2 elements/);
  });
});

describe('a single TypeScript test', () => {
  it('inlines its functions and gives the verdict of the same test in C', async () => {
    const dir = folder({ 'mp.ts': MP.replace('void smp_load_acquire; void smp_store_release;\n', '') });
    const s = await readSuite(join(dir, 'mp.ts'));
    expect(s.single).toBe(true);
    const c = printLitmus(s.tests[0].test);
    // The early return ends the path: what follows is the else branch.
    expect(c).toMatch(/r0 = READ_ONCE\(\*flag\);\n\tif \(r0 == 0\)\n\t\{\n\t\tconsume = \(-1\);\n\t\}\n\telse\n\t\{\n\t\tr1 = READ_ONCE\(\*data\);/);
    const ts = checkSource(c, { model: lkmm });
    const handC = checkSource(
      'C mp\n{}\nP0(int *data, int *flag)\n{\n\tWRITE_ONCE(*data, 1);\n\tWRITE_ONCE(*flag, 1);\n}\n' +
        'P1(int *data, int *flag)\n{\n\tint r0;\n\tint r1;\n\tr1 = -1;\n\tr0 = READ_ONCE(*flag);\n\tif (r0 != 0) r1 = READ_ONCE(*data);\n}\nexists (1:r1=0)\n',
      { model: lkmm },
    );
    expect([ts.observation, ts.positive, ts.negative]).toEqual([handC.observation, handC.positive, handC.negative]);
    expect(ts.observation).toBe('Sometimes');
  });

  it('a version module overrides only the functions it changes; calls resolve in the version', async () => {
    const dir = folder({
      'base.ts': MP.replace(/export default scenario[\s\S]*$/, ''),
      'fixed.ts': `export * from './base.js';
import { READ_ONCE, WRITE_ONCE, smp_load_acquire, smp_store_release, type Ref } from 'KERNEL';
interface S { data: Ref; flag: Ref }
export function publish(s: S): void {
  WRITE_ONCE(s.data, 1);
  smp_store_release(s.flag, 1);
}
export function consume(s: S): number {
  if (smp_load_acquire(s.flag) === 0) return -1;
  return READ_ONCE(s.data);
}
`,
      'halfway.ts': `export * from './base.js';
import { WRITE_ONCE, smp_store_release, type Ref } from 'KERNEL';
interface S { data: Ref; flag: Ref }
export function publish(s: S): void {
  WRITE_ONCE(s.data, 1);
  smp_store_release(s.flag, 1);
}
`,
      'suite.ts': `import { scenario, suite, type Ref } from 'KERNEL';
import * as base from './base.js';
import * as halfway from './halfway.js';
import * as fixed from './fixed.js';
import { consume, publish } from './base.js';
interface S { data: Ref; flag: Ref }
const mp = scenario({
  name: 'mp', says: 'the reader sees the flag but not the data',
  threads: [(s: S) => publish(s), (s: S) => ({ got: consume(s) })],
  exists: ([, p1]) => p1.got === 0,
});
export default suite({ title: 'MP', underReview: 'halfway', baseline: 'base', badOutcome: 'a stale read', versions: { base, halfway, fixed }, scenarios: [mp] });
`,
    });
    const run = await runSuite(join(dir, 'suite.ts'), { model: 'lkmm', explain: false });
    expect(run.errors).toEqual([]);
    expect(run.cells.map((c) => `${c.version}:${c.result!.observation}`)).toEqual(['base:Sometimes', 'halfway:Sometimes', 'fixed:Never']);
    expect(run.out[0]).toBe('Version "halfway" (under review): a stale read CAN happen, in 1 of 1 scenarios: mp (also possible in "base").');
  });

  it('short-circuit && keeps the right side\'s access conditional; observe() records without an access', async () => {
    const dir = folder({
      't.ts': `import { READ_ONCE, WRITE_ONCE, observe, scenario, type Ref } from 'KERNEL';
interface S { x: Ref; y: Ref }
export default scenario({
  name: 't', says: 'conditional read',
  threads: [
    (s: S) => { WRITE_ONCE(s.x, 1); WRITE_ONCE(s.y, 1); },
    (s: S) => {
      const both = READ_ONCE(s.x) === 1 && READ_ONCE(s.y) === 1;
      observe('both', both);
      return { r: both ? 2 : 3 };
    },
  ],
  exists: ([, p1]) => p1.r === 2 && p1.both === 1,
});
`,
    });
    const s = await readSuite(join(dir, 't.ts'));
    const c = printLitmus(s.tests[0].test);
    // y is read only inside the branch taken when x was 1.
    expect(c).toMatch(/r0 = READ_ONCE\(\*x\);\n\tif \(r0 == 1\)\n\t\{\n\t\tr1 = READ_ONCE\(\*y\);/);
    const r = checkSource(c, { model: lkmm });
    expect(r.observation).toBe('Sometimes');
    expect(r.states.map((st) => st.bindings.map(([k, v]) => `${k}=${v}`).join(' '))).toEqual(['1:both=0 1:r=3', '1:both=1 1:r=2']);
  });
});

describe('messages: file:line:col', () => {
  async function error(files: Record<string, string>, entry: string): Promise<string> {
    const dir = folder(files);
    const run = await runSuite(join(dir, entry), { model: 'lkmm', explain: false });
    return run.errors.join('\n').replace(dir + '/', '');
  }

  it('unsupported TypeScript in a function', async () => {
    const e = await error({
      't.ts': `import { WRITE_ONCE, scenario, type Ref } from 'KERNEL';
interface S { x: Ref }
function f(s: S): void {
  for (let i = 0; i < 2; i++) WRITE_ONCE(s.x, i);
}
export default scenario({ name: 't', says: 'x', threads: [(s: S) => f(s)], exists: (_, mem) => mem.x === 1 });
`,
    }, 't.ts');
    expect(e).toBe('t.ts:4:3: unsupported TypeScript in a litmus function: for statement');
  });

  it('an unknown function, a location used as a value, a wrong argument count', async () => {
    const head = `import { READ_ONCE, WRITE_ONCE, scenario, type Ref } from 'KERNEL';\ninterface S { x: Ref }\n`;
    const one = (body: string) => ({ 't.ts': `${head}export default scenario({ name: 't', says: 'x', threads: [(s: S) => { ${body} }], exists: (_, mem) => mem.x === 1 });\n` });
    expect(await error(one('nosuch(s.x);'), 't.ts')).toBe('t.ts:3:71: unknown function "nosuch" (neither a suite function nor a kernel primitive)');
    expect(await error(one('WRITE_ONCE(s.x, s.x);'), 't.ts')).toBe('t.ts:3:87: a shared location is not a value: read it with READ_ONCE() or another primitive');
    expect(await error(one('READ_ONCE(s.x, 1);'), 't.ts')).toBe('t.ts:3:71: READ_ONCE takes 1 argument, not 2');
    void WRITE_ONCE_unused;
  });

  it('a scenario that cannot be inlined into the version under review: that cell is an error, the rest is checked, the verdict line says so', async () => {
    const dir = folder({
      'good.ts': `import { READ_ONCE, WRITE_ONCE, type Ref } from 'KERNEL';
export interface S { x: Ref; y: Ref }
export function writer(s: S): void { WRITE_ONCE(s.x, 1); WRITE_ONCE(s.y, 1); }
export function reader(s: S): number { return READ_ONCE(s.y) === 1 ? READ_ONCE(s.x) : 1; }
`,
      'bad.ts': `export * from './good.js';
import { WRITE_ONCE } from 'KERNEL';
import type { S } from './good.js';
export function writer(s: S): void { for (let i = 0; i < 2; i++) WRITE_ONCE(s.x, i); }
`,
      'suite.ts': `import { scenario, suite } from 'KERNEL';
import * as good from './good.js';
import * as bad from './bad.js';
import { reader, writer, type S } from './good.js';
const mp = scenario({ name: 'mp', says: 'stale read', threads: [(s: S) => writer(s), (s: S) => ({ got: reader(s) })], exists: ([, p1]) => p1.got === 0 });
const solo = scenario({ name: 'solo', says: 'reader alone', threads: [(s: S) => ({ got: reader(s) })], exists: ([p0]) => p0.got === 0 });
export default suite({ title: 'MP', underReview: 'bad', badOutcome: 'a stale read', versions: { good, bad }, scenarios: [mp, solo] });
`,
    });
    const run = await runSuite(join(dir, 'suite.ts'), { model: 'lkmm', explain: false });
    expect(run.status).toBe(2);
    expect(run.errors.map((e) => e.replace(dir + '/', ''))).toEqual(['bad.ts:4:38: unsupported TypeScript in a litmus function: for statement']);
    expect(run.cells.map((c) => `${c.scenario}/${c.version}:${c.result?.observation ?? 'error'}`).sort()).toEqual(['mp/bad:error', 'mp/good:Sometimes', 'solo/bad:Never', 'solo/good:Never']);
    expect(run.out[0]).toBe('Version "bad" (under review): a stale read is impossible in the one scenario checked. Not checked for "bad": mp (see the errors above).');
    expect(run.out.join('\n')).toMatch(/^mp +Sometimes +error$/m);
  });

  it('an unknown underReview is an error', async () => {
    const e = await error({
      'pre.ts': `import { WRITE_ONCE, type Ref } from 'KERNEL';\nexport function f(s: { x: Ref }): void { WRITE_ONCE(s.x, 1); }\n`,
      'suite.ts': `import { scenario, suite, type Ref } from 'KERNEL';
import * as pre from './pre.js';
import { f } from './pre.js';
const s1 = scenario({ name: 's1', says: 'x', threads: [(s: { x: Ref }) => f(s)], exists: (_, mem) => mem.x === 1 });
export default suite({ title: 't', underReview: 'v9', badOutcome: 'x', versions: { pre }, scenarios: [s1] });
`,
    }, 'suite.ts');
    expect(e).toBe('suite.ts:5:49: underReview "v9" is not one of the versions (pre)');
  });
});

const WRITE_ONCE_unused = 0;

describe('litmus new', () => {
  it('C tests from each shape parse, with a Result: left for the user and not judged; TS tests read and check', async () => {
    expect(shapes()).toEqual(['MP', 'SB', 'LB', '2+2W', 'WRC', 'ISA2', 'IRIW', 'R', 'S', 'Z6.0', 'RWC']);
    for (const shape of shapes()) {
      const c = newTest('t', shape, false);
      expect(c).toMatch(/^C t\n\n\(\*\n \* Result: \?\?\?\n/);
      const r = checkSource(c, { model: lkmm });
      // Each shape's weak outcome is allowed with ONCE accesses; the ??? is not judged.
      expect(r.observation, shape).toBe('Sometimes');
      expect(r.matches, shape).toBeUndefined();
      // The TypeScript test imports the kernel module by the package's name, wherever it is.
      const ts = newTest('t', shape, true);
      expect(ts).toContain(`from '${KERNEL_IMPORT}';`);
      const dir = folder({ 't.ts': ts });
      const run = await runSuite(join(dir, 't.ts'), { model: 'lkmm', quiet: true });
      expect(run.errors).toEqual([]);
      expect(run.cells[0].result!.observation, shape).toBe(checkSource(c, { model: lkmm }).observation);
    }
  });

  it('--ts suites: for each shape, v1 reaches the weak outcome and v2 (smp_mb() between accesses, only the functions it changes) does not', async () => {
    for (const shape of shapes()) {
      const files = newSuite('t', shape);
      expect(Object.keys(files).sort()).toEqual(['suite.ts', 'v1.ts', 'v2.ts']);
      for (const [name, text] of Object.entries(files)) {
        // Imports: the kernel module by the package's name and the suite's own modules; no path leaves the folder.
        const specs = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
        for (const s of specs) expect([KERNEL_IMPORT, './v1.js', './v2.js'], `${shape} ${name}`).toContain(s);
      }
      expect(files['v2.ts']).toContain("export * from './v1.js';");
      const dir = folder(files);
      const run = await runSuite(join(dir, 'suite.ts'), { model: 'lkmm', explain: false });
      expect(run.errors, shape).toEqual([]);
      const verdict = (v: string) => run.cells.find((c) => c.version === v)!.result!.observation;
      expect([verdict('v1'), verdict('v2')], shape).toEqual(['Sometimes', 'Never']);
      // v2 holds only the threads with more than one access.
      const SHAPE_THREADS = (files['v1.ts'].match(/export function p\d/g) ?? []).length;
      expect((files['v2.ts'].match(/export function p\d/g) ?? []).length, shape).toBeLessThanOrEqual(SHAPE_THREADS);
    }
  });

  it('--ts suites type-check against the installed package, from wherever they are', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    if (!existsSync(tsc)) return void console.warn('skipped: typescript is not installed');
    const project = mkdtempSync(join(tmpdir(), 'litmus-new-ts-'));
    // The package installed beside the suite, as npm install --save-dev would link it.
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(ROOT, join(project, 'node_modules', 'lkmm-litmus'), 'dir');
    const suite = join(project, 'deep', 'er', 'iriw');
    mkdirSync(suite, { recursive: true });
    for (const [name, text] of Object.entries(newSuite('iriw', 'IRIW'))) writeFileSync(join(suite, name), text);
    writeFileSync(
      join(project, 'tsconfig.json'),
      readFileSync(join(ROOT, 'litmus', 'tsconfig.json'), 'utf8'),
    );
    const r = await runNode([tsc, '-p', project], project);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the command writes the suite folder, which checks as written, and refuses to write over anything', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'litmus-new-cli-'));
    const made = await runNode([CLI, 'new', 'mp', '--ts'], cwd);
    expect(made.stderr).toBe('');
    expect(made.stdout).toBe(`wrote ${join(cwd, 'mp')}/ (suite.ts, v1.ts, v2.ts)\n`);
    const checked = await runNode([CLI, 'check', '-q', 'mp'], cwd);
    expect(checked.status).toBe(0);
    expect(checked.stdout.split('\n')[0]).toBe('Version "v2" (under review): the weak outcome is impossible in the one scenario checked.');
    expect(checked.stdout).toMatch(/^mp +Sometimes +Never *$/m);
    const again = await runNode([CLI, 'new', 'mp', '--ts'], cwd);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(`litmus new: ${join(cwd, 'mp')} exists already\n`);
    const single = await runNode([CLI, 'new', 'one.ts', '--from', 'SB'], cwd);
    expect(single.stdout).toBe(`wrote ${join(cwd, 'one.ts')}\n`);
    expect(readFileSync(join(cwd, 'one.ts'), 'utf8')).toContain(`from '${KERNEL_IMPORT}';`);
  });
});
