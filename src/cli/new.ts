// `litmus new NAME [--from SHAPE] [--ts]`: a new test to edit, from one of
// the classic shapes: in C (NAME.litmus, with a Result: line left for the
// user, `???`, not judged until they fill it in), or with --ts a TypeScript
// suite (NAME/: two versions and a scenario; NAME.ts: one scenario).

import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../write-file.cjs';

/** One access of a shape's thread: a store of a value, or a load into a named register. */
type Op = { w: string; v: number } | { r: string; reg: string };
/** A term of a shape's outcome: a register of a thread, or a location's final value. */
type Term = { t: number; reg: string; v: number } | { loc: string; v: number };

interface Shape {
  says: string;
  threads: Op[][];
  exists: Term[];
}

const w = (loc: string, v = 1): Op => ({ w: loc, v });
const r = (loc: string, reg: string): Op => ({ r: loc, reg });
const reg = (t: number, name: string, v: number): Term => ({ t, reg: name, v });
const mem = (loc: string, v: number): Term => ({ loc, v });

/** The classic shapes kernel developers name tests after, each with its weak outcome, all accesses ONCE. */
const SHAPES: Record<string, Shape> = {
  MP: {
    says: 'message passing: can the reader see the flag but not the data?',
    threads: [[w('x'), w('y')], [r('y', 'r0'), r('x', 'r1')]],
    exists: [reg(1, 'r0', 1), reg(1, 'r1', 0)],
  },
  SB: {
    says: "store buffering: can both threads miss the other's store?",
    threads: [[w('x'), r('y', 'r0')], [w('y'), r('x', 'r0')]],
    exists: [reg(0, 'r0', 0), reg(1, 'r0', 0)],
  },
  LB: {
    says: "load buffering: can each thread read the other's later store?",
    threads: [[r('x', 'r0'), w('y')], [r('y', 'r0'), w('x')]],
    exists: [reg(0, 'r0', 1), reg(1, 'r0', 1)],
  },
  '2+2W': {
    says: 'two writers in opposite orders: can both first writes end up last?',
    threads: [[w('x', 1), w('y', 2)], [w('y', 1), w('x', 2)]],
    exists: [mem('x', 1), mem('y', 1)],
  },
  WRC: {
    says: 'write-to-read causality: can the last reader see the relayed flag but not the first write?',
    threads: [[w('x')], [r('x', 'r0'), w('y')], [r('y', 'r0'), r('x', 'r1')]],
    exists: [reg(1, 'r0', 1), reg(2, 'r0', 1), reg(2, 'r1', 0)],
  },
  ISA2: {
    says: 'message passing through a relay: can the last reader see the relayed flag but not the data?',
    threads: [[w('x'), w('y')], [r('y', 'r0'), w('z')], [r('z', 'r0'), r('x', 'r1')]],
    exists: [reg(1, 'r0', 1), reg(2, 'r0', 1), reg(2, 'r1', 0)],
  },
  IRIW: {
    says: 'independent reads of independent writes: can two readers see the two writes in opposite orders?',
    threads: [[w('x')], [w('y')], [r('x', 'r0'), r('y', 'r1')], [r('y', 'r0'), r('x', 'r1')]],
    exists: [reg(2, 'r0', 1), reg(2, 'r1', 0), reg(3, 'r0', 1), reg(3, 'r1', 0)],
  },
  R: {
    says: "can a store overwrite the writer's flag while the other thread's later read misses the data?",
    threads: [[w('x'), w('y')], [w('y', 2), r('x', 'r0')]],
    exists: [mem('y', 2), reg(1, 'r0', 0)],
  },
  S: {
    says: "can a thread that saw the flag have its store overwritten by the writer's earlier store?",
    threads: [[w('x', 2), w('y')], [r('y', 'r0'), w('x', 1)]],
    exists: [mem('x', 2), reg(1, 'r0', 1)],
  },
  'Z6.0': {
    says: 'a relay, then a store that comes last: can the final reader still miss the first write?',
    threads: [[w('x'), w('y')], [r('y', 'r0'), w('z')], [w('z', 2), r('x', 'r0')]],
    exists: [reg(1, 'r0', 1), mem('z', 2), reg(2, 'r0', 0)],
  },
  RWC: {
    says: 'read-to-write causality: can a reader see a write, miss a later one, and the later writer miss the first?',
    threads: [[w('x')], [r('x', 'r0'), r('y', 'r1')], [w('y'), r('x', 'r0')]],
    exists: [reg(1, 'r0', 1), reg(1, 'r1', 0), reg(2, 'r0', 0)],
  },
};

export function shapes(): string[] {
  return Object.keys(SHAPES);
}

