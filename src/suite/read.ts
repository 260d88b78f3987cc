// A TypeScript suite (or a single TypeScript test) turned into C litmus
// tests: one per version and scenario. The entry file's default export is
// `suite({...})` (versions x scenarios) or `scenario({...})` (one test, whose
// functions are the file's own).

import { basename, join } from 'node:path';
import { existsSync } from 'node:fs';
import type { Node } from 'ts-morph';
import type { CondExpr, CondTerm, Expr, InitItem, InitValue, LitmusTest, Param, Pos, Process, Stmt } from '../parse/ast.js';
import { Lowerer, fold, indexStep, literal32, pathLocation, renameStmt, type LocType } from './lower.js';
import { Modules, SuiteError, type Module } from './modules.js';

export interface SuiteTest {
  version: string;
  scenario: string;
  says: string;
  test: LitmusTest;
  /** Which file each position in the test came from. */
  files: Map<Pos, string>;
  /** Where the interrupt lands, for a scenario with interrupted(). */
  variant?: string;
}

export interface Suite {
  file: string;
  /** Every file read for it, the entry first (what its saved lowering depends on). */
  sources: string[];
  /** A single test (the file's default export is a scenario), not a suite. */
  single: boolean;
  title: string;
  underReview?: string;
  baseline?: string;
  badOutcome?: string;
  versions: string[];
  scenarios: { name: string; says: string }[];
  tests: SuiteTest[];
  /** The version x scenario pairs that could not be turned into a test, and why. */
  unread: Unread[];
}

export interface Unread {
  version: string;
  scenario: string;
  /** file:line:col: what is wrong. */
  error: string;
}

/** The entry file of a suite folder. */
export function suiteEntry(folder: string): string | undefined {
  const p = join(folder, 'suite.ts');
  return existsSync(p) ? p : undefined;
}

/**
 * A suite's tests, lowered to C. A saved lowering whose stamp matches the
 * files is used (see lowered.ts); `fresh` always reads with ts-morph.
 */
export async function readSuite(file: string, opts: { fresh?: boolean } = {}): Promise<Suite> {
  const { loadLowered, saveLowered } = await import('./lowered.js');
  if (!opts.fresh) {
    const saved = loadLowered(file);
    if (saved) return saved;
  }
  const suite = await readFresh(file);
  if (!opts.fresh) saveLowered(suite);
  return suite;
}

/** Reads a suite with ts-morph (loaded now). */
export async function readFresh(file: string): Promise<Suite> {
  const ts = await import('ts-morph');
  const mods = new Modules(ts);
  const suite = new SuiteReader(mods).read(file);
  return { ...suite, sources: mods.files() };
}

interface ScenarioDef {
  name: string;
  says: string;
  module: Module;
  node: Node;
  init?: Node;
  threads: Node[];
  exists: Node;
  result?: string;
}

class SuiteReader {
  constructor(private readonly mods: Modules) {}

  private get N() {
    return this.mods.ts.Node;
  }

  read(file: string): Suite {
    const m = this.mods.load(file);
    const d = m.defaultExport;
    if (!d) throw new SuiteError('a suite file has "export default suite({...})" (or scenario({...}) for one test)', m.file, { line: 1, col: 1 });
    const call = this.helperCall(m, d);
    const args = this.objectArg(m, call);
    if (call.name === 'scenario') {
      const sc = this.scenarioDef(m, call.node);
      const name = basename(file).replace(/\.ts$/, '');
      return {
        file, sources: [], single: true, title: sc.says, versions: [name], scenarios: [{ name: sc.name, says: sc.says }],
        tests: this.tests(sc, m, name, sc.name), unread: [],
      };
    }
    const title = this.str(m, args, 'title');
    const underReview = this.str(m, args, 'underReview', true);
    const baseline = this.str(m, args, 'baseline', true);
    const badOutcome = this.str(m, args, 'badOutcome', true);
    const versions = this.versions(m, args);
    const scenarios = this.scenarios(m, args);
    if (underReview !== undefined && !versions.some(([n]) => n === underReview)) {
      throw this.mods.error(m, args.get('underReview')!, `underReview "${underReview}" is not one of the versions (${versions.map(([n]) => n).join(', ')})`);
    }
    if (baseline !== undefined && !versions.some(([n]) => n === baseline)) {
      throw this.mods.error(m, args.get('baseline')!, `baseline "${baseline}" is not one of the versions`);
    }
    const tests: SuiteTest[] = [];
    const unread: Unread[] = [];
    for (const sc of scenarios) {
      for (const [vname, vmod] of versions) {
        // A scenario that cannot be inlined into one version leaves that cell unchecked; the rest still is.
        try {
          tests.push(...this.tests(sc, vmod, vname, `${sc.name}-${vname}`));
        } catch (e) {
          if (!(e instanceof SuiteError)) throw e;
          unread.push({ version: vname, scenario: sc.name, error: e.format() });
        }
      }
    }
    return {
      file, sources: [], single: false, title, underReview, baseline, badOutcome,
      versions: versions.map(([n]) => n),
      scenarios: scenarios.map((s) => ({ name: s.name, says: s.says })),
      tests,
      unread,
    };
  }

