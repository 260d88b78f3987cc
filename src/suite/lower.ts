// One thread of a TypeScript scenario, inlined into the C syntax tree that
// .litmus files parse to: suite functions are inlined at their calls (by
// name, in the version being checked), kernel primitives become calls of the
// same name on the location their address argument names. State paths
// (`inode.cache_validity`, `fbc.counters[1]`) become shared locations named
// by the path (`cache_validity`); an int element of the state, `fbc.counters[1]`
// where `counters` is a tuple ([Ref, Ref]), is an element of a C array,
// `fbc_counters[1]` (`int fbc_counters[2]` in the initial state).
//
// A `return` may end any path of a function: what follows an `if` that
// returns on some paths is lowered into the branches that fall through.

import type { Node } from 'ts-morph';
import { walkStmt, type Expr, type Inlined, type Pos, type Stmt, type BinOp } from '../parse/ast.js';
import { effectOf, lookupPrimitive, type Lowered, type PrimitiveInfo } from '../events/primitives.js';
import { binary32, constant32, DIVIDES, unary32 } from '../program/arith.js';
import { locTypeOf } from './kernel-decl.js';
import { LIMITS } from '../limits.js';
import type { Module, Modules } from './modules.js';

export type LocType = 'int' | 'spinlock_t' | 'srcu_struct';

/**
 * A part of the shared state, by its path from the state: field names, and
 * `[i]` for an element of a tuple (`bound`: the tuple's length, when the
 * last step is one).
 */
type Path = { k: 'path'; path: string[]; bound?: number };
type Binding = { k: 'reg'; name: string } | { k: 'num'; v: number } | Path;
type Val = { k: 'expr'; e: Expr } | { k: 'num'; v: number } | Path | { k: 'void' };

/** A path's index step: `[i]`. */
export const indexStep = (i: number): string => `[${i}]`;
const INDEX_STEP = /^\[(\d+)\]$/;

/**
 * Where a state path lands in C: a location named by the path's steps
 * joined with `_`, or, when its last step is an index, an element of the
 * array named by the steps before it (`element`); `name` is how the initial
 * state and the condition name it (`fbc_counters[1]`).
 */
export function pathLocation(path: readonly string[]): { name: string; element?: { array: string; index: number } } {
  const flat = (steps: readonly string[]) => steps.map((st) => st.replace(INDEX_STEP, '$1')).join('_');
  const last = INDEX_STEP.exec(path[path.length - 1] ?? '');
  if (!last || path.length < 2) return { name: flat(path) };
  const array = flat(path.slice(0, -1));
  const index = Number(last[1]);
  return { name: `${array}[${index}]`, element: { array, index } };
}
type Ret = { k: 'void' } | { k: 'value'; reg: string } | { k: 'thread'; keys: Set<string> };

/** Names visible to the code being lowered: locals, then the module's constants. */
class Scope {
  private readonly vars = new Map<string, Binding>();
  constructor(
    readonly module: Module,
    private readonly parent?: Scope,
  ) {}
  get(name: string): Binding | undefined {
    return this.vars.get(name) ?? this.parent?.get(name);
  }
  set(name: string, b: Binding): void {
    this.vars.set(name, b);
  }
  child(): Scope {
    return new Scope(this.module, this);
  }
}

const BINOPS: Record<string, BinOp> = {
  '+': '+', '-': '-', '*': '*', '/': '/', '%': '%', '&': '&', '|': '|', '^': '^', '<<': '<<', '>>': '>>',
  '==': '==', '===': '==', '!=': '!=', '!==': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=', '&&': '&&', '||': '||',
};
const COMPOUND: Record<string, BinOp> = {
  '+=': '+', '-=': '-', '*=': '*', '/=': '/', '%=': '%', '&=': '&', '|=': '|', '^=': '^', '<<=': '<<', '>>=': '>>',
};

/** Folds an operator on two constants in herd7's arithmetic (src/program/arith.ts); not a division by zero. */
export function fold(op: BinOp | '~' | '!' | 'neg', a: number, b = 0): number {
  if (op === 'neg') return unary32('-', a);
  if (op === '~' || op === '!') return unary32(op, a);
  return binary32(op, a, b);
}

/**
 * A TypeScript numeric literal's value as herd7 would read the constant
 * (constant32; `negative` when a minus sign precedes it), or why it cannot be one.
 */
export function literal32(text: string, negative: boolean): number | string {
  const t = text.replace(/_/g, '');
  if (/^[0-9]+$/.test(t) || /^0[xX][0-9a-fA-F]+$/.test(t)) return constant32(t, negative);
  const v = Number(t);
  if (!Number.isInteger(v)) return `${text} is not an integer: litmus tests compute on 32-bit integers`;
  return constant32(String(v), negative);
}

/** Lowers the threads of one test; shared by its threads: the locations used. */
export class Lowerer {
  readonly locs = new Map<string, LocType>();
  /** The locations that are int arrays (a tuple in the state's type), with their lengths. */
  readonly arrays = new Map<string, number>();
  /** Which file each position came from, for messages about the C program. */
  readonly files = new Map<Pos, string>();
  /** The expressions that name a location (not a register), for renaming registers. */
  readonly locRefs = new Set<Expr>();

