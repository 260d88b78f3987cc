// Program edits used to answer "what would have forbidden this outcome?" and
// "which of these barriers is needed?": copies of the program with a fence
// inserted after an instruction, a fence removed, or a primitive replaced by
// another of the table (a stronger or weaker ordering of the same operation).

import { effectOf } from '../events/primitives.js';
import type { DependencyCut, Instr, Program } from './program.js';

/** One change to a program, at an instruction of a thread. */
export type Edit =
  /** Insert the fence primitive `name` (e.g. smp_mb) right after instruction pc. */
  | { op: 'insert-fence'; thread: number; pc: number; name: string }
  /**
   * Insert the fence `name` before instruction pc, on every path that
   * reaches it (jumps to pc run the fence): after a loop or an if.
   */
  | { op: 'insert-fence-before'; thread: number; pc: number; name: string }
  /** Replace instruction pc's primitive by the table's primitive `name` (same arguments). */
  | { op: 'replace'; thread: number; pc: number; name: string }
  /** Remove instruction pc (a fence). */
  | { op: 'remove'; thread: number; pc: number }
  /** Branch pc gives no control dependency (Instr branch's nodep): the dependency cut, values and paths unchanged. */
  | { op: 'cut-ctrl'; thread: number; pc: number }
  /**
   * The model is given no `kind` dependency from the read at instruction
   * `read` to the access at `access` (Thread.depCuts): values and paths unchanged.
   */
  | { op: 'cut-dep'; thread: number; kind: DependencyCut['kind']; read: number; access: number };

/**
 * Applies edits given against the original program's instruction numbers:
 * replacements first, then insertions and removals from the last pc
 * backwards, so that each edit's pc still names the instruction it meant.
 */
export function applyEdits(prog: Program, edits: readonly Edit[]): Program {
  let p = prog;
  for (const e of edits) if (e.op === 'replace') p = replaceAt(p, e.thread, e.pc, e.name);
  for (const e of edits) if (e.op === 'cut-ctrl') p = cutControlAt(p, e.thread, e.pc);
  for (const e of edits) if (e.op === 'cut-dep') p = cutDependency(p, e.thread, { kind: e.kind, read: e.read, access: e.access });
  // Where each edit changes the code: an insertion after pc at pc + 1. At
  // one index, the fence every path runs goes in first, so that the one on
  // the fall-through path comes before it.
  const at = (e: Edit) => (e.op === 'insert-fence' ? e.pc + 1 : e.op === 'cut-dep' ? e.access : e.pc);
  const moving = edits.filter((e) => e.op !== 'replace' && e.op !== 'cut-ctrl' && e.op !== 'cut-dep').sort((a, b) => a.thread - b.thread || at(b) - at(a) || Number(b.op === 'insert-fence-before') - Number(a.op === 'insert-fence-before'));
  for (const e of moving) {
    if (e.op === 'insert-fence') p = insertFence(p, e.thread, e.pc, e.name);
    else if (e.op === 'insert-fence-before') p = insertFenceBefore(p, e.thread, e.pc, e.name);
    else if (e.op === 'remove') p = removeAt(p, e.thread, e.pc);
  }
  return p;
}

export function insertFence(prog: Program, thread: number, afterPc: number, fenceName: string): Program {
  const info = prog.primitives.lookup(fenceName);
  if (!info || !('prim' in info) || effectOf(info.prim).object !== 'none') throw new Error(`${fenceName} is not a fence`);
  const prim = info.prim;
  return editThread(prog, thread, afterPc + 1, +1, (code, th) => {
    const pos = (th.code[afterPc] as { pos?: { line: number; col: number } }).pos ?? { line: 0, col: 0 };
    code.splice(afterPc + 1, 0, { op: 'prim', prim, name: fenceName, dst: -1, addr: { k: 'const', v: 0 }, args: [], pos });
  }, afterPc + 1);
}

