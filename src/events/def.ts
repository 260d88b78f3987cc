// herd's macro files (`-macros`, the LKMM's linux-kernel.def): each line
// `NAME(PARAMS) BODY`, BODY an expression (`__load{ONCE}(X)`) or a block of
// statements (`{ __store{RELEASE}(*X,V); }`), read into a PrimitiveTable.
//
// herd expands a macro by substitution: each parameter is replaced by the
// argument's text, and a call of another macro by that macro's body, so
// `atomic_read(X) READ_ONCE(*X)` is READ_ONCE's `__load{ONCE}(X)` with X
// replaced by `*X`: `__load{ONCE}(*X)`. A tagged `__load` or `__store` takes
// its location as `*E`, E the address: so READ_ONCE(X) is called as
// READ_ONCE(*x) and smp_load_acquire(X), whose body is `__load{ACQUIRE}(*X)`,
// as smp_load_acquire(x). This reader expands every macro the same way, then
// recognises the expansion as one of the primitives of primitives.ts (a load,
// a store and a fence after it, a fence, an exchange, a compare-and-exchange,
// an atomic operation, add-unless, a lock operation, an SRCU operation) with
// its tag, and which parameter fills each of the primitive's argument slots.
// A macro that is none of those is kept as one litmus cannot run: a test that
// calls it is told why (herd7 would run it); a malformed file is refused with
// `file:line:col: what is wrong`, as herd7 refuses it.

import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readInputBytes } from '../limits.js';
import type { Pos } from '../parse/ast.js';
import { ANNOTS, FENCE_KINDS, SRCU_KINDS } from './event.js';
import { BUILTIN_PRIMITIVES, primitiveTable, type ArgSource, type MacroOrigin, type Primitive, type PrimitiveInfo, type PrimitiveTable, type RmwOp, type UnsupportedMacro } from './primitives.js';
import { printable } from '../parse/errors.js';

/** A problem in a macro file, where it is. */
export class MacroFileError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly pos: Pos,
  ) {
    super(printable(message));
    this.name = 'MacroFileError';
  }

  /** Further problems of the same file. */
  others?: MacroFileError[];

  /** One line per problem: `file:line:col: message`. */
  format(): string {
    return [this, ...(this.others ?? [])].map((e) => `${printable(e.file)}:${e.pos.line}:${e.pos.col}: ${e.message}`).join('\n');
  }
}

// ------------------------------------------------------------ syntax

interface Tag {
  tag: string;
  pos: Pos;
}

/** The operations of herd's internal forms. */
type ExprForm = '__load' | '__xchg' | '__cmpxchg' | '__atomic_op_return' | '__atomic_fetch_op' | '__atomic_add_unless' | '__trylock' | '__islocked' | '__srcu';
type StmtForm = '__store' | '__fence' | '__lock' | '__unlock' | '__atomic_op' | '__srcu';

type DefExpr =
  | { k: 'num'; value: number; pos: Pos }
  | { k: 'name'; name: string; pos: Pos }
  /** A parameter of the macro being read, after expansion. */
  | { k: 'param'; index: number; pos: Pos }
  | { k: 'deref'; arg: DefExpr; pos: Pos }
  | { k: 'bin'; op: string; left: DefExpr; right: DefExpr; pos: Pos }
  | { k: 'call'; name: string; args: DefExpr[]; pos: Pos }
  | { k: 'form'; form: ExprForm; tags: Tag[] | undefined; args: DefArg[]; pos: Pos };

/** An argument of a form: an expression, or the operator of an atomic operation. */
type DefArg = DefExpr | { k: 'op'; op: RmwOp; pos: Pos };

type DefStmt =
  | { k: 'form'; form: StmtForm; tags: Tag[] | undefined; args: DefArg[]; pos: Pos }
  | { k: 'call'; name: string; args: DefExpr[]; pos: Pos }
  | { k: 'expr'; expr: DefExpr; pos: Pos }
  /** What herd's C allows in a macro but no primitive is: an `if`, an assignment. */
  | { k: 'other'; what: string; pos: Pos };

interface Macro {
  name: string;
  params: string[];
  pos: Pos;
  body: { k: 'expr'; expr: DefExpr } | { k: 'block'; stmts: DefStmt[] };
}

type Token = { t: 'name' | 'num' | 'punct' | 'eof'; v: string; pos: Pos };