  /**
   * Where the handler of `interrupted(task, handler)` runs: 0 before the
   * task, k at the task's k-th irq_window(), Infinity after it. `windows`
   * counts the irq_window()s the task's code reaches (set by lowering).
   */
  irq = { at: Infinity, windows: 0, used: false };

  constructor(
    private readonly mods: Modules,
    private readonly version: Module | undefined,
    irqAt = Infinity,
  ) {
    this.irq.at = irqAt;
  }

  /** A thread: a one-parameter arrow function over the state. Returns its C body and its observed keys. */
  thread(fn: Node, module: Module): { body: Stmt[]; keys: Map<string, string>; locs: Set<string> } {
    const N = this.mods.ts.Node;
    if (!N.isArrowFunction(fn) && !N.isFunctionExpression(fn)) throw this.err(module, fn, 'a thread is an arrow function over the state, e.g. (s) => { ... }');
    const t = new ThreadBuilder(this);
    const scope = new Scope(module);
    const params = fn.getParameters();
    if (params.length > 1) throw this.err(module, params[1], 'a thread takes one parameter, the shared state');
    if (params[0]) scope.set(this.paramName(module, params[0]), { k: 'path', path: [] });
    const keys = new Set<string>();
    let body = fn.getBody();
    while (N.isParenthesizedExpression(body)) body = body.getExpression();
    const returned = fn.getDescendantsOfKind(this.mods.ts.SyntaxKind.ReturnStatement).map((r) => r.getExpression());
    if (N.isObjectLiteralExpression(body)) returned.push(body);
    for (const e of returned) {
      if (!e) continue;
      if (!N.isObjectLiteralExpression(e)) throw this.err(module, e, 'a thread returns an object of the values the condition looks at, e.g. { valid, page }');
      for (const p of e.getProperties()) {
        const name = N.isShorthandPropertyAssignment(p) || N.isPropertyAssignment(p) ? p.getName() : undefined;
        if (!name || !/^[A-Za-z_]\w*$/.test(name)) throw this.err(module, p, 'a returned value needs a plain name (key: value)');
        keys.add(name);
      }
    }
    for (const k of keys) t.reserve(k);
    t.returned = keys;
    const out: Stmt[] = [];
    const ret: Ret = { k: 'thread', keys };
    if (N.isBlock(body)) t.block(body.getStatements(), scope, ret, out, null);
    else if (N.isObjectLiteralExpression(body)) t.returnValue(body, scope, ret, out);
    else t.exprStatement(body, scope, out);
    const observed = new Map([...keys].map((k) => [k, k]));
    const code = [...t.declarations(), ...out];
    // An observed value's register takes the observed name (swapping with a local that had it).
    const swap = new Map<string, string>();
    for (const [k, reg] of t.observed) {
      if (reg !== k && t.has(k)) swap.set(k, reg);
      if (reg !== k) swap.set(reg, k);
      observed.set(k, k);
    }
    if (swap.size) code.forEach((s) => renameStmt(s, swap, this.locRefs));
    return { body: code, keys: observed, locs: t.usedLocs };
  }

  paramName(module: Module, p: Node): string {
    const N = this.mods.ts.Node;
    if (!N.isParameterDeclaration(p)) throw this.err(module, p, 'a parameter');
    const nameNode = p.getNameNode();
    if (!N.isIdentifier(nameNode)) throw this.err(module, p, 'destructured parameters are not supported; name the parameter');
    if (p.getInitializer()) throw this.err(module, p, 'default parameter values are not supported');
    if (p.isRestParameter()) throw this.err(module, p, 'rest parameters are not supported');
    return nameNode.getText();
  }

  err(module: Module, node: Node, message: string) {
    return this.mods.error(module, node, message);
  }

  /** The call whose function is being inlined, while it is (positions made meanwhile say so). */
  via: Inlined | undefined;

  pos(module: Module, node: Node): Pos {
    const p: Pos = this.mods.pos(module, node);
    if (this.via) p.inlined = this.via;
    this.files.set(p, module.file);
    return p;
  }

  get ts() {
    return this.mods.ts;
  }

  get modules(): Modules {
    return this.mods;
  }

  get versionModule(): Module | undefined {
    return this.version;
  }

  useLoc(name: string, type: LocType, module: Module, node: Node): void {
    const had = this.locs.get(name);
    if (had && had !== type) throw this.err(module, node, `"${name}" is used both as ${had} and as ${type}`);
    this.locs.set(name, type);
  }

  /** An int array of the state, of `length` elements (its tuple type's). */
  useArray(name: string, length: number, module: Module, node: Node): void {
    const had = this.arrays.get(name);
    if (had !== undefined && had !== length) throw this.err(module, node, `"${name}" is used both as an array of ${had} and of ${length}`);
    this.useLoc(name, 'int', module, node);
    this.arrays.set(name, length);
  }

  /** The length of the tuple type a node has ([Ref, Ref]: 2), if it has one. */
  tupleLength(node: Node): number | undefined {
    const t = node.getType();
    return t.isTuple() ? t.getTupleElements().length : undefined;
  }
}

