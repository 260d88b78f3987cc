// A cat model as a litmus Model: the files read and compiled once
// (models/cat/compile.ts), then judged per candidate (models/cat/evaluate.ts).
//
// The explorer's own pruning is the LKMM's (Model.mayCycleThrough,
// Model.lockOrders, prefix checks): it is derived from linux-kernel.cat, not
// from this model's text, so a compiled model declares none of it: every
// load-buffering guess and every lock order is explored and judged whole.

import { isAbsolute, relative } from 'node:path';
import type { Execution } from '../../src/model/execution.js';
import type { Highlight, Model, Verdict } from '../../src/model/model.js';
import { scratch } from '../../src/relation/relation.js';
import type { CatExpr } from './ast.js';
import { compileCat, type CompiledCat } from './compile.js';
import { StructureRun } from './evaluate.js';
import { fileSource, readModelText, type ModelFiles } from './files.js';
import { ModelError } from './lexer.js';

/** A compiled model and what it was compiled from. */
export interface CatModel extends Model {
  compiled: CompiledCat;
  files: ModelFiles;
}

/** Compiles the model the files describe; throws ModelError (positioned) if they cannot be read. */
export function compileModelFiles(files: ModelFiles): CatModel {
  const mains = [...(files.bell ? [files.bell] : []), files.cat].map((path) => ({ path, text: readModelText(path) }));
  const variants = new Set(files.variants);
  const compiled = compileCat(mains, fileSource(files.searchDirs, files.besideIncluder ?? false), variants);
  const opts = { variants, skipChecks: new Set(files.skipChecks) };
  const runs = new WeakMap<object, StructureRun>();
  const runOf = (x: Execution) => {
    let r = runs.get(x.structure);
    if (!r) runs.set(x.structure, (r = new StructureRun(compiled, x, opts)));
    return r;
  };
  const judge = (x: Execution): Verdict => {
    const v = scratch(() => runOf(x).check(x, false));
    return { consistent: v.consistent, violated: v.violated, flags: v.flags };
  };
  return {
    name: displayPath(files.cat),
    description: `${compiled.title ? `"${compiled.title}": ` : ''}${displayPath(files.cat)}${files.bell ? ` with ${displayPath(files.bell)}` : ''}`,
    compiled,
    files,
    // No pruning of the explorer's own (see the header): every branch is explored.
    mayCycleThrough: () => true,
    lockOrders: () => false,
    check(x: Execution, o?: { prefix?: boolean }): Verdict {
      // A prefix is judged only when the model is known to be monotone; none is, yet.
      if (o?.prefix) return { consistent: true, flags: [] };
      return judge(x);
    },
    explain(x: Execution, axiom: string): Highlight | undefined {
      return scratch(() => explainCheck(compiled, runOf(x), x, axiom));
    },
  };
}

/** The cycle (or offending pair) of the named check, for a forbidden candidate. */
function explainCheck(compiled: CompiledCat, run: StructureRun, x: Execution, axiom: string): Highlight | undefined {
  const test = compiled.instrs.map((c) => c.instr).find((i) => i.kind === 'test' && i.role === 'check' && (i.name ?? i.test) === axiom);
  if (!test || test.kind !== 'test') return undefined;
  const rel = run.relationOf(x, test.expr);
  if (!rel) return undefined;
  const name = relationName(test.expr) ?? axiom;
  if (test.test === 'acyclic') {
    const edges = rel.cycle();
    return edges ? { name, edges, labels: edges.map(() => name) } : undefined;
  }
  const pairs = rel.pairs();
  const shown = test.test === 'irreflexive' ? pairs.filter(([a, b]) => a === b) : pairs;
  return shown.length > 0 ? { name, edges: shown.slice(0, 4), labels: shown.slice(0, 4).map(() => name) } : undefined;
}

/** A file as messages name it: relative to the current folder when inside it. */
function displayPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r && !r.startsWith('..') && !isAbsolute(r) ? r : p;
}

function relationName(e: CatExpr): string | undefined {
  return e.kind === 'var' ? e.name : undefined;
}

export { ModelError };
