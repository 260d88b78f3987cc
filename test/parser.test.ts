import { describe, expect, it } from 'vitest';
import { parseLitmus, headerResult } from '../src/parse/parser.js';
import { LitmusError } from '../src/parse/errors.js';
import { checkSource } from '../src/check.js';
import { buildProgram } from '../src/program/program.js';
import { lkmm } from '../models/lkmm.js';
import type { CondExpr, Expr, LitmusTest, Stmt } from '../src/parse/ast.js';
import { stripPos } from './util.js';
import { MP_REL_ACQ } from './shapes.js';

/** A one-process test around `body`, with `init` and a final clause. */
function one(body: string, opts: { init?: string; params?: string; cond?: string } = {}): string {
  return `C t\n{\n${opts.init ?? ''}\n}\nP0(${opts.params ?? 'int *x, int *y'})\n{\n${body}\n}\n${opts.cond ?? 'exists (x=1)'}\n`;
}

function bodyOf(text: string): Stmt[] {
  return parseLitmus(text).processes[0].body;
}

/** The expression assigned by the last statement `r = <expr>;` of P0. */
function exprOf(src: string, decls = 'int r0; int r1; int r2;'): Expr {
  const body = bodyOf(one(`${decls}\n r0 = ${src};`));
  const last = body[body.length - 1];
  if (last.kind !== 'assign') throw new Error(`not an assignment: ${last.kind}`);
  return stripPos(last.value) as Expr;
}

/** Fully parenthesised rendering of an expression, to check precedence. */
function show(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return String(e.value);
    case 'name':
      return e.name;
    case 'deref':
      return `*${show(e.arg)}`;
    case 'addr':
      return `&${show(e.arg)}`;
    case 'unary':
      return `${e.op}${show(e.arg)}`;
    case 'cast':
      return `(${e.type})${show(e.arg)}`;
    case 'call':
      return `${e.name}(${e.args.map(show).join(',')})`;
    case 'binary':
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
  }
}

function showCond(c: CondExpr): string {
  switch (c.kind) {
    case 'true':
    case 'false':
      return c.kind;
    case 'not':
      return `~${showCond(c.arg)}`;
    case 'and':
      return `(${showCond(c.left)} & ${showCond(c.right)})`;
    case 'or':
      return `(${showCond(c.left)} | ${showCond(c.right)})`;
    case 'implies':
      return `(${showCond(c.left)} => ${showCond(c.right)})`;
    case 'eq': {
      const t = (x: typeof c.lhs) => (x.kind === 'num' ? String(x.value) : x.kind === 'reg' ? `${x.thread}:${x.name}` : `[${x.name}]`);
      return `${t(c.lhs)}${c.negated ? '!=' : '='}${t(c.rhs)}`;
    }
  }
}

function condOf(cond: string): { q: string; c: string } {
  const t = parseLitmus(one('int r0; int r1; r0 = READ_ONCE(*x); r1 = READ_ONCE(*y);', { cond }));
  return { q: t.quantifier, c: showCond(t.condition) };
}

/** The LitmusError thrown by parsing and building `text` (checkSource). */
function errorOf(text: string): LitmusError {
  try {
    checkSource(text, { model: lkmm });
  } catch (e) {
    if (e instanceof LitmusError) return e;
    throw new Error(`expected a LitmusError, got ${String(e)}`);
  }
  throw new Error('expected a LitmusError, but the test was accepted');
}

describe('header', () => {
  it('reads the architecture and the name from the first line', () => {
    const t = parseLitmus(one('WRITE_ONCE(*x, 1);').replace('C t', 'C MP+pooncerelease+poacquireonce'));
    expect(t.arch).toBe('C');
    expect(t.name).toBe('MP+pooncerelease+poacquireonce');
  });

  it('accepts names with dots and dashes, and leading blank lines', () => {
    const t = parseLitmus('\n\n' + one('WRITE_ONCE(*x, 1);').replace('C t', 'C Z6.0+o-r.x'));
    expect(t.name).toBe('Z6.0+o-r.x');
  });

  it('skips a doc string after the name', () => {
    const t = parseLitmus(one('WRITE_ONCE(*x, 1);').replace('C t', 'C t\n"Fre PodWR Fre PodWR"'));
    expect(t.name).toBe('t');
    expect(t.processes).toHaveLength(1);
  });

  it('rejects a non-C test at 1:1', () => {
    const e = errorOf(one('WRITE_ONCE(*x, 1);').replace('C t', 'X86 t'));
    expect(e.message).toBe('only C litmus tests are supported (this one is "X86")');
    expect(e.pos).toEqual({ line: 1, col: 1 });
  });

  it('rejects a file without a name', () => {
    const e = errorOf('C\n');
    expect(e.message).toBe('a litmus test starts with "C <name>"');
    expect(e.pos).toEqual({ line: 1, col: 1 });
  });
});