/** The registers and statements of one thread. */
class ThreadBuilder {
  private readonly names = new Set<string>();
  private readonly decls: string[] = [];
  readonly usedLocs = new Set<string>();
  /** observe(name, v) ghosts: name -> register. */
  readonly observed = new Map<string, string>();
  returned = new Set<string>();
  private depth = 0;
  /** Calls inlined and statements lowered so far (LIMITS.inlinedCalls, LIMITS.loweredStatements). */
  private inlined = 0;
  private lowered = 0;

  constructor(private readonly L: Lowerer) {}

  has(name: string): boolean {
    return this.names.has(name);
  }

  reserve(name: string): void {
    this.names.add(name);
    this.decls.push(name);
  }

  /** A fresh register, named after `hint` when that name is free. */
  fresh(hint: string): string {
    const base = /^[A-Za-z_]\w*$/.test(hint) ? hint : 't';
    let name = base;
    for (let i = 1; this.names.has(name); i++) name = `${base}_${i}`;
    this.reserve(name);
    return name;
  }

  declarations(): Stmt[] {
    const pos = { line: 0, col: 0 };
    return this.decls.map((name) => ({ kind: 'decl', type: 'int', name, init: { kind: 'num', value: 0, pos }, pos }) as Stmt);
  }

  private get N() {
    return this.L.ts.Node;
  }

  private err(m: Module, node: Node, message: string) {
    return this.L.err(m, node, message);
  }

  // ---- statements ----