const EXPR_FORMS: ReadonlySet<string> = new Set<ExprForm>([
  '__load', '__xchg', '__cmpxchg', '__atomic_op_return', '__atomic_fetch_op', '__atomic_add_unless', '__trylock', '__islocked', '__srcu',
]);
const STMT_FORMS: ReadonlySet<string> = new Set<StmtForm>(['__store', '__fence', '__lock', '__unlock', '__atomic_op', '__srcu']);
/** The forms that take no tag; the others take one in braces (`__atomic_op` may omit it, as herd allows). */
const UNTAGGED: ReadonlySet<string> = new Set(['__lock', '__unlock', '__trylock', '__islocked']);
/** How many arguments each form takes (`__srcu` statements one or two). */
const FORM_ARITY: Record<ExprForm | StmtForm, number[]> = {
  __load: [1], __xchg: [2], __cmpxchg: [3], __atomic_op_return: [3], __atomic_fetch_op: [3], __atomic_add_unless: [3],
  __trylock: [1], __islocked: [1], __srcu: [1, 2], __store: [2], __fence: [0], __lock: [1], __unlock: [1], __atomic_op: [3],
};
/** Forms whose second argument is an operator. */
const OP_FORMS: ReadonlySet<string> = new Set(['__atomic_op', '__atomic_op_return', '__atomic_fetch_op']);

const PUNCT = ['==', '!=', '<=', '>=', '(', ')', '{', '}', ',', ';', '*', '+', '-', '/', '^', '&', '|', '~', '<', '>', '=', '!'];

function lex(text: string, file: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const here = (): Pos => ({ line, col: i - lineStart + 1 });
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const start = here();
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new MacroFileError('a comment "/*" that never ends', file, start);
      for (; i < end + 2; i++) {
        if (text[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
      }
      continue;
    }
    const pos = here();
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 256));
    if (word) {
      out.push({ t: 'name', v: word[0], pos });
      i += word[0].length;
      continue;
    }
    const num = /^[0-9]+/.exec(text.slice(i, i + 64));
    if (num) {
      out.push({ t: 'num', v: num[0], pos });
      i += num[0].length;
      continue;
    }
    const p = PUNCT.find((q) => text.startsWith(q, i));
    if (!p) throw new MacroFileError(`unexpected character "${c}"`, file, pos);
    out.push({ t: 'punct', v: p, pos });
    i += p.length;
  }
  out.push({ t: 'eof', v: '', pos: here() });
  return out;
}

/** Binary operators of herd's C, loosest first (the comparisons do not chain). */
const LEVELS: string[][] = [['|'], ['^'], ['&'], ['==', '!=', '<', '>', '<=', '>='], ['+', '-'], ['*', '/']];
const KEYWORDS: ReadonlySet<string> = new Set(['if', 'else', 'while']);

class DefParser {
  private at = 0;
  constructor(private readonly toks: Token[], private readonly file: string) {}

  macros(): Macro[] {
    const out: Macro[] = [];
    while (this.peek().t !== 'eof') out.push(this.macro());
    return out;
  }

  private peek(k = 0): Token {
    return this.toks[Math.min(this.at + k, this.toks.length - 1)];
  }

  private next(): Token {
    const t = this.peek();
    if (t.t !== 'eof') this.at++;
    return t;
  }

  private is(v: string): boolean {
    const t = this.peek();
    return t.t === 'punct' && t.v === v;
  }

  private fail(message: string, tok = this.peek()): never {
    throw new MacroFileError(message, this.file, tok.pos);
  }

  private expect(v: string, what: string): Token {
    if (!this.is(v)) this.fail(`expected "${v}" ${what}, found ${describe(this.peek())}`);
    return this.next();
  }

  private name(what: string): Token {
    const t = this.peek();
    if (t.t !== 'name' || KEYWORDS.has(t.v)) this.fail(`expected ${what}, found ${describe(t)}`);
    return this.next();
  }

  private macro(): Macro {
    const head = this.name('a macro name (each macro is NAME(PARAMS) BODY)');
    if (head.v.startsWith('__') && (EXPR_FORMS.has(head.v) || STMT_FORMS.has(head.v))) this.fail(`"${head.v}" is one of herd's internal forms, not a macro name`, head);
    this.expect('(', `after the macro name ${head.v}`);
    const params: string[] = [];
    if (!this.is(')')) {
      for (;;) {
        const p = this.name(`a parameter name of ${head.v}`);
        if (params.includes(p.v)) this.fail(`parameter "${p.v}" appears twice in ${head.v}`, p);
        params.push(p.v);
        if (!this.is(',')) break;
        this.next();
      }
    }
    this.expect(')', `after the parameters of ${head.v}`);
    if (this.is('{')) return { name: head.v, params, pos: head.pos, body: { k: 'block', stmts: this.block() } };
    if (this.peek().t === 'eof') this.fail(`the macro ${head.v} has no body`);
    return { name: head.v, params, pos: head.pos, body: { k: 'expr', expr: this.expr() } };
  }

