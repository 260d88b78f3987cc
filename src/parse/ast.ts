// The syntax tree of a C litmus test, as written. Nothing here knows what a
// primitive means: that is src/events/primitives.ts.

export interface Pos {
  line: number;
  col: number;
  /** Code inlined from a helper function: the call it was inlined at (itself a Pos, perhaps inlined too) and the function. */
  inlined?: Inlined;
}

export interface Inlined {
  at: Pos;
  fn: string;
}

export type Expr =
  /** `negated`: a minus before it that herd7's lexer does not take into the number (`- 7`, `--7`): herd7 has no unary minus. */
  | { kind: 'num'; value: number; pos: Pos; negated?: boolean }
  | { kind: 'name'; name: string; pos: Pos }
  | { kind: 'deref'; arg: Expr; pos: Pos }
  | { kind: 'addr'; arg: Expr; pos: Pos }
  | { kind: 'unary'; op: '-' | '!' | '~'; arg: Expr; pos: Pos }
  | { kind: 'binary'; op: BinOp; left: Expr; right: Expr; pos: Pos }
  | { kind: 'call'; name: string; args: Expr[]; pos: Pos }
  | { kind: 'cast'; type: string; arg: Expr; pos: Pos }
  /** `a[i]`: an element of an array (a location, as `*x` is). */
  | { kind: 'index'; base: Expr; index: Expr; pos: Pos }
  /** `v.f` (arrow false) or `p->f` (arrow true): a field of a struct (a location). */
  | { kind: 'field'; base: Expr; field: string; arrow: boolean; pos: Pos };

export type BinOp =
  | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<<' | '>>'
  | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||';

export type Stmt =
  | { kind: 'decl'; type: string; name: string; init?: Expr; pos: Pos }
  | { kind: 'assign'; target: Expr; value: Expr; pos: Pos }
  | { kind: 'expr'; expr: Expr; pos: Pos }
  | { kind: 'if'; cond: Expr; then: Stmt; else?: Stmt; pos: Pos }
  | { kind: 'while'; cond: Expr; body: Stmt; pos: Pos }
  /** `for (init; cond; step) body`: `init; while (cond) { body; step }`, a `continue` going to step. */
  | { kind: 'for'; init?: Stmt; cond?: Expr; step?: Stmt; body: Stmt; pos: Pos }
  /** `do body while (cond);`: `body; while (cond) body`. */
  | { kind: 'do'; body: Stmt; cond: Expr; pos: Pos }
  | { kind: 'break'; pos: Pos }
  | { kind: 'continue'; pos: Pos }
  /** `return e;` in a helper function (inlined at each call). */
  | { kind: 'return'; value?: Expr; pos: Pos }
  | { kind: 'block'; body: Stmt[]; pos: Pos }
  | { kind: 'empty'; pos: Pos };

const STMT_KINDS: ReadonlySet<string> = new Set(['decl', 'assign', 'expr', 'if', 'while', 'for', 'do', 'break', 'continue', 'return', 'block', 'empty']);

/** Whether a node is a statement (the kinds of statements and expressions are distinct). */
export const isStmt = (x: Expr | Stmt): x is Stmt => STMT_KINDS.has(x.kind);

export interface Param {
  type: string;
  name: string;
  pos: Pos;
}

/** `static int f(int *x, int v) { ... }`, defined before the processes and inlined at each call. */
export interface FunctionDef {
  name: string;
  returnType: string;
  params: Param[];
  body: Stmt[];
  pos: Pos;
}

export interface Process {
  index: number;
  params: Param[];
  body: Stmt[];
  pos: Pos;
}

/** An initial value: a number, or a location name (its address). */
export type InitValue = { kind: 'num'; value: number } | { kind: 'loc'; name: string };

export interface InitItem {
  /** null for a shared location, or a thread index for `0:r1=...`. */
  thread: number | null;
  /** The variable's name, or one element's or field's (`a[1]`, `v.f`) given a value. */
  name: string;
  type?: string;
  /** An array's sizes: `int a[4]` is [4]. */
  dims?: number[];
  value?: InitValue;
  /** An initialiser list `{1, 2}`: the leaves' values in order (the rest hold 0). */
  values?: InitValue[];
  pos: Pos;
}

/** `struct s { int a; int b[2]; }`, defined in the initial state. */
export interface StructDef {
  name: string;
  fields: { name: string; type: string; dims: number[]; pos: Pos }[];
  pos: Pos;
}

export type CondExpr =
  | { kind: 'true' }
  | { kind: 'false' }
  | { kind: 'not'; arg: CondExpr }
  | { kind: 'and'; left: CondExpr; right: CondExpr }
  | { kind: 'or'; left: CondExpr; right: CondExpr }
  | { kind: 'implies'; left: CondExpr; right: CondExpr }
  | { kind: 'eq'; lhs: CondTerm; rhs: CondTerm; negated: boolean; pos: Pos };