  block(list: Node[], scope: Scope, ret: Ret, out: Stmt[], rest: ((o: Stmt[]) => void) | null): void {
    const N = this.N;
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      if (N.isReturnStatement(s)) {
        const e = s.getExpression();
        if (e) this.returnValue(e, scope, ret, out);
        return; // a return ends this path: what follows is not reached
      }
      if (N.isIfStatement(s) && hasReturn(s, this.L.ts.SyntaxKind.ReturnStatement)) {
        const after = (o: Stmt[]) => this.block(list.slice(i + 1), scope, ret, o, rest);
        const cond = this.value(s.getExpression(), scope, out);
        const thenOut: Stmt[] = [];
        this.branch(s.getThenStatement(), scope, ret, thenOut, after);
        const elseOut: Stmt[] = [];
        const els = s.getElseStatement();
        if (els) this.branch(els, scope, ret, elseOut, after);
        else after(elseOut);
        out.push(ifStmt(cond, thenOut, elseOut, this.L.pos(scope.module, s)));
        return;
      }
      this.statement(s, scope, ret, out);
    }
    if (rest) rest(out);
  }

  private branch(s: Node, scope: Scope, ret: Ret, out: Stmt[], rest: ((o: Stmt[]) => void) | null): void {
    const list = this.N.isBlock(s) ? s.getStatements() : [s];
    this.block(list, scope.child(), ret, out, rest);
  }

  private statement(s: Node, scope: Scope, ret: Ret, out: Stmt[]): void {
    const N = this.N;
    const m = scope.module;
    // What follows an if with a return is lowered into both branches: the count bounds that growth too.
    if (++this.lowered > LIMITS.loweredStatements) throw this.err(m, s, `limit: more than ${LIMITS.loweredStatements} statements lowered into one thread`);
    if (N.isVariableStatement(s)) {
      const isConst = s.getDeclarationKind() === 'const';
      for (const d of s.getDeclarations()) {
        const nameNode = d.getNameNode();
        if (!N.isIdentifier(nameNode)) throw this.err(m, d, 'destructuring is not supported; declare one name');
        const name = nameNode.getText();
        const init = d.getInitializer();
        if (!init) {
          scope.set(name, { k: 'reg', name: this.fresh(name) });
          continue;
        }
        const v = this.expr(init, scope, out, name);
        if (v.k === 'path') scope.set(name, v);
        else if (v.k === 'num' && isConst) scope.set(name, { k: 'num', v: v.v });
        else if (v.k === 'expr' && v.e.kind === 'name' && this.isFreshTemp(v.e.name, name)) scope.set(name, { k: 'reg', name: v.e.name });
        else {
          const reg = this.fresh(name);
          out.push(assign(reg, this.asExpr(v, m, init), this.L.pos(m, d)));
          scope.set(name, { k: 'reg', name: reg });
        }
      }
      return;
    }
    if (N.isExpressionStatement(s)) {
      this.exprStatement(s.getExpression(), scope, out);
      return;
    }
    if (N.isIfStatement(s)) {
      const cond = this.value(s.getExpression(), scope, out);
      const thenOut: Stmt[] = [];
      this.branch(s.getThenStatement(), scope, ret, thenOut, null);
      const elseOut: Stmt[] = [];
      const els = s.getElseStatement();
      if (els) this.branch(els, scope, ret, elseOut, null);
      out.push(ifStmt(cond, thenOut, elseOut, this.L.pos(m, s)));
      return;
    }
    if (N.isBlock(s)) {
      this.block(s.getStatements(), scope.child(), ret, out, null);
      return;
    }
    if (N.isWhileStatement(s)) {
      if (hasReturn(s, this.L.ts.SyntaxKind.ReturnStatement)) throw this.err(m, s, 'a return inside a loop is not supported');
      const pre: Stmt[] = [];
      const cond = this.value(s.getExpression(), scope, pre);
      const body: Stmt[] = [];
      this.branch(s.getStatement(), scope, ret, body, null);
      const pos = this.L.pos(m, s);
      if (pre.length === 0) {
        out.push({ kind: 'while', cond, body: { kind: 'block', body, pos }, pos });
        return;
      }
      // The condition needs statements: evaluate it before the loop and at the end of each pass.
      const t = this.fresh('cond');
      out.push(...pre, assign(t, cond, pos));
      const again: Stmt[] = [];
      const cond2 = this.value(s.getExpression(), scope, again);
      out.push({ kind: 'while', cond: { kind: 'name', name: t, pos }, body: { kind: 'block', body: [...body, ...again, assign(t, cond2, pos)], pos }, pos });
      return;
    }
    if (N.isEmptyStatement(s)) return;
    throw this.err(m, s, `unsupported TypeScript in a litmus function: ${describe(s.getKindName())}`);
  }

  exprStatement(e: Node, scope: Scope, out: Stmt[]): void {
    const N = this.N;
    const m = scope.module;
    if (N.isParenthesizedExpression(e)) return this.exprStatement(e.getExpression(), scope, out);
    if (N.isCallExpression(e)) {
      this.call(e, scope, out, false);
      return;
    }
    if (N.isBinaryExpression(e)) {
      const op = e.getOperatorToken().getText();
      if (op === '=' || op in COMPOUND) {
        const reg = this.target(e.getLeft(), scope);
        let v = this.value(e.getRight(), scope, out);
        if (op !== '=') v = binary(COMPOUND[op], { kind: 'name', name: reg, pos: v.pos }, v, this.L.pos(m, e));
        out.push(assign(reg, v, this.L.pos(m, e)));
        return;
      }
    }
    if (N.isPostfixUnaryExpression(e) || N.isPrefixUnaryExpression(e)) {
      const tok = this.L.ts.SyntaxKind;
      const op = e.getOperatorToken();
      if (op === tok.PlusPlusToken || op === tok.MinusMinusToken) {
        const reg = this.target(e.getOperand(), scope);
        const pos = this.L.pos(m, e);
        out.push(assign(reg, binary(op === tok.PlusPlusToken ? '+' : '-', { kind: 'name', name: reg, pos }, { kind: 'num', value: 1, pos }, pos), pos));
        return;
      }
    }
    throw this.err(m, e, 'this statement has no effect (a statement is a call, an assignment or a declaration)');
  }

  /** The register an assignment writes. */
  private target(e: Node, scope: Scope): string {
    const m = scope.module;
    if (!this.N.isIdentifier(e)) {
      throw this.err(m, e, 'only local variables can be assigned; shared locations are written with WRITE_ONCE() and friends');
    }
    const b = scope.get(e.getText());
    if (!b) throw this.err(m, e, `unknown name "${e.getText()}"`);
    if (b.k !== 'reg') throw this.err(m, e, `"${e.getText()}" is not a variable that can be assigned`);
    return b.name;
  }

  returnValue(e: Node, scope: Scope, ret: Ret, out: Stmt[]): void {
    const m = scope.module;
    if (ret.k === 'void') throw this.err(m, e, 'this function returns no value here');
    if (ret.k === 'value') {
      const v = this.value(e, scope, out);
      out.push(assign(ret.reg, v, this.L.pos(m, e)));
      return;
    }
    const N = this.N;
    if (!N.isObjectLiteralExpression(e)) throw this.err(m, e, 'a thread returns an object of named values');
    for (const p of e.getProperties()) {
      if (N.isShorthandPropertyAssignment(p)) {
        const v = this.value(p.getNameNode(), scope, out);
        out.push(assign(p.getName(), v, this.L.pos(m, p)));
      } else if (N.isPropertyAssignment(p)) {
        const init = p.getInitializerOrThrow();
        const v = this.value(init, scope, out);
        out.push(assign(p.getName(), v, this.L.pos(m, p)));
      } else throw this.err(m, p, 'a returned value is written key: value');
    }
  }

  // ---- expressions ----

  /** An expression that must give a value (a C expression). */
  value(e: Node, scope: Scope, out: Stmt[]): Expr {
    return this.asExpr(this.expr(e, scope, out), scope.module, e);
  }

  asExpr(v: Val, m: Module, node: Node): Expr {
    const pos = this.L.pos(m, node);
    if (v.k === 'num') return { kind: 'num', value: v.v, pos };
    if (v.k === 'expr') return v.e;
    if (v.k === 'path') throw this.err(m, node, 'a shared location is not a value: read it with READ_ONCE() or another primitive');
    throw this.err(m, node, 'this call returns no value');
  }

  /** A numeric literal's value (see literal32); one herd7 would refuse is an error. */
  private literal(m: Module, n: Node, negative: boolean): number {
    const v = literal32(n.getText(), negative);
    if (typeof v === 'string') throw this.err(m, n, v);
    return v;
  }

  private tempCounter = 0;
  private readonly temps = new Set<string>();

  private isFreshTemp(reg: string, _name: string): boolean {
    return this.temps.has(reg) && this.temps.delete(reg);
  }

  expr(e: Node, scope: Scope, out: Stmt[], hint?: string): Val {
    const N = this.N;
    const m = scope.module;
    const pos = () => this.L.pos(m, e);
    if (N.isNumericLiteral(e)) return { k: 'num', v: this.literal(m, e, false) };
    if (e.getKind() === this.L.ts.SyntaxKind.TrueKeyword) return { k: 'num', v: 1 };
    if (e.getKind() === this.L.ts.SyntaxKind.FalseKeyword) return { k: 'num', v: 0 };
    if (N.isParenthesizedExpression(e) || N.isAsExpression(e) || N.isNonNullExpression(e) || N.isSatisfiesExpression(e)) {
      return this.expr(e.getExpression(), scope, out, hint);
    }
    if (N.isIdentifier(e)) return this.name(e, scope);
    if (N.isPropertyAccessExpression(e)) {
      const base = this.expr(e.getExpression(), scope, out);
      if (base.k !== 'path') throw this.err(m, e, 'only the shared state has fields');
      return { k: 'path', path: [...base.path, e.getName()] };
    }
    if (N.isElementAccessExpression(e)) {
      const base = this.expr(e.getExpression(), scope, out);
      if (base.k !== 'path') throw this.err(m, e, 'only the shared state can be indexed');
      const arg = e.getArgumentExpressionOrThrow();
      const idx = this.expr(arg, scope, out);
      if (idx.k !== 'num') throw this.err(m, arg, 'an index into the shared state must be a constant (e.g. a CPU number passed as a literal)');
      const bound = this.L.tupleLength(e.getExpression());
      if (bound !== undefined && (idx.v < 0 || idx.v >= bound)) throw this.err(m, arg, `index ${idx.v} is out of bounds: the tuple has ${bound} elements`);
      return { k: 'path', path: [...base.path, indexStep(idx.v)], bound };
    }
    if (N.isPrefixUnaryExpression(e)) {
      const tok = this.L.ts.SyntaxKind;
      const op = e.getOperatorToken();
      if (op === tok.MinusToken && N.isNumericLiteral(e.getOperand())) return { k: 'num', v: this.literal(m, e.getOperand(), true) };
      const a = this.expr(e.getOperand(), scope, out);
      if (op === tok.PlusToken) return a;
      const cop = op === tok.ExclamationToken ? '!' : op === tok.TildeToken ? '~' : op === tok.MinusToken ? '-' : undefined;
      if (!cop) throw this.err(m, e, 'increments are statements here (x++;), not values');
      if (a.k === 'num') return { k: 'num', v: fold(cop === '-' ? 'neg' : cop, a.v) };
      // As binary operators: herd7's C has no unary ones.
      const x = this.asExpr(a, m, e.getOperand());
      const p = pos();
      const num = (v: number): Expr => ({ kind: 'num', value: v, pos: p });
      if (cop === '!') return { k: 'expr', e: binary('==', x, num(0), p) };
      return { k: 'expr', e: binary('-', num(cop === '~' ? -1 : 0), x, p) };
    }
    if (N.isBinaryExpression(e)) {
      const op = e.getOperatorToken().getText();
      const bop = BINOPS[op];
      if (!bop) throw this.err(m, e, op.endsWith('=') ? 'an assignment is a statement here, not a value' : `the operator "${op}" is not supported`);
      const left = this.expr(e.getLeft(), scope, out);
      if ((bop === '&&' || bop === '||') && left.k === 'num') {
        // Known left side: the right side alone decides, or is not evaluated.
        if ((bop === '&&') === (left.v === 0)) return { k: 'num', v: bop === '&&' ? 0 : 1 };
        const r = this.expr(e.getRight(), scope, out);
        if (r.k === 'num') return { k: 'num', v: Number(r.v !== 0) };
        const rx = this.asExpr(r, m, e.getRight());
        return { k: 'expr', e: isComparison(rx) ? rx : binary('!=', rx, { kind: 'num', value: 0, pos: pos() }, pos()) };
      }
      if (bop === '&&' || bop === '||') {
        // Short-circuit: the right side's calls happen only when needed
        // (and herd7's C has no && or ||: an if gives the 0 or 1).
        const t = this.fresh(hint ?? 'cond');
        const l = this.asExpr(left, m, e.getLeft());
        const rightOut: Stmt[] = [];
        const r = this.value(e.getRight(), scope, rightOut);
        const p = pos();
        const truth = (x: Expr): Expr => (isComparison(x) ? x : { kind: 'binary', op: '!=', left: x, right: { kind: 'num', value: 0, pos: p }, pos: p });
        const stop = assign(t, { kind: 'num', value: bop === '&&' ? 0 : 1, pos: p }, p);
        const go = [...rightOut, assign(t, truth(r), p)];
        out.push(bop === '&&' ? ifStmt(l, go, [stop], p) : ifStmt(l, [stop], go, p));
        return { k: 'expr', e: { kind: 'name', name: t, pos: p } };
      }
      const right = this.expr(e.getRight(), scope, out);
      // A division by zero is left to the program layer, which reports it where it happens.
      if (left.k === 'num' && right.k === 'num' && !(DIVIDES.has(bop) && right.v === 0)) return { k: 'num', v: fold(bop, left.v, right.v) };
      return { k: 'expr', e: binary(bop, this.asExpr(left, m, e.getLeft()), this.asExpr(right, m, e.getRight()), pos()) };
    }
    if (N.isConditionalExpression(e)) {
      const c = this.value(e.getCondition(), scope, out);
      const t = this.fresh(hint ?? 'sel');
      const a: Stmt[] = [];
      const av = this.value(e.getWhenTrue(), scope, a);
      const b: Stmt[] = [];
      const bv = this.value(e.getWhenFalse(), scope, b);
      const p = pos();
      out.push(ifStmt(c, [...a, assign(t, av, p)], [...b, assign(t, bv, p)], p));
      return { k: 'expr', e: { kind: 'name', name: t, pos: p } };
    }
    if (N.isCallExpression(e)) return this.call(e, scope, out, true, hint);
    throw this.err(m, e, `unsupported TypeScript in a litmus function: ${describe(e.getKindName())}`);
  }

  private name(e: Node, scope: Scope): Val {
    const m = scope.module;
    const name = e.getText();
    const b = scope.get(name);
    if (b) {
      if (b.k === 'reg') return { k: 'expr', e: { kind: 'name', name: b.name, pos: this.L.pos(m, e) } };
      if (b.k === 'num') return { k: 'num', v: b.v };
      return b;
    }
    const c = this.L.modules.constant(m, name);
    if (c) return this.constant(c.value, c.module);
    throw this.err(m, e, `unknown name "${name}"`);
  }

  /** A module-level constant: a number (or an expression of constants). */
  private constant(init: Node, module: Module): Val {
    const out: Stmt[] = [];
    const v = this.expr(init, new Scope(module), out);
    if (v.k !== 'num' || out.length) throw this.err(module, init, 'a module-level constant must be a number (or an expression of numbers)');
    return v;
  }

  private call(e: Node, scope: Scope, out: Stmt[], wantValue: boolean, hint?: string): Val {
    const N = this.N;
    const m = scope.module;
    if (!N.isCallExpression(e)) throw this.err(m, e, 'a call');
    const callee = e.getExpression();
    if (!N.isIdentifier(callee)) throw this.err(m, callee, 'only calls of named functions are supported');
    const name = callee.getText();
    if (name === 'observe' && this.L.modules.isKernelName(m, name)) return this.observe(e.getArguments(), scope, out, e);
    if (name === 'irq_window' && this.L.modules.isKernelName(m, name)) return this.irqWindow(e.getArguments(), scope, out, e);
    if (name === 'interrupted' && this.L.modules.isKernelName(m, name)) return this.interrupted(e.getArguments(), scope, out, e);
    const fn = this.L.modules.func(this.L.versionModule, m, name);
    if (fn) return this.inline(fn.value, fn.module, e.getArguments(), scope, out, wantValue, e);
    const info = lookupPrimitive(name);
    if (info) return this.primitive(name, info, e.getArguments(), scope, out, wantValue, e, hint);
    throw this.err(m, callee, `unknown function "${name}" (neither a suite function nor a kernel primitive)`);
  }

  /** The handler of the interrupted() being lowered, while its task is lowered. */
  private handler: { body: Node; scope: Scope; via: Inlined | undefined } | undefined;
  private inHandler = false;

  /**
   * interrupted(() => task, () => handler): the handler runs on this CPU, to
   * completion, at one point where the task has interrupts enabled: before
   * it, at one of its irq_window()s, or after it (one test per point).
   */
  private interrupted(args: Node[], scope: Scope, out: Stmt[], e: Node): Val {
    const m = scope.module;
    const N = this.N;
    const [task, handler] = args;
    const fnBody = (f: Node | undefined) => {
      if (!f || !N.isArrowFunction(f) || f.getParameters().length > 0) throw this.err(m, f ?? e, 'interrupted() takes two arrow functions without parameters: interrupted(() => task(...), () => handler(...))');
      return f.getBody();
    };
    const taskBody = fnBody(task);
    const handlerBody = fnBody(handler);
    if (this.L.irq.used || this.inHandler) throw this.err(m, e, 'one interrupted() per scenario');
    this.L.irq.used = true;
    const irq = this.L.irq;
    const via = this.L.via;
    if (irq.at === 0) this.runHandler(handlerBody, scope, out, via);
    this.handler = { body: handlerBody, scope, via };
    this.arrowBody(taskBody, scope.child(), out);
    this.handler = undefined;
    if (irq.at > irq.windows) this.runHandler(handlerBody, scope, out, via);
    return { k: 'void' };
  }

  /** irq_window(): a point where this CPU may take an interrupt (interrupts enabled, between two instructions). */
  private irqWindow(args: Node[], scope: Scope, out: Stmt[], e: Node): Val {
    if (args.length) throw this.err(scope.module, e, 'irq_window() takes no arguments');
    if (!this.handler || this.inHandler) return { k: 'void' }; // no interrupt to place, or handlers run with interrupts off
    const n = ++this.L.irq.windows;
    if (n === this.L.irq.at) this.runHandler(this.handler.body, this.handler.scope, out, this.handler.via);
    return { k: 'void' };
  }

  /** The handler's code, inlined where interrupted() was called (`via`), not where the window is. */
  private runHandler(body: Node, scope: Scope, out: Stmt[], via: Inlined | undefined): void {
    const at = this.L.via;
    this.L.via = via;
    this.inHandler = true;
    this.arrowBody(body, scope.child(), out);
    this.inHandler = false;
    this.L.via = at;
  }

  private arrowBody(body: Node, scope: Scope, out: Stmt[]): void {
    if (this.N.isBlock(body)) this.block(body.getStatements(), scope, { k: 'void' }, out, null);
    else this.exprStatement(body, scope, out);
  }

  /** observe('name', v): a ghost register the condition can read; no event. */
  private observe(args: Node[], scope: Scope, out: Stmt[], e: Node): Val {
    const m = scope.module;
    const N = this.N;
    const [key, v] = args;
    if (args.length !== 2 || !(N.isStringLiteral(key) || N.isNoSubstitutionTemplateLiteral(key))) throw this.err(m, e, "observe takes a name in quotes and a value: observe('seen', v)");
    const name = key.getLiteralText();
    if (!/^[A-Za-z_]\w*$/.test(name)) throw this.err(m, key, 'an observed name is a plain identifier');
    if (this.returned.has(name)) throw this.err(m, key, `"${name}" is also a value the thread returns`);
    let reg = this.observed.get(name);
    if (!reg) {
      reg = this.fresh(name);
      this.observed.set(name, reg);
    }
    out.push(assign(reg, this.value(v, scope, out), this.L.pos(m, e)));
    return { k: 'void' };
  }

  private primitive(name: string, info: PrimitiveInfo | Lowered, args: Node[], scope: Scope, out: Stmt[], wantValue: boolean, e: Node, hint?: string): Val {
    const m = scope.module;
    const pos = this.L.pos(m, e);
    if (args.length !== info.arity) throw this.err(m, e, `${name} takes ${info.arity} argument${info.arity === 1 ? '' : 's'}, not ${args.length}`);
    const cargs: Expr[] = args.map((a, i) => {
      if ('cond' in info && i === info.cond) return this.condOverVal(name, a, scope);
      if (i !== info.addrArg) return this.value(a, scope, out);
      const v = this.expr(a, scope, out);
      if (v.k !== 'path' || v.path.length === 0) throw this.err(m, a, `${name} needs a shared location here (a field of the state)`);
      const at = pathLocation(v.path);
      const type = locTypeOf(info);
      // An int element of a tuple is an element of a C array; other elements (locks) are locations of their own.
      const element = at.element && type === 'int' && v.bound !== undefined ? at.element : undefined;
      const loc = element ? element.array : at.name.replace(/\[(\d+)\]$/, '_$1');
      if (element) this.L.useArray(loc, v.bound!, m, a);
      else this.L.useLoc(loc, type, m, a);
      this.usedLocs.add(loc);
      const p = this.L.pos(m, a);
      const ref: Expr = { kind: 'name', name: loc, pos: p };
      this.L.locRefs.add(ref);
      // herd7's C (after litmus export) and litmus's read `READ_ONCE(a[1])` and `smp_load_acquire(&a[1])`.
      if (element) {
        const item: Expr = { kind: 'index', base: ref, index: { kind: 'num', value: element.index, pos: p }, pos: p };
        return 'prim' in info && effectOf(info.prim).addr === 'lvalue' ? item : { kind: 'addr', arg: item, pos: p };
      }
      return 'prim' in info && effectOf(info.prim).addr === 'lvalue' ? { kind: 'deref', arg: ref, pos: ref.pos } : ref;
    });
    const call: Expr = { kind: 'call', name, args: cargs, pos };
    if (!info.returns) {
      if (wantValue) throw this.err(m, e, `${name} returns no value`);
      out.push({ kind: 'expr', expr: call, pos });
      return { k: 'void' };
    }
    if (!wantValue) {
      out.push({ kind: 'expr', expr: call, pos });
      return { k: 'void' };
    }
    // Each access happens where it is written: into a register, now.
    const t = this.fresh(hint ?? `r${this.tempCounter++}`);
    this.temps.add(t);
    out.push(assign(t, call, pos));
    return { k: 'expr', e: { kind: 'name', name: t, pos } };
  }

  /**
   * The condition of smp_cond_load_acquire() and the like, written as an
   * arrow function of VAL (`(VAL) => VAL !== 0`): its body as a C
   * expression over the register VAL; it may not access memory (it is
   * evaluated inside the operation's loop).
   */
  private condOverVal(name: string, a: Node, scope: Scope): Expr {
    const N = this.N;
    const m = scope.module;
    const params = N.isArrowFunction(a) ? a.getParameters() : [];
    const body = N.isArrowFunction(a) ? a.getBody() : undefined;
    if (!body || params.length !== 1 || !N.isExpression(body)) throw this.err(m, a, `${name} takes its condition as an arrow function of VAL: (VAL) => VAL !== 0`);
    const inner = scope.child();
    inner.set(params[0].getName(), { k: 'reg', name: 'VAL' });
    const before: Stmt[] = [];
    const cond = this.value(body, inner, before);
    if (before.length) throw this.err(m, body, `${name}'s condition may not access memory (it is evaluated in the loop)`);
    return cond;
  }

  private inline(fn: Node, fm: Module, args: Node[], scope: Scope, out: Stmt[], wantValue: boolean, e: Node): Val {
    const N = this.N;
    const m = scope.module;
    if (!N.isFunctionDeclaration(fn)) throw this.err(m, e, 'not a function');
    if (++this.depth > 32) throw this.err(m, e, `calls nested too deep (recursion?) at ${fn.getName()}`);
    if (++this.inlined > LIMITS.inlinedCalls) throw this.err(m, e, `limit: more than ${LIMITS.inlinedCalls} calls inlined into one thread`);
    const params = fn.getParameters();
    if (args.length !== params.length) throw this.err(m, e, `${fn.getName()} takes ${params.length} argument${params.length === 1 ? '' : 's'}, not ${args.length}`);
    const inner = new Scope(fm);
    const assigned = assignedNames(fn, this.L.ts);
    params.forEach((p, i) => {
      const pname = this.L.paramName(fm, p);
      const v = this.expr(args[i], scope, out, pname);
      if (v.k === 'path') inner.set(pname, v);
      else if (v.k === 'num' && !assigned.has(pname)) inner.set(pname, { k: 'num', v: v.v });
      else if (v.k === 'expr' && v.e.kind === 'name' && !assigned.has(pname)) inner.set(pname, { k: 'reg', name: v.e.name });
      else {
        const reg = this.fresh(pname);
        out.push(assign(reg, this.asExpr(v, m, args[i]), this.L.pos(m, args[i])));
        inner.set(pname, { k: 'reg', name: reg });
      }
    });
    const returnsValue = fn.getDescendantsOfKind(this.L.ts.SyntaxKind.ReturnStatement).some((r) => r.getExpression() !== undefined);
    const ret: Ret = returnsValue ? { k: 'value', reg: this.fresh(fn.getName() ?? 'ret') } : { k: 'void' };
    const body = fn.getBody();
    if (!body || !N.isBlock(body)) throw this.err(fm, fn, 'a function needs a body');
    const caller = this.L.via;
    this.L.via = { at: this.L.pos(m, e), fn: fn.getName() ?? 'function' };
    this.block(body.getStatements(), inner, ret, out, null);
    this.L.via = caller;
    this.depth--;
    if (ret.k === 'value') return { k: 'expr', e: { kind: 'name', name: ret.reg, pos: this.L.pos(m, e) } };
    if (wantValue) throw this.err(m, e, `${fn.getName()} returns no value`);
    return { k: 'void' };
  }
}