  /** `{ statements }`, nested blocks flattened; herd wants at least one statement. */
  private block(): DefStmt[] {
    const open = this.expect('{', 'to open a block');
    const out: DefStmt[] = [];
    while (!this.is('}')) {
      if (this.peek().t === 'eof') this.fail('this "{" is never closed', open);
      if (this.is('{')) out.push(...this.block());
      else out.push(this.stmt());
    }
    if (out.length === 0) this.fail('an empty block: herd wants at least one statement', open);
    this.next();
    return out;
  }

  private stmt(): DefStmt {
    const t = this.peek();
    if (t.t === 'name' && STMT_FORMS.has(t.v) && !(t.v === '__srcu' && this.formIsExpr())) {
      const f = this.form(t.v as StmtForm);
      this.expect(';', `after ${t.v}(...)`);
      return { k: 'form', form: t.v as StmtForm, tags: f.tags, args: f.args, pos: t.pos };
    }
    if (t.t === 'name' && t.v === 'if') {
      this.next();
      this.expect('(', 'after "if"');
      this.expr();
      this.expect(')', 'after the condition');
      this.stmtOrBlock();
      if (this.peek().t === 'name' && this.peek().v === 'else') {
        this.next();
        this.stmtOrBlock();
      }
      return { k: 'other', what: 'an "if"', pos: t.pos };
    }
    if (t.t === 'name' && !KEYWORDS.has(t.v) && this.peek(1).t === 'punct' && this.peek(1).v === '=') {
      this.next();
      this.next();
      this.expr();
      this.expect(';', 'after the assignment');
      return { k: 'other', what: 'an assignment', pos: t.pos };
    }
    const e = this.expr();
    if (this.is('=')) {
      this.next();
      this.expr();
      this.expect(';', 'after the assignment');
      return { k: 'other', what: 'an assignment', pos: t.pos };
    }
    this.expect(';', 'after the statement');
    if (e.k === 'call') return { k: 'call', name: e.name, args: e.args, pos: e.pos };
    return { k: 'expr', expr: e, pos: t.pos };
  }

  /** Whether the `__srcu{...}(...)` ahead is used as a value (it is a statement when `;` follows it). */
  private formIsExpr(): boolean {
    let depth = 0;
    for (let k = 1; this.at + k < this.toks.length; k++) {
      const t = this.peek(k);
      if (t.t === 'eof') return false;
      if (t.t === 'punct' && (t.v === '(' || t.v === '{')) depth++;
      if (t.t === 'punct' && (t.v === ')' || t.v === '}')) {
        depth--;
        if (depth === 0 && t.v === ')') {
          const after = this.peek(k + 1);
          return !(after.t === 'punct' && after.v === ';');
        }
      }
    }
    return false;
  }

  private stmtOrBlock(): void {
    if (this.is('{')) this.block();
    else this.stmt();
  }

  private expr(level = 0): DefExpr {
    if (level === LEVELS.length) return this.primary();
    let left = this.expr(level + 1);
    const comparison = level === 3;
    while (this.peek().t === 'punct' && LEVELS[level].includes(this.peek().v)) {
      // `&~` is an operator argument of an atomic operation, not an expression.
      if (this.peek().v === '&' && this.peek(1).t === 'punct' && this.peek(1).v === '~') break;
      const op = this.next();
      const right = this.expr(level + 1);
      left = { k: 'bin', op: op.v, left, right, pos: op.pos };
      if (comparison && this.peek().t === 'punct' && LEVELS[level].includes(this.peek().v)) this.fail('comparisons do not chain in herd\'s C: add parentheses');
    }
    return left;
  }

  private primary(): DefExpr {
    const t = this.peek();
    if (t.t === 'num') {
      this.next();
      return { k: 'num', value: Number(t.v), pos: t.pos };
    }
    if (t.t === 'punct' && t.v === '-' && this.peek(1).t === 'num') {
      this.next();
      const n = this.next();
      return { k: 'num', value: -Number(n.v), pos: t.pos };
    }
    if (t.t === 'punct' && t.v === '(') {
      this.next();
      const e = this.expr();
      this.expect(')', 'to close "("');
      return e;
    }
    if (t.t === 'punct' && t.v === '*') {
      this.next();
      const inner = this.peek();
      if (inner.t === 'punct' && inner.v === '(') return { k: 'deref', arg: this.primary(), pos: t.pos };
      if (inner.t === 'name' && !EXPR_FORMS.has(inner.v) && !KEYWORDS.has(inner.v)) {
        this.next();
        return { k: 'deref', arg: { k: 'name', name: inner.v, pos: inner.pos }, pos: t.pos };
      }
      this.fail(`"*" takes a name or a parenthesised expression here, not ${describe(inner)}`, inner);
    }
    if (t.t === 'name' && EXPR_FORMS.has(t.v)) {
      const f = this.form(t.v as ExprForm);
      return { k: 'form', form: t.v as ExprForm, tags: f.tags, args: f.args, pos: t.pos };
    }
    if (t.t === 'name' && STMT_FORMS.has(t.v)) this.fail(`${t.v} is a statement, not a value (write it in a { ...; } block)`);
    if (t.t === 'name' && !KEYWORDS.has(t.v)) {
      this.next();
      if (!this.is('(')) return { k: 'name', name: t.v, pos: t.pos };
      this.next();
      const args: DefExpr[] = [];
      if (!this.is(')')) {
        for (;;) {
          args.push(this.expr());
          if (!this.is(',')) break;
          this.next();
        }
      }
      this.expect(')', `to close the arguments of ${t.v}`);
      return { k: 'call', name: t.v, args, pos: t.pos };
    }
    this.fail(`expected an expression, found ${describe(t)}`);
  }