describe('comments', () => {
  it('skips OCaml comments, nested ones included', () => {
    const t = parseLitmus(`C t\n(* one (* nested *) still comment *)\n{ x=1; (* in init *) }\nP0(int *x)\n{\n(* in code *) WRITE_ONCE(*x, 2);\n}\nexists (* here too *) (x=2)\n`);
    expect(t.init).toHaveLength(1);
    expect(t.processes[0].body).toHaveLength(1);
    expect(t.quantifier).toBe('exists');
  });

  it('skips C block comments and line comments', () => {
    const t = parseLitmus(`C t\n/* block\n comment */\n{ x=1; // line comment\n}\nP0(int *x) // params\n{\n\tWRITE_ONCE(*x, 2); /* trailing */\n\t// WRITE_ONCE(*x, 3);\n}\nexists (x=2) // end\n`);
    expect(t.init.map((i) => i.name)).toEqual(['x']);
    expect(t.processes[0].body).toHaveLength(1);
  });

  it('keeps "(*x)" in code as a parenthesised dereference, not a comment', () => {
    const body = bodyOf(one('int r0;\n r0 = (*x);\n (*y) = r0;'));
    expect(stripPos(body[1])).toEqual({ kind: 'assign', target: { kind: 'name', name: 'r0' }, value: { kind: 'deref', arg: { kind: 'name', name: 'x' } } });
    expect(stripPos(body[2])).toEqual({ kind: 'assign', target: { kind: 'deref', arg: { kind: 'name', name: 'y' } }, value: { kind: 'name', name: 'r0' } });
  });

  it('counts lines inside comments for positions', () => {
    const t = parseLitmus(`C t\n(*\n * line 3\n * line 4\n *)\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n`);
    expect(t.processes[0].body[0].pos).toEqual({ line: 9, col: 2 });
    expect(t.conditionPos).toEqual({ line: 11, col: 1 });
  });

  it('reports an unterminated comment where it starts', () => {
    const e = errorOf(`C t\n{}\n(* never closed\nP0(int *x) { }\nexists (x=1)\n`);
    expect(e.message).toBe('unterminated comment "(*"');
    expect(e.pos).toEqual({ line: 3, col: 1 });
  });
});

describe('Result: line', () => {
  it('reads the Result: word of the header comment', () => {
    const text = `C t\n\n(*\n * Result: Sometimes\n *\n * prose\n *)\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n`;
    expect(parseLitmus(text).result).toBe('Sometimes');
    expect(headerResult(text)).toBe('Sometimes');
  });

  it('reads Never, Always and DEADLOCK', () => {
    for (const w of ['Never', 'Always', 'DEADLOCK']) {
      expect(parseLitmus(`C t\n(* Result: ${w} *)\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n`).result).toBe(w);
    }
  });

  it('is undefined without a Result: line', () => {
    expect(parseLitmus(one('WRITE_ONCE(*x, 1);')).result).toBeUndefined();
  });

  it('ignores a Result: that comes after the initial state', () => {
    const text = `C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); (* Result: Never *) }\nexists (x=1)\n`;
    expect(parseLitmus(text).result).toBeUndefined();
  });
});

