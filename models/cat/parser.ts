// A recursive-descent reader for herd's cat language, with herd's operator
// precedences, loosest first: `|`, `++`, `;`, `\` (left), `&`, the
// cartesian product `S * T`, then the postfix `*`, `+`, `?`, `^-1` and the
// prefix `~`; application (`domain(rmw)`, `map f S`) binds tightest. So
// `a ; b \ c` is `a ; (b \ c)` and `~M | IW` is `(~M) | IW`.

import type { Binding, CatExpr, CatFile, CatInstr, CatPos, CheckRole, Condition, Pattern, TestKind } from './ast.js';
import { ModelError, tokenize, type Token } from './lexer.js';

/** Reads one model file; throws ModelError at the first problem. */
export function parseCat(text: string, file: string): CatFile {
  return new Parser(tokenize(text, file), file).file();
}

/** Nesting of expressions beyond this is refused (so no stack runs out). */
const MAX_DEPTH = 200;

/** Tokens that can start an argument of an application (herd's `arg`). */
function startsArgument(t: Token): boolean {
  if (t.kind === 'name' || t.kind === 'tag') return true;
  if (t.kind === 'keyword') return t.text === 'begin';
  return t.kind === 'op' && ['(', '[', '{', '_', '0'].includes(t.text);
}