function assign(name: string, value: Expr, pos: Pos): Stmt {
  return { kind: 'assign', target: { kind: 'name', name, pos }, value, pos };
}

/** An expression that is already 0 or 1. */
function isComparison(e: Expr): boolean {
  return e.kind === 'binary' && ['==', '!=', '<', '<=', '>', '>='].includes(e.op);
}

function binary(op: BinOp, left: Expr, right: Expr, pos: Pos): Expr {
  return { kind: 'binary', op, left, right, pos };
}

function ifStmt(cond: Expr, then: Stmt[], els: Stmt[], pos: Pos): Stmt {
  return { kind: 'if', cond, then: { kind: 'block', body: then, pos }, else: els.length ? { kind: 'block', body: els, pos } : undefined, pos };
}

function hasReturn(n: Node, kind: number): boolean {
  return n.getDescendantsOfKind(kind).length > 0;
}

/** Names a function assigns (its parameters that need a register of their own). */
function assignedNames(fn: Node, ts: typeof import('ts-morph')): Set<string> {
  const out = new Set<string>();
  const N = ts.Node;
  for (const b of fn.getDescendantsOfKind(ts.SyntaxKind.BinaryExpression)) {
    const op = b.getOperatorToken().getText();
    if ((op === '=' || op in COMPOUND) && N.isIdentifier(b.getLeft())) out.add(b.getLeft().getText());
  }
  for (const k of [ts.SyntaxKind.PostfixUnaryExpression, ts.SyntaxKind.PrefixUnaryExpression] as const) {
    for (const u of fn.getDescendantsOfKind(k)) {
      const operand = u.getOperand();
      if (N.isIdentifier(operand)) out.add(operand.getText());
    }
  }
  return out;
}

function describe(kind: string): string {
  return kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}


/** Rename registers (declarations and uses) in place: the location names the lowerer wrote (refs) keep their names. */
export function renameStmt(s: Stmt, map: Map<string, string>, refs: Set<Expr>): void {
  walkStmt(s, {
    stmt: (st) => {
      if (st.kind === 'decl') st.name = map.get(st.name) ?? st.name;
    },
    expr: (x) => {
      if (x.kind === 'name' && !refs.has(x)) x.name = map.get(x.name) ?? x.name;
    },
  });
}
