// What a compiled model's checks mean, as digests: each check's kind and
// relation, with every name replaced by the digest of its definition, down
// to herd's base names (whose meaning the events decide). Positions, the
// files a definition came from and the names of top-level definitions
// play no part, so two models whose checks have equal digests judge them
// alike on every execution, whatever else either model defines or however
// its files are laid out. A shortcut proved by hand for some checks (the
// lock order of models/cat/lock-order.ts) is taken by a model whose checks
// include those, by digest.

import { createHash } from 'node:crypto';
import type { CatExpr, CatInstr, VarRef } from './ast.js';
import type { CompiledCat } from './compile.js';

/** The digests of the model's top-level checks (not flags), by instruction index. */
export function checkDigests(cat: CompiledCat): Map<number, string> {
  const d = new Digests(cat);
  const out = new Map<number, string>();
  cat.instrs.forEach((ci, i) => {
    const ins = ci.instr;
    if (ins.kind === 'test' && ins.role === 'check') out.set(i, hash(`check ${ins.test} ${ins.negated} ${d.expr(ins.expr)}`));
  });
  return out;
}

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

class Digests {
  private readonly bySlot = new Map<number, string>();
  /** Slots of recursive definitions being digested: their own names are `self` there. */
  private readonly group = new Map<number, number>();
  constructor(private readonly cat: CompiledCat) {}

  private slot(slot: number): string {
    const inGroup = this.group.get(slot);
    if (inGroup !== undefined) return `self${inGroup}`;
    const known = this.bySlot.get(slot);
    if (known) return known;
    const s = this.cat.slots[slot];
    const digest = s.instr < 0 ? `base:${s.name}` : hash(this.definition(slot, this.cat.instrs[s.instr].instr, this.cat.instrs[s.instr].defines));
    this.bySlot.set(slot, digest);
    return digest;
  }

  /** What defines `slot` (one of `defines`, the slots instruction ins binds), as text. */
  private definition(slot: number, ins: CatInstr, defines: number[]): string {
    const k = defines.indexOf(slot);
    switch (ins.kind) {
      case 'let': {
        if (!ins.rec) {
          // The binding, and which of its names this is (a tuple pattern binds several).
          let at = 0;
          for (const b of ins.bindings) {
            const names = b.pattern.kind === 'var' ? [b.pattern.name] : b.pattern.names;
            if (k < at + names.length) return `let ${b.pattern.kind}${k - at} ${this.expr(b.expr)}`;
            at += names.length;
          }
          return 'let ?';
        }
        // A recursive group: its bindings with its own names numbered, then which one this is.
        defines.forEach((s, i) => this.group.set(s, i));
        try {
          return `rec ${k} ${ins.bindings.map((b) => `${JSON.stringify(b.pattern)} ${this.expr(b.expr)}`).join(' and ')}`;
        } finally {
          for (const s of defines) this.group.delete(s);
        }
      }
      case 'with':
        return `with ${this.expr(ins.from)}`;
      case 'enum':
        return `enum ${ins.tags.join(' ')}`;
      case 'procedure':
        return `procedure ${JSON.stringify(ins.param)} ${ins.body.map((b) => this.instr(b)).join(' ; ')}`;
      default:
        return `${ins.kind}?`;
    }
  }

  /** An instruction of a procedure's body, as text. */
  private instr(ins: CatInstr): string {
    return this.tree(ins);
  }

  expr(e: CatExpr): string {
    return this.tree(e);
  }

  /**
   * Any node of the syntax tree as text: its fields but its position and
   * the compiler's marks; a name by what it refers to (a definition's
   * digest, a local by its name).
   */
  private tree(v: unknown): string {
    if (Array.isArray(v)) return `[${v.map((x) => this.tree(x)).join(',')}]`;
    if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
    const node = v as Record<string, unknown>;
    if (node.kind === 'var' && typeof node.name === 'string') {
      const ref = node.ref as VarRef | undefined;
      if (ref?.kind === 'slot') return `(${this.slot(ref.slot)})`;
      return `(${ref?.kind ?? 'local'} ${node.name})`;
    }
    if (node.kind === 'call' && typeof node.slot === 'number') return `(call ${this.slot(node.slot)} ${this.tree(node.arg)} ${JSON.stringify(node.as ?? null)})`;
    const fields = Object.keys(node)
      // (A function's name is the definition's it was written in: names play no part.)
      .filter((f) => f !== 'pos' && f !== 'hoisted' && f !== 'ref' && f !== 'slot' && !(f === 'name' && node.kind === 'fun') && node[f] !== undefined)
      .sort()
      .map((f) => `${f}:${this.tree(node[f])}`);
    return `{${fields.join(' ')}}`;
  }
}