  /** `suite({...})` or `scenario({...})`, the kernel module's helpers. */
  private helperCall(m: Module, e: Node): { name: 'suite' | 'scenario'; node: Node } {
    const N = this.N;
    if (N.isCallExpression(e)) {
      const callee = e.getExpression().getText();
      if ((callee === 'suite' || callee === 'scenario') && this.mods.isKernelName(m, callee)) return { name: callee, node: e };
    }
    throw this.mods.error(m, e, 'expected suite({...}) or scenario({...}) from the kernel module');
  }

  private objectArg(m: Module, call: { node: Node }): Map<string, Node> {
    const N = this.N;
    if (!N.isCallExpression(call.node)) throw this.mods.error(m, call.node, 'a call');
    const [arg] = call.node.getArguments();
    if (!arg || !N.isObjectLiteralExpression(arg)) throw this.mods.error(m, call.node, 'expected one object literal argument');
    return this.props(m, arg);
  }

  private props(m: Module, obj: Node): Map<string, Node> {
    const N = this.N;
    const out = new Map<string, Node>();
    if (!N.isObjectLiteralExpression(obj)) throw this.mods.error(m, obj, 'expected an object literal');
    for (const p of obj.getProperties()) {
      if (N.isPropertyAssignment(p)) out.set(p.getName(), p.getInitializerOrThrow());
      else if (N.isShorthandPropertyAssignment(p)) out.set(p.getName(), p.getNameNode());
      else if (N.isMethodDeclaration(p)) out.set(p.getName(), p);
      else throw this.mods.error(m, p, 'expected key: value');
    }
    return out;
  }

  private str(m: Module, args: Map<string, Node>, key: string, optional = false): string {
    const n = args.get(key);
    if (!n) {
      if (optional) return undefined as unknown as string;
      throw new SuiteError(`missing "${key}"`, m.file, { line: 1, col: 1 });
    }
    const N = this.N;
    if (N.isStringLiteral(n) || N.isNoSubstitutionTemplateLiteral(n)) return n.getLiteralText();
    throw this.mods.error(m, n, `"${key}" must be a string literal`);
  }

  private versions(m: Module, args: Map<string, Node>): [string, Module][] {
    const n = args.get('versions');
    if (!n) throw new SuiteError('missing "versions"', m.file, { line: 1, col: 1 });
    const out: [string, Module][] = [];
    for (const [name, v] of this.props(m, n)) {
      const mod = this.N.isIdentifier(v) ? this.mods.namespace(m, v.getText()) : undefined;
      if (!mod) throw this.mods.error(m, v, 'a version is a module imported whole: import * as v1 from \'./v1.js\'');
      out.push([name, mod]);
    }
    if (out.length === 0) throw this.mods.error(m, n, 'a suite needs at least one version');
    return out;
  }

  private scenarios(m: Module, args: Map<string, Node>): ScenarioDef[] {
    const N = this.N;
    const n = args.get('scenarios');
    if (!n || !N.isArrayLiteralExpression(n)) throw this.mods.error(m, n ?? m.source, '"scenarios" is an array of scenario(...) values');
    const out: ScenarioDef[] = [];
    for (const el of n.getElements()) {
      if (N.isIdentifier(el)) {
        const c = this.mods.constant(m, el.getText());
        if (!c) throw this.mods.error(m, el, `unknown scenario "${el.getText()}"`);
        out.push(this.scenarioDef(c.module, c.value));
      } else out.push(this.scenarioDef(m, el));
    }
    const names = new Set<string>();
    for (const s of out) {
      if (names.has(s.name)) throw this.mods.error(s.module, s.node, `two scenarios are named "${s.name}"`);
      names.add(s.name);
    }
    return out;
  }

