// Program edits used to answer "what would have forbidden this outcome?":
// a copy of the program with a fence inserted after one instruction.

import type { FenceKind } from '../events/event.js';
import type { Instr, Program } from './program.js';

export const FENCE_NAMES: Record<string, FenceKind> = { smp_mb: 'mb', smp_rmb: 'rmb', smp_wmb: 'wmb' };

export function insertFence(prog: Program, thread: number, afterPc: number, fenceName: keyof typeof FENCE_NAMES): Program {
  const threads = prog.threads.map((th) => {
    if (th.index !== thread) return th;
    const at = afterPc + 1;
    const shift = (target: number) => (target >= at ? target + 1 : target);
    const code: Instr[] = th.code.map((ins) => {
      if (ins.op === 'jump') return { ...ins, target: shift(ins.target) };
      if (ins.op === 'branch') return { ...ins, ifFalse: shift(ins.ifFalse) };
      return ins;
    });
    const pos = (th.code[afterPc] as { pos?: { line: number; col: number } }).pos ?? { line: 0, col: 0 };
    code.splice(at, 0, {
      op: 'prim',
      prim: { kind: 'fence', fence: FENCE_NAMES[fenceName] },
      name: fenceName,
      dst: -1,
      addr: { k: 'const', v: 0 },
      args: [],
      pos,
    });
    return { ...th, code };
  });
  return { ...prog, threads };
}
