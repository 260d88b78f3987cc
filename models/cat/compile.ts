// Compiling a cat model: its files read and their includes inlined (as
// herd does, textually, each file once per include), every name resolved to
// the definition it means (a numbered slot: a later `let fence = fence | x`
// is a new slot, so functions keep the definitions they were written
// against), and each definition staged by what it depends on: `static` when
// it needs only what an execution's events decide (program order, tags,
// dependencies, locations), `dynamic` when it needs rf, co or the final
// writes. Static definitions are computed once per event structure, the
// rest per candidate (models/cat/evaluate.ts).

import type { Binding, CatExpr, CatFile, CatInstr, CatPos, Condition, Pattern } from './ast.js';
import { BASE_NAMES, HERD_PRIMITIVES, NATIVES } from './builtins.js';
import { createHash } from 'node:crypto';
import { ModelError } from './lexer.js';
import { LIBRARY } from './library.js';
import { parseCat } from './parser.js';

export type Stage = 'static' | 'dynamic';

/** Where a model's files come from: a file's text by the name it is included by. */
export interface ModelSource {
  /** The text and path of an included file, or undefined if it is not found. */
  find(name: string, from: CatPos | undefined): { path: string; text: string } | undefined;
}

/** One top-level instruction, with the slots it defines. */
export interface CompiledInstr {
  instr: CatInstr;
  /** Slots the instruction binds (a let's names, a with's name, a procedure). */
  defines: number[];
  stage: Stage;
}

export interface CompiledCat {
  title?: string;
  instrs: CompiledInstr[];
  /** Per slot: its name, stage, and the instruction that defines it (-1 for base names). */
  slots: { name: string; stage: Stage; instr: number }[];
  /** Slots of the base names (herd's sets and relations of an execution), by name. */
  base: Map<string, number>;
  /** Tags the model's enums declare. */
  tags: Set<string>;
  /** The variants the model tests (`if "lkmmv2"`), each where it is first tested. */
  variantsTested: Map<string, CatPos>;
  /** Every file read, for messages. */
  files: string[];
}

/** How deep includes may nest (a loop is found before: a file included while it is being read). */
const MAX_INCLUDE_DEPTH = 32;
/**
 * How many files a model may read in all, a file included again counted again (herd7 reads it again): files
 * that each include the next twice are 2^depth reads (herd7: 1.6 GB after 60 s at 25 levels).
 */
const MAX_FILES_READ = 1000;

/**
 * A digest of a model's files, without reading them as cat (it is asked
 * for at every start of `litmus herd7 -conf`, to know the kernel's
 * unchanged files): the bytes of stdlib, then of each of `mains`, each
 * followed by every file it names in an `include "..."` (found as
 * compileCat finds them, whatever the variants, which are digested too).
 * Equal bytes give equal digests; a file named only in a comment is
 * digested too (never a file compileCat reads left out: test/cat.test.ts).
 * Undefined when an include is not found, loops or reads too many files
 * (compileCat then reports it).
 */
