// The TypeScript modules of a suite, read with ts-morph (never run): what
// each module declares (functions, constants) and imports, and how a name is
// resolved. Calls resolve by name in the version being checked first (a
// version module overrides the functions it redefines, like a patched file),
// then lexically; constants resolve lexically.

import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type * as TsMorph from 'ts-morph';
import type { FunctionDeclaration, Node, Project, SourceFile } from 'ts-morph';
import type { Pos } from '../parse/ast.js';
import { readInputFile } from '../limits.js';
import { printable } from '../parse/errors.js';

export type Morph = typeof TsMorph;

/** A problem in a suite's TypeScript, at a place in one of its files. */
export class SuiteError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly pos: Pos,
  ) {
    super(printable(message));
    this.name = 'SuiteError';
  }

  format(): string {
    return `${printable(this.file)}:${this.pos.line}:${this.pos.col}: ${this.message}`;
  }
}

type Import = { module: string; name: string } | { module: string; namespace: true } | { kernel: true; name: string };

export interface Module {
  file: string;
  source: SourceFile;
  functions: Map<string, FunctionDeclaration>;
  exported: Set<string>;
  /** Module-level `const NAME = <expr>` initializers. */
  consts: Map<string, Node>;
  imports: Map<string, Import>;
  /** Modules re-exported whole (`export * from './pre.js'`). */
  stars: string[];
  /** `export default <expr>`, if any. */
  defaultExport?: Node;
}

export interface Found<T> {
  value: T;
  module: Module;
}

/** Reads modules on demand, each once. */
export class Modules {
  private readonly project: Project;
  private readonly cache = new Map<string, Module>();

  constructor(readonly ts: Morph) {
    this.project = new ts.Project({
      useInMemoryFileSystem: false,
      skipAddingFilesFromTsConfig: true,
      skipFileDependencyResolution: true,
      skipLoadingLibFiles: true,
      compilerOptions: { allowJs: false },
    });
  }

  /** Every file read so far, in the order first read. */
  files(): string[] {
    return [...this.cache.keys()];
  }

  pos(module: Module, node: Node): Pos {
    const lc = module.source.getLineAndColumnAtPos(node.getStart());
    return { line: lc.line, col: lc.column };
  }

  error(module: Module, node: Node, message: string): SuiteError {
    return new SuiteError(message, module.file, this.pos(module, node));
  }

  load(file: string): Module {
    const abs = resolve(file);
    const hit = this.cache.get(abs);
    if (hit) return hit;
    // Read as every input is (a regular file, at most LIMITS.fileBytes), then given to ts-morph.
    let text: string;
    try {
      text = readInputFile(abs);
    } catch (e) {
      throw new SuiteError(`cannot read: ${(e as Error).message}`, abs, { line: 1, col: 1 });
    }
    const source = this.project.createSourceFile(abs, text, { overwrite: true });
    const m: Module = { file: abs, source, functions: new Map(), exported: new Set(), consts: new Map(), imports: new Map(), stars: [] };
    this.cache.set(abs, m);
    this.scan(m);
    return m;
  }