describe('initial state', () => {
  it('accepts an empty initial state', () => {
    expect(parseLitmus(one('WRITE_ONCE(*x, 1);')).init).toEqual([]);
    expect(parseLitmus(one('WRITE_ONCE(*x, 1);').replace('{\n\n}', '{}')).init).toEqual([]);
  });

  it('parses every initialiser form', () => {
    const init = [
      'x=1;',
      'int y;',
      'int z = 2;',
      'atomic_t a = ATOMIC_INIT(1);',
      'spinlock_t l;',
      'int *p = &x;',
      'q=x;',
      '0:r1=x;',
      'P1:r2=-3;',
      'int n = -4;',
      'int *np = NULL;',
    ].join('\n');
    const t = parseLitmus(one('WRITE_ONCE(*x, 1);', { init }));
    expect(stripPos(t.init)).toEqual([
      { thread: null, name: 'x', value: { kind: 'num', value: 1 } },
      { thread: null, name: 'y', type: 'int' },
      { thread: null, name: 'z', type: 'int', value: { kind: 'num', value: 2 } },
      { thread: null, name: 'a', type: 'atomic_t', value: { kind: 'num', value: 1 } },
      { thread: null, name: 'l', type: 'spinlock_t' },
      { thread: null, name: 'p', type: 'int *', value: { kind: 'loc', name: 'x' } },
      { thread: null, name: 'q', value: { kind: 'loc', name: 'x' } },
      { thread: 0, name: 'r1', value: { kind: 'loc', name: 'x' } },
      { thread: 1, name: 'r2', value: { kind: 'num', value: -3 } },
      { thread: null, name: 'n', type: 'int', value: { kind: 'num', value: -4 } },
      { thread: null, name: 'np', type: 'int *', value: { kind: 'num', value: 0 } },
    ]);
  });

  it('accepts several declarators in one line, hex numbers and C suffixes', () => {
    const t = parseLitmus(one('WRITE_ONCE(*x, 1);', { init: 'int a = 0x10, b = 3UL;' }));
    expect(stripPos(t.init)).toEqual([
      { thread: null, name: 'a', type: 'int', value: { kind: 'num', value: 16 } },
      { thread: null, name: 'b', type: 'int', value: { kind: 'num', value: 3 } },
    ]);
  });

  it('records positions of the initialisers', () => {
    const t = parseLitmus('C t\n{\n  x=1;\n  int y = 2;\n}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n');
    expect(t.init[0].pos).toEqual({ line: 3, col: 3 });
    expect(t.init[1].pos).toEqual({ line: 4, col: 7 });
  });

  it('gives the initial values to the program (x=1, register holding &x)', () => {
    const r = checkSource(
      one('int r0; r0 = READ_ONCE(*x);', { init: 'x=1; 0:r9=y;', cond: 'exists (0:r0=1 /\\ 0:r9=y)' }).replace('P0(int *x, int *y)', 'P0(int *x, int *y)'),
      { model: lkmm },
    );
    expect(r.observation).toBe('Always');
  });

  it('reads arrays with their sizes and initialiser lists, and values of one element', () => {
    const t = parseLitmus(one('WRITE_ONCE(*x, 1);', { init: 'int a[2] = {1, 2}; a[1]=3;' }));
    expect(stripPos(t.init)).toEqual([
      { thread: null, name: 'a', type: 'int', dims: [2], values: [{ kind: 'num', value: 1 }, { kind: 'num', value: 2 }] },
      { thread: null, name: 'a[1]', value: { kind: 'num', value: 3 } },
    ]);
  });

  it('refuses an array size that is no positive number', () => {
    const e = errorOf(one('WRITE_ONCE(*x, 1);', { init: 'int a[0];' }));
    expect(e.message).toBe("an array's size is a positive number");
    expect(e.pos).toEqual({ line: 3, col: 7 });
  });

  it('reports a missing ";" between initial values (herd7 allows none after the last)', () => {
    const e = errorOf('C t\n{ x=1\ny=2 }\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n');
    expect(e.message).toBe('expected ";" after an initial value, found "y"');
    expect(e.pos).toEqual({ line: 3, col: 1 });
    expect(parseLitmus('C t\n{ x=1\n}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n').init).toHaveLength(1);
  });
});

describe('processes', () => {
  it('parses parameters with their types', () => {
    const t = parseLitmus(`C t\n{}\nP0(int *x, atomic_t *a, spinlock_t *l, int **pp, struct foo *s)\n{\n}\nexists (x=1)\n`);
    expect(t.processes[0].params.map((p) => [p.type, p.name])).toEqual([
      ['int *', 'x'],
      ['atomic_t *', 'a'],
      ['spinlock_t *', 'l'],
      ['int * *', 'pp'],
      ['struct foo *', 's'],
    ]);
  });

  it('accepts a process without parameters and several processes in order', () => {
    const t = parseLitmus(`C t\n{}\nP0()\n{\n}\nP1(int *x)\n{\n WRITE_ONCE(*x, 1);\n}\nP2(int *x)\n{\n}\nexists (x=1)\n`);
    expect(t.processes.map((p) => [p.index, p.params.length, p.body.length])).toEqual([
      [0, 0, 0],
      [1, 1, 1],
      [2, 1, 0],
    ]);
  });

  it('reports a parameter without a type', () => {
    const e = errorOf(`C t\n{}\nP0(x)\n{\n}\nexists (x=1)\n`);
    expect(e.message).toBe('parameter "x" needs a type, e.g. "int *x"');
    expect(e.pos).toEqual({ line: 3, col: 4 });
  });

  it('reports a test without processes', () => {
    const e = errorOf('C t\n{}\nexists (x=1)\n');
    expect(e.message).toBe('expected a process "P0(...) { ... }", found "exists"');
    expect(e.pos).toEqual({ line: 3, col: 1 });
  });

  it('reports a missing process', () => {
    const e = errorOf('C t\n{}\nP0(int *x) { }\nP2(int *x) { }\nexists (x=1)\n');
    expect(e.message).toBe('process P1 is missing');
  });
});

