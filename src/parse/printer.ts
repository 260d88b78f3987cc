// Prints a syntax tree back as a C litmus test. Parsing the printed text
// gives the same tree (up to positions): the property tests check it.

import type { CondExpr, CondTerm, Expr, InitItem, InitValue, LitmusTest, Stmt } from './ast.js';

/**
 * Text to print beside the tree (a test's comments, by `litmus export`):
 * lines before a statement or an initial-state item, a comment at the end of
 * its first line, at the end of a process's body or on its header line, and
 * before and after the final clause. Lines are printed as given, the first
 * at the indentation of what it stands before.
 */
export interface PrintNotes {
  before(node: Stmt | InitItem): string[] | undefined;
  after(node: Stmt | InitItem): string | undefined;
  processHeader(index: number): string | undefined;
  processEnd(index: number): string[];
  initEnd: string[];
  beforeProcess(index: number): string[];
  beforeCondition: string[];
  /** A comment at the end of the final clause's line. */
  conditionTail?: string;
  afterCondition: string[];
}

/** Prints `lines` at `indent` (the first; the others as they are), then `body` with `tail` at the end of its first line. */
function noted(lines: string[] | undefined, indent: string, body: string[], tail: string | undefined): string[] {
  const out = [...(lines ?? []).map((l, i) => (i === 0 ? indent + l : l)), ...body];
  const first = (lines ?? []).length;
  if (tail !== undefined && out.length > first) out[first] += ` ${tail}`;
  return out;
}

const PREC: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6,
  '<': 7, '<=': 7, '>': 7, '>=': 7, '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

export function printExpr(e: Expr, prec = 0): string {
  switch (e.kind) {
    case 'num':
      return e.value < 0 ? `(${e.value})` : String(e.value);
    case 'name':
      return e.name;
    case 'deref':
      return `*${printExpr(e.arg, 11)}`;
    case 'addr':
      return `&${printExpr(e.arg, 11)}`;
    case 'unary':
      return `${e.op}${printExpr(e.arg, 11)}`;
    case 'cast':
      return `(${e.type})${printExpr(e.arg, 11)}`;
    case 'call':
      return `${e.name}(${e.args.map((a) => printExpr(a)).join(', ')})`;
    case 'index':
      return `${printExpr(e.base, 12)}[${printExpr(e.index)}]`;
    case 'field':
      return `${printExpr(e.base, 12)}${e.arrow ? '->' : '.'}${e.field}`;
    case 'binary': {
      const p = PREC[e.op];
      // herd7's grammar does not chain comparisons (`a != 0 == 0` is refused): one inside another is parenthesized.
      const side = (x: Expr, q: number) => (COMPARISONS.has(e.op) && x.kind === 'binary' && COMPARISONS.has(x.op) ? `(${printExpr(x)})` : printExpr(x, q));
      const s = `${side(e.left, p)} ${e.op} ${side(e.right, p + 1)}`;
      return p < prec ? `(${s})` : s;
    }
  }
}

function printStmt(s: Stmt, indent: string, notes?: PrintNotes): string[] {
  if (notes) return noted(notes.before(s), indent, printStmtOnly(s, indent, notes), notes.after(s));
  return printStmtOnly(s, indent, notes);
}

function printStmtOnly(s: Stmt, indent: string, notes?: PrintNotes): string[] {
  switch (s.kind) {
    case 'empty':
      return [`${indent};`];
    case 'decl':
      return [`${indent}${s.type.replace(/ (\*+)$/, '')} ${s.type.match(/\*+$/)?.[0] ?? ''}${s.name}${s.init ? ` = ${printExpr(s.init)}` : ''};`];
    case 'assign':
      return [`${indent}${printExpr(s.target)} = ${printExpr(s.value)};`];
    case 'expr':
      return [`${indent}${printExpr(s.expr)};`];
    case 'block':
      return [`${indent}{`, ...s.body.flatMap((b) => printStmt(b, indent + '\t', notes)), `${indent}}`];
    case 'if': {
      const out = [`${indent}if (${printExpr(s.cond)})`, ...printBody(s.then, indent, notes)];
      if (s.else) out.push(`${indent}else`, ...printBody(s.else, indent, notes));
      return out;
    }
    case 'while':
      return [`${indent}while (${printExpr(s.cond)})`, ...printBody(s.body, indent, notes)];
    case 'for': {
      const part = (x: Stmt | undefined) => (x ? printStmt(x, '').join(' ').replace(/;$/, '') : '');
      return [`${indent}for (${part(s.init)}; ${s.cond ? printExpr(s.cond) : ''}; ${part(s.step)})`, ...printBody(s.body, indent, notes)];
    }
    case 'do':
      return [`${indent}do`, ...printBody(s.body, indent, notes), `${indent}while (${printExpr(s.cond)});`];
    case 'break':
    case 'continue':
      return [`${indent}${s.kind};`];
    case 'return':
      return [`${indent}return${s.value ? ` ${printExpr(s.value)}` : ''};`];
  }
}