  /** An internal form's `{TAGS}` and `(ARGS)`. */
  private form(form: ExprForm | StmtForm): { tags: Tag[] | undefined; args: DefArg[] } {
    const head = this.next();
    let tags: Tag[] | undefined;
    if (UNTAGGED.has(form)) {
      if (this.is('{')) this.fail(`${form} takes no tag`);
    } else if (this.is('{')) {
      tags = this.tags();
    } else if (form !== '__atomic_op') {
      this.fail(`${form} needs a tag in braces, as in ${form}{ONCE}`);
    }
    const args: DefArg[] = [];
    if (form !== '__fence') {
      this.expect('(', `after ${form}`);
      if (!this.is(')')) {
        for (;;) {
          args.push(OP_FORMS.has(form) && args.length === 1 ? this.operator(form) : this.expr());
          if (!this.is(',')) break;
          this.next();
        }
      }
      this.expect(')', `to close the arguments of ${form}`);
    }
    if (!FORM_ARITY[form].includes(args.length)) {
      const n = FORM_ARITY[form].join(' or ');
      throw new MacroFileError(`${form} takes ${n} argument${n === '1' ? '' : 's'}, not ${args.length}`, this.file, head.pos);
    }
    return { tags, args };
  }

  /** `{A}` or `{A,B}`; a tag is names joined by `-` (`after-unlock-lock`). */
  private tags(): Tag[] {
    this.expect('{', 'to open the tag');
    const out: Tag[] = [];
    for (;;) {
      const first = this.name('a tag name');
      let tag = first.v;
      while (this.is('-')) {
        this.next();
        tag += '-' + this.name('the rest of the tag (names joined by "-")').v;
      }
      out.push({ tag, pos: first.pos });
      if (!this.is(',')) break;
      this.next();
    }
    this.expect('}', 'to close the tag');
    return out;
  }

  private operator(form: string): DefArg {
    const t = this.next();
    if (t.t === 'punct' && t.v === '&' && this.is('~')) {
      this.next();
      return { k: 'op', op: '&~', pos: t.pos };
    }
    if (t.t === 'punct' && ['+', '-', '&', '|', '^'].includes(t.v)) return { k: 'op', op: t.v as RmwOp, pos: t.pos };
    throw new MacroFileError(`${form}'s second argument is its operator (+, -, &, |, ^ or &~), not ${describe(t)}`, this.file, t.pos);
  }
}

function describe(t: Token): string {
  return t.t === 'eof' ? 'the end of the file' : `"${t.v}"`;
}

// ------------------------------------------------------------ expansion

/** Why a macro cannot be run (herd's own words where herd refuses it too). */
class Cannot extends Error {}

/** How deep macros may call each other (herd has no bound: a macro calling itself never ends there). */
const MAX_EXPANSION = 64;

/**
 * How large one macro's expansion may grow, in terms (an operator, a name,
 * a statement each). The kernel's macros expand to a few terms; a macro
 * whose body uses its argument twice, called with a call of itself, doubles
 * at each level (2^64 terms at MAX_EXPANSION), which would take the reader
 * all the machine's memory: such a macro is kept as one litmus cannot run.
 */
export const MAX_EXPANDED_TERMS = 10_000;

type Frame = ReadonlyMap<string, DefExpr>;

class Expander {
  /** Terms of the expansion under way (begin() starts one). */
  private terms = 0;
  /** The size of each expanded term, as a tree (a parameter's value is shared, not copied, where it is used twice). */
  private readonly sizes = new WeakMap<DefExpr, number>();

  constructor(private readonly macros: ReadonlyMap<string, Macro>) {}

  /** Starts a macro's expansion: its budget of MAX_EXPANDED_TERMS terms. */
  begin(): this {
    this.terms = 0;
    return this;
  }