describe('declarations and statements', () => {
  it('parses "int r0;" and "int r0 = e;"', () => {
    const body = bodyOf(one('int r0;\n int r1 = 3;\n int r2 = r1 + 1, *r3;'));
    expect(stripPos(body)).toEqual([
      { kind: 'decl', type: 'int', name: 'r0' },
      { kind: 'decl', type: 'int', name: 'r1', init: { kind: 'num', value: 3 } },
      { kind: 'decl', type: 'int', name: 'r2', init: { kind: 'binary', op: '+', left: { kind: 'name', name: 'r1' }, right: { kind: 'num', value: 1 } } },
      { kind: 'decl', type: 'int *', name: 'r3' },
    ]);
  });

  it('parses assignments, plain loads and stores, and calls as statements', () => {
    const body = bodyOf(one('int r0;\n r0 = *x;\n *y = 2;\n WRITE_ONCE(*x, r0);\n smp_mb();'));
    expect(stripPos(body.slice(1))).toEqual([
      { kind: 'assign', target: { kind: 'name', name: 'r0' }, value: { kind: 'deref', arg: { kind: 'name', name: 'x' } } },
      { kind: 'assign', target: { kind: 'deref', arg: { kind: 'name', name: 'y' } }, value: { kind: 'num', value: 2 } },
      { kind: 'expr', expr: { kind: 'call', name: 'WRITE_ONCE', args: [{ kind: 'deref', arg: { kind: 'name', name: 'x' } }, { kind: 'name', name: 'r0' }] } },
      { kind: 'expr', expr: { kind: 'call', name: 'smp_mb', args: [] } },
    ]);
  });

  it('turns compound assignments into a binary operation', () => {
    const body = bodyOf(one('int r0 = 1;\n r0 += 2;\n r0 |= 4;'));
    expect(stripPos(body[1])).toEqual({
      kind: 'assign',
      target: { kind: 'name', name: 'r0' },
      value: { kind: 'binary', op: '+', left: { kind: 'name', name: 'r0' }, right: { kind: 'num', value: 2 } },
    });
    expect((stripPos(body[2]) as { value: { op: string } }).value.op).toBe('|');
  });

  it('parses if/else with blocks and single statements', () => {
    const body = bodyOf(one('int r0;\n r0 = READ_ONCE(*x);\n if (r0 == 1) { WRITE_ONCE(*y, 1); } else WRITE_ONCE(*y, 2);\n if (r0) WRITE_ONCE(*y, 3);'));
    const s = stripPos(body[2]) as Extract<Stmt, { kind: 'if' }>;
    expect(s.kind).toBe('if');
    expect(show(s.cond)).toBe('(r0 == 1)');
    expect(s.then.kind).toBe('block');
    expect(s.else?.kind).toBe('expr');
    const s2 = body[3] as Extract<Stmt, { kind: 'if' }>;
    expect(s2.else).toBeUndefined();
    expect(s2.then.kind).toBe('expr');
  });

  it('binds a dangling else to the nearest if', () => {
    const body = bodyOf(one('int r0;\n if (r0) if (r0 == 2) WRITE_ONCE(*x, 1); else WRITE_ONCE(*x, 2);'));
    const outer = body[1] as Extract<Stmt, { kind: 'if' }>;
    expect(outer.else).toBeUndefined();
    expect(outer.then.kind).toBe('if');
    expect((outer.then as Extract<Stmt, { kind: 'if' }>).else?.kind).toBe('expr');
  });

  it('parses while loops', () => {
    const body = bodyOf(one('int r0 = 0;\n while (r0 == 0) { r0 = READ_ONCE(*x); }\n while (r0 < 3) r0 = r0 + 1;'));
    const w = stripPos(body[1]) as Extract<Stmt, { kind: 'while' }>;
    expect(w.kind).toBe('while');
    expect(show(w.cond)).toBe('(r0 == 0)');
    expect(w.body.kind).toBe('block');
    expect((body[2] as Extract<Stmt, { kind: 'while' }>).body.kind).toBe('assign');
  });

  it('keeps empty statements and nested blocks', () => {
    const body = bodyOf(one(';\n { WRITE_ONCE(*x, 1); { ; } }'));
    expect(body.map((s) => s.kind)).toEqual(['empty', 'block']);
  });

  it('records statement positions', () => {
    const body = bodyOf('C t\n{}\nP0(int *x)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}\nexists (x=1)\n');
    expect(body[0].pos).toEqual({ line: 5, col: 6 }); // a declaration is at its name
    expect(body[1].pos).toEqual({ line: 6, col: 2 });
  });

  it('rejects goto and switch with a hint, return outside a helper function', () => {
    for (const w of ['goto', 'switch']) {
      const e = errorOf(`C t\n{}\nP0(int *x)\n{\n  ${w} (;;) ;\n}\nexists (x=1)\n`);
      expect(e.message).toBe(`"${w}" statements are not supported (use "if", loops and "break")`);
      expect(e.pos).toEqual({ line: 5, col: 3 });
    }
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n  return;\n}\nexists (x=1)\n');
    expect(e.message).toBe('"return" outside a helper function');
    expect(e.pos).toEqual({ line: 5, col: 3 });
  });
});