/** The locations a shape uses, in order. */
function locationsOf(s: Shape): string[] {
  return [...new Set(s.threads.flat().map((op) => ('w' in op ? op.w : op.r)))].sort();
}

/** A C test of the shape. */
function cTest(name: string, s: Shape): string {
  const params = locationsOf(s).map((l) => `int *${l}`).join(', ');
  const procs = s.threads.map((ops, i) => {
    const regs = ops.flatMap((op) => ('reg' in op ? [`\tint ${op.reg};`] : []));
    const body = ops.map((op) => ('w' in op ? `\tWRITE_ONCE(*${op.w}, ${op.v});` : `\t${op.reg} = READ_ONCE(*${op.r});`));
    return `P${i}(${params})\n{\n${regs.length ? `${regs.join('\n')}\n\n` : ''}${body.join('\n')}\n}\n`;
  });
  const exists = s.exists.map((t) => ('loc' in t ? `${t.loc}=${t.v}` : `${t.t}:${t.reg}=${t.v}`)).join(' /\\ ');
  return `C ${name}

(*
 * Result: ???
 *
 * Write what you expect in place of ??? (Never, Sometimes or Always); until
 * then the verdict is not judged.
 *
 * ${name}: ${s.says}
 *)

{
}

${procs.join('\n')}
exists (${exists})
`;
}

/**
 * How a TypeScript file the user writes imports the kernel module: by the
 * package's name, so that the file still reads (and, where the package is
 * installed beside it, type-checks) wherever it is moved. litmus's reader
 * knows the kernel module by that name whatever is installed.
 */
export const KERNEL_IMPORT = 'lkmm-litmus/kernel';

/** A statement of a thread's code, in TypeScript. */
function tsOp(op: Op): string {
  return 'w' in op ? `WRITE_ONCE(s.${op.w}, ${op.v});` : `const ${op.reg} = READ_ONCE(s.${op.r});`;
}

/** The kernel names a piece of code uses, in import order. */
function kernelNames(ops: Op[], more: string[] = []): string[] {
  const used = ['READ_ONCE', 'WRITE_ONCE'].filter((p) => ops.some((op) => (p === 'READ_ONCE' ? 'r' in op : 'w' in op)));
  return [...used, ...more];
}

/** The condition of a shape, over the threads' values (p0, p1, ...) and the final memory (mem). */
function tsExists(s: Shape): string {
  const ps = s.threads.map((_, i) => (s.exists.some((t) => 'reg' in t && t.t === i) ? `p${i}` : '')).join(', ').replace(/(, )+$/, '');
  const usesMem = s.exists.some((t) => 'loc' in t);
  const args = `[${ps}]${usesMem ? ', mem' : ''}`;
  return `(${args}) => ${s.exists.map((t) => ('loc' in t ? `mem.${t.loc} === ${t.v}` : `p${t.t}.${t.reg} === ${t.v}`)).join(' && ')}`;
}

/** A TypeScript scenario of the shape, one file (a test of its own). */
function tsTest(name: string, s: Shape, kernelImport: string): string {
  const locs = locationsOf(s);
  const threads = s.threads.map((ops) => {
    const body = ops.map(tsOp);
    const regs = ops.flatMap((op) => ('reg' in op ? [op.reg] : []));
    if (regs.length) body.push(`return { ${regs.join(', ')} };`);
    return `    (s: State) => {\n      ${body.join('\n      ')}\n    },`;
  });
  return `// ${name}: ${s.says}
// Check it with: npx litmus check ${name}.ts

import { ${kernelNames(s.threads.flat(), ['scenario', 'type Ref']).join(', ')} } from '${kernelImport}';

interface State {
${locs.map((l) => `  ${l}: Ref;`).join('\n')}
}

export default scenario({
  name: '${name}',
  says: '${s.says.replace(/'/g, "\\'")}',
  threads: [
${threads.join('\n')}
  ],
  exists: ${tsExists(s)},
  // Result: what you expect (Never, Sometimes or Always); litmus then reports a mismatch.
  // result: 'Sometimes',
});
`;
}

/**
 * One version's function for a thread of the shape: its accesses (with
 * smp_mb() between them when `fenced`), the values it reads recorded with
 * observe() for the condition.
 */
function tsFunction(i: number, ops: Op[], fenced: boolean): string {
  const body = ops.map(tsOp).flatMap((line, k) => (fenced && k > 0 ? ['smp_mb();', line] : [line]));
  for (const op of ops) if ('reg' in op) body.push(`observe('${op.reg}', ${op.reg});`);
  return `export function p${i}(s: State): void {\n  ${body.join('\n  ')}\n}\n`;
}

/**
 * A TypeScript suite of the shape: two versions of the code (v1 as the shape
 * has it, v2 with smp_mb() between each CPU's accesses, holding only the
 * functions it changes) against one scenario, v2 under review. The files by
 * name.
 */
