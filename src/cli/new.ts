// `litmus new NAME [--from SHAPE] [--ts]`: a new test to edit, in C (NAME.litmus)
// or TypeScript (NAME.ts), from one of the classic shapes, with its header
// and a Result: line left for the user (`???`, not judged until they fill it in).

import { existsSync, lstatSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { bundledDir } from './inputs.js';
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

/** A TypeScript scenario of the shape. */
function tsTest(name: string, s: Shape, kernelImport: string): string {
  const locs = locationsOf(s);
  const threads = s.threads.map((ops) => {
    const body = ops.map((op) => ('w' in op ? `WRITE_ONCE(s.${op.w}, ${op.v});` : `const ${op.reg} = READ_ONCE(s.${op.r});`));
    const regs = ops.flatMap((op) => ('reg' in op ? [op.reg] : []));
    if (regs.length) body.push(`return { ${regs.join(', ')} };`);
    return `    (s: State) => {\n      ${body.join('\n      ')}\n    },`;
  });
  const ps = s.threads.map((_, i) => (s.exists.some((t) => 'reg' in t && t.t === i) ? `p${i}` : '')).join(', ').replace(/(, )+$/, '');
  const usesMem = s.exists.some((t) => 'loc' in t);
  const args = `[${ps}]${usesMem ? ', mem' : ''}`;
  const exists = s.exists.map((t) => ('loc' in t ? `mem.${t.loc} === ${t.v}` : `p${t.t}.${t.reg} === ${t.v}`)).join(' && ');
  const used = ['READ_ONCE', 'WRITE_ONCE'].filter((p) => s.threads.flat().some((op) => (p === 'READ_ONCE' ? 'r' in op : 'w' in op)));
  return `// ${name}: ${s.says}
// Check it with: npx litmus check ${name}.ts

import { ${[...used, 'scenario', 'type Ref'].join(', ')} } from '${kernelImport}';

interface State {
${locs.map((l) => `  ${l}: Ref;`).join('\n')}
}

export default scenario({
  name: '${name}',
  says: '${s.says.replace(/'/g, "\\'")}',
  threads: [
${threads.join('\n')}
  ],
  exists: (${args}) => ${exists},
  // Result: what you expect (Never, Sometimes or Always); litmus then reports a mismatch.
  // result: 'Sometimes',
});
`;
}

/** The text of a new test. `kernelImport` is the TypeScript import path of litmus/kernel.js. */
export function newTest(name: string, shape: string, ts: boolean, kernelImport = '../kernel.js'): string {
  const s = SHAPES[shape];
  if (!s) throw new Error(`unknown shape "${shape}" (${shapes().join(', ')})`);
  return ts ? tsTest(name, s, kernelImport) : cTest(name, s);
}

/** Writes the new test; returns its path, or throws with a message for the user. */
export function writeNewTest(name: string, shape: string, ts: boolean): string {
  const file = resolve(/\.(litmus|ts)$/.test(name) ? name : `${name}${ts ? '.ts' : '.litmus'}`);
  const isTs = ts || file.endsWith('.ts');
  const base = basename(file).replace(/\.(litmus|ts)$/, '');
  if (!/^[A-Za-z0-9_.+-]+$/.test(base)) throw new Error(`"${base}" is not a test name (letters, digits and - _ . +)`);
  if (lstatSync(file, { throwIfNoEntry: false })) throw new Error(`${file} exists already`);
  if (!existsSync(dirname(file))) throw new Error(`no folder ${dirname(file)}`);
  let kernel = relative(dirname(file), join(bundledDir(), 'kernel.js'));
  if (!kernel.startsWith('.')) kernel = `./${kernel}`;
  // Never replaces anything, not even a link put there since (nor writes through one).
  writeFileAtomic(file, newTest(base, shape, isTs, kernel), { exclusive: true });
  return file;
}
