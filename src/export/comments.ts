// The comments of a C litmus test, kept by `litmus export`: each is placed
// in the exported text where it stood in the source, beside the statement
// (or initial-state item) it precedes or ends the line of. A comment of a
// helper function goes with the first copy of the function's code that the
// export inlines (none: the function is never called, and goes with its
// comments). Written so that herd7 reads them: `(* *)` inside processes is
// code to herd7's C (which reads up to the final clause), so it becomes
// `/* */`; in the initial state and the final clause herd7 reads only
// `(* *)`; a word that ends herd7's process
// section even inside a comment (`exists`, `filter`, ...) is written in
// capitals.

import { walkStmt, type InitItem, type LitmusTest, type Pos, type Stmt } from '../parse/ast.js';
import { readHeader } from '../parse/header.js';
import { tokenize, type SourceComment, type Token } from '../parse/lexer.js';
import type { PrintNotes } from '../parse/printer.js';
import { SECTION_ENDERS } from './herd7.js';

/** Where a comment stands in the source. */
type Region =
  | { kind: 'init' }
  | { kind: 'helper'; from: Pos; to: Pos }
  | { kind: 'process'; index: number }
  | { kind: 'process-header'; index: number }
  | { kind: 'before-process'; index: number }
  | { kind: 'before-condition' }
  | { kind: 'after-condition'; sameLine: boolean };

const before = (a: Pos, b: Pos) => a.line < b.line || (a.line === b.line && a.col < b.col);

/** The notes that print `text`'s comments (all but the header's) into `out`, the test exported from it. */
export function commentNotes(text: string, source: LitmusTest, out: LitmusTest): PrintNotes | undefined {
  const { offset, pos } = readHeader(text);
  const comments: SourceComment[] = [];
  const toks = tokenize(text, offset, pos, comments);
  if (comments.length === 0) return undefined;
  const regionOf = regions(toks, source);
  const notes = new Notes();
  const code = codeOrder(out);
  for (const c of comments) {
    const r = regionOf(c.pos);
    const lines = (form: 'c' | 'herd') => written(c.text, form);
    switch (r.kind) {
      case 'init':
        notes.place(c, lines('herd'), out.init.map((it) => ({ node: it, pos: it.pos })), (l) => notes.initEnd.push(...l));
        break;
      case 'before-process':
        notes.add(notes.beforeProcess, r.index, lines('c'));
        break;
      case 'process-header':
        notes.add(notes.headers, r.index, [lines('c').join(' ')]);
        break;
      case 'process':
        notes.place(c, lines('c'), code.filter((s) => s.process === r.index && !s.node.pos.inlined), (l) => notes.add(notes.ends, r.index, l));
        break;
      case 'helper':
        notes.placeFirstCopy(c, lines('c'), code.filter((s) => !before(s.pos, r.from) && before(s.pos, r.to)));
        break;
      case 'before-condition':
        // Still herd7's process section (it ends at the final clause's keyword): C comments.
        notes.beforeCondition.push(...lines('c'));
        break;
      case 'after-condition':
        if (r.sameLine && notes.conditionTail === undefined && lines('herd').length === 1) notes.conditionTail = lines('herd')[0];
        else notes.afterCondition.push(...lines('herd'));
        break;
    }
  }
  return notes.done();
}

/** The statements of the processes in the order they are printed, each with its process. */
function codeOrder(t: LitmusTest): { node: Stmt; pos: Pos; process: number }[] {
  const out: { node: Stmt; pos: Pos; process: number }[] = [];
  for (const p of t.processes) for (const s of p.body) walkStmt(s, { stmt: (x) => out.push({ node: x, pos: x.pos, process: p.index }) });
  return out;
}

/**
 * Which part of the test a position is in, from the braces of the tokens:
 * the initial state's block, then one block per helper function or process
 * (a process's block starts where the tree says its body does), each after
 * its header, then the final clause.
 */
