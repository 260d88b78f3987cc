// Tokens of herd's cat language: names may contain `-` and `.` (po-loc,
// rcu-rscs), `'tag` is a tag, `"..."` a string, `(* *)` comments nest and
// `//` or `#` comment out the rest of a line; `-1` is the inverse in `r^-1`
// and `0` the empty relation.

import type { CatPos } from './ast.js';
import { printable } from '../../src/parse/errors.js';

/** A problem in a model file (.cat, .bell, .cfg, .def): always positioned. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly pos: CatPos,
  ) {
    super(printable(message));
    this.name = 'ModelError';
  }
  /** `file:line:col: message`, as every other error of litmus. */
  format(): string {
    return `${printable(this.pos.file)}:${this.pos.line}:${this.pos.col}: ${this.message}`;
  }
}

export type TokenKind = 'name' | 'keyword' | 'tag' | 'string' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  text: string;
  pos: CatPos;
}

const KEYWORDS = new Set([
  'let', 'rec', 'and', 'when', 'acyclic', 'irreflexive', 'show', 'unshow', 'empty', 'subset', 'as', 'fun', 'in',
  'undefined_unless', 'flag', 'include', 'begin', 'end', 'procedure', 'call', 'enum', 'debug', 'match', 'with',
  'forall', 'from', 'do', 'try', 'if', 'then', 'else', 'instructions', 'default',
]);

/** Operators, longest first where one is a prefix of another. */
const OPERATORS = ['||', '++', '->', '-1', '(', ')', '{', '}', '[', ']', '_', '0', '|', '&', '*', '~', '+', '^', '\\', '?', '=', ';', ','];

const isAlpha = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isDigit = (c: string) => c >= '0' && c <= '9';

/** The tokens of one model file's text. */
export function tokenize(text: string, file: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (at: number): CatPos => ({ file, line, col: at - lineStart + 1 });
  const newline = (at: number) => {
    line++;
    lineStart = at + 1;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      newline(i);
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if ((c === '/' && text[i + 1] === '/') || c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '(' && text[i + 1] === '*') {
      const start = pos(i);
      let depth = 1;
      i += 2;
      while (i < text.length && depth > 0) {
        if (text[i] === '(' && text[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (text[i] === '*' && text[i + 1] === ')') {
          depth--;
          i += 2;
        } else {
          if (text[i] === '\n') newline(i);
          i++;
        }
      }
      if (depth > 0) throw new ModelError('unterminated comment: "(*" without "*)"', start);
      continue;
    }
    if (c === '"') {
      const start = pos(i);
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new ModelError('unterminated string', start);
      const s = text.slice(i + 1, end);
      for (let k = i + 1; k < end; k++) if (text[k] === '\n') newline(k);
      out.push({ kind: 'string', text: s, pos: start });
      i = end + 1;
      continue;
    }
    const nameAt = (k: number) => {
      let j = k;
      if (text[j] === '_' && isAlpha(text[j + 1] ?? '')) j++;
      if (!isAlpha(text[j] ?? '')) return k;
      j++;
      while (j < text.length) {
        const d = text[j];
        if (isAlpha(d) || isDigit(d) || d === '_' || d === '.' || d === '-') j++;
        else break;
      }
      if (text[j] === "'") j++;
      return j;
    };
    if (c === "'") {
      const end = nameAt(i + 1);
      if (end === i + 1) throw new ModelError('a tag is a quote followed by a name', pos(i));
      out.push({ kind: 'tag', text: text.slice(i + 1, end), pos: pos(i) });
      i = end;
      continue;
    }
    const end = nameAt(i);
    if (end > i) {
      const word = text.slice(i, end);
      out.push({ kind: KEYWORDS.has(word) ? 'keyword' : 'name', text: word, pos: pos(i) });
      i = end;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) throw new ModelError(`unexpected character ${JSON.stringify(c)}`, pos(i));
    out.push({ kind: 'op', text: op, pos: pos(i) });
    i += op.length;
  }
  out.push({ kind: 'eof', text: '', pos: pos(i) });
  return out;
}