  private scenarioDef(m: Module, node: Node): ScenarioDef {
    const call = this.helperCall(m, node);
    if (call.name !== 'scenario') throw this.mods.error(m, node, 'expected scenario({...})');
    const args = this.objectArg(m, call);
    const threads = args.get('threads');
    const exists = args.get('exists');
    if (!threads || !this.N.isArrayLiteralExpression(threads)) throw this.mods.error(m, node, '"threads" is an array of arrow functions');
    if (!exists) throw this.mods.error(m, node, 'missing "exists" (the outcome to look for)');
    const name = this.str(m, args, 'name');
    if (!/^[A-Za-z0-9_.+-]+$/.test(name)) throw this.mods.error(m, args.get('name')!, 'a scenario name uses letters, digits and - _ . +');
    const result = this.str(m, args, 'result', true);
    if (result !== undefined && !['Never', 'Sometimes', 'Always'].includes(result)) throw this.mods.error(m, args.get('result')!, 'result is Never, Sometimes or Always');
    return { name, says: this.str(m, args, 'says'), module: m, node, init: args.get('init'), threads: threads.getElements(), exists, result };
  }

  /** One C test: a scenario's threads with the version's functions inlined. */
  /**
   * The tests of a scenario in a version: one, or with interrupted(), one per
   * point where the interrupt can land (before, at each window, after).
   */
  private tests(sc: ScenarioDef, version: Module, vname: string, name: string): SuiteTest[] {
    const after = this.test(sc, version, vname, name, Infinity);
    if (!after.irq.used) return [after.t];
    const out: SuiteTest[] = [];
    for (let at = 0; at <= after.irq.windows; at++) {
      const t = this.test(sc, version, vname, `${name}-irq${at}`, at).t;
      t.variant = at === 0 ? 'interrupt before' : `interrupt at irq_window ${at}`;
      out.push(t);
    }
    after.t.test.name = `${name}-irq${after.irq.windows + 1}`;
    after.t.variant = 'interrupt after';
    out.push(after.t);
    return out;
  }

  private test(sc: ScenarioDef, version: Module, vname: string, name: string, irqAt: number): { t: SuiteTest; irq: Lowerer['irq'] } {
    const L = new Lowerer(this.mods, version, irqAt);
    const threads = sc.threads.map((t) => L.thread(t, sc.module));
    const renames = threads.map((t) => avoidLocations(t.body, new Set(L.locs.keys()), L.locRefs));
    const keys = threads.map((t, i) => new Map([...t.keys].map(([k, reg]) => [k, renames[i].get(reg) ?? reg])));
    const init = new Map<string, { value: number; length?: number }>();
    if (sc.init) this.init(sc.module, sc.init, [], init);
    const condition = this.condition(sc.module, sc.exists, keys, L);
    for (const [loc, { length }] of init) {
      if (length !== undefined) L.useArray(loc.replace(/\[\d+\]$/, ''), length, sc.module, sc.init!);
      else if (!L.locs.has(loc)) L.locs.set(loc, 'int');
    }
    const pos0: Pos = { line: 1, col: 1 };
    const num = (value: number): InitValue => ({ kind: 'num', value });
    // Spinlocks and SRCU domains are not in the initial state (herd7 has no size for them).
    const initItems: InitItem[] = [...L.locs].filter(([, type]) => type === 'int').map(([loc, type]) => {
      const length = L.arrays.get(loc);
      if (length === undefined) return { thread: null, name: loc, type: cType(type), value: num(init.get(loc)?.value ?? 0), pos: pos0 };
      const values = Array.from({ length }, (_, i) => init.get(`${loc}[${i}]`)?.value ?? 0);
      return { thread: null, name: loc, type: cType(type), dims: [length], ...(values.some((v) => v !== 0) ? { values: values.map(num) } : {}), pos: pos0 };
    });
    const processes: Process[] = threads.map((t, i) => ({
      index: i,
      params: [...t.locs].sort().map((loc): Param => ({ type: `${cType(L.locs.get(loc)!)} *`, name: loc, pos: pos0 })),
      body: t.body,
      pos: pos0,
    }));
    const test: LitmusTest = {
      arch: 'C', name, info: [], result: sc.result, init: initItems, processes, locations: [], quantifier: 'exists', condition, conditionPos: this.mods.pos(sc.module, sc.exists),
    };
    L.files.set(test.conditionPos, sc.module.file);
    return { t: { version: vname, scenario: sc.name, says: sc.says, test, files: L.files }, irq: L.irq };
  }