function regions(toks: Token[], t: LitmusTest): (p: Pos) => Region {
  const blocks: { header: Pos; open: Pos; close: Pos }[] = [];
  let depth = 0;
  let header: Pos | undefined;
  let open: Pos | undefined;
  for (const tok of toks) {
    if (depth === 0 && header === undefined && !(tok.kind === 'punct' && tok.text === '{')) header = tok.pos;
    if (tok.kind !== 'punct') continue;
    if (tok.text === '{' && depth++ === 0) open = tok.pos;
    else if (tok.text === '}' && --depth === 0 && open) {
      blocks.push({ header: header ?? open, open, close: tok.pos });
      header = undefined;
    }
  }
  const [init, ...bodies] = blocks.filter((b) => before(b.close, t.conditionPos));
  const processOf = (b: { open: Pos }) => t.processes.find((p) => p.pos.line === b.open.line && p.pos.col === b.open.col)?.index;
  const firstProcess = t.processes[0]?.index ?? 0;
  const tail = t.locations[0] && before(t.locations[0].pos, t.conditionPos) ? t.locations[0].pos : t.conditionPos;
  return (p) => {
    if (!init || before(p, init.close)) return { kind: 'init' };
    for (const b of bodies) {
      if (!before(b.close, p)) {
        const i = processOf(b);
        if (before(p, b.header)) return { kind: 'before-process', index: i ?? firstProcess };
        if (before(p, b.open)) return i === undefined ? { kind: 'helper', from: b.header, to: b.close } : { kind: 'process-header', index: i };
        return i === undefined ? { kind: 'helper', from: b.header, to: b.close } : { kind: 'process', index: i };
      }
    }
    if (before(p, tail)) return { kind: 'before-condition' };
    return { kind: 'after-condition', sameLine: p.line === t.conditionPos.line };
  };
}

/** A comment's lines as the exported text writes it: C comments (`c`) inside processes, herd's `(* *)` elsewhere. */
function written(text: string, form: 'c' | 'herd'): string[] {
  let body: string;
  if (text.startsWith('//')) body = text.slice(2);
  else if (text.startsWith('/*')) body = text.slice(2, -2);
  else body = text.slice(2, -2);
  const enders = new RegExp(`(?<![A-Za-z0-9_])(${SECTION_ENDERS.join('|')})(?![A-Za-z0-9_])`, 'g');
  body = body.replace(enders, (w) => w.toUpperCase());
  const out =
    form === 'c'
      ? text.startsWith('//') ? `//${body}` : `/*${body.replace(/\*\//g, '* /')}*/`
      : text.startsWith('(*') ? `(*${body}*)` : `(*${spaced(body.replace(/\*\)/g, '* )').replace(/\(\*/g, '( *'))}*)`;
  return out.split('\n');
}

/** A `//` comment's text ends with a space before the `*)` it becomes. */
const spaced = (body: string): string => (/\s$/.test(body) ? body : `${body} `);

/** The notes being gathered, by statement and item. */
class Notes {
  private readonly beforeNode = new Map<Stmt | InitItem, string[]>();
  private readonly afterNode = new Map<Stmt | InitItem, string[]>();
  readonly headers = new Map<number, string[]>();
  readonly ends = new Map<number, string[]>();
  readonly beforeProcess = new Map<number, string[]>();
  readonly initEnd: string[] = [];
  readonly beforeCondition: string[] = [];
  conditionTail: string | undefined;
  readonly afterCondition: string[] = [];

  /**
   * A comment among `nodes` (in printed order): at the end of the line of the
   * last one that starts on its line before it, else before the first one
   * after it, else `atEnd`.
   */
  place(c: SourceComment, lines: string[], nodes: { node: Stmt | InitItem; pos: Pos }[], atEnd: (lines: string[]) => void): void {
    const sameLine = nodes.filter((n) => n.pos.line === c.pos.line && n.pos.col < c.pos.col).pop();
    if (sameLine && lines.length === 1) return this.add(this.afterNode, sameLine.node, lines);
    const next = nodes.find((n) => before(c.pos, n.pos));
    if (next) return this.add(this.beforeNode, next.node, lines);
    atEnd(lines);
  }

  /** A helper's comment: beside the first copy of the statement it stands before (or ends the line of); dropped with an uncalled helper. */
  placeFirstCopy(c: SourceComment, lines: string[], copies: { node: Stmt; pos: Pos }[]): void {
    const sameLine = copies.find((n) => n.pos.line === c.pos.line && n.pos.col < c.pos.col);
    if (sameLine && lines.length === 1) return this.add(this.afterNode, sameLine.node, lines);
    const after = copies.filter((n) => before(c.pos, n.pos));
    if (after.length === 0) return;
    const first = after.reduce((a, b) => (before(b.pos, a.pos) ? b : a));
    this.add(this.beforeNode, after.find((n) => n.pos.line === first.pos.line && n.pos.col === first.pos.col)!.node, lines);
  }

  add<K>(map: Map<K, string[]>, key: K, lines: string[]): void {
    map.set(key, [...(map.get(key) ?? []), ...lines]);
  }

  done(): PrintNotes {
    return {
      before: (n) => this.beforeNode.get(n),
      after: (n) => this.afterNode.get(n)?.join(' '),
      processHeader: (i) => this.headers.get(i)?.join(' '),
      processEnd: (i) => this.ends.get(i) ?? [],
      beforeProcess: (i) => this.beforeProcess.get(i) ?? [],
      initEnd: this.initEnd,
      beforeCondition: this.beforeCondition,
      conditionTail: this.conditionTail,
      afterCondition: this.afterCondition,
    };
  }
}
