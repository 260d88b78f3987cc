import type {
  BinOp, CondExpr, CondTerm, Expr, InitItem, InitValue, LitmusTest, LocationRef, Param, Pos,
  FunctionDef, Process, Quantifier, Stmt, StructDef,
} from './ast.js';
import { constant32, unary32 } from '../program/arith.js';
import { fail } from './errors.js';
import { readHeader } from './header.js';
import { tokenize, type Token } from './lexer.js';

/** Words that start a type in a declaration, a parameter or a cast. */
const TYPE_WORDS = new Set([
  'int', 'intptr_t', 'uintptr_t', 'long', 'unsigned', 'signed', 'char', 'short', 'bool', '_Bool',
  'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'atomic_t', 'atomic_long_t', 'spinlock_t',
  'void', 'struct', 'const', 'volatile', 'size_t', 'raw_spinlock_t', '_Atomic',
]);

const BIN_PREC: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6,
  '<': 7, '<=': 7, '>': 7, '>=': 7, '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};

/**
 * How deeply a test may nest: parentheses, unary operators, statements inside
 * statements, and the depth of the tree that chains such as `a + b + c` or
 * `p /\ q /\ r` build. Every later stage walks the tree recursively, so this
 * bound keeps them all far from the stack's limit; deeper input is refused
 * with its position. Real tests nest a few levels.
 */
export const MAX_NESTING = 500;

/** Parses the text of a C litmus test into its syntax tree. */
export function parseLitmus(text: string): LitmusTest {
  return new Parser(text).parseTest();
}

/** The `Result:` word of the header comment, if any. */
export function headerResult(text: string): string | undefined {
  const brace = text.indexOf('{');
  const head = brace >= 0 ? text.slice(0, brace) : text;
  const m = /Result:\s*([A-Za-z]+)/.exec(head);
  return m ? m[1] : undefined;
}

/** Whether the header's `Result:` line says `DATARACE` (as in `Result: Sometimes DATARACE`). */
export function headerPredictsDataRace(text: string): boolean {
  const brace = text.indexOf('{');
  const head = brace >= 0 ? text.slice(0, brace) : text;
  return /Result:[^\n]*\bDATARACE\b/.test(head);
}

/** The tokens of a test from the "{" of its initial state on (what the parser reads), with positions in the whole text. */
export function testTokens(text: string): Token[] {
  const { offset, pos } = readHeader(text);
  return tokenize(text, offset, pos);
}

class Parser {
  private toks: Token[] = [];
  private i = 0;
  /** The struct types defined so far. */
  private readonly structs: StructDef[] = [];
  /** Current depth of recursion in the parser (statements, parentheses, unary operators, conditions). */
  private nesting = 0;
  /** Height of each expression and condition node built (a leaf is 1). */
  private readonly heights = new WeakMap<object, number>();

  constructor(private readonly text: string) {}

