// `litmus export`: a C litmus test as herd7 reads it. Operations the
// linux-kernel.def lacks are written as the expansion the primitive table
// gives them (the very expansion litmus compiles, so both tools judge the
// same program), atomic_long_X as atomic_X, a value-returning primitive used
// as a statement gets `(void)`, identifiers herd7's lexer reserves are
// renamed, types are mapped to herd7's. Whatever else herd7 would refuse is
// an error at its position (see lint.ts).

import { isStmt, jumpsOutOfLoop, mapStmtParts, type CondExpr, type CondTerm, type Expr, type LitmusTest, type Stmt } from '../parse/ast.js';
import { fail } from '../parse/errors.js';
import { parseLitmus } from '../parse/parser.js';
import { readHeader } from '../parse/header.js';
import { printLitmus, type PrintNotes } from '../parse/printer.js';
import { commentNotes } from './comments.js';
import { BUILTIN_PRIMITIVES, isRunThen, type PrimitiveTable, type RunThen } from '../events/primitives.js';
import { herdType, isHerdReserved } from './herd7.js';
import { flattenAggregates } from './flatten.js';
import { inlineFunctions } from '../program/inline.js';
import { herdFindings, refusals } from './lint.js';

/** The herd7-readable text of a litmus test given as text (its header kept: comments and Key=Value lines). */
export function exportLitmus(text: string, table: PrimitiveTable = BUILTIN_PRIMITIVES): string {
  const header = headerOf(text);
  const test = parseLitmus(text);
  return exportTest(header === undefined ? test : { ...test, info: [] }, header, table, (out) => commentNotes(text, test, out));
}

/**
 * The herd7-readable text of a test; `header` (comments before the initial
 * state) replaces the Result: stub, and `comments` places the source's other
 * comments in the exported tree.
 */
export function exportTest(test: LitmusTest, header?: string, table: PrimitiveTable = BUILTIN_PRIMITIVES, comments?: (out: LitmusTest) => PrintNotes | undefined): string {
  const lowered = lowerTest(flattenAggregates(inlineFunctions(test)), table);
  const renames = reservedRenames(lowered);
  const out = renameTest(lowered, renames);
  const left = refusals(herdFindings(out, undefined, table));
  if (left.length) fail(`cannot export for herd7: ${left[0].message}`, left[0].pos);
  const note = renames.size
    ? `(* litmus export: renamed for herd7's lexer: ${[...renames].map(([a, b]) => `${a} -> ${b}`).join(', ')} *)`
    : undefined;
  return printLitmus(out, [header, note].filter(Boolean).join('\n\n') || undefined, comments?.(out));
}

/** What stands between the `C name` line and the initial state. */
function headerOf(text: string): string | undefined {
  const firstLine = text.indexOf('\n');
  if (firstLine < 0) return undefined;
  const header = text.slice(firstLine + 1, readHeader(text).offset).trim();
  return header || undefined;
}

// ------------------------------------------------------------ lowering

function lowerTest(t: LitmusTest, table: PrimitiveTable): LitmusTest {
  return { ...t, processes: t.processes.map((p) => ({ ...p, body: p.body.map((s) => lowerStmt(s, table)) })) };
}