  private grow(n: number): void {
    this.terms += n;
    if (this.terms > MAX_EXPANDED_TERMS) throw new Cannot(`its expansion grows past ${MAX_EXPANDED_TERMS} terms (macros that use an argument more than once, calling each other, expand exponentially): not expanded`);
  }

  /** A term's size as a tree. */
  private sizeOf(e: DefArg): number {
    if (e.k === 'op') return 1;
    const known = this.sizes.get(e);
    if (known !== undefined) return known;
    let n = 1;
    if (e.k === 'deref') n += this.sizeOf(e.arg);
    else if (e.k === 'bin') n += this.sizeOf(e.left) + this.sizeOf(e.right);
    else if (e.k === 'form' || e.k === 'call') for (const a of e.args) n = Math.min(n + this.sizeOf(a), Number.MAX_SAFE_INTEGER);
    this.sizes.set(e, n);
    return n;
  }

  expr(e: DefExpr, frame: Frame, depth: number): DefExpr {
    this.grow(1);
    switch (e.k) {
      case 'num':
      case 'param':
        return e;
      case 'name': {
        const bound = frame.get(e.name);
        if (bound === undefined) return e;
        this.grow(this.sizeOf(bound) - 1);
        return bound;
      }
      case 'deref':
        return { ...e, arg: this.expr(e.arg, frame, depth) };
      case 'bin':
        return { ...e, left: this.expr(e.left, frame, depth), right: this.expr(e.right, frame, depth) };
      case 'form':
        return { ...e, args: e.args.map((a) => (a.k === 'op' ? a : this.expr(a, frame, depth))) };
      case 'call': {
        const m = this.callee(e.name, e.args.length, depth);
        if (m.body.k !== 'expr') throw new Cannot(`it uses ${e.name}, a block, as a value (herd7: "Unknown macro ${e.name}")`);
        return this.expr(m.body.expr, this.frame(m, e.args, frame, depth), depth + 1);
      }
    }
  }

  stmts(ss: readonly DefStmt[], frame: Frame, depth: number): DefStmt[] {
    return ss.flatMap((s): DefStmt[] => {
      this.grow(1);
      switch (s.k) {
        case 'form':
          return [{ ...s, args: s.args.map((a) => (a.k === 'op' ? a : this.expr(a, frame, depth))) }];
        case 'expr':
          return [{ ...s, expr: this.expr(s.expr, frame, depth) }];
        case 'other':
          return [s];
        case 'call': {
          const m = this.callee(s.name, s.args.length, depth);
          // herd looks a call statement up among the block macros only.
          if (m.body.k !== 'block') throw new Cannot(`it calls ${s.name}, a value, as a statement (herd7: "Unknown macro ${s.name}")`);
          return this.stmts(m.body.stmts, this.frame(m, s.args, frame, depth), depth + 1);
        }
      }
    });
  }

  private callee(name: string, arity: number, depth: number): Macro {
    if (depth >= MAX_EXPANSION) throw new Cannot(`its expansion calls ${name} without end`);
    const m = this.macros.get(name);
    if (!m) throw new Cannot(`it calls ${name}, which the file does not define (herd7: "Unknown macro ${name}")`);
    if (m.params.length !== arity) throw new Cannot(`it calls ${name} with ${arity} argument${arity === 1 ? '' : 's'}, not ${m.params.length} (herd7: "Argument mismatch for macro ${name}")`);
    return m;
  }

  /** The callee's parameters bound to the call's arguments, expanded in the caller's frame. */
  private frame(m: Macro, args: readonly DefExpr[], frame: Frame, depth: number): Frame {
    return new Map(m.params.map((p, i) => [p, this.expr(args[i], frame, depth)]));
  }
}

// ------------------------------------------------------------ recognition

/** A primitive as the table holds it, with its argument slots' sources and tags. */
interface Recognised {
  prim: Primitive;
  slots: ArgSource[];
  addrParam: number;
  returns: boolean;
  tags: MacroOrigin['tags'];
}

const isParam = (e: DefArg): e is Extract<DefExpr, { k: 'param' }> => e.k === 'param';

/** The parameter an address argument names: `X` (pointer) or, for a tagged __load/__store, `*X` or `X` (lvalue). */
function address(e: DefArg, form: string): number {
  if (isParam(e)) return e.index;
  throw new Cannot(`${form}'s location must be one of the macro's parameters`);
}

/** `*X` is the location at address X (called with x); `X` alone stands for a location written `*x` in the call. */
function location(e: DefArg, form: string): { param: number; addr: 'pointer' | 'lvalue' } {
  if (e.k === 'deref' && isParam(e.arg)) return { param: e.arg.index, addr: 'pointer' };
  if (isParam(e)) return { param: e.index, addr: 'lvalue' };
  throw new Cannot(`${form}'s location must be *P or P for a parameter P (herd takes it as *address)`);
}

