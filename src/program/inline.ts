// Helper functions of a C test (`static int f(int *x, int v) { ... }`
// before the processes), inlined at each call as the TypeScript suites
// inline theirs: the arguments bound to the parameters (a name or a number
// stands for the parameter where the body never assigns it; anything else is
// copied into a register of its own), locals renamed apart, the value
// returned in a register of its own. A `return` inside an `if` takes what
// follows the `if` into the branches that do not return, so the result is
// plain C that herd7 reads (`litmus export` writes it). Recursion is refused
// at the call that recurses; so is a call in a loop's header. The inlining
// can grow exponentially (a function calling another twice, 22 deep: 2^22
// calls), so it has the TypeScript suites' bounds: LIMITS.inlinedCalls calls
// and LIMITS.loweredStatements statements per process, a LimitError at the
// first past them.

import { walkStmt, type Expr, type FunctionDef, type Inlined, type LitmusTest, type Pos, type Stmt } from '../parse/ast.js';
import { fail } from '../parse/errors.js';
import { lookupPrimitive } from '../events/primitives.js';
import { limit, LIMITS } from '../limits.js';

/** The test with every call of a helper function replaced by the function's body (the test itself when it has none). */
export function inlineFunctions(t: LitmusTest): LitmusTest {
  if (!t.functions?.length) return t;
  const fns = new Map<string, FunctionDef>();
  for (const f of t.functions) {
    if (lookupPrimitive(f.name)) fail(`a helper function cannot be named like the primitive ${f.name}`, f.pos);
    fns.set(f.name, f);
  }
  const taken = new Set<string>();
  for (const it of t.init) taken.add(it.name);
  for (const p of t.processes) {
    for (const q of p.params) taken.add(q.name);
    for (const s of p.body) walkStmt(s, { stmt: (x) => void (x.kind === 'decl' && taken.add(x.name)), expr: (e) => void (e.kind === 'name' && taken.add(e.name)) });
  }
  const inliner = new Inliner(fns, taken);
  return { ...t, functions: undefined, processes: t.processes.map((p) => ({ ...p, body: inliner.process(p.body) })) };
}

/** Where the statements being rewritten come from: a process, or one call of a function. */
interface Frame {
  /** What each of the function's names stands for: its parameters' arguments, its locals' new names. */
  subst: Map<string, Expr>;
  /** The register the call's value goes to (none for a void function or a process). */
  result?: string;
  /** The functions being inlined, outermost first (recursion is refused). */
  stack: string[];
  inFunction: boolean;
  /** The call this frame's code is inlined at: the positions of its primitive calls and loops say so. */
  via?: Inlined;
}

/** A position of a frame's code, marked with the call it is inlined at. */
const posIn = (pos: Pos, frame: Frame): Pos => (frame.via ? { ...pos, inlined: frame.via } : pos);

class Inliner {
  /** Calls inlined and statements written into the process being inlined (LIMITS.inlinedCalls, LIMITS.loweredStatements). */
  private calls = 0;
  private statements = 0;

  constructor(
    private readonly fns: Map<string, FunctionDef>,
    private readonly taken: Set<string>,
  ) {}

  process(body: Stmt[]): Stmt[] {
    this.calls = 0;
    this.statements = 0;
    const out: Stmt[] = [];
    this.body(body, { subst: new Map(), stack: [], inFunction: false }, out, null);
    return out;
  }

  private fresh(base: string): string {
    let n = base;
    for (let k = 2; this.taken.has(n); k++) n = `${base}_${k}`;
    this.taken.add(n);
    return n;
  }