function lowerStmt(s: Stmt, table: PrimitiveTable): Stmt {
  switch (s.kind) {
    case 'expr': {
      if (s.expr.kind === 'call') {
        const info = table.lookup(s.expr.name);
        if (info && 'lower' in info) {
          const x = info.lower(s.expr.args.map((a) => lowerExpr(a, table)), s.expr.pos);
          return isRunThen(x) ? lowerStmt(x.run, table) : isStmt(x) ? x : voided(x);
        }
        if (info?.returns) return voided(lowerExpr(s.expr, table));
      }
      return { ...s, expr: lowerExpr(s.expr, table) };
    }
    case 'decl': {
      const spin = s.init && runThenOf(s.init, table);
      if (spin) return { kind: 'block', body: [{ ...s, init: undefined }, lowerStmt(spin.run, table), { kind: 'assign', target: { kind: 'name', name: s.name, pos: s.pos }, value: spin.value, pos: s.pos }], pos: s.pos };
      return s.init ? { ...s, init: lowerExpr(s.init, table) } : s;
    }
    case 'assign': {
      // `r = op(...)` of an operation with a loop: its statement, then `r = VAL`.
      const spin = runThenOf(s.value, table);
      if (spin) return { kind: 'block', body: [lowerStmt(spin.run, table), { ...s, target: lowerExpr(s.target, table), value: spin.value }], pos: s.pos };
      return { ...s, target: lowerExpr(s.target, table), value: lowerExpr(s.value, table) };
    }
    case 'if':
      return { ...s, cond: lowerExpr(s.cond, table), then: lowerStmt(s.then, table), else: s.else && lowerStmt(s.else, table) };
    case 'while':
      return { ...s, cond: lowerExpr(s.cond, table), body: lowerStmt(s.body, table) };
    case 'for': {
      // herd7's C has only while: `init; while (cond) { body; step }`, as litmus compiles it.
      if (jumpsOutOfLoop(s.body)) fail('cannot export for herd7: herd7\'s C has no "break" or "continue"', s.pos);
      const loop: Stmt = { kind: 'while', cond: s.cond ? lowerExpr(s.cond, table) : { kind: 'num', value: 1, pos: s.pos }, body: { kind: 'block', body: [lowerStmt(s.body, table), ...(s.step ? [lowerStmt(s.step, table)] : [])], pos: s.pos }, pos: s.pos };
      return { kind: 'block', body: [...(s.init ? [lowerStmt(s.init, table)] : []), loop], pos: s.pos };
    }
    case 'do': {
      // `body; while (cond) body`, as litmus compiles it.
      if (jumpsOutOfLoop(s.body)) fail('cannot export for herd7: herd7\'s C has no "break" or "continue"', s.pos);
      const body = lowerStmt(s.body, table);
      return { kind: 'block', body: [body, { kind: 'while', cond: lowerExpr(s.cond, table), body, pos: s.pos }], pos: s.pos };
    }
    case 'break':
    case 'continue':
      fail(`cannot export for herd7: herd7's C has no "${s.kind}"`, s.pos);
    case 'return':
      fail('"return" outside a helper function', s.pos);
    case 'block':
      return { ...s, body: s.body.map((b) => lowerStmt(b, table)) };
    case 'empty':
      return s;
  }
}

/** The expansion of a call of an operation with a loop (smp_cond_load_acquire()), if e is one. */
function runThenOf(e: Expr, table: PrimitiveTable): RunThen | undefined {
  if (e.kind !== 'call') return undefined;
  const info = table.lookup(e.name);
  if (!info || !('lower' in info)) return undefined;
  const x = info.lower(e.args.map((a) => lowerExpr(a, table)), e.pos);
  return isRunThen(x) ? x : undefined;
}

/** `(void)e;`: herd7 takes a value-returning macro as a statement only so. */
const voided = (e: Expr): Stmt => ({ kind: 'expr', expr: { kind: 'cast', type: 'void', arg: e, pos: e.pos }, pos: e.pos });