/** A value argument: a parameter or a constant. */
function value(e: DefArg, form: string): ArgSource {
  if (isParam(e)) return { param: e.index };
  if (e.k === 'num') return { value: e.value };
  throw new Cannot(`${form}'s value arguments must be parameters or constants`);
}

function oneTag(tags: Tag[] | undefined, form: string): Tag {
  if (!tags || tags.length === 0) return { tag: '', pos: { line: 0, col: 0 } };
  if (tags.length > 1) throw new Cannot(`${form}{${tags.map((t) => t.tag).join(',')}}: litmus reads one tag per operation`);
  return tags[0];
}

/** The primitive an expanded expression body is, if it is one. */
function recogniseExpr(e: DefExpr): Recognised {
  if (e.k === 'bin' && (e.op === '==' || e.op === '<') && e.right.k === 'num' && e.right.value === 0 && e.left.k === 'form' && e.left.form === '__atomic_op_return') {
    const r = recogniseExpr(e.left);
    if (r.prim.kind !== 'atomic') throw new Cannot('a comparison of something other than an atomic operation');
    const { kind, op, annot, ret, operand } = r.prim;
    return { ...r, prim: { kind, op, annot, ret, test: e.op === '==' ? 'zero' : 'negative', operand } };
  }
  if (e.k !== 'form') {
    throw new Cannot(e.k === 'bin'
      ? 'litmus runs a comparison only as "__atomic_op_return{...}(...) == 0" or "... < 0"'
      : 'its body is not one of the operations litmus runs as a primitive (__load, __xchg, __cmpxchg, __atomic_op_return, __atomic_fetch_op, __atomic_add_unless, __trylock, __islocked)');
  }
  const a = e.args;
  switch (e.form) {
    case '__load': {
      const t = oneTag(e.tags, e.form);
      if (t.tag === 'deref' || t.tag === 'lderef') throw new Cannot(`herd gives __load{${t.tag}} a fence of its own (rb_dep), which litmus does not make`);
      const loc = location(a[0], e.form);
      if (t.tag === 'srcu-lock') {
        if (loc.addr !== 'pointer') throw new Cannot('litmus runs __load{srcu-lock} on *P, P the srcu_struct\'s address');
        return { prim: { kind: 'srcu_lock' }, slots: [{ param: loc.param }], addrParam: loc.param, returns: true, tags: [{ ...t, on: 'srcu' }] };
      }
      return { prim: { kind: 'load', annot: t.tag, addr: loc.addr }, slots: [{ param: loc.param }], addrParam: loc.param, returns: true, tags: [{ ...t, on: 'access' }] };
    }
    case '__xchg':
    case '__cmpxchg': {
      const t = oneTag(e.tags, e.form);
      const x = address(a[0], e.form);
      const slots = [{ param: x }, ...a.slice(1).map((v) => value(v, e.form))];
      const prim: Primitive = e.form === '__xchg' ? { kind: 'xchg', annot: t.tag } : { kind: 'cmpxchg', annot: t.tag };
      return { prim, slots, addrParam: x, returns: true, tags: [{ ...t, on: 'access' }] };
    }
    case '__atomic_op_return':
    case '__atomic_fetch_op':
      return atomic(e.form, e.tags, a, e.form === '__atomic_op_return' ? 'new' : 'old');
    case '__atomic_add_unless': {
      const t = oneTag(e.tags, e.form);
      const x = address(a[0], e.form);
      return { prim: { kind: 'add_unless', annot: t.tag }, slots: [{ param: x }, value(a[1], e.form), value(a[2], e.form)], addrParam: x, returns: true, tags: [{ ...t, on: 'access' }] };
    }
    case '__trylock':
    case '__islocked': {
      const x = address(a[0], e.form);
      return { prim: { kind: e.form === '__trylock' ? 'spin_trylock' : 'spin_is_locked' }, slots: [{ param: x }], addrParam: x, returns: true, tags: [] };
    }
    case '__srcu':
      throw new Cannot('litmus runs __srcu only as a statement, __srcu{sync-srcu}(P);');
  }
}

function atomic(form: string, tags: Tag[] | undefined, a: DefArg[], ret: 'none' | 'new' | 'old'): Recognised {
  const t = oneTag(tags, form);
  const x = address(a[0], form);
  const op = a[1];
  if (op.k !== 'op') throw new Cannot(`${form}'s second argument must be its operator`);
  const v = value(a[2], form);
  const tagList: MacroOrigin['tags'] = tags?.length ? [{ ...t, on: 'access' }] : [{ tag: '', pos: { line: 0, col: 0 }, on: 'access' }];
  if ('value' in v) {
    return { prim: { kind: 'atomic', op: op.op, annot: t.tag, ret, operand: v.value }, slots: [{ param: x }], addrParam: x, returns: ret !== 'none', tags: tagList };
  }
  return { prim: { kind: 'atomic', op: op.op, annot: t.tag, ret, operand: 'arg' }, slots: [v, { param: x }], addrParam: x, returns: ret !== 'none', tags: tagList };
}