  /** Statements of a list, a `return` ending the path; `rest` is what follows the list (the continuation of an if that returns). */
  private body(list: Stmt[], frame: Frame, out: Stmt[], rest: ((o: Stmt[]) => void) | null): void {
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      if (s.kind === 'return') {
        this.count(s);
        if (!frame.inFunction) fail('"return" outside a helper function', s.pos);
        if (s.value) {
          const value = this.expr(s.value, frame, out);
          if (!frame.result) fail('this function returns void: "return" takes no value here', s.pos);
          out.push({ kind: 'assign', target: { kind: 'name', name: frame.result, pos: s.pos }, value, pos: s.pos });
        }
        return;
      }
      if (s.kind === 'if' && frame.inFunction && returns(s)) {
        this.count(s);
        const after = (o: Stmt[]) => this.body(list.slice(i + 1), frame, o, rest);
        const cond = this.expr(s.cond, frame, out);
        const thenOut: Stmt[] = [];
        this.body(asList(s.then), frame, thenOut, after);
        const elseOut: Stmt[] = [];
        if (s.else) this.body(asList(s.else), frame, elseOut, after);
        else after(elseOut);
        out.push({ kind: 'if', cond, then: { kind: 'block', body: thenOut, pos: s.pos }, else: { kind: 'block', body: elseOut, pos: s.pos }, pos: s.pos });
        return;
      }
      this.stmt(s, frame, out);
    }
    if (rest) rest(out);
  }

  /** One more statement inlined (what follows an if with a return is inlined into its branches: the count bounds that growth too). */
  private count(s: Stmt): void {
    if (++this.statements > LIMITS.loweredStatements) throw limit(`more than ${LIMITS.loweredStatements} statements inlined into one process`, s.pos);
  }

  private stmt(s: Stmt, frame: Frame, out: Stmt[]): void {
    this.count(s);
    const sub = (x: Stmt): Stmt => {
      const o: Stmt[] = [];
      this.stmt(x, frame, o);
      return o.length === 1 ? o[0] : { kind: 'block', body: o, pos: x.pos };
    };
    switch (s.kind) {
      case 'decl': {
        const init = s.init && this.expr(s.init, frame, out);
        let name = s.name;
        if (frame.inFunction) {
          name = this.fresh(`${frame.stack[frame.stack.length - 1]}_${s.name}`);
          frame.subst.set(s.name, { kind: 'name', name, pos: s.pos });
        }
        out.push({ ...s, name, init });
        return;
      }
      case 'assign': {
        const value = this.expr(s.value, frame, out);
        out.push({ ...s, pos: posIn(s.pos, frame), target: this.expr(s.target, frame, out), value });
        return;
      }
      case 'expr':
        if (s.expr.kind === 'call' && this.fns.has(s.expr.name)) {
          this.call(s.expr, frame, out, false);
          return;
        }
        out.push({ ...s, expr: this.expr(s.expr, frame, out) });
        return;
      case 'if': {
        const cond = this.expr(s.cond, frame, out);
        out.push({ ...s, cond, then: sub(s.then), else: s.else && sub(s.else) });
        return;
      }
      case 'while':
      case 'for':
      case 'do': {
        if (frame.inFunction && returns(s.body)) fail('a "return" inside a loop is not supported (set a register and break)', s.pos);
        const header = s.kind === 'for' ? [s.cond, ...[s.init, s.step].flatMap((x) => (x ? exprsOf(x) : []))] : [s.cond];
        for (const e of header) if (e) this.noCall(e, 'a loop\'s header');
        const cond = s.cond && this.expr(s.cond, frame, out);
        const pos = posIn(s.pos, frame);
        if (s.kind === 'for') out.push({ ...s, pos, init: s.init && sub(s.init), cond, step: s.step && sub(s.step), body: sub(s.body) });
        else out.push({ ...s, pos, cond: cond!, body: sub(s.body) });
        return;
      }
      case 'block': {
        const body: Stmt[] = [];
        this.body(s.body, frame, body, null);
        out.push({ ...s, body });
        return;
      }
      case 'return':
        this.body([s], frame, out, null);
        return;
      case 'empty':
      case 'break':
      case 'continue':
        out.push(s);
        return;
    }
  }

  /** Refuses a helper call where it would run a different number of times than written (a loop's header). */
  private noCall(e: Expr, where: string): void {
    walkStmt({ kind: 'expr', expr: e, pos: e.pos }, {
      expr: (x) => {
        if (x.kind === 'call' && this.fns.has(x.name)) fail(`a call of the helper function ${x.name} in ${where}: call it in the loop's body`, x.pos);
      },
    });
  }

  /** An expression with the frame's names substituted and helper calls inlined before it (into out). */
  private expr(e: Expr, frame: Frame, out: Stmt[]): Expr {
    switch (e.kind) {
      case 'name':
        return frame.subst.get(e.name) ?? e;
      case 'num':
        return e;
      case 'call':
        if (this.fns.has(e.name)) return this.call(e, frame, out, true);
        return { ...e, pos: posIn(e.pos, frame), args: e.args.map((a) => this.expr(a, frame, out)) };
      case 'deref':
        return { ...e, pos: posIn(e.pos, frame), arg: this.expr(e.arg, frame, out) };
      case 'addr':
      case 'unary':
      case 'cast':
        return { ...e, arg: this.expr(e.arg, frame, out) };
      case 'binary':
        return { ...e, left: this.expr(e.left, frame, out), right: this.expr(e.right, frame, out) };
      case 'index':
        return { ...e, pos: posIn(e.pos, frame), base: this.expr(e.base, frame, out), index: this.expr(e.index, frame, out) };
      case 'field':
        return { ...e, pos: posIn(e.pos, frame), base: this.expr(e.base, frame, out) };
    }
  }

  /** One call inlined into out; its value (a register), or 0 when unused. */
  private call(e: Extract<Expr, { kind: 'call' }>, frame: Frame, out: Stmt[], needValue: boolean): Expr {
    const f = this.fns.get(e.name)!;
    if (++this.calls > LIMITS.inlinedCalls) throw limit(`more than ${LIMITS.inlinedCalls} calls of helper functions inlined into one process`, e.pos);
    if (frame.stack.includes(f.name)) {
      const path = [...frame.stack.slice(frame.stack.indexOf(f.name)), f.name].join(' -> ');
      fail(`recursion: ${path} (a helper function is inlined at each call, so it cannot call itself)`, e.pos);
    }
    if (e.args.length !== f.params.length) fail(`${f.name} takes ${f.params.length} argument${f.params.length === 1 ? '' : 's'}, not ${e.args.length}`, e.pos);
    const isVoid = f.returnType === 'void';
    if (needValue && isVoid) fail(`${f.name} returns void: its call has no value`, e.pos);
    const args = e.args.map((a) => this.expr(a, frame, out));
    const assigned = assignedNames(f.body);
    const inner: Frame = { subst: new Map(), stack: [...frame.stack, f.name], inFunction: true, via: { at: posIn(e.pos, frame), fn: f.name } };
    f.params.forEach((q, i) => {
      const a = args[i];
      if ((a.kind === 'name' || a.kind === 'num') && !assigned.has(q.name)) inner.subst.set(q.name, a);
      else {
        const name = this.fresh(`${f.name}_${q.name}`);
        out.push({ kind: 'decl', type: q.type, name, init: a, pos: e.pos });
        inner.subst.set(q.name, { kind: 'name', name, pos: e.pos });
      }
    });
    if (!isVoid) {
      inner.result = this.fresh(`${f.name}_ret`);
      out.push({ kind: 'decl', type: 'int', name: inner.result, pos: e.pos });
    }
    this.body(f.body, inner, out, null);
    return inner.result ? { kind: 'name', name: inner.result, pos: e.pos } : { kind: 'num', value: 0, pos: e.pos };
  }
}

const asList = (s: Stmt): Stmt[] => (s.kind === 'block' ? s.body : [s]);

/** Whether a statement holds a `return`. */
function returns(s: Stmt): boolean {
  let found = false;
  walkStmt(s, { stmt: (x) => void (x.kind === 'return' && (found = true)) });
  return found;
}

function assignedNames(body: Stmt[]): Set<string> {
  const out = new Set<string>();
  for (const s of body) walkStmt(s, { stmt: (x) => void (x.kind === 'assign' && x.target.kind === 'name' && out.add(x.target.name)) });
  return out;
}

function exprsOf(s: Stmt): Expr[] {
  const out: Expr[] = [];
  walkStmt(s, { expr: (e) => void out.push(e) });
  return out;
}
