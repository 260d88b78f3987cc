// `litmus export` of arrays and structs: herd7's C has neither, so each
// element and field becomes a variable of its own (`a[1]` -> `a_1`, `v.f`
// -> `v_f`), which is what the checker makes of them too (one location
// each, src/program/types.ts). An element or field reached with an index
// computed at run time, or through a pointer register, has no such name:
// that is an error at its position.

import { mapStmtParts, walkStmt, type CondExpr, type CondTerm, type Expr, type InitItem, type InitValue, type LitmusTest, type Param, type Stmt } from '../parse/ast.js';
import { fail } from '../parse/errors.js';
import { printExpr } from '../parse/printer.js';
import { fieldOf, leaves, sharedVariables, type CType } from '../program/types.js';

/** The test with every array and struct variable replaced by one variable per leaf (the test itself when it has none). */
export function flattenAggregates(t: LitmusTest): LitmusTest {
  const vars = sharedVariables(t);
  const aggregates = new Map([...vars].filter(([, type]) => type.k === 'array' || type.k === 'struct'));
  if (aggregates.size === 0) return t.structs ? { ...t, structs: undefined } : t;
  const leafName = leafNames(t, aggregates);
  const leafOf = (path: string, pos: { line: number; col: number }): string => {
    const n = leafName.get(path);
    if (n === undefined) fail(`no location "${path}"`, pos);
    return n;
  };
  /** The variable and path an lvalue names statically, with its type; undefined when it is no aggregate's. */
  const resolve = (e: Expr, declared: Set<string>): { path: string; type: CType } | undefined => {
    if (e.kind === 'name') {
      const type = aggregates.get(e.name);
      return type && !declared.has(e.name) ? { path: e.name, type } : undefined;
    }
    if (e.kind === 'deref') {
      const inner = resolve(e.arg, declared);
      return inner && firstLeaf(inner);
    }
    if (e.kind === 'index') {
      const base = resolve(e.base, declared);
      if (!base) return undefined;
      if (base.type.k !== 'array') fail(`${printExpr(e.base)} is no array`, e.pos);
      if (e.index.kind !== 'num') fail(`cannot export for herd7: ${printExpr(e)} has an index computed at run time, and herd7's C has no arrays`, e.index.pos);
      if (e.index.value < 0 || e.index.value >= base.type.n) fail(`index ${e.index.value} is out of bounds: ${printExpr(e.base)} has ${base.type.n} elements`, e.index.pos);
      return { path: `${base.path}[${e.index.value}]`, type: base.type.elem };
    }
    if (e.kind === 'field') {
      const base = resolve(e.base, declared);
      if (!base) return undefined;
      if (base.type.k !== 'struct') fail(`${printExpr(e.base)} is no struct`, e.pos);
      const f = fieldOf(base.type, e.field);
      if (!f) fail(`struct ${base.type.def.name} has no field "${e.field}"`, e.pos);
      return { path: `${base.path}.${e.field}`, type: f.type };
    }
    return undefined;
  };
  const process = (body: Stmt[]): Stmt[] => {
    const declared = new Set<string>();
    const walkDecl = (s: Stmt) => {
      if (s.kind === 'decl') declared.add(s.name);
      else if (s.kind === 'block') s.body.forEach(walkDecl);
    };
    body.forEach(walkDecl);
    const expr = (e: Expr): Expr => {
      if (e.kind === 'index' || e.kind === 'field') {
        const r = resolve(e, declared);
        if (!r) fail(`cannot export for herd7: ${printExpr(e)} is reached through a pointer register, and herd7's C has no arrays or structs`, e.pos);
        const leaf = firstLeaf(r);
        const name: Expr = { kind: 'name', name: leafOf(leaf.path, e.pos), pos: e.pos };
        // An element or field is a location, as `*x` is; an array or struct within names its first leaf's address.
        return r.type.k === 'array' || r.type.k === 'struct' ? name : { kind: 'deref', arg: name, pos: e.pos };
      }
      switch (e.kind) {
        case 'name': {
          const r = resolve(e, declared);
          return r ? { ...e, name: leafOf(firstLeaf(r).path, e.pos) } : e;
        }
        case 'num':
          return e;
        case 'addr': {
          const inner = expr(e.arg);
          return inner.kind === 'deref' ? inner.arg : { ...e, arg: inner };
        }
        case 'deref':
        case 'unary':
        case 'cast':
          return { ...e, arg: expr(e.arg) };
        case 'binary':
          return { ...e, left: expr(e.left), right: expr(e.right) };
        case 'call':
          return { ...e, args: e.args.map(expr) };
      }
    };
    const stmt = (s: Stmt): Stmt => mapStmt(s, expr);
    return body.map(stmt);
  };
  // Values given to one element or field (`a[1]=2;`) join that leaf's declaration.
  const leafValues = new Map<string, InitValue>();
  for (const it of t.init) if (it.thread === null && /[[.]/.test(it.name) && it.value) leafValues.set(leafOf(it.name, it.pos), it.value);
  const init: InitItem[] = [];
  for (const it of t.init) {
    if (it.thread !== null) {
      init.push(it.value?.kind === 'loc' && aggregates.has(it.value.name) ? { ...it, value: { kind: 'loc', name: leafOf(firstLeaf({ path: it.value.name, type: aggregates.get(it.value.name)! }).path, it.pos) } } : it);
      continue;
    }
    const type = aggregates.get(it.name);
    if (/[[.]/.test(it.name)) continue;
    if (type) {
      leaves(type).forEach((l, i) => {
        const name = leafOf(it.name + l.path, it.pos);
        const value = leafValues.get(name) ?? it.values?.[i];
        init.push({ thread: null, name, type: leafType(l.type), ...(value ? { value } : {}), pos: it.pos });
      });
    } else init.push(it);
  }
  const params = (ps: Param[]): Param[] =>
    ps.flatMap((q) => {
      const type = aggregates.get(q.name);
      if (!type) return [q];
      return leaves(type).map((l) => ({ type: `${leafType(l.type)} *`, name: leafOf(q.name + l.path, q.pos), pos: q.pos }));
    });
  const term = (c: CondTerm): CondTerm => (c.kind === 'mem' && /[[.]/.test(c.name) ? { ...c, name: leafOf(c.name, c.pos) } : c);
  const cond = (c: CondExpr): CondExpr => mapCond(c, term);
  return {
    ...t,
    structs: undefined,
    init,
    processes: t.processes.map((p) => ({ ...p, params: params(p.params), body: process(p.body) })),
    locations: t.locations.map((l) => (l.thread === null && /[[.]/.test(l.name) ? { ...l, name: leafOf(l.name, l.pos) } : l)),
    filter: t.filter && cond(t.filter),
    condition: cond(t.condition),
  };
}

/** `a[1]` -> `a_1`, `v.f` -> `v_f`: a name no other name of the test has. */
function leafNames(t: LitmusTest, aggregates: Map<string, CType>): Map<string, string> {
  const taken = new Set<string>();
  for (const it of t.init) taken.add(it.name);
  for (const p of t.processes) {
    for (const q of p.params) taken.add(q.name);
    for (const s of p.body) {
      walkStmt(s, {
        stmt: (x) => void (x.kind === 'decl' && taken.add(x.name)),
        expr: (e) => void (e.kind === 'name' && taken.add(e.name)),
      });
    }
  }
  const out = new Map<string, string>();
  for (const [name, type] of aggregates) {
    for (const l of leaves(type)) {
      let fresh = (name + l.path).replace(/\[(\d+)\]/g, '_$1').replace(/\./g, '_');
      while (taken.has(fresh)) fresh += '_';
      taken.add(fresh);
      out.set(name + l.path, fresh);
    }
  }
  return out;
}

/** The first leaf of what a path names (itself when it is a scalar). */
function firstLeaf(r: { path: string; type: CType }): { path: string; type: CType } {
  const l = leaves(r.type)[0];
  return { path: r.path + l.path, type: l.type };
}

/** The herd7 type of a leaf (a scalar's own word: int, atomic_t, spinlock_t). */
const leafType = (t: CType): string => (t.k === 'scalar' ? t.name : 'int');

/** A statement with every expression in it mapped (outermost first; f recurses itself where it wants). */
function mapStmt(s: Stmt, f: (e: Expr) => Expr): Stmt {
  return mapStmtParts(s, f, (x) => mapStmt(x, f));
}

function mapCond(c: CondExpr, f: (t: CondTerm) => CondTerm): CondExpr {
  switch (c.kind) {
    case 'true':
    case 'false':
      return c;
    case 'not':
      return { ...c, arg: mapCond(c.arg, f) };
    case 'and':
    case 'or':
    case 'implies':
      return { ...c, left: mapCond(c.left, f), right: mapCond(c.right, f) };
    case 'eq':
      return { ...c, lhs: f(c.lhs), rhs: f(c.rhs) };
  }
}
