// `litmus check --herd-compatible`: what in a C litmus test herd7 would
// refuse although litmus accepts it (src/export/herd7.ts says what herd7
// reads). Each finding has the position of the construct; `litmus export`
// rewrites what it can (bit operations, reserved names, types, values
// dropped from a statement) and refuses the rest with these messages.

import { walkStmt, type AstVisitor, type CondExpr, type CondTerm, type Expr, type LitmusTest, type Pos, type Process, type Stmt } from '../parse/ast.js';
import type { Token } from '../parse/lexer.js';
import { testTokens } from '../parse/parser.js';
import { BUILTIN_PRIMITIVES, effectOf, type PrimitiveTable } from '../events/primitives.js';
import { HERD_BINOPS, isHerdReserved, isHerdType, SECTION_ENDERS } from './herd7.js';

export interface Finding {
  pos: Pos;
  message: string;
  /** Whether `litmus export` rewrites it. */
  exportable: boolean;
  /**
   * Something herd7 answers (so litmus does too) that may not mean what the
   * test's author thinks: a type clash, `true` read as a register, a
   * location or register the condition alone names. Not a refusal.
   */
  note?: true;
}

/** The findings herd7 refuses the test for (all but the notes). */
export const refusals = (findings: Finding[]): Finding[] => findings.filter((f) => !f.note);