/** `0:r1`, `x`, `[x]`, a number or a location name used as a value. */
export type CondTerm =
  | { kind: 'reg'; thread: number; name: string; pos: Pos }
  /** `deref` marks `[x]` or `*x` on the right of `=`: the value of x (a bare name there is its address). */
  | { kind: 'mem'; name: string; deref?: true; pos: Pos }
  | { kind: 'num'; value: number; pos: Pos };

export type Quantifier = 'exists' | 'forall' | '~exists';

export interface LocationRef {
  thread: number | null;
  name: string;
  pos: Pos;
}

/** A `Key=Value` line of the header (diy7's `Cycle=...`, `Relax=...`, ...). */
export interface HeaderInfo {
  key: string;
  value: string;
}

export interface LitmusTest {
  arch: string;
  name: string;
  /** The header's `Key=Value` lines, in order. */
  info: HeaderInfo[];
  /** The Result: word of the header comment, if any. */
  result?: string;
  init: InitItem[];
  /** Struct types the initial state defines. */
  structs?: StructDef[];
  /** Helper functions defined before the processes. */
  functions?: FunctionDef[];
  processes: Process[];
  locations: LocationRef[];
  filter?: CondExpr;
  quantifier: Quantifier;
  condition: CondExpr;
  /** Where the final clause starts, for messages. */
  conditionPos: Pos;
}

/** What `walkStmt` calls for each statement and each expression it meets, parents before children. */
export interface AstVisitor {
  stmt?: (s: Stmt) => void;
  expr?: (e: Expr) => void;
}

/** Visit a statement and everything inside it (nesting is bounded by the parser). */
export function walkStmt(s: Stmt, v: AstVisitor): void {
  v.stmt?.(s);
  const expr = (e: Expr): void => walkExpr(e, v);
  switch (s.kind) {
    case 'decl':
      if (s.init) expr(s.init);
      return;
    case 'assign':
      expr(s.target);
      expr(s.value);
      return;
    case 'expr':
      expr(s.expr);
      return;
    case 'if':
      expr(s.cond);
      walkStmt(s.then, v);
      if (s.else) walkStmt(s.else, v);
      return;
    case 'while':
      expr(s.cond);
      walkStmt(s.body, v);
      return;
    case 'for':
      if (s.init) walkStmt(s.init, v);
      if (s.cond) expr(s.cond);
      if (s.step) walkStmt(s.step, v);
      walkStmt(s.body, v);
      return;
    case 'do':
      walkStmt(s.body, v);
      expr(s.cond);
      return;
    case 'return':
      if (s.value) expr(s.value);
      return;
    case 'break':
    case 'continue':
      return;
    case 'block':
      for (const b of s.body) walkStmt(b, v);
      return;
    case 'empty':
      return;
  }
}

/** Whether a statement holds a `break` or `continue` of the loop around it (not of a loop inside it). */
export function jumpsOutOfLoop(s: Stmt): boolean {
  switch (s.kind) {
    case 'break':
    case 'continue':
      return true;
    case 'if':
      return jumpsOutOfLoop(s.then) || (s.else !== undefined && jumpsOutOfLoop(s.else));
    case 'block':
      return s.body.some(jumpsOutOfLoop);
    default:
      return false;
  }
}

/**
 * A statement with its own expressions mapped by `expr` and the statements
 * directly inside it by `stmt` (which recurses where it wants): one level,
 * so that a caller may treat some kinds itself and leave the rest to this.
 */
export function mapStmtParts(s: Stmt, expr: (e: Expr) => Expr, stmt: (s: Stmt) => Stmt): Stmt {
  switch (s.kind) {
    case 'decl':
      return s.init ? { ...s, init: expr(s.init) } : s;
    case 'assign':
      return { ...s, target: expr(s.target), value: expr(s.value) };
    case 'expr':
      return { ...s, expr: expr(s.expr) };
    case 'if':
      return { ...s, cond: expr(s.cond), then: stmt(s.then), else: s.else && stmt(s.else) };
    case 'while':
      return { ...s, cond: expr(s.cond), body: stmt(s.body) };
    case 'for':
      return { ...s, init: s.init && stmt(s.init), cond: s.cond && expr(s.cond), step: s.step && stmt(s.step), body: stmt(s.body) };
    case 'do':
      return { ...s, cond: expr(s.cond), body: stmt(s.body) };
    case 'return':
      return { ...s, value: s.value && expr(s.value) };
    case 'block':
      return { ...s, body: s.body.map(stmt) };
    case 'empty':
    case 'break':
    case 'continue':
      return s;
  }
}

/** Visit an expression and its subexpressions. */
export function walkExpr(e: Expr, v: AstVisitor): void {
  v.expr?.(e);
  switch (e.kind) {
    case 'deref':
    case 'addr':
    case 'unary':
    case 'cast':
      walkExpr(e.arg, v);
      return;
    case 'binary':
      walkExpr(e.left, v);
      walkExpr(e.right, v);
      return;
    case 'call':
      for (const a of e.args) walkExpr(a, v);
      return;
    case 'index':
      walkExpr(e.base, v);
      walkExpr(e.index, v);
      return;
    case 'field':
      walkExpr(e.base, v);
      return;
    case 'num':
    case 'name':
      return;
  }
}