  /**
   * The initial values an `init` object gives, by the name the initial state
   * gives each location (an array literal of numbers is an int array's
   * elements, `a[1]`, with the array's length).
   */
  private init(m: Module, n: Node, path: string[], out: Map<string, { value: number; length?: number }>, length?: number): void {
    const N = this.N;
    if (N.isObjectLiteralExpression(n)) {
      for (const [k, v] of this.props(m, n)) this.init(m, v, [...path, k], out);
      return;
    }
    if (N.isArrayLiteralExpression(n)) {
      const els = n.getElements();
      const ints = els.every((el) => !N.isObjectLiteralExpression(el) && !N.isArrayLiteralExpression(el));
      els.forEach((el, i) => this.init(m, el, [...path, indexStep(i)], out, ints ? els.length : undefined));
      return;
    }
    const at = pathLocation(path);
    const name = length !== undefined ? at.name : at.name.replace(/\[(\d+)\]$/, '_$1');
    out.set(name, { value: this.constNum(m, n), length });
  }

  /** A number known without running anything: literals, module constants, operators on them. */
  private constNum(m: Module, n: Node): number {
    const N = this.N;
    const literal = (l: Node, negative: boolean): number => {
      const v = literal32(l.getText(), negative);
      if (typeof v === 'string') throw this.mods.error(m, l, v);
      return v;
    };
    if (N.isNumericLiteral(n)) return literal(n, false);
    if (N.isParenthesizedExpression(n)) return this.constNum(m, n.getExpression());
    if (N.isIdentifier(n)) {
      const c = this.mods.constant(m, n.getText());
      if (c) return this.constNum(c.module, c.value);
    }
    if (N.isPrefixUnaryExpression(n)) {
      const k = this.mods.ts.SyntaxKind;
      const op = n.getOperatorToken();
      if (op === k.MinusToken && N.isNumericLiteral(n.getOperand())) return literal(n.getOperand(), true);
      const v = this.constNum(m, n.getOperand());
      if (op === k.MinusToken) return fold('neg', v);
      if (op === k.TildeToken) return fold('~', v);
      if (op === k.ExclamationToken) return fold('!', v);
      if (op === k.PlusToken) return v;
    }
    if (N.isBinaryExpression(n)) {
      const op = n.getOperatorToken().getText();
      const ops = ['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>'] as const;
      const found = ops.find((o) => o === op);
      if (found) {
        const b = this.constNum(m, n.getRight());
        if (b === 0 && (found === '/' || found === '%')) throw this.mods.error(m, n, 'division by zero (herd7 stops on it)');
        return fold(found, this.constNum(m, n.getLeft()), b);
      }
    }
    throw this.mods.error(m, n, 'expected a constant number');
  }