/** Findings on the syntax tree and on the text it came from (when given), in text order. */
export function herdFindings(test: LitmusTest, text?: string, table: PrimitiveTable = BUILTIN_PRIMITIVES): Finding[] {
  const out: Finding[] = [];
  const add = (pos: Pos, message: string, exportable: boolean) => out.push({ pos, message, exportable });
  const name = (n: string, pos: Pos) => {
    if (isHerdReserved(n)) add(pos, `"${n}" is a keyword to herd7's C lexer: rename it`, true);
  };
  const type = (t: string, pos: Pos, what: string) => {
    if (t && !isHerdType(t)) add(pos, `herd7 does not know the type "${t}" of ${what}`, true);
  };
  for (const d of test.structs ?? []) add(d.pos, 'herd7\'s C has no structs: litmus export writes one variable per field', true);
  const arrays = herdArrays(test);
  const given = new Set<string>();
  for (const it of test.init) {
    const key = `${it.thread ?? ''}:${it.name}`;
    if (given.has(key)) {
      add(it.pos, `${it.thread === null ? '' : `${it.thread}:`}${it.name} is in the initial state twice: herd7 stops on it, and on every test after it ("Fatal error: exception File \"lib/parsedConstant.ml\", line 23, characters 18-24: Assertion failed")`, false);
    }
    given.add(key);
    if (it.dims || it.values || /[[.]/.test(it.name)) {
      const why = arrays.refused.get(it);
      if (why) add(it.pos, why, true);
    }
    name(it.name.replace(/[[.].*$/, ''), it.pos);
    if (it.value?.kind === 'loc') name(it.value.name, it.pos);
    if (it.type && /\s/.test(it.type.replace(/\s*\*+$/, ''))) add(it.pos, `herd7's initial state takes a one-word type, not "${it.type}"`, true);
  }
  const helpers = new Set((test.functions ?? []).map((f) => f.name));
  for (const f of test.functions ?? []) {
    add(f.pos, `herd7's C has no functions: litmus export inlines ${f.name} at each call`, true);
    const visitor = lintVisitor(add, name, type, table, helpers);
    for (const s of f.body) walkStmt(s, visitor);
  }
  for (const p of test.processes) {
    for (const q of p.params) {
      name(q.name, q.pos);
      type(q.type, q.pos, `parameter "${q.name}"`);
    }
    const visitor = lintVisitor(add, name, type, table, helpers);
    if (p.body.length === 0) add(p.pos, `herd7's C has no empty process body: it stops at the "}" of P${p.index} ("unexpected '}'")`, false);
    for (const s of p.body) walkStmt(s, visitor);
  }
  // A condition or `locations` naming an element or a field (`a[1]`, `v.f`): herd7 reads an element of an array of its initial state.
  const leafName = (n: string, pos: Pos) => {
    const element = /^(\w+)\[(\d+)\]$/.exec(n);
    const size = element ? arrays.sizes.get(element[1]) : undefined;
    if (element && size !== undefined) {
      if (Number(element[2]) >= size) add(pos, `${n} is out of bounds: herd7 refuses the test ("Out of bounds access on array ${element[1]}")`, false);
    } else if (/[[.]/.test(n)) add(pos, `herd7 knows no "${n}": litmus export names each element and field as a variable`, true);
    else name(n, pos);
  };
  for (const l of test.locations) leafName(l.name, l.pos);
  lintCond(test.condition, leafName);
  if (test.filter) lintCond(test.filter, leafName);
  if (text !== undefined) lintText(text, add);
  const note = (pos: Pos, message: string) => out.push({ pos, message, exportable: true, note: true });
  for (const p of test.processes) notesOfProcess(p, note, table);
  notesOfCondition(test, note);
  return out.sort((a, b) => a.pos.line - b.pos.line || a.pos.col - b.pos.col);
}

/**
 * The arrays herd7 reads in an initial state (`int a[2];`, `int a[2] = {1, 2};`:
 * one dimension, of a scalar type whose size herd7 knows), with their
 * sizes, and why it refuses each other array, struct or element there.
 */
function herdArrays(test: LitmusTest): { sizes: Map<string, number>; refused: Map<LitmusTest['init'][number], string> } {
  const sizes = new Map<string, number>();
  const refused = new Map<LitmusTest['init'][number], string>();
  const flatten = 'litmus export writes one variable per element or field';
  for (const it of test.init) {
    if (!it.dims && !it.values && !/[[.]/.test(it.name)) continue;
    const base = (it.type ?? '').replace(/\b(const|volatile)\b/g, '').trim();
    let why: string | undefined;
    if (/[[.]/.test(it.name)) why = `herd7 sets no element or field in the initial state: ${flatten}`;
    else if (!it.dims) why = `herd7's C has no initialiser list for "${it.name}" without an array type: ${flatten}`;
    else if (it.dims.length !== 1 || /\*/.test(base) || !it.type) why = `herd7 reads only an array of one dimension, of a scalar type, in the initial state: ${flatten}`;
    else if (/^(u?int64_t)$/.test(base)) why = `herd7 fails on an array of ${base} ("mask 32 bit value 0x0 with quad mask"): ${flatten}`;
    else if (!HERD_ARRAY_TYPES.has(base)) why = `herd7 refuses an array of ${base} ("Cannot find the size of type ${base}"): ${flatten}`;
    else if (it.values && it.values.length !== it.dims[0]) why = `herd7 refuses ${it.values.length} initial values for ${it.dims[0]} elements ("Declared size of array ${it.name} does not match initial value size"): ${flatten}`;
    if (why) refused.set(it, why);
    else sizes.set(it.name, it.dims![0]);
  }
  return { sizes, refused };
}

/** The element types of an array herd7 reads (its lib/testType.ml sizes them). */
const HERD_ARRAY_TYPES: ReadonlySet<string> = new Set(['int', 'long', 'atomic_t', 'int32_t', 'uint32_t', 'char', 'int8_t', 'uint8_t', 'short', 'int16_t', 'uint16_t']);

type Add = (pos: Pos, message: string, exportable: boolean) => void;
type Note = (pos: Pos, message: string) => void;

/** The names a process gives a value: its parameters, declarations, assignments, and registers the initial state sets. */
function namesOf(p: Process, test?: LitmusTest): Set<string> {
  const out = new Set(p.params.map((q) => q.name));
  const stmt = (s: Stmt) => {
    if (s.kind === 'decl') out.add(s.name);
    else if (s.kind === 'assign' && s.target.kind === 'name') out.add(s.target.name);
  };
  for (const s of p.body) walkStmt(s, { stmt });
  for (const it of test?.init ?? []) if (it.thread === p.index) out.add(it.name);
  return out;
}

/**
 * Type clashes (a lock primitive on a variable whose parameter type is no
 * lock) and `true`/`false`, which herd7 reads as registers holding 0: herd7
 * checks no types and answers, and so does litmus.
 */
function notesOfProcess(p: Process, note: Note, table: PrimitiveTable): void {
  const types = new Map(p.params.map((q) => [q.name, q.type]));
  const names = namesOf(p);
  const expr = (e: Expr) => {
    if (e.kind === 'name' && (e.name === 'true' || e.name === 'false') && !names.has(e.name)) {
      note(e.pos, `herd7's C has no "${e.name}": it reads it as a register no one assigns, 0 (write ${e.name === 'true' ? '1' : '0'})`);
    }
    if (e.kind !== 'call') return;
    const info = table.lookup(e.name);
    if (!info || 'lower' in info) return;
    const a = e.args[info.addrArg];
    const base = a && (a.kind === 'deref' || a.kind === 'addr') ? a.arg : a;
    if (base?.kind !== 'name') return;
    const type = types.get(base.name);
    if (!type) return;
    const object = effectOf(info.prim).object;
    if (object === 'spinlock' && !/\bspinlock_t\b/.test(type)) {
      note(a.pos, `type clash: ${e.name} needs a spinlock_t *, but "${base.name}" is ${type} (herd7 checks no types: checked as a lock)`);
    } else if (object === 'srcu' && !/\bsrcu_struct\b/.test(type) && !/\bint\b/.test(type)) {
      note(a.pos, `type clash: ${e.name} needs a struct srcu_struct *, but "${base.name}" is ${type} (herd7 checks no types: checked as an srcu_struct)`);
    }
  };
  for (const s of p.body) walkStmt(s, { expr });
}

/** Locations and registers only the final clause (or `locations`, `filter`) names: herd7 takes them as holding 0. */
function notesOfCondition(test: LitmusTest, note: Note): void {
  const shared = new Set(test.init.filter((it) => it.thread === null).map((it) => it.name));
  for (const it of test.init) if (it.value?.kind === 'loc') shared.add(it.value.name);
  for (const p of test.processes) for (const q of p.params) shared.add(q.name);
  const regs = new Map(test.processes.map((p) => [p.index, namesOf(p, test)]));
  const seen = new Set<string>();
  const named = (thread: number | null, name: string, pos: Pos) => {
    const key = `${thread}:${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (thread === null && !shared.has(name)) {
      note(pos, `no process and no initial value names "${name}": herd7 takes it as a location holding 0`);
    } else if (thread !== null && regs.has(thread) && !regs.get(thread)!.has(name)) {
      note(pos, `P${thread} has no register "${name}": herd7 takes it as holding 0`);
    }
  };
  const term = (t: CondTerm) => {
    if (t.kind !== 'num') named(t.kind === 'reg' ? t.thread : null, t.name, t.pos);
  };
  for (const l of test.locations) named(l.thread, l.name, l.pos);
  const cond = (c: CondExpr): void => {
    if (c.kind === 'eq') [c.lhs, c.rhs].forEach(term);
    else if (c.kind === 'not') cond(c.arg);
    else if (c.kind === 'and' || c.kind === 'or' || c.kind === 'implies') {
      cond(c.left);
      cond(c.right);
    }
  };
  cond(test.condition);
  if (test.filter) cond(test.filter);
}
type Check = (n: string, pos: Pos) => void;
type TypeCheck = (t: string, pos: Pos, what: string) => void;

/** The checks of one statement or expression; walkStmt visits them all. */
function lintVisitor(add: Add, name: Check, type: TypeCheck, table: PrimitiveTable, helpers: ReadonlySet<string>): AstVisitor {
  return {
    stmt: (s: Stmt) => {
      if (s.kind === 'for' || s.kind === 'do') add(s.pos, `herd7's C has no "${s.kind}" loop: litmus export writes it as a while loop`, true);
      if (s.kind === 'break' || s.kind === 'continue') add(s.pos, `herd7's C has no "${s.kind}"`, false);
      if (s.kind === 'empty') add(s.pos, 'herd7\'s C has no empty statement: it stops at this ";" ("unexpected \';\'")', false);
      if (s.kind === 'block' && s.body.length === 0) add(s.pos, 'herd7\'s C has no empty block: it stops at its "}" ("unexpected \'}\'")', false);
      if (s.kind === 'decl') {
        name(s.name, s.pos);
        type(s.type, s.pos, `"${s.name}"`);
      } else if (s.kind === 'expr' && s.expr.kind === 'call') {
        const info = table.lookup(s.expr.name);
        if (info?.returns && table.defName(s.expr.name)) {
          add(s.pos, `herd7 refuses ${s.expr.name}() as a statement ("Unknown macro"): assign its value or write (void)${s.expr.name}(...)`, true);
        }
      }
    },
    expr: (e: Expr) => {
      if (!(e.kind === 'call' && helpers.has(e.name))) lintExpr(e, add, name, type, table);
    },
  };
}

/** The checks of one expression node (its subexpressions are visited on their own). */
function lintExpr(e: Expr, add: Add, name: Check, type: TypeCheck, table: PrimitiveTable): void {
  switch (e.kind) {
    case 'num':
      if (e.negated) add(e.pos, 'herd7\'s C has no unary "-": only a number written with its minus (-7, no space, no second minus); litmus export writes the value', true);
      return;
    case 'deref':
      return;
    case 'index':
    case 'field':
      add(e.pos, `herd7's C has no ${e.kind === 'index' ? 'arrays' : 'structs'}: litmus export writes one variable per ${e.kind === 'index' ? 'element' : 'field'}`, true);
      return;
    case 'name':
      name(e.name, e.pos);
      return;
    case 'addr':
      add(e.pos, 'herd7\'s C has no "&" (address-of) in process code: write the location\'s name', e.arg.kind === 'name' || e.arg.kind === 'index' || e.arg.kind === 'field');
      return;
    case 'unary':
      if (!(e.op === '-' && e.arg.kind === 'num')) add(e.pos, `herd7's C has no unary "${e.op}"`, false);
      return;
    case 'binary':
      if (!HERD_BINOPS.has(e.op)) add(e.pos, `herd7's C has no "${e.op}"`, false);
      return;
    case 'cast':
      if (e.type !== 'void') type(e.type, e.pos, 'a cast');
      return;
    case 'call': {
      const info = table.lookup(e.name);
      const def = table.source ?? "herd7's linux-kernel.def";
      if (!info) add(e.pos, `unknown primitive "${e.name}" (${def} has no such macro either)`, false);
      else if ('lower' in info) add(e.pos, `${e.name} is not in ${def} (litmus export writes it with .def primitives)`, true);
      else if (table.isExtension(e.name)) {
        add(e.pos, `${e.name} is not in ${def} (litmus gives it the meaning of ${table.sourceOf(e.name)}; litmus export cannot write it for herd7)`, false);
      }
      else if (table.defName(e.name) !== e.name) add(e.pos, `${e.name} is not in ${def}: it is ${table.defName(e.name)} there`, true);
      return;
    }
  }
}

function lintCond(c: CondExpr, name: Check): void {
  switch (c.kind) {
    case 'true':
    case 'false':
      return;
    case 'not':
      lintCond(c.arg, name);
      return;
    case 'and':
    case 'or':
    case 'implies':
      lintCond(c.left, name);
      lintCond(c.right, name);
      return;
    case 'eq':
      for (const t of [c.lhs, c.rhs]) if (t.kind !== 'num') name(t.name, t.pos);
      return;
  }
}

/**
 * What only the text shows, in the process section (from the first process
 * to the end of the last): words that end herd7's process section early (in
 * comments too), `(* *)` comments (not C to herd7), compound assignments,
 * several declarators in one declaration, numbers herd7 cannot read.
 */
function lintText(text: string, add: Add): void {
  const toks = testTokens(text);
  const section = processSection(toks);
  if (!section) return;
  const [from, to] = section;
  const body = toks.slice(from, to);
  for (let i = 0; i < body.length; i++) {
    const t = body[i];
    const n = body[i + 1];
    if (t.kind === 'num' && !/^\d+$/.test(t.text)) add(t.pos, `herd7 reads only decimal numbers without suffix, not "${t.text}"`, true);
    const prev = body[i - 1];
    if (t.text === '-' && n?.kind === 'num' && adjacent(t, n) && prev && (prev.kind !== 'punct' || prev.text === ')')) {
      add(t.pos, `herd7 reads "-${n.text}" as a negative number, not a subtraction: write "- ${n.text}"`, true);
    }
    if (t.kind === 'punct' && (t.text === '+' || t.text === '-') && n?.text === t.text && adjacent(t, n) && prev?.kind !== 'punct') {
      add(t.pos, `herd7's C has no "${t.text}${t.text}": write "x = x ${t.text} 1"`, true);
    }
    if (t.kind === 'punct' && /^[-+*/|&^]$/.test(t.text) && n?.text === '=' && adjacent(t, n)) {
      add(t.pos, `herd7's C has no "${t.text}=": write "x = x ${t.text} ..."`, true);
    }
    if (t.kind === 'ident' && isTypeAtStatementStart(body, i) && hasTopLevelComma(body, i)) {
      add(t.pos, 'herd7 takes one name per declaration: split it', true);
    }
  }
  // Comments are gone from the tokens: look at the raw text of the section.
  const start = offsetOf(text, toks[from - 1].pos) + 1; // just after the initial state's "}"
  const end = to < toks.length ? offsetOf(text, toks[to].pos) : text.length;
  const raw = text.slice(start, end);
  const enders = new RegExp(`(?<![A-Za-z0-9_])(${SECTION_ENDERS.join('|')})(?![A-Za-z0-9_])`, 'g');
  for (const m of raw.matchAll(enders)) {
    add(posAt(text, start + m.index!), `"${m[1]}" here ends herd7's process section early (herd7 finds it even in a comment): reword it`, false);
  }
  const inCComment = cCommentRanges(raw);
  for (const m of raw.matchAll(/\(\*(?=[\s*])/g)) {
    if (inCComment(m.index!)) continue;
    add(posAt(text, start + m.index!), 'herd7 reads "(* *)" as code inside processes: use /* */ comments there', false);
  }
}

const adjacent = (a: Token, b: Token) => b.pos.line === a.pos.line && b.pos.col === a.pos.col + a.text.length;

/** Whether an offset of C text is inside a `/* *\/` or `//` comment. */
function cCommentRanges(raw: string): (offset: number) => boolean {
  const ranges: [number, number][] = [];
  for (const m of raw.matchAll(/\/\*[\s\S]*?(\*\/|$)|\/\/[^\n]*/g)) ranges.push([m.index!, m.index! + m[0].length]);
  return (offset) => ranges.some(([a, b]) => offset >= a && offset < b);
}

/** Token range [from, to) of the processes: from the first `P<n>` after the initial state to the last body's `}`. */
function processSection(toks: Token[]): [number, number] | undefined {
  let i = toks.findIndex((t) => t.text === '{');
  if (i < 0) return undefined;
  i = matching(toks, i) + 1;
  const from = i;
  let to = from;
  while (toks[i]?.kind === 'ident' && /^P\d+$/.test(toks[i].text)) {
    while (i < toks.length && toks[i].text !== '{') i++;
    if (i >= toks.length) return undefined;
    i = matching(toks, i) + 1;
    to = i;
  }
  return to > from ? [from, to] : undefined;
}

function matching(toks: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i].text === '{') depth++;
    else if (toks[i].text === '}' && --depth === 0) return i;
  }
  return toks.length - 1;
}

const DECL_WORDS = new Set(['int', 'long', 'char', 'unsigned', 'signed', 'short', 'intptr_t', 'uintptr_t', 'bool', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'size_t']);

function isTypeAtStatementStart(body: Token[], i: number): boolean {
  const prev = body[i - 1]?.text;
  return DECL_WORDS.has(body[i].text) && (prev === ';' || prev === '{' || prev === '}') && body[i - 1]?.kind === 'punct';
}

function hasTopLevelComma(body: Token[], i: number): boolean {
  let depth = 0;
  for (let j = i; j < body.length && body[j].text !== ';'; j++) {
    if (body[j].text === '(') depth++;
    else if (body[j].text === ')') depth--;
    else if (body[j].text === ',' && depth === 0) return true;
  }
  return false;
}

function offsetOf(text: string, pos: Pos): number {
  let off = 0;
  for (let l = 1; l < pos.line; l++) off = text.indexOf('\n', off) + 1;
  return off + pos.col - 1;
}

function posAt(text: string, offset: number): Pos {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/** `file:line:col: warning (herd7): message` lines. */
/**
 * The one line `check` prints without --herd-compatible when herd7 would
 * refuse the test: how many constructs, the first, and whether `litmus
 * export` writes a copy herd7 reads; undefined when herd7 refuses nothing
 * (notes are not refusals).
 */
export function refusalSummary(file: string, findings: Finding[]): string | undefined {
  const refused = refusals(findings);
  if (refused.length === 0) return undefined;
  const first = refused.reduce((a, b) => (b.pos.line < a.pos.line || (b.pos.line === a.pos.line && b.pos.col < a.pos.col) ? b : a));
  const n = refused.length === 1 ? 'one construct' : `${refused.length} constructs`;
  const fix = refused.every((f) => f.exportable) ? '; litmus export writes a copy it reads' : '';
  return `${file}: herd7 would refuse this test: ${n} it does not read, the first at ${first.pos.line}:${first.pos.col} (${first.message}); --herd-compatible lists them${fix}`;
}

export function formatFindings(file: string, findings: Finding[]): string[] {
  return findings.map((f) => `${file}:${f.pos.line}:${f.pos.col}: herd7: ${f.note ? 'note: ' : ''}${f.message}`);
}