describe('expressions', () => {
  it('parses casts', () => {
    expect(show(exprOf('(int)r1 + (uintptr_t)x'))).toBe('((int)r1 + (uintptr_t)x)');
    expect(show(exprOf('(int *)r1'))).toBe('(int*)r1');
    expect(exprOf('(unsigned long)r1')).toEqual({ kind: 'cast', type: 'unsigned long', arg: { kind: 'name', name: 'r1' } });
  });

  it('parses every binary operator', () => {
    for (const op of ['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>', '==', '!=', '<', '<=', '>', '>=', '&&', '||']) {
      expect(exprOf(`r1 ${op} r2`)).toEqual({ kind: 'binary', op, left: { kind: 'name', name: 'r1' }, right: { kind: 'name', name: 'r2' } });
    }
  });

  it('parses unary operators, dereference and address-of', () => {
    expect(exprOf('!r1')).toEqual({ kind: 'unary', op: '!', arg: { kind: 'name', name: 'r1' } });
    expect(exprOf('~r1')).toEqual({ kind: 'unary', op: '~', arg: { kind: 'name', name: 'r1' } });
    expect(exprOf('-r1')).toEqual({ kind: 'unary', op: '-', arg: { kind: 'name', name: 'r1' } });
    expect(exprOf('-5')).toEqual({ kind: 'num', value: -5 });
    expect(exprOf('+5')).toEqual({ kind: 'num', value: 5 });
    expect(exprOf('&x')).toEqual({ kind: 'addr', arg: { kind: 'name', name: 'x' } });
    expect(exprOf('**x')).toEqual({ kind: 'deref', arg: { kind: 'deref', arg: { kind: 'name', name: 'x' } } });
  });

  it('follows C precedence and left associativity', () => {
    expect(show(exprOf('r1 + r2 * 3'))).toBe('(r1 + (r2 * 3))');
    expect(show(exprOf('r1 - r2 - 3'))).toBe('((r1 - r2) - 3)');
    expect(show(exprOf('r1 / r2 % 3'))).toBe('((r1 / r2) % 3)');
    expect(show(exprOf('r1 << 1 + 2'))).toBe('(r1 << (1 + 2))');
    expect(show(exprOf('r1 & r2 == 3'))).toBe('(r1 & (r2 == 3))');
    expect(show(exprOf('r1 | r2 ^ r1 & 3'))).toBe('(r1 | (r2 ^ (r1 & 3)))');
    expect(show(exprOf('r1 < 2 == r2 >= 3'))).toBe('((r1 < 2) == (r2 >= 3))');
    expect(show(exprOf('r1 || r2 && !r1'))).toBe('(r1 || (r2 && !r1))');
    expect(show(exprOf('(r1 + r2) * 3'))).toBe('((r1 + r2) * 3)');
    expect(show(exprOf('-r1 * 2'))).toBe('(-r1 * 2)');
  });

  it('parses calls with nested calls as arguments', () => {
    expect(show(exprOf('atomic_add_return(READ_ONCE(*y), x)'))).toBe('atomic_add_return(READ_ONCE(*y),x)');
    expect(show(exprOf('cmpxchg(x, 0, 1)'))).toBe('cmpxchg(x,0,1)');
  });

  it('computes with every operator as C does', () => {
    const cases: [string, number][] = [
      ['7 + 3', 10], ['7 - 3', 4], ['7 * 3', 21], ['7 / 2', 3], ['7 % 3', 1], ['6 & 3', 2], ['6 | 3', 7], ['6 ^ 3', 5],
      ['1 << 3', 8], ['16 >> 2', 4], ['2 == 2', 1], ['2 != 2', 0], ['1 < 2', 1], ['2 <= 1', 0], ['3 > 2', 1], ['2 >= 3', 0],
      ['1 && 0', 0], ['1 || 0', 1], ['!0', 1], ['!5', 0], ['-(3)', -3], ['1 + 2 * 3', 7], ['(1 + 2) * 3', 9], ['(int)5', 5],
    ];
    for (const [e, v] of cases) {
      const r = checkSource(one(`int r0;\n r0 = ${e};`, { cond: `exists (0:r0=${v})` }), { model: lkmm });
      expect(r.observation, e).toBe('Always');
    }
  });

  it('an index beyond a scalar variable is out of its bounds, with its position', () => {
    const e = errorOf(one('int r0;\n r0 = x[1];'));
    expect(e.message).toBe('index 1 is out of bounds: x has 1 element');
    expect(e.pos).toEqual({ line: 8, col: 9 });
  });

  it('rejects a bad number', () => {
    const e = errorOf(one('int r0;\n r0 = 12ab;'));
    expect(e.message).toBe('bad number "12a"');
    expect(e.pos).toEqual({ line: 8, col: 7 });
  });

  it('rejects an unexpected character', () => {
    const e = errorOf(one('int r0;\n r0 = 1 @ 2;'));
    expect(e.message).toBe('unexpected character "@"');
    expect(e.pos).toEqual({ line: 8, col: 9 });
  });
});