function printBody(s: Stmt, indent: string, notes?: PrintNotes): string[] {
  if (s.kind === 'block') return printStmt(s, indent, notes);
  // A lone `if` without else under an if/else would capture the else: brace it.
  if (s.kind === 'if' && !s.else) return [`${indent}{`, ...printStmt(s, indent + '\t', notes), `${indent}}`];
  return printStmt(s, indent + '\t', notes);
}

function printInitValue(v: InitValue): string {
  return v.kind === 'num' ? String(v.value) : v.name;
}

function printTerm(t: CondTerm, rhs: boolean): string {
  if (t.kind === 'num') return String(t.value);
  if (t.kind === 'reg') return `${t.thread}:${t.name}`;
  return rhs && t.deref ? `[${t.name}]` : t.name;
}

export function printCond(c: CondExpr): string {
  switch (c.kind) {
    case 'true':
      return 'true';
    case 'false':
      return 'false';
    case 'not':
      return `~(${printCond(c.arg)})`;
    case 'and':
      return `(${printCond(c.left)} /\\ ${printCond(c.right)})`;
    case 'or':
      return `(${printCond(c.left)} \\/ ${printCond(c.right)})`;
    case 'implies':
      return `(~(${printCond(c.left)}) \\/ ${printCond(c.right)})`;
    case 'eq':
      return `${printTerm(c.lhs, false)}${c.negated ? '!=' : '='}${printTerm(c.rhs, true)}`;
  }
}

/**
 * The test as text; `header` (comments) stands before the initial state
 * instead of a Result: stub, and `notes` (other comments) where they say.
 */
export function printLitmus(t: LitmusTest, header?: string, notes?: PrintNotes): string {
  const out: string[] = [`C ${t.name}`, ...t.info.map((i) => `${i.key}=${i.value}`), ''];
  if (header !== undefined) out.push(header, '');
  else if (t.result) out.push('(*', ` * Result: ${t.result}`, ' *)', '');
  out.push('{');
  for (const d of t.structs ?? []) {
    const fields = d.fields.map((f) => `${f.type.replace(/ ?\*+$/, '')} ${f.type.match(/\*+$/)?.[0] ?? ''}${f.name}${f.dims.map((n) => `[${n}]`).join('')};`);
    out.push(`\tstruct ${d.name} { ${fields.join(' ')} };`);
  }
  for (const it of t.init) {
    const lhs = it.thread === null ? it.name : `${it.thread}:${it.name}`;
    const type = it.type ? `${it.type.replace(/ ?\*+$/, '')} ${it.type.match(/\*+$/)?.[0] ?? ''}` : '';
    const dims = (it.dims ?? []).map((n) => `[${n}]`).join('');
    const value = it.values ? ` = {${it.values.map(printInitValue).join(', ')}}` : it.value ? ` = ${printInitValue(it.value)}` : '';
    const line = `\t${type}${lhs}${dims}${value};`;
    out.push(...(notes ? noted(notes.before(it), '\t', [line], notes.after(it)) : [line]));
  }
  if (notes) out.push(...notes.initEnd.map((l, i) => (i === 0 ? `\t${l}` : l)));
  out.push('}', '');
  for (const f of t.functions ?? []) {
    out.push(`static ${f.returnType} ${f.name}(${f.params.map((q) => `${q.type} ${q.name}`).join(', ')})`);
    out.push('{', ...f.body.flatMap((s) => printStmt(s, '\t')), '}', '');
  }
  for (const p of t.processes) {
    const tail = notes?.processHeader(p.index);
    if (notes?.beforeProcess(p.index).length) out.push(...notes.beforeProcess(p.index), '');
    out.push(`P${p.index}(${p.params.map((q) => `${q.type.replace(/ \*/g, '*').replace(/^(\S+?)(\*+)$/, '$1 $2')}${q.name}`).join(', ')})${tail === undefined ? '' : ` ${tail}`}`);
    out.push('{', ...p.body.flatMap((s) => printStmt(s, '\t', notes)));
    if (notes) out.push(...notes.processEnd(p.index).map((l, i) => (i === 0 ? `\t${l}` : l)));
    out.push('}', '');
  }
  if (notes) out.push(...notes.beforeCondition);
  if (t.locations.length) out.push(`locations [${t.locations.map((l) => (l.thread === null ? l.name : `${l.thread}:${l.name}`)).join('; ')}]`);
  if (t.filter) out.push(`filter ${printCond(t.filter)}`);
  out.push(`${t.quantifier} (${printCond(t.condition)})${notes?.conditionTail === undefined ? '' : ` ${notes.conditionTail}`}`);
  if (notes) out.push(...notes.afterCondition);
  return out.join('\n') + '\n';
}