export function newSuite(name: string, shape: string, kernelImport = KERNEL_IMPORT): Record<string, string> {
  const s = shapeOf(shape);
  const locs = locationsOf(s);
  const ops = s.threads.flat();
  const changed = s.threads.map((t, i) => [i, t] as const).filter(([, t]) => t.length > 1);
  const changedOps = changed.flatMap(([, t]) => t);
  const observes = (o: Op[]) => (o.some((op) => 'reg' in op) ? ['observe'] : []);
  const v1 = `// ${name}, version v1: the code before the change, one function per CPU.
// Each version is a module of the functions it changes (v2.ts); calls
// resolve by name in the version being checked.

import { ${kernelNames(ops, [...observes(ops), 'type Ref']).join(', ')} } from '${kernelImport}';

/** The shared state: each Ref is an int location (C: int *x). */
export interface State {
${locs.map((l) => `  ${l}: Ref;`).join('\n')}
}

${s.threads.map((t, i) => tsFunction(i, t, false)).join('\n')}`;
  const v2 = `// ${name}, version v2: v1 with smp_mb() between each CPU's accesses. Only the
// functions it changes are here; the others come from v1.

export * from './v1.js';
import { ${kernelNames(changedOps, [...observes(changedOps), 'smp_mb']).join(', ')} } from '${kernelImport}';
import type { State } from './v1.js';

${changed.map(([i, t]) => tsFunction(i, t, true)).join('\n')}`;
  const calls = s.threads.map((_, i) => `(s: State) => p${i}(s)`).join(', ');
  const suite = `// ${name}: ${s.says}
// Two versions against one scenario: \`npx litmus check ${name}\` prints the grid
// and explains each cell of the version under review that reaches the bad
// outcome; \`npx litmus audit ${name}\` says which barriers it needs. Add a
// version as a module of the functions it changes, and a scenario as another
// scenario({ ... }) in the list. Type-checked where the lkmm-litmus package
// is installed beside it (npm install --save-dev lkmm-litmus); litmus reads
// it either way.

import { scenario, suite } from '${kernelImport}';
import * as v1 from './v1.js';
import * as v2 from './v2.js';
import { ${s.threads.map((_, i) => `p${i}`).join(', ')}, type State } from './v1.js';

const weak = scenario({
  name: '${name}',
  says: '${s.says.replace(/'/g, "\\'")}',
  threads: [${calls}],
  exists: ${tsExists(s)},
});

export default suite({
  title: '${name}: ${s.says.replace(/'/g, "\\'")}',
  underReview: 'v2',
  baseline: 'v1',
  badOutcome: 'the weak outcome',
  versions: { v1, v2 },
  scenarios: [weak],
});
`;
  return { 'suite.ts': suite, 'v1.ts': v1, 'v2.ts': v2 };
}

function shapeOf(shape: string): Shape {
  const s = SHAPES[shape];
  if (!s) throw new Error(`unknown shape "${shape}" (${shapes().join(', ')})`);
  return s;
}

/** The text of a new test: C, or with `ts` a TypeScript scenario importing the kernel module as `kernelImport`. */
export function newTest(name: string, shape: string, ts: boolean, kernelImport = KERNEL_IMPORT): string {
  const s = shapeOf(shape);
  return ts ? tsTest(name, s, kernelImport) : cTest(name, s);
}

/**
 * Writes the new test: NAME.litmus; with `ts`, a suite folder NAME/ (or,
 * for a NAME ending in .ts, that one file). Returns what it wrote, or
 * throws with a message for the user. Nothing is written over.
 */
export function writeNewTest(name: string, shape: string, ts: boolean): string {
  const singleTs = name.endsWith('.ts');
  const target = resolve(/\.(litmus|ts)$/.test(name) || (ts && !singleTs) ? name : `${name}.litmus`);
  const base = basename(target).replace(/\.(litmus|ts)$/, '');
  if (!/^[A-Za-z0-9_.+-]+$/.test(base)) throw new Error(`"${base}" is not a test name (letters, digits and - _ . +)`);
  // Never replaces anything, not even a link put there since (nor writes through one).
  if (lstatSync(target, { throwIfNoEntry: false })) throw new Error(`${target} exists already`);
  if (!existsSync(dirname(target))) throw new Error(`no folder ${dirname(target)}`);
  if (ts && !singleTs) {
    const files = newSuite(base, shape);
    mkdirSync(target);
    for (const [file, text] of Object.entries(files)) writeFileAtomic(join(target, file), text, { exclusive: true });
    return `${target}/ (${Object.keys(files).join(', ')})`;
  }
  writeFileAtomic(target, newTest(base, shape, singleTs), { exclusive: true });
  return target;
}