function lowerExpr(e: Expr, table: PrimitiveTable): Expr {
  switch (e.kind) {
    case 'num':
      // Printed as its value (`-7`), which herd7 reads as one number.
      return e.negated ? { kind: 'num', value: e.value, pos: e.pos } : e;
    case 'call': {
      const args = e.args.map((a) => lowerExpr(a, table));
      const info = table.lookup(e.name);
      if (info && 'lower' in info) {
        const x = info.lower(args, e.pos);
        if (isRunThen(x)) fail(`${e.name} loops: herd7 needs it as a statement of its own (r = ${e.name}(...);)`, e.pos);
        if (isStmt(x)) fail(`${e.name} does not return a value`, e.pos);
        return x;
      }
      return { ...e, name: table.defName(e.name) ?? e.name, args };
    }
    case 'addr':
      // `&x` of a shared variable is its address, which the name `x` holds in
      // process code (a parameter, or a location named directly); herd7 has no `&`.
      return e.arg.kind === 'name' ? e.arg : { ...e, arg: lowerExpr(e.arg, table) };
    case 'deref':
    case 'unary':
    case 'cast':
      return { ...e, arg: lowerExpr(e.arg, table) };
    case 'binary':
      return { ...e, left: lowerExpr(e.left, table), right: lowerExpr(e.right, table) };
    case 'index':
      return { ...e, base: lowerExpr(e.base, table), index: lowerExpr(e.index, table) };
    case 'field':
      return { ...e, base: lowerExpr(e.base, table) };
    case 'name':
      return e;
  }
}

// ------------------------------------------------------------ renaming

/** A new name for each identifier herd7 reserves, clashing with no name of the test. */
function reservedRenames(t: LitmusTest): Map<string, string> {
  const names = new Set<string>();
  forEachName(t, (n) => names.add(n));
  const renames = new Map<string, string>();
  for (const n of names) {
    if (!isHerdReserved(n)) continue;
    let fresh = `${n}_`;
    for (let k = 2; names.has(fresh) || isHerdReserved(fresh); k++) fresh = `${n}_${k}`;
    names.add(fresh);
    renames.set(n, fresh);
  }
  return renames;
}

function forEachName(t: LitmusTest, f: (n: string) => void): void {
  renameTest(t, new Map(), f);
}

/** The test with names replaced and types mapped to herd7's; `seen` is shown every name. */
function renameTest(t: LitmusTest, renames: Map<string, string>, seen: (n: string) => void = () => {}): LitmusTest {
  const r = (n: string) => {
    seen(n);
    return renames.get(n) ?? n;
  };
  const expr = (e: Expr): Expr => {
    switch (e.kind) {
      case 'name':
        return { ...e, name: r(e.name) };
      case 'num':
        return e;
      case 'call':
        return { ...e, args: e.args.map(expr) };
      case 'cast':
        return { ...e, type: e.type === 'void' ? e.type : herdType(e.type), arg: expr(e.arg) };
      case 'deref':
      case 'addr':
      case 'unary':
        return { ...e, arg: expr(e.arg) };
      case 'binary':
        return { ...e, left: expr(e.left), right: expr(e.right) };
      case 'index':
        return { ...e, base: expr(e.base), index: expr(e.index) };
      case 'field':
        return { ...e, base: expr(e.base) };
    }
  };
  const stmt = (s: Stmt): Stmt =>
    s.kind === 'decl' ? { ...s, name: r(s.name), type: herdType(s.type), init: s.init && expr(s.init) } : mapStmtParts(s, expr, stmt);
  const term = (x: CondTerm): CondTerm => (x.kind === 'num' ? x : { ...x, name: r(x.name) });
  const cond = (c: CondExpr): CondExpr => {
    switch (c.kind) {
      case 'true':
      case 'false':
        return c;
      case 'not':
        return { ...c, arg: cond(c.arg) };
      case 'and':
      case 'or':
      case 'implies':
        return { ...c, left: cond(c.left), right: cond(c.right) };
      case 'eq':
        return { ...c, lhs: term(c.lhs), rhs: term(c.rhs) };
    }
  };
  return {
    ...t,
    init: t.init.map((it) => ({
      ...it,
      name: r(it.name),
      type: it.type && herdType(it.type),
      value: it.value?.kind === 'loc' ? { kind: 'loc', name: r(it.value.name) } : it.value,
    })),
    processes: t.processes.map((p) => ({
      ...p,
      params: p.params.map((q) => ({ ...q, name: r(q.name), type: herdType(q.type) })),
      body: p.body.map(stmt),
    })),
    locations: t.locations.map((l) => ({ ...l, name: r(l.name) })),
    filter: t.filter && cond(t.filter),
    condition: cond(t.condition),
  };
}