/** The fence before instruction pc, on every path to it (jumps to pc now reach the fence). */
export function insertFenceBefore(prog: Program, thread: number, pc: number, fenceName: string): Program {
  const prim = fencePrim(prog, fenceName);
  return editThread(prog, thread, pc + 1, +1, (code, th) => {
    const next = th.code.slice(pc).find((i): i is Extract<Instr, { op: 'prim' }> => i.op === 'prim');
    const pos = next?.pos ?? { line: 0, col: 0 };
    code.splice(pc, 0, { op: 'prim', prim, name: fenceName, dst: -1, addr: { k: 'const', v: 0 }, args: [], pos });
  }, pc);
}

function fencePrim(prog: Program, fenceName: string) {
  const info = prog.primitives.lookup(fenceName);
  if (!info || !('prim' in info) || effectOf(info.prim).object !== 'none') throw new Error(`${fenceName} is not a fence`);
  return info.prim;
}

export function removeAt(prog: Program, thread: number, pc: number): Program {
  return editThread(prog, thread, pc + 1, -1, (code) => {
    code.splice(pc, 1);
  }, pc);
}

/** Branch pc with its control dependency cut (see Edit cut-ctrl). */
export function cutControlAt(prog: Program, thread: number, pc: number): Program {
  return editThread(prog, thread, Infinity, 0, (code) => {
    const ins = code[pc];
    if (ins.op !== 'branch') throw new Error(`instruction ${pc} of P${thread} is not a branch`);
    code[pc] = { ...ins, nodep: true };
  });
}

/** The program with the model given no such dependency (see Edit cut-dep). */
export function cutDependency(prog: Program, thread: number, cut: DependencyCut): Program {
  const th = prog.threads[thread];
  const read = th?.code[cut.read];
  const access = th?.code[cut.access];
  if (read?.op !== 'prim' || access?.op !== 'prim') throw new Error(`instructions ${cut.read} and ${cut.access} of P${thread} are not both primitives`);
  return { ...prog, threads: prog.threads.map((t) => (t.index === thread ? { ...t, depCuts: [...(t.depCuts ?? []), cut] } : t)) };
}

export function replaceAt(prog: Program, thread: number, pc: number, name: string): Program {
  const info = prog.primitives.lookup(name);
  if (!info || !('prim' in info)) throw new Error(`${name} is not a primitive of the table`);
  return editThread(prog, thread, Infinity, 0, (code) => {
    const ins = code[pc];
    if (ins.op !== 'prim') throw new Error(`instruction ${pc} of P${thread} is not a primitive`);
    code[pc] = { ...ins, prim: info.prim, name };
  });
}

/**
 * A copy of the program whose thread's code is changed by `change`; jump
 * targets at or after `from` move by `shift`. `spliced`: where `change`
 * inserts (shift +1) or removes (shift -1) an instruction.
 */
function editThread(
  prog: Program,
  thread: number,
  from: number,
  shift: number,
  change: (code: Instr[], th: Program['threads'][number]) => void,
  spliced = from,
): Program {
  const moved = (target: number) => (target >= from ? target + shift : target);
  const threads = prog.threads.map((th) => {
    if (th.index !== thread) return th;
    const code: Instr[] = th.code.map((ins) => {
      if (ins.op === 'jump') return { ...ins, target: moved(ins.target) };
      if (ins.op === 'branch') return { ...ins, ifFalse: moved(ins.ifFalse) };
      return ins;
    });
    change(code, th);
    if (!th.depCuts || shift === 0) return { ...th, code };
    // A cut names instructions, which move with the code (not as jump
    // targets do: a fence inserted before pc takes pc's jumps, not its
    // place); one naming an instruction removed goes with it.
    const place = (i: number) => (shift > 0 ? (i >= spliced ? i + 1 : i) : i > spliced ? i - 1 : i);
    const gone = shift < 0 ? spliced : -1;
    const depCuts = th.depCuts.filter((c) => c.read !== gone && c.access !== gone).map((c) => ({ ...c, read: place(c.read), access: place(c.access) }));
    return { ...th, code, depCuts };
  });
  return { ...prog, threads };
}