describe('final clause', () => {
  it('parses exists, ~exists and forall', () => {
    expect(condOf('exists (0:r0=1)')).toEqual({ q: 'exists', c: '0:r0=1' });
    expect(condOf('~exists (0:r0=1)')).toEqual({ q: '~exists', c: '0:r0=1' });
    expect(condOf('forall (0:r0=1)')).toEqual({ q: 'forall', c: '0:r0=1' });
  });

  it('parses /\\ tighter than \\/, both left-associative', () => {
    expect(condOf('exists (0:r0=1 /\\ 0:r1=0 \\/ x=2)').c).toBe('((0:r0=1 & 0:r1=0) | [x]=2)');
    expect(condOf('exists (0:r0=1 \\/ 0:r1=0 /\\ x=2)').c).toBe('(0:r0=1 | (0:r1=0 & [x]=2))');
    expect(condOf('exists (0:r0=1 /\\ 0:r1=0 /\\ x=2)').c).toBe('((0:r0=1 & 0:r1=0) & [x]=2)');
    expect(condOf('exists ((0:r0=1 \\/ 0:r1=0) /\\ x=2)').c).toBe('((0:r0=1 | 0:r1=0) & [x]=2)');
  });

  it('parses negation written ~ or not', () => {
    expect(condOf('exists (~0:r0=1)').c).toBe('~0:r0=1');
    expect(condOf('exists (not (0:r0=1) /\\ ~(x=1 \\/ y=1))').c).toBe('(~0:r0=1 & ~([x]=1 | [y]=1))');
  });

  it('parses the forms of terms: registers, P-registers, [x], x, *x, !=, ==, negative numbers, true, false', () => {
    expect(condOf('exists (P0:r0=1 /\\ [x]=2 /\\ *y==0 /\\ 0:r1!=-1)').c).toBe('(((0:r0=1 & [x]=2) & [y]=0) & 0:r1!=-1)');
    expect(condOf('exists (0:r0<>1)').c).toBe('0:r0!=1');
    expect(condOf('exists (true)').c).toBe('true');
    expect(condOf('forall (false \\/ true)').c).toBe('(false | true)');
    expect(condOf('exists (0:r0=x)').c).toBe('0:r0=[x]');
  });

  // The parser reads "=>" (parseImplies) and check.ts prints it, but the
  // lexer has no "=>" token: it splits it into "=" and ">".
  it('parses implication', () => {
    expect(condOf('forall (0:r0=1 => 0:r1=1)').c).toBe('(0:r0=1 => 0:r1=1)');
  });

  it('parses locations [...] and filter', () => {
    const t = parseLitmus(one('int r0; r0 = READ_ONCE(*x);', { cond: 'locations [x; 0:r0; [y]; P0:r0]\nfilter (0:r0=0)\nexists (x=1)' }));
    expect(t.locations.map((l) => [l.thread, l.name])).toEqual([[null, 'x'], [0, 'r0'], [null, 'y'], [0, 'r0']]);
    expect(t.filter && showCond(t.filter)).toBe('0:r0=0');
    expect(t.quantifier).toBe('exists');
  });

  it('prints the condition as herd does', () => {
    const r = checkSource(one('int r0; r0 = READ_ONCE(*x);', { cond: 'exists (0:r0=1 /\\ x=1 \\/ ~y=0)' }), { model: lkmm });
    expect(r.condition).toBe('exists (0:r0=1 /\\ [x]=1 \\/ not ([y]=0))');
  });

  it('applies filter before counting', () => {
    const src = (f: string) => `C t\n{}\nP0(int *x)\n{\n WRITE_ONCE(*x, 1);\n}\nP1(int *x)\n{\n int r0;\n r0 = READ_ONCE(*x);\n}\n${f}exists (1:r0=1)\n`;
    const plain = checkSource(src(''), { model: lkmm });
    expect([plain.observation, plain.positive, plain.negative]).toEqual(['Sometimes', 1, 1]);
    const filtered = checkSource(src('filter (1:r0=1)\n'), { model: lkmm });
    expect([filtered.observation, filtered.positive, filtered.negative]).toEqual(['Always', 1, 0]);
  });

  it('adds locations [...] to the printed states', () => {
    const r = checkSource(one('int r0; r0 = READ_ONCE(*x); WRITE_ONCE(*y, 3);', { cond: 'locations [y]\nexists (0:r0=0)' }), { model: lkmm });
    expect(r.states.map((s) => s.bindings)).toEqual([[['0:r0', '0'], ['[y]', '3']]]);
  });

  it('records where the final clause starts', () => {
    const t = parseLitmus('C t\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n\n  ~exists (x=1)\n');
    expect(t.conditionPos).toEqual({ line: 5, col: 3 });
  });
});