/** The primitive an expanded block body is, if it is one. */
function recogniseBlock(ss: DefStmt[]): Recognised {
  const forms = ss.filter((s): s is Extract<DefStmt, { k: 'form' }> => s.k === 'form');
  const other = ss.find((s) => s.k === 'other');
  if (other && other.k === 'other') throw new Cannot(`it has ${other.what}, which no primitive of litmus is`);
  if (ss.length === 1 && ss[0].k === 'expr') return { ...recogniseExpr(ss[0].expr), returns: false };
  const [first, second] = forms;
  const shape = forms.map((f) => f.form).join(' ');
  if (forms.length !== ss.length || !(forms.length === 1 || shape === '__store __fence')) {
    throw new Cannot('litmus runs a block only as one operation, or a __store then a __fence');
  }
  const a = first.args;
  switch (first.form) {
    case '__store': {
      const t = oneTag(first.tags, first.form);
      const loc = location(a[0], first.form);
      const v = value(a[1], first.form);
      if (t.tag === 'srcu-unlock') {
        if (second) throw new Cannot('litmus runs __store{srcu-unlock} without a fence after it');
        if (loc.addr !== 'pointer') throw new Cannot('litmus runs __store{srcu-unlock} on *P, P the srcu_struct\'s address');
        return { prim: { kind: 'srcu_unlock' }, slots: [{ param: loc.param }, v], addrParam: loc.param, returns: false, tags: [{ ...t, on: 'srcu' }] };
      }
      const tags: MacroOrigin['tags'] = [{ ...t, on: 'access' }];
      if (!second) return { prim: { kind: 'store', annot: t.tag, addr: loc.addr }, slots: [{ param: loc.param }, v], addrParam: loc.param, returns: false, tags };
      const f = oneTag(second.tags, second.form);
      tags.push({ ...f, on: 'fence' });
      return { prim: { kind: 'store', annot: t.tag, addr: loc.addr, thenFence: f.tag }, slots: [{ param: loc.param }, v], addrParam: loc.param, returns: false, tags };
    }
    case '__fence': {
      const t = oneTag(first.tags, first.form);
      return { prim: { kind: 'fence', fence: t.tag }, slots: [], addrParam: -1, returns: false, tags: [{ ...t, on: 'fence' }] };
    }
    case '__lock':
    case '__unlock': {
      const x = address(a[0], first.form);
      return { prim: { kind: first.form === '__lock' ? 'spin_lock' : 'spin_unlock' }, slots: [{ param: x }], addrParam: x, returns: false, tags: [] };
    }
    case '__atomic_op':
      return atomic(first.form, first.tags, a, 'none');
    case '__srcu': {
      const t = oneTag(first.tags, first.form);
      if (t.tag !== 'sync-srcu' || a.length !== 1) throw new Cannot('litmus runs __srcu only as __srcu{sync-srcu}(P);');
      const x = address(a[0], first.form);
      return { prim: { kind: 'srcu_sync' }, slots: [{ param: x }], addrParam: x, returns: false, tags: [{ ...t, on: 'srcu' }] };
    }
  }
}

/** The table entry of a macro, or why litmus cannot run it. */
function entryOf(m: Macro, expander: Expander, file: string): PrimitiveInfo | string {
  const frame: Frame = new Map(m.params.map((p, index) => [p, { k: 'param', index, pos: m.pos } as DefExpr]));
  let r: Recognised;
  try {
    r = m.body.k === 'expr' ? recogniseExpr(expander.begin().expr(m.body.expr, frame, 0)) : recogniseBlock(expander.begin().stmts(m.body.stmts, frame, 0));
  } catch (e) {
    if (e instanceof Cannot) return e.message;
    throw e;
  }
  const arity = m.params.length;
  const identity = r.slots.length === arity && r.slots.every((s, i) => 'param' in s && s.param === i);
  const info: PrimitiveInfo = { prim: r.prim, arity, addrArg: r.addrParam, returns: r.returns };
  if (!identity) {
    info.args = r.slots;
    info.params = m.params.map((p) => p.toLowerCase());
  }
  info.origin = { file, pos: m.pos, tags: r.tags };
  return info;
}