  /** The `exists` arrow function: ([p0, p1], mem) => p1.valid === 0 && mem.x === 1. */
  private condition(m: Module, fn: Node, keys: Map<string, string>[], L: Lowerer): CondExpr {
    const N = this.N;
    if (!N.isArrowFunction(fn)) throw this.mods.error(m, fn, '"exists" is an arrow function ([p0, p1, ...], mem) => condition');
    const params = fn.getParameters();
    const threadNames = new Map<string, number>();
    let threadsParam: string | undefined;
    let memParam: string | undefined;
    if (params[0]) {
      const b = params[0].getNameNode();
      if (N.isArrayBindingPattern(b)) {
        b.getElements().forEach((el, i) => {
          if (N.isBindingElement(el)) threadNames.set(el.getName(), i);
        });
      } else threadsParam = b.getText();
    }
    if (params[1]) memParam = params[1].getName();
    let body: Node = fn.getBody();
    if (N.isBlock(body)) {
      const st = body.getStatements();
      const r = st[0];
      if (st.length !== 1 || !N.isReturnStatement(r) || !r.getExpression()) throw this.mods.error(m, body, 'the condition is one expression (or one return)');
      body = r.getExpressionOrThrow();
    }
    const term = (t: Node): CondTerm => {
      const pos = this.mods.pos(m, t);
      if (N.isPropertyAccessExpression(t) || N.isElementAccessExpression(t)) {
        const path = this.accessPath(m, t);
        const [root, ...rest] = path;
        let thread = threadNames.get(root);
        let field = rest;
        if (thread === undefined && root === threadsParam && rest.length >= 1 && /^\d+$/.test(rest[0])) {
          thread = Number(rest[0]);
          field = rest.slice(1);
        }
        if (thread !== undefined) {
          const reg = field.length === 1 ? keys[thread]?.get(field[0]) : undefined;
          if (reg === undefined) throw this.mods.error(m, t, `thread ${thread} returns no value named "${field.join('.')}"`);
          return { kind: 'reg', thread, name: reg, pos };
        }
        if (root === memParam && rest.length) {
          // An element of a tuple of ints is an element of its C array (as in the code).
          const at = pathLocation(rest);
          const length = at.element && N.isElementAccessExpression(t) ? L.tupleLength(t.getExpression()) : undefined;
          if (at.element && length !== undefined && L.locs.get(at.element.array) !== 'spinlock_t') {
            if (at.element.index >= length) throw this.mods.error(m, t, `index ${at.element.index} is out of bounds: the tuple has ${length} elements`);
            L.useArray(at.element.array, length, m, t);
            return { kind: 'mem', name: at.name, pos };
          }
          const loc = at.name.replace(/\[(\d+)\]$/, '_$1');
          if (!L.locs.has(loc)) L.locs.set(loc, 'int');
          return { kind: 'mem', name: loc, pos };
        }
        throw this.mods.error(m, t, 'a condition compares a thread\'s returned value (p1.valid) or a final value (mem.x) with a number');
      }
      return { kind: 'num', value: this.constNum(m, t), pos };
    };
    const cond = (e: Node): CondExpr => {
      if (N.isParenthesizedExpression(e)) return cond(e.getExpression());
      const k = this.mods.ts.SyntaxKind;
      if (e.getKind() === k.TrueKeyword) return { kind: 'true' };
      if (e.getKind() === k.FalseKeyword) return { kind: 'false' };
      if (N.isPrefixUnaryExpression(e) && e.getOperatorToken() === k.ExclamationToken) return { kind: 'not', arg: cond(e.getOperand()) };
      if (N.isBinaryExpression(e)) {
        const op = e.getOperatorToken().getText();
        if (op === '&&' || op === '||') return { kind: op === '&&' ? 'and' : 'or', left: cond(e.getLeft()), right: cond(e.getRight()) };
        if (op === '===' || op === '==' || op === '!==' || op === '!=') {
          return { kind: 'eq', lhs: term(e.getLeft()), rhs: term(e.getRight()), negated: op.startsWith('!'), pos: this.mods.pos(m, e) };
        }
      }
      throw this.mods.error(m, e, 'a condition is built from ===, !==, &&, || and !');
    };
    return cond(body);
  }

  private accessPath(m: Module, t: Node): string[] {
    const N = this.N;
    if (N.isIdentifier(t)) return [t.getText()];
    if (N.isPropertyAccessExpression(t)) return [...this.accessPath(m, t.getExpression()), t.getName()];
    if (N.isElementAccessExpression(t)) return [...this.accessPath(m, t.getExpression()), indexStep(this.constNum(m, t.getArgumentExpressionOrThrow()))];
    if (N.isParenthesizedExpression(t)) return this.accessPath(m, t.getExpression());
    throw this.mods.error(m, t, 'expected p1.name or mem.location');
  }
}

function cType(t: LocType): string {
  return t === 'srcu_struct' ? 'struct srcu_struct' : t;
}

/** Renames registers that have a shared location's name (C would confuse them). */
function avoidLocations(body: Stmt[], locs: Set<string>, refs: Set<Expr>): Map<string, string> {
  const used = new Set<string>();
  const collect = (s: Stmt) => {
    if (s.kind === 'decl') used.add(s.name);
    if (s.kind === 'block') s.body.forEach(collect);
  };
  body.forEach(collect);
  const map = new Map<string, string>();
  for (const r of used) {
    if (!locs.has(r)) continue;
    let n = `${r}_r`;
    for (let i = 1; used.has(n) || locs.has(n); i++) n = `${r}_r${i}`;
    map.set(r, n);
  }
  if (map.size) body.forEach((s) => renameStmt(s, map, refs));
  return map;
}