  private scan(m: Module): void {
    const { Node: N } = this.ts;
    for (const st of m.source.getStatements()) {
      if (N.isFunctionDeclaration(st)) {
        const name = st.getName();
        if (!name) throw this.error(m, st, 'a function needs a name');
        m.functions.set(name, st);
        if (st.isExported()) m.exported.add(name);
      } else if (N.isVariableStatement(st)) {
        for (const d of st.getDeclarations()) {
          const init = d.getInitializer();
          if (init) m.consts.set(d.getName(), init);
          if (st.isExported()) m.exported.add(d.getName());
        }
      } else if (N.isImportDeclaration(st)) {
        if (st.isTypeOnly()) continue;
        const spec = st.getModuleSpecifierValue();
        const kernel = isKernel(spec);
        const target = kernel ? '' : this.resolveSpecifier(m, st, spec);
        const ns = st.getNamespaceImport();
        if (ns) {
          if (kernel) continue;
          m.imports.set(ns.getText(), { module: target, namespace: true });
        }
        for (const n of st.getNamedImports()) {
          if (n.isTypeOnly()) continue;
          const local = n.getAliasNode()?.getText() ?? n.getName();
          m.imports.set(local, kernel ? { kernel: true, name: n.getName() } : { module: target, name: n.getName() });
        }
        if (st.getDefaultImport()) throw this.error(m, st, 'default imports are not supported; import names');
      } else if (N.isExportDeclaration(st)) {
        if (st.isTypeOnly()) continue;
        const spec = st.getModuleSpecifierValue();
        if (!spec || st.getNamedExports().length > 0 || st.getNamespaceExport()) {
          throw this.error(m, st, 'only "export * from \'./module.js\'" re-exports are supported');
        }
        if (!isKernel(spec)) m.stars.push(this.resolveSpecifier(m, st, spec));
      } else if (N.isExportAssignment(st)) {
        m.defaultExport = st.getExpression();
      } else if (N.isInterfaceDeclaration(st) || N.isTypeAliasDeclaration(st) || N.isEmptyStatement(st)) {
        continue;
      } else {
        throw this.error(m, st, `unsupported at the top of a suite module: ${st.getKindName()}`);
      }
    }
  }

  private resolveSpecifier(m: Module, node: Node, spec: string): string {
    if (!spec.startsWith('.')) throw this.error(m, node, `cannot import "${spec}": suites import their own modules (./x.js) and the kernel module`);
    const base = resolve(dirname(m.file), spec);
    for (const cand of [base.replace(/\.js$/, '.ts'), `${base}.ts`, base]) {
      if (cand.endsWith('.ts') && existsSync(cand)) return cand;
    }
    throw this.error(m, node, `cannot find the module "${spec}"`);
  }

  /** A name exported by a module (its own declarations, then its `export *`s). */
  exportOf(m: Module, name: string, kind: Kind, seen = new Set<string>()): Found<Node> | undefined {
    if (seen.has(m.file)) return undefined;
    seen.add(m.file);
    const mine = m.exported.has(name) ? own(m, kind, name) : undefined;
    if (mine !== undefined) return { value: mine, module: m };
    for (const s of m.stars) {
      const f = this.exportOf(this.load(s), name, kind, seen);
      if (f) return f;
    }
    return undefined;
  }

  /** A name as the code of module `m` sees it: its own declarations, then its imports. */
  lexical(m: Module, name: string, kind: Kind): Found<Node> | undefined {
    const mine = own(m, kind, name);
    if (mine !== undefined) return { value: mine, module: m };
    const imp = m.imports.get(name);
    if (!imp || 'kernel' in imp || 'namespace' in imp) return undefined;
    return this.exportOf(this.load(imp.module), imp.name, kind);
  }

  /** A function: the version's first, then the caller's module's. */
  func(version: Module | undefined, lexicalIn: Module, name: string): Found<FunctionDeclaration> | undefined {
    const f = (version && this.exportOf(version, name, 'function')) || this.lexical(lexicalIn, name, 'function');
    return f as Found<FunctionDeclaration> | undefined;
  }

  /** A module-level constant's initializer. */
  constant(m: Module, name: string): Found<Node> | undefined {
    return this.lexical(m, name, 'const');
  }

  /** Whether `name` in module `m` is the kernel module's (a primitive or a helper). */
  isKernelName(m: Module, name: string): boolean {
    const imp = m.imports.get(name);
    return imp !== undefined && 'kernel' in imp;
  }

  /** The module a namespace import (`import * as v1 from './v1.js'`) names. */
  namespace(m: Module, name: string): Module | undefined {
    const imp = m.imports.get(name);
    return imp && 'namespace' in imp ? this.load(imp.module) : undefined;
  }
}

type Kind = 'function' | 'const';

function own(m: Module, kind: Kind, name: string): Node | undefined {
  return kind === 'function' ? m.functions.get(name) : m.consts.get(name);
}

/** The kernel module: litmus/kernel.d.ts (imported as '../kernel.js' or 'litmus/kernel'). */
function isKernel(spec: string): boolean {
  const b = basename(spec).replace(/\.(d\.ts|js|ts)$/, '');
  return b === 'kernel';
}