/** Tokens that can start an operand (herd's `base`). */
function startsOperand(t: Token): boolean {
  return startsArgument(t) || (t.kind === 'op' && t.text === '~');
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly toks: Token[],
    private readonly fileName: string,
  ) {}

  private peek(k = 0): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)];
  }
  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  private is(kind: Token['kind'], text?: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === kind && (text === undefined || t.text === text);
  }
  private isOp(text: string): boolean {
    return this.is('op', text);
  }
  private isKw(text: string): boolean {
    return this.is('keyword', text);
  }
  private fail(message: string, at: Token = this.peek()): never {
    throw new ModelError(message, at.pos);
  }
  private describe(t: Token): string {
    return t.kind === 'eof' ? 'the end of the file' : `"${t.text}"`;
  }
  private expectOp(text: string): Token {
    if (!this.isOp(text)) this.fail(`expected "${text}", found ${this.describe(this.peek())}`);
    return this.next();
  }
  private expectKw(text: string): Token {
    if (!this.isKw(text)) this.fail(`expected "${text}", found ${this.describe(this.peek())}`);
    return this.next();
  }
  private name(what = 'a name'): string {
    const t = this.peek();
    if (t.kind !== 'name') this.fail(`expected ${what}, found ${this.describe(t)}`);
    this.next();
    return t.text;
  }

  file(): CatFile {
    let title: string | undefined;
    const options: string[] = [];
    // The first line names the model: a name or a string, maybe an option after it.
    if (this.is('name') || this.is('string')) {
      title = this.next().text;
      while ((this.is('name') && !this.startsInstr(1)) || this.is('string')) options.push(this.next().text);
    }
    const instrs: CatInstr[] = [];
    while (!this.is('eof')) instrs.push(this.instr());
    return { file: this.fileName, title, options, instrs };
  }

  /** Whether the token k ahead starts an instruction (a name after the title is then not an option). */
  private startsInstr(k: number): boolean {
    return this.is('op', '=', k) || this.is('op', '(', k);
  }

  private instrsUntil(...ends: string[]): CatInstr[] {
    const out: CatInstr[] = [];
    while (!ends.some((e) => this.isKw(e) || this.isOp(e))) {
      if (this.is('eof')) this.fail(`expected "${ends[0]}", found the end of the file`);
      out.push(this.instr());
    }
    return out;
  }

  private instr(): CatInstr {
    const t = this.peek();
    const pos = t.pos;
    if (t.kind === 'keyword') {
      switch (t.text) {
        case 'let': {
          const { rec, bindings } = this.letHead();
          if (this.isKw('when')) this.fail('"let rec ... when" is not supported');
          if (this.isKw('in')) {
            // herd accepts a top-level `let ... in` followed by instructions; the scope is the rest.
            this.next();
          }
          return { kind: 'let', rec, bindings, pos };
        }
        case 'flag':
        case 'undefined_unless':
          this.next();
          return this.test(t.text === 'flag' ? 'flag' : 'undefined-unless', pos);
        case 'acyclic':
        case 'irreflexive':
        case 'empty':
          return this.test('check', pos);
        case 'show':
        case 'unshow': {
          this.next();
          this.expr();
          while (this.isOp(',')) {
            this.next();
            this.expr();
          }
          if (this.isKw('as')) {
            this.next();
            this.name();
          }
          return { kind: 'show', pos };
        }
        case 'include': {
          this.next();
          const s = this.peek();
          if (s.kind !== 'string') this.fail('include takes a file name in quotes');
          this.next();
          return { kind: 'include', file: s.text, pos };
        }
        case 'procedure': {
          this.next();
          if (this.isKw('rec')) this.next();
          const name = this.name('a procedure name');
          const param = this.isOp('(') ? this.formalsInParens() : { kind: 'var' as const, name: this.pat0() };
          this.expectOp('=');
          const body = this.instrsUntil('end');
          this.expectKw('end');
          return { kind: 'procedure', name, param, body, pos };
        }
        case 'call': {
          this.next();
          const name = this.name('a procedure name');
          const arg = this.simple();
          let as: string | undefined;
          if (this.isKw('as')) {
            this.next();
            as = this.name();
          }
          return { kind: 'call', name, arg, as, pos };
        }
        case 'forall': {
          this.next();
          const name = this.name();
          this.expectKw('in');
          const set = this.expr();
          this.expectKw('do');
          const body = this.instrsUntil('end');
          this.expectKw('end');
          return { kind: 'forall', name, set, body, pos };
        }
        case 'with': {
          this.next();
          const name = this.name();
          this.expectKw('from');
          return { kind: 'with', name, from: this.expr(), pos };
        }
        case 'enum': {
          this.next();
          const name = this.name('an enumeration name');
          this.expectOp('=');
          if (this.isOp('||')) this.next();
          const tags = [this.tag()];
          while (this.isOp('||')) {
            this.next();
            tags.push(this.tag());
          }
          return { kind: 'enum', name, tags, pos };
        }
        case 'instructions':
        case 'default': {
          this.next();
          const name = this.name();
          this.expectOp('[');
          const args = this.isOp(']') ? [] : this.args();
          this.expectOp(']');
          return { kind: 'events', name, args, pos };
        }
        case 'if': {
          this.next();
          const cond = this.condition();
          this.expectKw('then');
          const then = this.instrsUntil('else', 'end');
          let otherwise: CatInstr[] = [];
          if (this.isKw('else')) {
            this.next();
            otherwise = this.instrsUntil('end');
          }
          this.expectKw('end');
          return { kind: 'if', cond, then, otherwise, pos };
        }
        case 'match': {
          this.next();
          const subject = this.expr();
          this.expectKw('with');
          if (this.isOp('||')) this.next();
          const clauses: { tag: string; body: CatInstr[] }[] = [];
          let fallback: CatInstr[] | undefined;
          for (;;) {
            if (this.isOp('_')) {
              this.next();
              this.expectOp('->');
              fallback = this.instrsUntil('||', 'end');
            } else {
              const tag = this.tag();
              this.expectOp('->');
              clauses.push({ tag, body: this.instrsUntil('||', 'end') });
            }
            if (!this.isOp('||')) break;
            this.next();
          }
          this.expectKw('end');
          return { kind: 'match', subject, clauses, fallback, pos };
        }
        case 'debug':
          this.next();
          this.expr();
          return { kind: 'debug', pos };
      }
    }
    if (t.kind === 'op' && t.text === '~' && this.is('keyword', undefined, 1)) return this.test('check', pos);
    return this.fail(`expected an instruction (let, acyclic, irreflexive, empty, flag, include, ...), found ${this.describe(t)}`);
  }

  private tag(): string {
    const t = this.peek();
    if (t.kind !== 'tag') this.fail(`expected a tag ('name), found ${this.describe(t)}`);
    this.next();
    return t.text;
  }

  private test(role: CheckRole, pos: CatPos): CatInstr {
    let negated = false;
    if (this.isOp('~')) {
      this.next();
      negated = true;
    }
    const t = this.peek();
    if (t.kind !== 'keyword' || !['acyclic', 'irreflexive', 'empty'].includes(t.text)) {
      this.fail(`expected acyclic, irreflexive or empty, found ${this.describe(t)}`);
    }
    this.next();
    const expr = this.expr();
    let name: string | undefined;
    if (this.isKw('as')) {
      this.next();
      name = this.name('a name after "as"');
    }
    return { kind: 'test', role, test: t.text as TestKind, negated, expr, name, pos };
  }

  private pat0(): string | null {
    if (this.isOp('_')) {
      this.next();
      return null;
    }
    return this.name('a parameter name');
  }

  private formalsInParens(): Pattern {
    this.expectOp('(');
    const names: (string | null)[] = [];
    if (!this.isOp(')')) {
      names.push(this.pat0());
      while (this.isOp(',')) {
        this.next();
        names.push(this.pat0());
      }
    }
    this.expectOp(')');
    return names.length === 1 ? { kind: 'var', name: names[0] } : { kind: 'tuple', names };
  }

  /** `let [rec] b1 and b2 ...`, up to what follows the bindings. */
  private letHead(): { rec: boolean; bindings: Binding[] } {
    this.expectKw('let');
    const rec = this.isKw('rec') ? (this.next(), true) : false;
    return { rec, bindings: this.bindings() };
  }

  private bindings(): Binding[] {
    const out = [this.binding()];
    while (this.isKw('and')) {
      this.next();
      out.push(this.binding());
    }
    return out;
  }

  private binding(): Binding {
    const pos = this.peek().pos;
    if (this.isOp('(')) {
      const pattern = this.formalsInParens();
      this.expectOp('=');
      return { pattern, expr: this.expr(), pos };
    }
    const first = this.pat0();
    if (this.isOp(',')) {
      const names = [first];
      while (this.isOp(',')) {
        this.next();
        names.push(this.pat0());
      }
      this.expectOp('=');
      return { pattern: { kind: 'tuple', names }, expr: this.expr(), pos };
    }
    if (this.isOp('=')) {
      this.next();
      return { pattern: { kind: 'var', name: first }, expr: this.expr(), pos };
    }
    if (first === null) this.fail('expected "=" after "_"');
    // A function: `f x = e` or `f(x, y) = e`.
    const param = this.isOp('(') ? this.formalsInParens() : { kind: 'var' as const, name: this.pat0() };
    this.expectOp('=');
    const body = this.expr();
    return { pattern: { kind: 'var', name: first }, expr: { kind: 'fun', param, body, name: first, pos }, pos };
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail(`expression nested more than ${MAX_DEPTH} deep`);
  }

  /** herd's `exp`: let/fun/try/if/match, or operands, maybe a tuple. */
  expr(): CatExpr {
    this.enter();
    try {
      return this.exprInner();
    } finally {
      this.depth--;
    }
  }

  private exprInner(): CatExpr {
    const t = this.peek();
    const pos = t.pos;
    if (t.kind === 'keyword') {
      switch (t.text) {
        case 'let': {
          const { rec, bindings } = this.letHead();
          this.expectKw('in');
          return { kind: 'let', rec, bindings, body: this.expr(), pos };
        }
        case 'fun': {
          this.next();
          const param = this.isOp('(') ? this.formalsInParens() : { kind: 'var' as const, name: this.pat0() };
          this.expectOp('->');
          return { kind: 'fun', param, body: this.expr(), name: '*fun*', pos };
        }
        case 'try': {
          this.next();
          const body = this.expr();
          this.expectKw('with');
          return { kind: 'try', body, otherwise: this.expr(), pos };
        }
        case 'if': {
          this.next();
          const cond = this.condition();
          this.expectKw('then');
          const then = this.expr();
          this.expectKw('else');
          return { kind: 'if', cond, then, otherwise: this.expr(), pos };
        }
        case 'match':
          return this.matchExpr();
      }
    }
    const first = this.operand(0);
    if (!this.isOp(',')) return first;
    const elems = [first];
    while (this.isOp(',')) {
      this.next();
      elems.push(this.operand(0));
    }
    return { kind: 'tuple', elems, pos };
  }

  private condition(): Condition {
    const t = this.peek();
    if (t.kind === 'string') {
      this.next();
      return { kind: 'variant', name: t.text, pos: t.pos };
    }
    const left = this.operand(0);
    if (this.isOp('=')) {
      this.next();
      return { kind: 'equal', left, right: this.operand(0), pos: t.pos };
    }
    if (this.isKw('subset')) {
      this.next();
      return { kind: 'subset', left, right: this.operand(0), pos: t.pos };
    }
    if (this.isKw('in')) {
      this.next();
      return { kind: 'in', left, right: this.operand(0), pos: t.pos };
    }
    return this.fail(`expected a condition ("variant", e1 = e2, e1 subset e2, e1 in e2), found ${this.describe(this.peek())}`);
  }

  private matchExpr(): CatExpr {
    const pos = this.expectKw('match').pos;
    const subject = this.expr();
    this.expectKw('with');
    if (this.isOp('||')) this.next();
    // Set clauses: `{} -> e` and `x ++ rest -> e`, in either order.
    if (this.isOp('{') || ((this.is('name') || this.isOp('_')) && this.is('op', '++', 1))) {
      let ifEmpty: CatExpr | undefined;
      let elem: { elem: string | null; rest: string | null; body: CatExpr } | undefined;
      for (let k = 0; k < 2; k++) {
        if (this.isOp('{')) {
          this.next();
          this.expectOp('}');
          this.expectOp('->');
          ifEmpty = this.expr();
        } else {
          const e = this.pat0();
          if (this.isOp('|')) this.fail('"x | y ++ S" clauses are not supported');
          this.expectOp('++');
          const rest = this.pat0();
          this.expectOp('->');
          elem = { elem: e, rest, body: this.expr() };
        }
        if (k === 0) this.expectOp('||');
      }
      this.expectKw('end');
      if (!ifEmpty || !elem) this.fail('a match on a set needs one "{} -> ..." clause and one "x ++ rest -> ..." clause', this.toks[this.i - 1]);
      return { kind: 'match-set', subject, ifEmpty, ...elem, pos };
    }
    const clauses: { tag: string; body: CatExpr }[] = [];
    let fallback: CatExpr | undefined;
    for (;;) {
      if (this.isOp('_')) {
        this.next();
        this.expectOp('->');
        fallback = this.expr();
      } else {
        const tag = this.tag();
        this.expectOp('->');
        clauses.push({ tag, body: this.expr() });
      }
      if (!this.isOp('||')) break;
      this.next();
    }
    this.expectKw('end');
    return { kind: 'match-tag', subject, clauses, fallback, pos };
  }

  /** Binding powers of the infix operators: [left, right]. */
  private static readonly INFIX: Record<string, [number, number, CatExpr & { kind: 'binary' } extends { op: infer O } ? O : never]> = {
    '|': [10, 10, 'union'],
    '++': [20, 20, 'add'],
    ';': [30, 30, 'seq'],
    '\\': [40, 41, 'diff'],
    '&': [50, 50, 'inter'],
    '*': [60, 61, 'cartesian'],
  };

  /** herd's `base` at binding power minBp (Pratt style). */
  private operand(minBp: number): CatExpr {
    this.enter();
    try {
      let left = this.prefix();
      for (;;) {
        const t = this.peek();
        if (t.kind !== 'op') break;
        // Postfix operators bind tighter than every infix one.
        if (t.text === '*' && !startsOperand(this.peek(1))) {
          this.next();
          left = { kind: 'unary', op: 'star', arg: left, pos: t.pos };
          continue;
        }
        if (t.text === '+' || t.text === '?') {
          this.next();
          left = { kind: 'unary', op: t.text === '+' ? 'plus' : 'opt', arg: left, pos: t.pos };
          continue;
        }
        if (t.text === '^') {
          this.next();
          this.expectOp('-1');
          left = { kind: 'unary', op: 'inv', arg: left, pos: t.pos };
          continue;
        }
        const infix = Parser.INFIX[t.text];
        if (!infix || infix[0] < minBp) break;
        this.next();
        const right = this.operand(infix[1]);
        const op = infix[2];
        // Chains of one associative operator are kept flat, as herd does.
        if ((op === 'union' || op === 'seq') && left.kind === 'binary' && left.op === op && right.kind === 'binary' && right.op === op) {
          left = { kind: 'binary', op, args: [...left.args, ...right.args], pos: left.pos };
        } else if ((op === 'union' || op === 'seq') && right.kind === 'binary' && right.op === op) {
          left = { kind: 'binary', op, args: [left, ...right.args], pos: left.pos };
        } else if ((op === 'union' || op === 'seq') && left.kind === 'binary' && left.op === op) {
          left = { kind: 'binary', op, args: [...left.args, right], pos: left.pos };
        } else {
          left = { kind: 'binary', op, args: [left, right], pos: left.pos };
        }
      }
      return left;
    } finally {
      this.depth--;
    }
  }

  /** `~x` (its operand with postfix `^-1` only), or an application. */
  private prefix(): CatExpr {
    const t = this.peek();
    if (t.kind === 'op' && t.text === '~') {
      this.next();
      let arg = this.application();
      while (this.isOp('^')) {
        const h = this.next();
        this.expectOp('-1');
        arg = { kind: 'unary', op: 'inv', arg, pos: h.pos };
      }
      return { kind: 'unary', op: 'comp', arg, pos: t.pos };
    }
    return this.application();
  }

  /** A name applied to arguments (`domain(rmw)`, `map f S`), or a simple expression. */
  private application(): CatExpr {
    const t = this.peek();
    if (t.kind !== 'name') return this.simple();
    this.next();
    let e: CatExpr = { kind: 'var', name: t.text, pos: t.pos };
    while (startsArgument(this.peek())) {
      const a = this.peek();
      const arg: CatExpr = a.kind === 'name' ? (this.next(), { kind: 'var', name: a.text, pos: a.pos }) : this.simple();
      e = { kind: 'app', fn: e, arg, pos: t.pos };
    }
    return e;
  }

  /** herd's `simple`: 0, _, a tag, {..}, (), (e), begin e end, [e]. */
  private simple(): CatExpr {
    const t = this.peek();
    const pos = t.pos;
    if (t.kind === 'tag') {
      this.next();
      return { kind: 'tag', name: t.text, pos };
    }
    if (t.kind === 'keyword' && t.text === 'begin') {
      this.next();
      const e = this.expr();
      this.expectKw('end');
      return e;
    }
    if (t.kind === 'name') {
      this.next();
      return { kind: 'var', name: t.text, pos };
    }
    if (t.kind === 'op') {
      switch (t.text) {
        case '0':
          this.next();
          return { kind: 'empty', pos };
        case '_':
          this.next();
          return { kind: 'universe', pos };
        case '{': {
          this.next();
          const elems = this.isOp('}') ? [] : this.args();
          this.expectOp('}');
          return { kind: 'explicit', elems, pos };
        }
        case '(': {
          this.next();
          if (this.isOp(')')) {
            this.next();
            return { kind: 'tuple', elems: [], pos };
          }
          const e = this.expr();
          this.expectOp(')');
          return e;
        }
        case '[': {
          this.next();
          const e = this.expr();
          this.expectOp(']');
          return { kind: 'unary', op: 'toid', arg: e, pos };
        }
      }
    }
    return this.fail(`expected an expression, found ${this.describe(t)}`);
  }

  private args(): CatExpr[] {
    const out = [this.operand(0)];
    while (this.isOp(',')) {
      this.next();
      out.push(this.operand(0));
    }
    return out;
  }
}