  // ---------------------------------------------------------------- tokens
  private get tok(): Token {
    return this.toks[this.i];
  }
  private peek(k = 1): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)];
  }
  private next(): Token {
    const t = this.toks[this.i];
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  private is(text: string): boolean {
    return (this.tok.kind === 'punct' || this.tok.kind === 'ident') && this.tok.text === text;
  }
  private accept(text: string): boolean {
    if (this.is(text)) {
      this.i++;
      return true;
    }
    return false;
  }
  private expect(text: string, what?: string): Token {
    if (!this.is(text)) this.unexpected(what ?? `"${text}"`);
    return this.next();
  }
  private unexpected(wanted: string): never {
    const t = this.tok;
    const got = t.kind === 'eof' ? 'end of file' : `"${t.text}"`;
    fail(`expected ${wanted}, found ${got}`, t.pos);
  }
  private ident(what = 'a name'): Token {
    if (this.tok.kind !== 'ident') this.unexpected(what);
    return this.next();
  }

  // --------------------------------------------------------------- nesting
  /** One level deeper (the caller steps back with `this.nesting--`); refuses input nested beyond MAX_NESTING. */
  private enter(pos: Pos): void {
    if (++this.nesting > MAX_NESTING) this.tooDeep(pos);
  }

  /** Records a node's height, refusing trees that, with the current nesting, pass MAX_NESTING. */
  private sized<T extends object>(node: T, pos: Pos, ...kids: object[]): T {
    let h = 0;
    for (const k of kids) h = Math.max(h, this.heights.get(k) ?? 1);
    this.heights.set(node, h + 1);
    if (this.nesting + h + 1 > MAX_NESTING) this.tooDeep(pos);
    return node;
  }

  private tooDeep(pos: Pos): never {
    fail(`nested too deeply: more than ${MAX_NESTING} levels of parentheses, operators, statements or conditions`, pos);
  }

  // ---------------------------------------------------------------- header
  parseTest(): LitmusTest {
    const text = this.text;
    const { arch, name, info, offset, pos } = readHeader(text);
    this.toks = tokenize(text, offset, pos);
    const init = this.parseInit();
    const functions: FunctionDef[] = [];
    while (this.atFunctionDef()) functions.push(this.parseFunctionDef(functions));
    const processes: Process[] = [];
    for (;;) {
      // herd7 allows `void P0(...)`.
      if (this.is('void') && /^P\d+$/.test(this.peek().text)) this.next();
      if (!(this.tok.kind === 'ident' && /^P\d+$/.test(this.tok.text))) break;
      processes.push(this.parseProcess());
    }
    if (processes.length === 0) this.unexpected('a process "P0(...) { ... }"');
    let locations: LocationRef[] = [];
    let filter: CondExpr | undefined;
    for (;;) {
      if (this.is('locations')) {
        this.next();
        locations = locations.concat(this.parseLocations());
      } else if (this.is('filter')) {
        this.next();
        filter = this.parseCond();
      } else break;
    }
    const conditionPos = this.tok.pos;
    const { quantifier, condition } = this.parseFinal();
    this.accept(';');
    if (this.tok.kind !== 'eof') this.unexpected('end of test after the final condition');
    return {
      arch, name, info, result: headerResult(text), init, processes, locations, filter, quantifier, condition,
      conditionPos, ...(this.structs.length ? { structs: this.structs } : {}), ...(functions.length ? { functions } : {}),
    };
  }

  /**
   * The final condition. As in herd7, `final` is `exists`, and a test without
   * one means `forall (true)`: every execution satisfies it.
   */
  private parseFinal(): { quantifier: Quantifier; condition: CondExpr } {
    let quantifier: Quantifier;
    if (this.accept('exists') || this.accept('final')) quantifier = 'exists';
    else if (this.accept('forall')) quantifier = 'forall';
    else if (this.is('~') && this.peek().text === 'exists') {
      this.next();
      this.next();
      quantifier = '~exists';
    } else if (this.tok.kind === 'eof' || this.is(';')) {
      return { quantifier: 'forall', condition: { kind: 'true' } };
    } else this.unexpected('"exists", "~exists" or "forall"');
    return { quantifier, condition: this.parseCond() };
  }

  // ------------------------------------------------------------------ init
  private parseInit(): InitItem[] {
    this.expect('{', '"{" opening the initial state');
    const items: InitItem[] = [];
    while (!this.is('}')) {
      if (this.tok.kind === 'eof') this.unexpected('"}" closing the initial state');
      if (this.accept(';')) continue;
      items.push(...this.parseInitItem());
    }
    this.next();
    return items;
  }

  /**
   * One item of the initial state, as herd7's state grammar takes it:
   * `x=1`, `0:r1=x`, `P0:r1=&x`, `[x]=1`, `int x`, `int x=2`, `int *p=&x`,
   * `int 0:r1`, `int *1:r1=x`, `_Atomic int x`, `atomic_t y = ATOMIC_INIT(1)`;
   * several declarators after one type (`int x, y;`) are accepted too. The
   * ";" after the last item may be left out.
   */
  private parseInitItem(): InitItem[] {
    let type: string | undefined;
    if (this.is('struct') && this.peek().kind === 'ident' && this.peek(2).text === '{') {
      const def = this.parseStructDef();
      this.structs.push(def);
      if (this.accept(';') || this.is('}')) return [];
      type = `struct ${def.name}`;
    } else type = this.parseInitType();
    const out: InitItem[] = [];
    for (;;) {
      const pos = this.tok.pos;
      let stars = '';
      while (this.accept('*')) stars += '*';
      // With a type, `[4]` is an array's size; without, `a[1]=2` gives one element a value.
      const { thread, name } = this.parseInitLocation(type === undefined);
      const dims: number[] = [];
      while (this.is('[') && type !== undefined) {
        this.next();
        const n = this.next();
        if (n.kind !== 'num' || n.value! < 1) fail('an array\'s size is a positive number', n.pos);
        dims.push(n.value!);
        this.expect(']', '"]" after the array\'s size');
      }
      let value: InitValue | undefined;
      let values: InitValue[] | undefined;
      if (this.accept('=')) {
        if (this.is('{')) values = this.parseInitList();
        else value = this.parseInitValue();
      }
      const fullType = type === undefined ? (stars ? stars : undefined) : type + (stars ? ' ' + stars : '');
      out.push({ thread, name, type: fullType, value, pos, ...(dims.length ? { dims } : {}), ...(values ? { values } : {}) });
      if (this.accept(',')) continue;
      break;
    }
    if (!this.is('}')) this.expect(';', '";" after an initial value');
    return out;
  }

  /** `struct s { int a; int b[2]; }` (the name "s" then stands for this type, the declarators follow). */
  private parseStructDef(): StructDef {
    const pos = this.next().pos;
    const name = this.next().text;
    if (this.structs.some((d) => d.name === name)) fail(`struct ${name} is defined twice`, pos);
    this.expect('{');
    const fields: StructDef['fields'] = [];
    while (!this.accept('}')) {
      if (this.tok.kind === 'eof') this.unexpected('"}" closing the struct');
      const words: string[] = [];
      while (this.tok.kind === 'ident' && (TYPE_WORDS.has(this.tok.text) || this.peek().kind === 'ident' || this.peek().text === '*')) {
        const w = this.next().text;
        words.push(w);
        if (w === 'struct') words.push(this.ident('a struct name').text);
      }
      if (words.length === 0) this.unexpected('a field\'s type');
      for (;;) {
        const fpos = this.tok.pos;
        let stars = '';
        while (this.accept('*')) stars += '*';
        const fname = this.ident('a field name').text;
        if (fields.some((f) => f.name === fname)) fail(`struct ${name} has two fields "${fname}"`, fpos);
        const dims: number[] = [];
        while (this.accept('[')) {
          const n = this.next();
          if (n.kind !== 'num' || n.value! < 1) fail('an array\'s size is a positive number', n.pos);
          dims.push(n.value!);
          this.expect(']', '"]" after the array\'s size');
        }
        fields.push({ name: fname, type: words.join(' ') + (stars ? ' ' + stars : ''), dims, pos: fpos });
        if (!this.accept(',')) break;
      }
      this.expect(';', '";" after a field');
    }
    return { name, fields, pos };
  }

  /** The type words before a declarator: known type words, or any name followed by a name or "*". */
  private parseInitType(): string | undefined {
    const words: string[] = [];
    while (this.tok.kind === 'ident' && (TYPE_WORDS.has(this.tok.text) || this.peek().kind === 'ident' || this.peek().text === '*')) {
      const w = this.next().text;
      words.push(w);
      if (w === 'struct') words.push(this.ident('a struct name').text);
    }
    return words.length ? words.join(' ') : undefined;
  }

  /** `x`, `[x]`, `0:r1` or `P0:r1`. */
  private parseInitLocation(path: boolean): { thread: number | null; name: string } {
    const thread = this.parseThreadPrefix();
    if (thread !== null) return { thread, name: this.ident('a register name').text };
    if (this.accept('[')) {
      const name = this.ident('a variable name').text;
      this.expect(']', '"]"');
      return { thread: null, name };
    }
    const name = this.ident('a variable name').text;
    return { thread: null, name: path ? this.parsePath(name) : name };
  }

  /** `{1, 2, {3, 4}}`: the values in order, nested lists flattened. */
  private parseInitList(): InitValue[] {
    this.expect('{');
    const out: InitValue[] = [];
    while (!this.accept('}')) {
      if (this.is('{')) out.push(...this.parseInitList());
      else out.push(this.parseInitValue());
      if (!this.is('}')) this.expect(',', '"," or "}" in the initialiser');
    }
    return out;
  }

  /** `0:` or `P0:` before a register: the thread index, or null. */
  private parseThreadPrefix(): number | null {
    const t = this.tok;
    if ((t.kind === 'num' || (t.kind === 'ident' && /^P\d+$/.test(t.text))) && this.peek().text === ':') {
      this.next();
      this.next();
      return t.kind === 'num' ? t.value! : Number(t.text.slice(1));
    }
    return null;
  }

  private parseInitValue(): InitValue {
    const pos = this.tok.pos;
    if (this.accept('&')) return { kind: 'loc', name: this.ident('a variable name').text };
    if (this.accept('-')) {
      const t = this.next();
      if (t.kind !== 'num') fail('expected a number after "-"', t.pos);
      return { kind: 'num', value: numberValue(t, true, pos) };
    }
    const t = this.next();
    if (t.kind === 'num') return { kind: 'num', value: numberValue(t, false, t.pos) };
    if (t.kind === 'ident') {
      if (t.text === 'ATOMIC_INIT' || t.text === 'ATOMIC_LONG_INIT') {
        this.expect('(', '"("');
        const v = this.parseInitValue();
        this.expect(')', '")"');
        return v;
      }
      if (t.text === 'NULL') return { kind: 'num', value: 0 };
      return { kind: 'loc', name: t.text };
    }
    fail('expected an initial value (a number or a variable name)', pos);
  }

  // ------------------------------------------------------------- functions
  /** `static int f(...) {`, `void g(...) {`: a helper function before the processes. */
  private atFunctionDef(): boolean {
    if (this.tok.kind !== 'ident' || /^P\d+$/.test(this.tok.text)) return false;
    if (this.is('void') && /^P\d+$/.test(this.peek().text)) return false;
    let k = 0;
    while (this.peek(k).kind === 'ident' && (['static', 'inline'].includes(this.peek(k).text) || TYPE_WORDS.has(this.peek(k).text))) {
      k += this.peek(k).text === 'struct' ? 2 : 1;
      while (this.peek(k).text === '*') k++;
    }
    return k > 0 && this.peek(k).kind === 'ident' && !/^P\d+$/.test(this.peek(k).text) && this.peek(k + 1).text === '(';
  }

  private parseFunctionDef(known: FunctionDef[]): FunctionDef {
    const pos = this.tok.pos;
    while (this.accept('static') || this.accept('inline'));
    let returnType = this.parseTypeWords();
    while (this.accept('*')) returnType += ' *';
    const nameTok = this.ident('a function name');
    if (known.some((f) => f.name === nameTok.text)) fail(`function ${nameTok.text} is defined twice`, nameTok.pos);
    this.expect('(');
    const params: Param[] = [];
    if (this.is('void') && this.peek().text === ')') this.next();
    while (!this.is(')')) {
      const ppos = this.tok.pos;
      let type = this.parseTypeWords();
      while (this.accept('*')) type += ' *';
      const name = this.ident('a parameter name').text;
      if (!type) fail(`parameter "${name}" needs a type, e.g. "int ${name}"`, ppos);
      params.push({ type, name, pos: ppos });
      if (!this.accept(',')) break;
    }
    this.expect(')', '")" closing the parameters');
    if (!this.is('{')) this.unexpected('"{" opening the function\'s body');
    const block = this.parseBlock();
    return { name: nameTok.text, returnType, params, body: block.kind === 'block' ? block.body : [block], pos };
  }

  // ------------------------------------------------------------- processes
  private parseProcess(): Process {
    const t = this.next();
    const index = Number(t.text.slice(1));
    this.expect('(', '"(" after the process name');
    const params: Param[] = [];
    if (!this.is(')')) {
      for (;;) {
        const pos = this.tok.pos;
        const words: string[] = [];
        while (this.tok.kind === 'ident' && (TYPE_WORDS.has(this.tok.text) || this.peek().kind === 'ident' || this.peek().text === '*')) {
          const w = this.next().text;
          words.push(w);
          if (w === 'struct') words.push(this.ident('a struct name').text);
          while (this.accept('*')) words.push('*');
          if (this.tok.kind === 'ident' && (this.peek().text === ',' || this.peek().text === ')')) break;
        }
        const name = this.ident('a parameter name').text;
        if (words.length === 0) fail(`parameter "${name}" needs a type, e.g. "int *${name}"`, pos);
        params.push({ type: words.join(' '), name, pos });
        if (this.accept(',')) continue;
        break;
      }
    }
    this.expect(')', '")" closing the parameters');
    const pos = this.tok.pos;
    if (!this.is('{')) this.unexpected('"{" opening the process body');
    const block = this.parseBlock();
    return { index, params, body: block.kind === 'block' ? block.body : [block], pos };
  }

  private parseBlock(): Stmt {
    const open = this.expect('{');
    const body: Stmt[] = [];
    while (!this.is('}')) {
      if (this.tok.kind === 'eof') fail('unbalanced braces: this "{" is never closed', open.pos);
      if (this.atFinalClause()) {
        fail(`unbalanced braces: this "{" is not closed before "${this.tok.text}" at line ${this.tok.pos.line}`, open.pos);
      }
      body.push(...this.parseStmt());
    }
    this.next();
    return { kind: 'block', body, pos: open.pos };
  }

  /** `exists (`, `forall (`, `~exists`, `locations [`, `filter (` inside a body: a lost brace. */
  private atFinalClause(): boolean {
    const t = this.tok;
    if (t.kind === 'punct' && t.text === '~') return this.peek().text === 'exists';
    if (t.kind !== 'ident') return false;
    const n = this.peek().text;
    return ((t.text === 'exists' || t.text === 'forall' || t.text === 'filter') && n === '(') || (t.text === 'locations' && n === '[');
  }

  private isTypeStart(): boolean {
    return this.tok.kind === 'ident' && TYPE_WORDS.has(this.tok.text);
  }

  /** Whether the token after this one starts an assignment to it (`=`, `+=`, `++`, ...): it is then a name. */
  private assignsNext(): boolean {
    const n = this.peek().text;
    if (n === '=') return true;
    const m = this.peek(2).text;
    return (['+', '-', '|', '&', '^'].includes(n) && m === '=') || ((n === '+' || n === '-') && m === n);
  }

  private parseStmt(): Stmt[] {
    this.enter(this.tok.pos);
    const out = this.parseStmtHere();
    this.nesting--;
    return out;
  }

  private parseStmtHere(): Stmt[] {
    const pos = this.tok.pos;
    if (this.is('{')) return [this.parseBlock()];
    if (this.accept(';')) return [{ kind: 'empty', pos }];
    if (this.isTypeStart()) return this.parseDecl();
    if (this.accept('if')) {
      this.expect('(', '"(" after "if"');
      const cond = this.parseExpr();
      this.expect(')', '")" closing the condition');
      const then = this.single(this.parseStmt());
      let els: Stmt | undefined;
      if (this.accept('else')) els = this.single(this.parseStmt());
      return [{ kind: 'if', cond, then, else: els, pos }];
    }
    if (this.accept('while')) {
      this.expect('(', '"(" after "while"');
      const cond = this.parseExpr();
      this.expect(')', '")" closing the condition');
      const body = this.single(this.parseStmt());
      return [{ kind: 'while', cond, body, pos }];
    }
    // herd7's C has none of for, do, break, continue, return: there they name registers (`continue = 1;`, `if (continue)`).
    if (this.is('for') && this.peek().text === '(' && this.accept('for')) {
      this.expect('(', '"(" after "for"');
      const init = this.is(';') ? undefined : this.single(this.simpleStmt());
      this.expect(';', '";" after the loop\'s initialisation');
      const cond = this.is(';') ? undefined : this.parseExpr();
      this.expect(';', '";" after the loop\'s condition');
      const step = this.is(')') ? undefined : this.single(this.simpleStmt());
      this.expect(')', '")" closing the loop\'s header');
      const body = this.single(this.parseStmt());
      return [{ kind: 'for', init, cond, step, body, pos }];
    }
    if (this.is('do') && !this.assignsNext() && this.accept('do')) {
      const body = this.single(this.parseStmt());
      this.expect('while', '"while" after the body of "do"');
      this.expect('(', '"(" after "while"');
      const cond = this.parseExpr();
      this.expect(')', '")" closing the condition');
      this.expect(';', '";" after "do ... while (...)"');
      return [{ kind: 'do', body, cond, pos }];
    }
    if ((this.is('break') || this.is('continue')) && this.peek().text === ';' && this.next()) {
      const kind = this.toks[this.i - 1].text as 'break' | 'continue';
      this.expect(';', `";" after "${kind}"`);
      return [{ kind, pos }];
    }
    if (this.is('return') && !this.assignsNext() && this.accept('return')) {
      const value = this.is(';') ? undefined : this.parseExpr();
      this.expect(';', '";" after "return"');
      return [{ kind: 'return', value, pos }];
    }
    if (this.is('goto') || this.is('switch')) {
      fail(`"${this.tok.text}" statements are not supported (use "if", loops and "break")`, pos);
    }
    const e = this.parseExpr();
    if (this.accept('=')) {
      const value = this.parseExpr();
      this.expect(';', '";" after the assignment');
      if (e.kind !== 'name' && e.kind !== 'deref' && e.kind !== 'index' && e.kind !== 'field') fail('cannot assign to this expression', e.pos);
      return [{ kind: 'assign', target: e, value, pos }];
    }
    for (const op of ['+=', '-=', '|=', '&=', '^=']) {
      if (this.is(op[0]) && this.peek().text === '=') {
        this.next();
        this.next();
        const rhs = this.parseExpr();
        this.expect(';', '";" after the assignment');
        const value = this.sized<Expr>({ kind: 'binary', op: op[0] as BinOp, left: e, right: rhs, pos }, pos, e, rhs);
        return [{ kind: 'assign', target: e, value, pos }];
      }
    }
    if ((this.is('+') || this.is('-')) && this.peek().text === this.tok.text) {
      const op = this.next().text as BinOp;
      this.next();
      this.expect(';', '";" after the statement');
      return [{ kind: 'assign', target: e, value: { kind: 'binary', op, left: e, right: { kind: 'num', value: 1, pos }, pos }, pos }];
    }
    this.expect(';', '";" after the statement');
    return [{ kind: 'expr', expr: e, pos }];
  }

  /** A for loop's initialisation or step: a declaration, an assignment or an expression, without its ";". */
  private simpleStmt(): Stmt[] {
    const pos = this.tok.pos;
    if (this.isTypeStart()) {
      const type = this.parseTypeWords();
      let stars = '';
      while (this.accept('*')) stars += '*';
      const name = this.ident('a register name').text;
      const init = this.accept('=') ? this.parseExpr() : undefined;
      return [{ kind: 'decl', type: type + (stars ? ' ' + stars : ''), name, init, pos }];
    }
    const e = this.parseExpr();
    if (this.accept('=')) {
      if (e.kind !== 'name' && e.kind !== 'deref' && e.kind !== 'index' && e.kind !== 'field') fail('cannot assign to this expression', e.pos);
      return [{ kind: 'assign', target: e, value: this.parseExpr(), pos }];
    }
    for (const op of ['+=', '-=', '|=', '&=', '^=']) {
      if (this.is(op[0]) && this.peek().text === '=') {
        this.next();
        this.next();
        const rhs = this.parseExpr();
        return [{ kind: 'assign', target: e, value: this.sized<Expr>({ kind: 'binary', op: op[0] as BinOp, left: e, right: rhs, pos }, pos, e, rhs), pos }];
      }
    }
    if ((this.is('+') || this.is('-')) && this.peek().text === this.tok.text) {
      // `i++`, `i--`
      const op = this.next().text as BinOp;
      this.next();
      return [{ kind: 'assign', target: e, value: { kind: 'binary', op, left: e, right: { kind: 'num', value: 1, pos }, pos }, pos }];
    }
    return [{ kind: 'expr', expr: e, pos }];
  }

  private single(stmts: Stmt[]): Stmt {
    return stmts.length === 1 ? stmts[0] : { kind: 'block', body: stmts, pos: stmts[0]?.pos ?? this.tok.pos };
  }

  private parseDecl(): Stmt[] {
    const base = this.parseTypeWords();
    const out: Stmt[] = [];
    for (;;) {
      const pos = this.tok.pos;
      let stars = '';
      while (this.accept('*')) stars += '*';
      const name = this.ident('a register name').text;
      let init: Expr | undefined;
      if (this.accept('=')) init = this.parseExpr();
      out.push({ kind: 'decl', type: base + (stars ? ' ' + stars : ''), name, init, pos });
      if (this.accept(',')) continue;
      break;
    }
    this.expect(';', '";" after the declaration');
    return out;
  }

  private parseTypeWords(): string {
    const words: string[] = [];
    while (this.isTypeStart()) {
      const w = this.next().text;
      words.push(w);
      if (w === 'struct') words.push(this.ident('a struct name').text);
    }
    return words.join(' ');
  }

  // ----------------------------------------------------------- expressions
  parseExpr(minPrec = 1): Expr {
    let left = this.parseUnary();
    for (;;) {
      const t = this.tok;
      if (t.kind !== 'punct') break;
      const prec = BIN_PREC[t.text];
      if (prec === undefined || prec < minPrec) break;
      // `a = b` is handled by statements; `x & y` vs `&=`: compound ops are statements.
      if (this.peek().text === '=' && ['+', '-', '|', '&', '^'].includes(t.text)) break;
      // `i++`, `i--`: statements too.
      if ((t.text === '+' || t.text === '-') && this.peek().text === t.text && this.peek().pos.line === t.pos.line && this.peek().pos.col === t.pos.col + 1) break;
      this.next();
      const right = this.parseExpr(prec + 1);
      left = this.sized<Expr>({ kind: 'binary', op: t.text as BinOp, left, right, pos: t.pos }, t.pos, left, right);
    }
    return left;
  }

  private parseUnary(): Expr {
    this.enter(this.tok.pos);
    const out = this.parseUnaryHere();
    this.nesting--;
    return out;
  }

  private parseUnaryHere(): Expr {
    const t = this.tok;
    if (t.kind === 'punct') {
      if (t.text === '*') {
        this.next();
        const arg = this.parseUnary();
        return this.sized<Expr>({ kind: 'deref', arg, pos: t.pos }, t.pos, arg);
      }
      if (t.text === '&') {
        this.next();
        const arg = this.parseUnary();
        return this.sized<Expr>({ kind: 'addr', arg, pos: t.pos }, t.pos, arg);
      }
      if (t.text === '-' && this.peek().kind === 'num') {
        // A negative constant: its range is herd7's (-2147483648 is one). herd7's lexer reads it so only when the digits follow the minus.
        this.next();
        const n = this.next();
        const adjacent = n.pos.line === t.pos.line && n.pos.col === t.pos.col + 1;
        return { kind: 'num', value: numberValue(n, true, t.pos), pos: t.pos, ...(adjacent ? {} : { negated: true }) };
      }
      if (t.text === '-' || t.text === '!' || t.text === '~') {
        this.next();
        const arg = this.parseUnary();
        if (t.text === '-' && arg.kind === 'num') return { kind: 'num', value: unary32('-', arg.value), pos: t.pos, negated: true };
        return this.sized<Expr>({ kind: 'unary', op: t.text, arg, pos: t.pos }, t.pos, arg);
      }
      if (t.text === '+') {
        this.next();
        return this.parseUnary();
      }
      if (t.text === '(') {
        // A cast `(type) e`?
        const n = this.peek();
        if (n.kind === 'ident' && TYPE_WORDS.has(n.text)) {
          this.next();
          const type = this.parseTypeWords();
          let stars = '';
          while (this.accept('*')) stars += '*';
          this.expect(')', '")" closing the cast');
          const arg = this.parseUnary();
          return this.sized<Expr>({ kind: 'cast', type: type + stars, arg, pos: t.pos }, t.pos, arg);
        }
        this.next();
        const e = this.parseExpr();
        this.expect(')', '")"');
        return e;
      }
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    const t = this.tok;
    if (t.kind === 'num') {
      this.next();
      return { kind: 'num', value: numberValue(t, false, t.pos), pos: t.pos };
    }
    if (t.kind === 'ident') {
      this.next();
      if (this.is('(')) {
        this.next();
        const args: Expr[] = [];
        if (!this.is(')')) {
          for (;;) {
            args.push(this.parseExpr());
            if (this.accept(',')) continue;
            break;
          }
        }
        this.expect(')', `")" closing the arguments of ${t.text}`);
        return this.sized<Expr>({ kind: 'call', name: t.text, args, pos: t.pos }, t.pos, ...args);
      }
      return this.parsePostfix({ kind: 'name', name: t.text, pos: t.pos });
    }
    this.unexpected('an expression');
  }

  /** `e[i]`, `e.f`, `e->f` after a name. */
  private parsePostfix(e: Expr): Expr {
    for (;;) {
      const pos = this.tok.pos;
      if (this.accept('[')) {
        const index = this.parseExpr();
        this.expect(']', '"]" closing the index');
        e = this.sized<Expr>({ kind: 'index', base: e, index, pos }, pos, e, index);
      } else if (this.is('.') && this.peek().kind === 'ident') {
        this.next();
        e = this.sized<Expr>({ kind: 'field', base: e, field: this.next().text, arrow: false, pos }, pos, e);
      } else if (this.accept('->')) {
        e = this.sized<Expr>({ kind: 'field', base: e, field: this.ident('a field name').text, arrow: true, pos }, pos, e);
      } else return e;
    }
  }

  /** After a location's name in the initial state or a condition: `[1]`, `.f`, ... as one name (`a[1]`, `v.f`). */
  private parsePath(name: string): string {
    for (;;) {
      if (this.is('[') && this.peek().kind === 'num' && this.peek(2).text === ']') {
        this.next();
        name += `[${this.next().value}]`;
        this.next();
      } else if (this.is('.') && this.peek().kind === 'ident') {
        this.next();
        name += `.${this.next().text}`;
      } else return name;
    }
  }

  // ------------------------------------------------------- final clause
  private parseLocations(): LocationRef[] {
    this.expect('[', '"[" after "locations"');
    const out: LocationRef[] = [];
    while (!this.is(']')) {
      if (this.accept(';')) continue;
      const pos = this.tok.pos;
      const thread = this.parseThreadPrefix();
      if (thread !== null) {
        out.push({ thread, name: this.ident('a register').text, pos });
      } else if (this.tok.kind === 'ident') {
        out.push({ thread: null, name: this.parsePath(this.next().text), pos });
      } else if (this.accept('[')) {
        out.push({ thread: null, name: this.parsePath(this.ident('a location').text), pos });
        this.expect(']');
      } else this.unexpected('a location or a register');
      // herd7 allows a type after each location (`x int*`); it changes nothing here.
      if (this.tok.kind === 'ident') this.next();
      this.accept('*');
    }
    this.next();
    return out;
  }

  /**
   * A condition, with herd7's precedences: `\/` binds loosest, then `/\`,
   * then `=>` (right-associative), then `~`/`not`.
   */
  parseCond(): CondExpr {
    return this.parseOr();
  }

  private parseOr(): CondExpr {
    let left = this.parseAnd();
    for (let pos = this.tok.pos; this.accept('\\/'); pos = this.tok.pos) {
      const right = this.parseAnd();
      left = this.sized<CondExpr>({ kind: 'or', left, right }, pos, left, right);
    }
    return left;
  }

  private parseAnd(): CondExpr {
    let left = this.parseImplies();
    for (let pos = this.tok.pos; this.accept('/\\'); pos = this.tok.pos) {
      const right = this.parseImplies();
      left = this.sized<CondExpr>({ kind: 'and', left, right }, pos, left, right);
    }
    return left;
  }

  private parseImplies(): CondExpr {
    const left = this.parseNot();
    const pos = this.tok.pos;
    if (!this.accept('=>')) return left;
    this.enter(pos);
    const right = this.parseImplies();
    this.nesting--;
    return this.sized<CondExpr>({ kind: 'implies', left, right }, pos, left, right);
  }

  private parseNot(): CondExpr {
    this.enter(this.tok.pos);
    const out = this.parseNotHere();
    this.nesting--;
    return out;
  }

  private parseNotHere(): CondExpr {
    const pos = this.tok.pos;
    if (this.accept('~') || this.accept('not')) {
      const arg = this.parseNot();
      return this.sized<CondExpr>({ kind: 'not', arg }, pos, arg);
    }
    if (this.accept('(')) {
      const e = this.parseCond();
      this.expect(')', '")" in the condition');
      return e;
    }
    if (this.accept('true')) return { kind: 'true' };
    if (this.accept('false')) return { kind: 'false' };
    return this.parseAtom();
  }

  private parseAtom(): CondExpr {
    const pos = this.tok.pos;
    const lhs = this.parseTerm();
    let negated = false;
    if (this.accept('=') || this.accept('==')) negated = false;
    else if (this.accept('!=') || this.accept('<>')) negated = true;
    else this.unexpected('"=" in the condition');
    const bracketed = this.is('[') || this.is('*');
    const rhs = this.parseTerm();
    if (bracketed && rhs.kind === 'mem') rhs.deref = true;
    return { kind: 'eq', lhs, rhs, negated, pos };
  }

  private parseTerm(): CondTerm {
    const pos = this.tok.pos;
    const t = this.tok;
    const thread = this.parseThreadPrefix();
    if (thread !== null) return { kind: 'reg', thread, name: this.ident('a register').text, pos };
    if (t.kind === 'num') {
      this.next();
      return { kind: 'num', value: numberValue(t, false, pos), pos };
    }
    if (this.accept('-')) {
      const n = this.next();
      if (n.kind !== 'num') fail('expected a number after "-"', n.pos);
      return { kind: 'num', value: numberValue(n, true, pos), pos };
    }
    if (this.accept('[')) {
      const name = this.parsePath(this.ident('a location').text);
      this.expect(']');
      return { kind: 'mem', name, pos };
    }
    if (this.accept('*')) {
      return { kind: 'mem', name: this.parsePath(this.ident('a location').text), pos };
    }
    if (t.kind === 'ident') {
      this.next();
      return { kind: 'mem', name: this.parsePath(t.text), pos };
    }
    this.unexpected('a register ("0:r1"), a location or a value');
  }
}

export type { Pos };

/**
 * A number token's value as herd7 reads the constant (see constant32), its
 * minus sign included when `negative`; a constant herd7 refuses is an error at pos.
 */
function numberValue(t: Token, negative: boolean, pos: Pos): number {
  const digits = t.text.replace(/[uUlL]+$/, '');
  const v = constant32(digits, negative);
  if (typeof v === 'string') fail(v, pos);
  return v;
}
