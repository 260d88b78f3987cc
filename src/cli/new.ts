// `litmus new NAME [--from SHAPE] [--ts]`: a new test to edit, in C (NAME.litmus)
// or TypeScript (NAME.ts), from one of the classic shapes, with its header
// and a Result: stub to fill in.

import { existsSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { bundledDir } from './inputs.js';

interface Shape {
  says: string;
  /** Thread bodies in C, over int *x, int *y. */
  c: string[];
  cExists: string;
  /** Thread bodies in TypeScript, over s: State. */
  ts: string[];
  tsExists: string;
}

const SHAPES: Record<string, Shape> = {
  MP: {
    says: 'message passing: can the reader see the flag but not the data?',
    c: ['\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*y, 1);', '\tint r0;\n\tint r1;\n\n\tr0 = READ_ONCE(*y);\n\tr1 = READ_ONCE(*x);'],
    cExists: '1:r0=1 /\\ 1:r1=0',
    ts: ['WRITE_ONCE(s.x, 1);\n      WRITE_ONCE(s.y, 1);', 'const flag = READ_ONCE(s.y);\n      const data = READ_ONCE(s.x);\n      return { flag, data };'],
    tsExists: '([, p1]) => p1.flag === 1 && p1.data === 0',
  },
  SB: {
    says: 'store buffering: can both threads miss the other\'s store?',
    c: ['\tint r0;\n\n\tWRITE_ONCE(*x, 1);\n\tr0 = READ_ONCE(*y);', '\tint r0;\n\n\tWRITE_ONCE(*y, 1);\n\tr0 = READ_ONCE(*x);'],
    cExists: '0:r0=0 /\\ 1:r0=0',
    ts: ['WRITE_ONCE(s.x, 1);\n      return { seen: READ_ONCE(s.y) };', 'WRITE_ONCE(s.y, 1);\n      return { seen: READ_ONCE(s.x) };'],
    tsExists: '([p0, p1]) => p0.seen === 0 && p1.seen === 0',
  },
  LB: {
    says: 'load buffering: can each thread read the other\'s later store?',
    c: ['\tint r0;\n\n\tr0 = READ_ONCE(*x);\n\tWRITE_ONCE(*y, 1);', '\tint r0;\n\n\tr0 = READ_ONCE(*y);\n\tWRITE_ONCE(*x, 1);'],
    cExists: '0:r0=1 /\\ 1:r0=1',
    ts: ['const seen = READ_ONCE(s.x);\n      WRITE_ONCE(s.y, 1);\n      return { seen };', 'const seen = READ_ONCE(s.y);\n      WRITE_ONCE(s.x, 1);\n      return { seen };'],
    tsExists: '([p0, p1]) => p0.seen === 1 && p1.seen === 1',
  },
  '2+2W': {
    says: 'two writers in opposite orders: can both first writes end up last?',
    c: ['\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*y, 2);', '\tWRITE_ONCE(*y, 1);\n\tWRITE_ONCE(*x, 2);'],
    cExists: 'x=1 /\\ y=1',
    ts: ['WRITE_ONCE(s.x, 1);\n      WRITE_ONCE(s.y, 2);', 'WRITE_ONCE(s.y, 1);\n      WRITE_ONCE(s.x, 2);'],
    tsExists: '(_, mem) => mem.x === 1 && mem.y === 1',
  },
};

export function shapes(): string[] {
  return Object.keys(SHAPES);
}

/** The text of a new test. `kernelImport` is the TypeScript import path of litmus/kernel.js. */
export function newTest(name: string, shape: string, ts: boolean, kernelImport = '../kernel.js'): string {
  const s = SHAPES[shape];
  if (!s) throw new Error(`unknown shape "${shape}" (${shapes().join(', ')})`);
  if (ts) {
    const threads = s.ts.map((b) => `    (s: State) => {\n      ${b}\n    },`).join('\n');
    const used = ['READ_ONCE', 'WRITE_ONCE'].filter((p) => s.ts.some((b) => b.includes(p)));
    return `// ${name}: ${s.says}
// Check it with: npx litmus check ${name}.ts

import { ${[...used, 'scenario', 'type Ref'].join(', ')} } from '${kernelImport}';

interface State {
  x: Ref;
  y: Ref;
}

export default scenario({
  name: '${name}',
  says: '${s.says.replace(/'/g, "\\'")}',
  threads: [
${threads}
  ],
  exists: ${s.tsExists},
  // Result: what you expect (Never, Sometimes or Always); litmus reports a mismatch.
  // result: 'Sometimes',
});
`;
  }
  const procs = s.c.map((b, i) => `P${i}(int *x, int *y)\n{\n${b}\n}\n`).join('\n');
  return `C ${name}

(*
 * Result: TODO (Never, Sometimes or Always: what you expect)
 *
 * ${s.says}
 *)

{
}

${procs}
exists (${s.cExists})
`;
}

/** Writes the new test; returns its path, or throws with a message for the user. */
export function writeNewTest(name: string, shape: string, ts: boolean): string {
  const file = resolve(/\.(litmus|ts)$/.test(name) ? name : `${name}${ts ? '.ts' : '.litmus'}`);
  const isTs = ts || file.endsWith('.ts');
  const base = basename(file).replace(/\.(litmus|ts)$/, '');
  if (!/^[A-Za-z0-9_.+-]+$/.test(base)) throw new Error(`"${base}" is not a test name (letters, digits and - _ . +)`);
  if (existsSync(file)) throw new Error(`${file} exists already`);
  if (!existsSync(dirname(file))) throw new Error(`no folder ${dirname(file)}`);
  let kernel = relative(dirname(file), join(bundledDir(), 'kernel.js'));
  if (!kernel.startsWith('.')) kernel = `./${kernel}`;
  writeFileSync(file, newTest(base, shape, isTs, kernel));
  return file;
}