describe('error messages with positions', () => {
  it('unknown primitive', () => {
    const text = one('int r0;\n r0 = READ_TWICE(*x);');
    const e = errorOf(text);
    expect(e.message).toBe('unknown primitive "READ_TWICE" (did you mean "READ_ONCE"?)');
    expect(e.pos).toEqual({ line: 8, col: 7 });
    expect(e.format('a/t.litmus')).toBe('a/t.litmus:8:7: unknown primitive "READ_TWICE" (did you mean "READ_ONCE"?)');
  });

  it('primitive with the wrong number of arguments', () => {
    const e = errorOf(one('WRITE_ONCE(*x);'));
    expect(e.message).toBe('WRITE_ONCE takes 2 arguments, not 1');
    expect(e.pos).toEqual({ line: 7, col: 1 });
  });

  it('primitive without a value used as one', () => {
    const e = errorOf(one('int r0;\n r0 = smp_mb();'));
    expect(e.message).toBe('smp_mb does not return a value');
    expect(e.pos).toEqual({ line: 8, col: 7 });
  });

  it('a name the process does not declare is a register holding 0, as in herd7', () => {
    // herd7 writes 0: r5 is P0's register, never assigned.
    const r = checkSource(one('WRITE_ONCE(*x, r5);', { cond: 'exists (x=0)' }), { model: lkmm });
    expect(r.observation).toBe('Always');
  });

  it('a shared variable that is not a parameter is not its location: a read through it is refused, as herd7 refuses it', () => {
    const e = errorOf(one('int r0;\n r0 = READ_ONCE(*z);', { init: 'z=0;' }));
    expect(e.message).toMatch(/^"z" is not a parameter of P0: herd7 takes it for a register holding 0 and refuses to read at address 0/);
    expect(e.format('t.litmus')).toMatch(/^t\.litmus:8:17: /);
  });

  it('a name that is neither a register nor a shared variable: reading through it is refused', () => {
    const e = errorOf(one('int r0;\n r0 = READ_ONCE(*q);'));
    expect(e.message).toMatch(/^"q" is not a parameter of P0/);
  });

  it('a register in the final clause that the process does not have holds 0, as herd7 answers', () => {
    const prog = buildProgram(parseLitmus(one('WRITE_ONCE(*x, 1);', { cond: 'exists (0:r5=1)' })));
    const r = prog.threads[0].regs.indexOf('r5');
    expect(r).toBeGreaterThanOrEqual(0);
    expect(prog.threads[0].initRegs[r]).toBe(0);
  });

  it('process in the final clause that does not exist', () => {
    const e = errorOf(one('WRITE_ONCE(*x, 1);', { cond: 'exists (3:r0=1)' }));
    expect(e.message).toBe('no process P3 in this test');
    expect(e.pos).toEqual({ line: 9, col: 9 });
  });

  it('a missing final clause means forall (true), as in herd7', () => {
    const t = parseLitmus('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n');
    expect(t.quantifier).toBe('forall');
    expect(t.condition).toEqual({ kind: 'true' });
    expect(t.conditionPos).toEqual({ line: 7, col: 1 });
  });

  it('something else than a final clause after the processes', () => {
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n}\nexists (x=1)\n');
    expect(e.message).toBe('expected "exists", "~exists" or "forall", found "}"');
    expect(e.pos).toEqual({ line: 7, col: 1 });
  });

  it('trailing text after the final clause', () => {
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1) junk\n');
    expect(e.message).toBe('expected end of test after the final condition, found "junk"');
    expect(e.pos).toEqual({ line: 7, col: 14 });
  });

  it('unbalanced braces at the end of the file point at the unclosed "{"', () => {
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n\tif (1) {\n\t\tWRITE_ONCE(*x, 1);\n\t}\n');
    expect(e.message).toBe('unbalanced braces: this "{" is never closed');
    expect(e.pos).toEqual({ line: 4, col: 1 });
  });

  // A missing "}" before the final clause: today the parser reads `exists (x=1)`
  // as a call inside P0 and complains about the "=", which says nothing about
  // the real problem.
  it('unbalanced braces before the final clause mention the unclosed brace', () => {
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n\tif (1) {\n\t\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n');
    expect(e.message).toMatch(/unbalanced braces|never closed|"}"/);
  });

  it('syntax error: missing ";"', () => {
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1)\n}\nexists (x=1)\n');
    expect(e.message).toBe('expected ";" after the statement, found "}"');
    expect(e.pos).toEqual({ line: 6, col: 1 });
  });

  it('syntax error: missing ")" in a condition of if', () => {
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n\tint r0;\n\tif (r0 == 1 {\n\t}\n}\nexists (x=1)\n');
    expect(e.message).toBe('expected ")" closing the condition, found "{"');
    expect(e.pos).toEqual({ line: 6, col: 14 });
  });

  it('syntax error in the final clause', () => {
    const e = errorOf('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x 1)\n');
    expect(e.message).toBe('expected "=" in the condition, found "1"');
    expect(e.pos).toEqual({ line: 7, col: 11 });
  });

  it('syntax error: missing "{" of the initial state', () => {
    const e = errorOf('C t\nP0(int *x)\n{\n}\nexists (x=1)\n');
    expect(e.message).toBe('expected "{" opening the initial state, found "P0"');
    expect(e.pos).toEqual({ line: 2, col: 1 });
  });

  it('assignment to a shared location by name', () => {
    const e = errorOf(one('x = 1;'));
    expect(e.message).toMatch(/^cannot assign to "x": it is a shared location/);
    expect(e.pos.line).toBe(7);
  });

  it('LitmusError is an Error with a name', () => {
    const e = errorOf(one('WRITE_ONCE(*x, 2147483648);'));
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('LitmusError');
  });
});