export function fingerprintOf(mains: { path: string; text: string }[], source: ModelSource, variants: ReadonlySet<string>): { fingerprint: string; title?: string; files: string[] } | undefined {
  // node:crypto's SHA-256: about 1 ms to load and run, where litmus's own MD5 (src/report/md5.ts) takes over 10 ms on these 20 KB before V8 optimizes it.
  const digest = createHash('sha256');
  const files: string[] = [];
  const visit = (text: string, path: string, depth: number, natives: readonly string[]): boolean => {
    if (depth > MAX_INCLUDE_DEPTH || files.length >= MAX_FILES_READ) return false;
    files.push(path);
    digest.update(`\u0002${text.length}\u0003${text}\u0002${natives.join(',')}\u0003`);
    for (const m of text.matchAll(/\binclude\s+"([^"]*)"/g)) {
      const name = m[1];
      const lib = LIBRARY[name];
      const found = source.find(name, { file: path, line: 1, col: 1 });
      if (found ? !visit(found.text, found.path, depth + 1, lib?.natives ?? []) : !lib || !visit(lib.text, `litmus:${name}`, depth + 1, lib.natives)) return false;
    }
    return true;
  };
  const std = LIBRARY['stdlib.cat'];
  if (!visit(std.text, 'litmus:stdlib.cat', 0, std.natives)) return undefined;
  for (const m of mains) if (!visit(m.text, m.path, 0, [])) return undefined;
  digest.update(`variants:${[...variants].sort().join(',')}`);
  // The model's title as the parser reads it, for the kernel's files (a leading string): the cat's, else the bell's.
  let title: string | undefined;
  for (const m of mains) title = /^\s*(?:(?:\(\*[\s\S]*?\*\)|\/\/[^\n]*|#[^\n]*)\s*)*"([^"]*)"/.exec(m.text)?.[1] ?? title;
  return { fingerprint: digest.digest('hex'), title, files };
}

/**
 * Reads the model: stdlib first, then each of `mains` (the bell, then the
 * cat) with their includes inlined; resolves names and stages them.
 */
export function compileCat(mains: { path: string; text: string }[], source: ModelSource, variants: ReadonlySet<string>): CompiledCat {
  const files: string[] = [];
  const flat: CatInstr[] = [];
  const variantsTested = new Map<string, CatPos>();
  let title: string | undefined;
  /** The files being read, outermost first, each with the include that named it (none for stdlib and the mains). */
  const reading: { path: string; by?: CatPos }[] = [];
  const expand = (list: CatInstr[], depth: number) => {
    for (const ins of list) {
      if (ins.kind === 'include') {
        const lib = LIBRARY[ins.file];
        const found = source.find(ins.file, ins.pos);
        const path = found ? found.path : lib ? `litmus:${ins.file}` : undefined;
        const at = path === undefined ? -1 : reading.findIndex((r) => r.path === path);
        if (at >= 0) throw includeLoop([...reading.slice(at), { path: path!, by: ins.pos }]);
        if (depth >= MAX_INCLUDE_DEPTH) throw new ModelError(`include "${ins.file}": includes nested more than ${MAX_INCLUDE_DEPTH} deep`, ins.pos);
        if (files.length >= MAX_FILES_READ) throw new ModelError(`include "${ins.file}": the model reads more than ${MAX_FILES_READ} files in all (a file included again is read again)`, ins.pos);
        if (found) load(found.text, found.path, depth + 1, lib?.natives ?? [], ins.pos);
        else if (lib) load(lib.text, `litmus:${ins.file}`, depth + 1, lib.natives, ins.pos);
        else throw new ModelError(`Cannot find file ${ins.file}`, ins.pos);
      } else if (ins.kind === 'if' && ins.cond.kind === 'variant') {
        // Variants are known before the model runs: only the branch taken is read.
        if (!variantsTested.has(ins.cond.name)) variantsTested.set(ins.cond.name, ins.cond.pos);
        expand(variants.has(ins.cond.name) ? ins.then : ins.otherwise, depth);
      } else {
        flat.push(ins);
      }
    }
  };
  const load = (text: string, path: string, depth: number, natives: readonly string[], by?: CatPos): CatFile => {
    files.push(path);
    const parsed: CatFile = parseCat(text, path);
    for (const n of natives) flat.push({ kind: 'let', rec: false, bindings: [nativeBinding(n, parsed)], pos: { file: path, line: 1, col: 1 } });
    reading.push({ path, by });
    expand(parsed.instrs, depth);
    reading.pop();
    return parsed;
  };
  const std = LIBRARY['stdlib.cat'];
  load(std.text, 'litmus:stdlib.cat', 0, std.natives);
  for (const m of mains) title = load(m.text, m.path, 0, []).title ?? title;
  const compiled = resolve(flat, files, title);
  for (const [v, at] of variantsTested) if (!compiled.variantsTested.has(v)) compiled.variantsTested.set(v, at);
  return compiled;
}

/**
 * Files that include each other: `cycle` is the loop, from the file
 * included again to the include that closes it. Reported at the include
 * that closes the loop, or, when that one is in litmus's own library (a
 * user's file named like one of its files, included from it), at the last
 * include of the loop in the user's files; the message names the loop.
 */
function includeLoop(cycle: { path: string; by?: CatPos }[]): ModelError {
  const name = (p: string) => (p.startsWith('litmus:') ? `${p.slice('litmus:'.length)} (litmus's own)` : p.replace(/^.*\//, ''));
  let k = cycle.length - 1;
  while (k > 0 && cycle[k].by!.file.startsWith('litmus:')) k--;
  if (!cycle[k].by) k = cycle.length - 1;
  const included = cycle[k].path.replace(/^litmus:/, '').replace(/^.*\//, '');
  const what = cycle.length === 2 ? 'a file includes itself' : 'files include each other in a loop';
  return new ModelError(`include "${included}": ${what} (${cycle.map((c) => name(c.path)).join(' -> ')})`, cycle[k].by!);
}

/** `let NAME = <the native of that name>`, at the start of the file that makes it visible. */
function nativeBinding(name: string, file: CatFile): Binding {
  const pos = { file: file.file, line: 1, col: 1 };
  return { pattern: { kind: 'var', name }, expr: { kind: 'var', name: `%${name}`, pos }, pos };
}

/** Local names in scope while resolving an expression (parameters, let ... in). */
type Locals = ReadonlySet<string>;

/** What an expression reads: a dynamic definition (rf, co, ...), a local name. */
interface Reads {
  dynamic: boolean;
  local: boolean;
}

/** Worth computing apart: anything but a name or a constant. */
function worthHoisting(e: CatExpr): boolean {
  return e.kind !== 'var' && e.kind !== 'empty' && e.kind !== 'universe' && e.kind !== 'tag' && e.kind !== 'fun';
}

class Resolver {
  readonly slots: CompiledCat['slots'] = [];
  readonly base = new Map<string, number>();
  readonly tags = new Set<string>();
  readonly variantsTested = new Map<string, CatPos>();
  /** The slot each top-level name now means. */
  readonly top = new Map<string, number>();
  /** Depth of `try` bodies being resolved: an unknown name there is not an error. */
  private inTry = 0;

  constructor() {
    for (const [name, stage] of BASE_NAMES) this.bindBase(name, stage);
    // different-values reads the values events carry, which rf decides.
    const stageOf = (name: string): Stage => (name === 'different-values' ? 'dynamic' : 'static');
    for (const name of NATIVES.keys()) this.bindBase(`%${name}`, stageOf(name));
    for (const name of HERD_PRIMITIVES) this.bindBase(name, stageOf(name));
  }

  private bindBase(name: string, stage: Stage): void {
    const slot = this.slots.length;
    this.slots.push({ name, stage, instr: -1 });
    this.base.set(name, slot);
    this.top.set(name, slot);
  }

  /** A tag's set, bound when an enum declares the tag (see tagSetName). */
  declareTag(tag: string): void {
    this.tags.add(tag);
    const name = tagSetName(tag);
    if (!this.base.has(name)) this.bindBase(name, 'static');
    else this.top.set(name, this.base.get(name)!);
  }

  define(name: string | null, stage: Stage, instr: number): number {
    const slot = this.slots.length;
    this.slots.push({ name: name ?? '_', stage, instr });
    if (name !== null) this.top.set(name, slot);
    return slot;
  }

  /** Resolves an expression; returns its stage (dynamic if it reads a dynamic definition anywhere). */
  expr(e: CatExpr, locals: Locals): Stage {
    return this.walk(e, locals).dynamic ? 'dynamic' : 'static';
  }

  /**
   * Resolves e's names; returns what it reads: a dynamic slot, a local.
   * A subexpression of a dynamic expression that reads neither is marked
   * `hoisted`: computed once per event structure, like a static definition.
   */
  private walk(e: CatExpr, locals: Locals): Reads {
    const parts = this.children(e, locals);
    const reads = { dynamic: parts.some((p) => p[1].dynamic), local: parts.some((p) => p[1].local) };
    if (e.kind === 'var') return this.walkVar(e, locals);
    if (reads.dynamic) {
      for (const [child, r] of parts) if (!r.dynamic && !r.local && worthHoisting(child)) child.hoisted = true;
    }
    return reads;
  }

  private walkVar(e: CatExpr & { kind: 'var' }, locals: Locals): Reads {
    if (locals.has(e.name)) {
      e.ref = { kind: 'local' };
      return { dynamic: false, local: true };
    }
    const slot = this.top.get(e.name);
    if (slot === undefined) {
      if (this.inTry === 0) throw new ModelError(`unknown name "${e.name}"`, e.pos);
      e.ref = { kind: 'unbound' };
      return { dynamic: false, local: false };
    }
    e.ref = { kind: 'slot', slot };
    return { dynamic: this.slots[slot].stage === 'dynamic', local: false };
  }

  /** Resolves e's subexpressions, each with what it reads. */
  private children(e: CatExpr, locals: Locals): [CatExpr, Reads][] {
    const sub = (x: CatExpr, l: Locals = locals): [CatExpr, Reads] => [x, this.walk(x, l)];
    switch (e.kind) {
      case 'var':
      case 'empty':
      case 'universe':
      case 'tag':
        return [];
      case 'explicit':
      case 'tuple':
        return e.elems.map((x) => sub(x));
      case 'unary':
        return [sub(e.arg)];
      case 'binary':
        return e.args.map((x) => sub(x));
      case 'app':
        return [sub(e.fn), sub(e.arg)];
      case 'fun': {
        const [, r] = sub(e.body, withNames(locals, patternNames(e.param)));
        // A function reads what its body reads; its own parameters aside, conservatively any local in scope.
        return [[e.body, { dynamic: r.dynamic, local: r.local && locals.size > 0 }]];
      }
      case 'let': {
        const names = e.bindings.flatMap((b) => patternNames(b.pattern));
        const inner = withNames(locals, names);
        const out = e.bindings.map((b) => sub(b.expr, e.rec ? inner : locals));
        out.push(sub(e.body, inner));
        // A let rec's bindings read each other; a plain let's read only what is outside it (`let ww = po-loc & (W * W) in ...`).
        return e.rec ? out.map(([x, r]) => [x, { ...r, local: true }]) : out;
      }
      case 'try': {
        this.inTry++;
        let body: [CatExpr, Reads];
        try {
          body = sub(e.body);
        } finally {
          this.inTry--;
        }
        // What a try falls back to depends on what failed: never hoisted apart.
        return [[e.body, { ...body[1], local: true }], sub(e.otherwise)];
      }
      case 'if':
        this.condition(e.cond);
        return [sub(e.then), sub(e.otherwise), ...(e.cond.kind === 'variant' ? [] : [sub(e.cond.left), sub(e.cond.right)])];
      case 'match-tag':
        return [sub(e.subject), ...e.clauses.map((c) => sub(c.body)), ...(e.fallback ? [sub(e.fallback)] : [])];
      case 'match-set': {
        const body = sub(e.body, withNames(locals, [e.elem, e.rest]));
        return [sub(e.subject), sub(e.ifEmpty), [body[0], { ...body[1], local: true }]];
      }
    }
  }

  condition(c: Condition): void {
    if (c.kind === 'variant' && !this.variantsTested.has(c.name)) this.variantsTested.set(c.name, c.pos);
  }

  /** Resolves instructions of a procedure body (locals: its parameters and its own lets). */
  body(instrs: CatInstr[], locals: Locals): Stage {
    let scope = locals;
    let stage: Stage = 'static';
    const note = (s: Stage) => {
      if (s === 'dynamic') stage = 'dynamic';
    };
    for (const ins of instrs) {
      switch (ins.kind) {
        case 'let': {
          const names = ins.bindings.flatMap((b) => patternNames(b.pattern));
          const inner = withNames(scope, names);
          for (const b of ins.bindings) note(this.expr(b.expr, ins.rec ? inner : scope));
          scope = inner;
          break;
        }
        case 'test':
          note(this.expr(ins.expr, scope));
          break;
        case 'call': {
          const slot = this.top.get(ins.name);
          if (slot === undefined) throw new ModelError(`unknown procedure "${ins.name}"`, ins.pos);
          ins.slot = slot;
          if (this.slots[slot].stage === 'dynamic') stage = 'dynamic';
          note(this.expr(ins.arg, scope));
          break;
        }
        case 'show':
        case 'debug':
          break;
        default:
          throw new ModelError(`"${ins.kind}" is not supported inside a procedure or forall`, ins.pos);
      }
    }
    return stage;
  }
}

function withNames(locals: Locals, names: (string | null)[]): Locals {
  const s = new Set(locals);
  for (const n of names) if (n !== null) s.add(n);
  return s;
}

export function patternNames(p: Pattern): (string | null)[] {
  return p.kind === 'var' ? [p.name] : p.names;
}

/** The set herd names after a tag: its first letter in capitals ('rmb is Rmb, 'sync-rcu Sync-rcu, 'MB MB). */
export function tagSetName(tag: string): string {
  return tag.charAt(0).toUpperCase() + tag.slice(1);
}

const NO_LOCALS: Locals = new Set();

function resolve(flat: CatInstr[], files: string[], title: string | undefined): CompiledCat {
  const r = new Resolver();
  const instrs: CompiledInstr[] = [];
  const at = () => instrs.length;
  const push = (instr: CatInstr, defines: number[], stage: Stage) => instrs.push({ instr, defines, stage });
  const topLevel = (list: CatInstr[]) => {
    for (const ins of list) {
      switch (ins.kind) {
        case 'let': {
          if (ins.rec) {
            // Every name is in scope in every binding: slots first, then the bodies.
            const idx = at();
            const slots = ins.bindings.flatMap((b) => patternNames(b.pattern).map((n) => r.define(n, 'static', idx)));
            let stage: Stage = 'static';
            for (const b of ins.bindings) if (r.expr(b.expr, NO_LOCALS) === 'dynamic') stage = 'dynamic';
            // A recursive definition reading itself was resolved while its slots were static; redo if dynamic.
            if (stage === 'dynamic') {
              for (const s of slots) r.slots[s].stage = 'dynamic';
              for (const b of ins.bindings) r.expr(b.expr, NO_LOCALS);
            }
            push(ins, slots, stage);
          } else {
            let stage: Stage = 'static';
            for (const b of ins.bindings) if (r.expr(b.expr, NO_LOCALS) === 'dynamic') stage = 'dynamic';
            const idx = at();
            const slots = ins.bindings.flatMap((b) => patternNames(b.pattern).map((n) => r.define(n, stage, idx)));
            push(ins, slots, stage);
          }
          break;
        }
        case 'test':
          push(ins, [], r.expr(ins.expr, NO_LOCALS));
          break;
        case 'with': {
          r.expr(ins.from, NO_LOCALS);
          const idx = at();
          push(ins, [r.define(ins.name, 'dynamic', idx)], 'dynamic');
          break;
        }
        case 'procedure': {
          const idx = at();
          const locals = new Set(patternNames(ins.param).filter((n): n is string => n !== null));
          const stage = r.body(ins.body, locals);
          push(ins, [r.define(ins.name, stage, idx)], stage);
          break;
        }
        case 'call': {
          const slot = r.top.get(ins.name);
          if (slot === undefined) throw new ModelError(`unknown procedure "${ins.name}"`, ins.pos);
          ins.slot = slot;
          const argStage = r.expr(ins.arg, NO_LOCALS);
          push(ins, [], argStage === 'dynamic' || r.slots[slot].stage === 'dynamic' ? 'dynamic' : 'static');
          break;
        }
        case 'forall': {
          const setStage = r.expr(ins.set, NO_LOCALS);
          const bodyStage = r.body(ins.body, new Set([ins.name]));
          push(ins, [], setStage === 'dynamic' || bodyStage === 'dynamic' ? 'dynamic' : 'static');
          break;
        }
        case 'enum': {
          for (const t of ins.tags) r.declareTag(t);
          const idx = at();
          push(ins, [r.define(ins.name, 'static', idx)], 'static');
          break;
        }
        case 'events':
          for (const a of ins.args) r.expr(a, NO_LOCALS);
          break;
        case 'if':
          throw new ModelError('a top-level "if" may only test a variant ("name")', ins.pos);
        case 'match':
          throw new ModelError('a top-level "match" is not supported', ins.pos);
        case 'show':
        case 'debug':
          break;
        case 'include':
          throw new ModelError('internal: include not inlined', ins.pos);
      }
    }
  };
  topLevel(flat);
  return { title, instrs, slots: r.slots, base: r.base, tags: r.tags, variantsTested: r.variantsTested, files };
}
