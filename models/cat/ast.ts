// The syntax of herd's cat language (models such as linux-kernel.cat, its
// .bell, lock.cat and the library files they include), as read by
// models/cat/parser.ts. Every node keeps where it starts in its file, so
// that an error in a model names the file, line and column.

/** A place in a model file. */
export interface CatPos {
  file: string;
  line: number;
  col: number;
}

/**
 * What a name refers to, found when the model is compiled: a top-level
 * definition (its slot), a local of a function or `let ... in`, or nothing
 * (an error when evaluated; `try ... with` catches it).
 */
export type VarRef = { kind: 'slot'; slot: number } | { kind: 'local' } | { kind: 'unbound' };

/** A pattern a `let` or `fun` binds: a name (`_` binds nothing) or a tuple of them. */
export type Pattern = { kind: 'var'; name: string | null } | { kind: 'tuple'; names: (string | null)[] };

export type BinaryOp = 'union' | 'inter' | 'diff' | 'seq' | 'cartesian' | 'add';
export type UnaryOp = 'star' | 'plus' | 'opt' | 'inv' | 'comp' | 'toid';

/**
 * An expression. `hoisted` (set by the compiler): it reads only what the
 * events decide, inside a definition that reads rf or co; computed once per
 * event structure.
 */
export type CatExpr = CatExprNode & { hoisted?: boolean };

type CatExprNode =
  | { kind: 'var'; name: string; pos: CatPos; ref?: VarRef }
  | { kind: 'empty'; pos: CatPos }
  | { kind: 'universe'; pos: CatPos }
  | { kind: 'tag'; name: string; pos: CatPos }
  | { kind: 'explicit'; elems: CatExpr[]; pos: CatPos }
  | { kind: 'tuple'; elems: CatExpr[]; pos: CatPos }
  | { kind: 'unary'; op: UnaryOp; arg: CatExpr; pos: CatPos }
  | { kind: 'binary'; op: BinaryOp; args: CatExpr[]; pos: CatPos }
  | { kind: 'app'; fn: CatExpr; arg: CatExpr; pos: CatPos }
  | { kind: 'fun'; param: Pattern; body: CatExpr; name: string; pos: CatPos }
  | { kind: 'let'; rec: boolean; bindings: Binding[]; body: CatExpr; pos: CatPos }
  | { kind: 'try'; body: CatExpr; otherwise: CatExpr; pos: CatPos }
  | { kind: 'if'; cond: Condition; then: CatExpr; otherwise: CatExpr; pos: CatPos }
  | { kind: 'match-tag'; subject: CatExpr; clauses: { tag: string; body: CatExpr }[]; fallback?: CatExpr; pos: CatPos }
  | {
      kind: 'match-set';
      subject: CatExpr;
      ifEmpty: CatExpr;
      /** `e ++ rest -> body`: an element and the rest of the set. */
      elem: string | null;
      rest: string | null;
      body: CatExpr;
      pos: CatPos;
    };

export type Condition =
  | { kind: 'variant'; name: string; pos: CatPos }
  | { kind: 'equal'; left: CatExpr; right: CatExpr; pos: CatPos }
  | { kind: 'subset'; left: CatExpr; right: CatExpr; pos: CatPos }
  | { kind: 'in'; left: CatExpr; right: CatExpr; pos: CatPos };

export interface Binding {
  pattern: Pattern;
  expr: CatExpr;
  pos: CatPos;
}

/** acyclic / irreflexive / empty, as a check, a flag, or herd's undefined_unless. */
export type TestKind = 'acyclic' | 'irreflexive' | 'empty';
export type CheckRole = 'check' | 'flag' | 'undefined-unless';

export type CatInstr =
  | { kind: 'let'; rec: boolean; bindings: Binding[]; pos: CatPos }
  | { kind: 'test'; role: CheckRole; test: TestKind; negated: boolean; expr: CatExpr; name?: string; pos: CatPos }
  | { kind: 'show'; pos: CatPos }
  | { kind: 'include'; file: string; pos: CatPos }
  | { kind: 'procedure'; name: string; param: Pattern; body: CatInstr[]; pos: CatPos }
  | { kind: 'call'; name: string; arg: CatExpr; as?: string; pos: CatPos; slot?: number }
  | { kind: 'forall'; name: string; set: CatExpr; body: CatInstr[]; pos: CatPos }
  | { kind: 'with'; name: string; from: CatExpr; pos: CatPos }
  | { kind: 'enum'; name: string; tags: string[]; pos: CatPos }
  | { kind: 'events'; name: string; args: CatExpr[]; pos: CatPos }
  | { kind: 'if'; cond: Condition; then: CatInstr[]; otherwise: CatInstr[]; pos: CatPos }
  | { kind: 'match'; subject: CatExpr; clauses: { tag: string; body: CatInstr[] }[]; fallback?: CatInstr[]; pos: CatPos }
  | { kind: 'debug'; pos: CatPos };

/** One model file: its title (the first line's name or string) and instructions. */
export interface CatFile {
  file: string;
  title?: string;
  /** Options after the title, such as cos-opt.cat's `withoutco`. */
  options: string[];
  instrs: CatInstr[];
}