describe('whole tests', () => {
  it('parses a kernel-style MP test completely', () => {
    const t: LitmusTest = parseLitmus(MP_REL_ACQ);
    expect(t.name).toBe('MP+pooncerelease+poacquireonce');
    expect(t.result).toBe('Never');
    expect(t.processes).toHaveLength(2);
    expect(t.processes[1].body.map((s) => s.kind)).toEqual(['decl', 'decl', 'assign', 'assign']);
    expect(t.quantifier).toBe('exists');
    expect(showCond(t.condition)).toBe('(1:r0=1 & 1:r1=0)');
    expect(t.conditionPos).toEqual({ line: 24, col: 1 });
  });
});

describe('herd-compatible leniencies', () => {
  it('a register set in the initial state needs no declaration', async () => {
    const { buildProgram } = await import('../src/program/program.js');
    const { parseLitmus } = await import('../src/parse/parser.js');
    const prog = buildProgram(parseLitmus('C t\n{\n\t0:r3=y;\n}\nP0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, r3);\n}\nexists (x=y)\n'));
    expect(prog.threads[0].regs).toContain('r3');
  });

  it('a comment after the final condition is a comment, even when it starts with a word', async () => {
    const { parseLitmus } = await import('../src/parse/parser.js');
    const t = parseLitmus('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1) (*Better not happen!*)\n');
    expect(t.quantifier).toBe('exists');
  });
});