/** The primitive table a macro file's text defines (`file` names it in messages). */
export function readMacros(text: string, file: string): PrimitiveTable {
  const macros = new DefParser(lex(text, file), file).macros();
  // A later definition of a name replaces an earlier one, as in herd.
  const byName = new Map(macros.map((m) => [m.name, m]));
  const expander = new Expander(byName);
  const defs = new Map<string, PrimitiveInfo>();
  const cannot = new Map<string, UnsupportedMacro>();
  for (const m of byName.values()) {
    const e = entryOf(m, expander, file);
    if (typeof e === 'string') cannot.set(m.name, { reason: e, file, pos: m.pos });
    else defs.set(m.name, e);
  }
  return primitiveTable(defs, file, cannot);
}

const KNOWN_ACCESS_TAGS: ReadonlySet<string> = new Set(ANNOTS.filter((a) => a !== 'PLAIN'));
const KNOWN_FENCE_TAGS: ReadonlySet<string> = new Set(FENCE_KINDS);
const KNOWN_SRCU_TAGS: ReadonlySet<string> = new Set(SRCU_KINDS);

/**
 * The tags of a table's macros that the built-in models do not know (they
 * know the LKMM's: the annotations ONCE, ACQUIRE, RELEASE, MB, NORETURN,
 * the fences of linux-kernel.bell's `enum Barriers`, SRCU's): each would be
 * silently ignored by them, so a run under a built-in model with such a .def
 * must be refused. A model read from a .cat file gives the tags their meaning.
 */
export function tagsUnknownToBuiltinModels(table: PrimitiveTable): MacroFileError[] {
  const out: MacroFileError[] = [];
  for (const [name, info] of table.macros()) {
    const o = info.origin;
    if (!o) continue;
    for (const t of o.tags) {
      const known = t.on === 'srcu' ? KNOWN_SRCU_TAGS : t.on === 'fence' ? KNOWN_FENCE_TAGS : KNOWN_ACCESS_TAGS;
      if (known.has(t.tag)) continue;
      const what = t.tag === '' ? `${name} has an operation without a tag` : `tag "${t.tag}" of ${name}`;
      const kinds = t.on === 'fence' ? 'fence tags' : t.on === 'srcu' ? 'SRCU tags' : 'access annotations';
      out.push(new MacroFileError(
        `${what} is not among the built-in LKMM's ${kinds} (${[...known].join(', ')}): the built-in models would silently ignore it (only a model read from a .cat file can give it a meaning)`,
        o.file, t.tag === '' ? o.pos : t.pos));
    }
  }
  return out.sort((a, b) => a.pos.line - b.pos.line || a.pos.col - b.pos.col);
}

/** The same problems as one error (the first, the others attached), or undefined when there are none. */
export function refuseUnknownTags(table: PrimitiveTable): MacroFileError | undefined {
  const [first, ...others] = tagsUnknownToBuiltinModels(table);
  if (first && others.length) first.others = others;
  return first;
}

/**
 * Tables read from files, by path, each kept with the modification time and
 * size it was read at: a pure cache (the table is a function of the file's
 * text), so that a run over many tests, or a worker thread per test, reads
 * and expands the file once.
 */
const loaded = new Map<string, { mtimeMs: number; size: number; table: PrimitiveTable }>();

/**
 * The SHA-256 of the kernel's linux-kernel.def as tools/memory-model ships
 * it (the copy in ../shared/lkmm): its macros are the built-in table's
 * (test/def.test.ts compares them entry by entry).
 */
export const KERNEL_DEF_DIGEST = 'a04911d85fd86f5dbcf8ed436c7a2570fcc615f768c0c19b0a101f6212d2504c';

/** The primitive table of a .def file (herd's -macros), read once per path and modification. Throws MacroFileError. */
export function loadMacros(path: string): PrimitiveTable {
  let st: { mtimeMs: number; size: number };
  try {
    st = statSync(path);
  } catch {
    throw new MacroFileError(`cannot read the macro file: no such file`, path, { line: 1, col: 1 });
  }
  const hit = loaded.get(path);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.table;
  let bytes: Buffer;
  try {
    // Every input through the one reader: a FIFO, a device (/dev/zero) or a file past the bound is refused, not read.
    bytes = readInputBytes(path);
  } catch (e) {
    throw new MacroFileError(`cannot read the macro file: ${(e as Error).message}`, path, { line: 1, col: 1 });
  }
  // The kernel's own file, byte for byte, is the built-in table (test/def.test.ts): not parsed at every start.
  const table = createHash('sha256').update(bytes).digest('hex') === KERNEL_DEF_DIGEST ? BUILTIN_PRIMITIVES : readMacros(bytes.toString('utf8'), path);
  loaded.set(path, { mtimeMs: st.mtimeMs, size: st.size, table });
  return table;
}
