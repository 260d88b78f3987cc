import type { Pos } from './ast.js';
import { fail } from './errors.js';

export type TokKind = 'ident' | 'num' | 'punct' | 'string' | 'eof';

export interface Token {
  kind: TokKind;
  text: string;
  pos: Pos;
  /** Numeric value for 'num'. */
  value?: number;
}

/** A comment of the text, as written (with its delimiters), where it starts. */
export interface SourceComment {
  text: string;
  pos: Pos;
}

/** Two-character punctuation, taken before the one-character kind. */
const PUNCTS2 = new Set(['/\\', '\\/', '=>', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '->', '<>']);
const PUNCTS1 = new Set(['(', ')', '{', '}', '[', ']', ';', ',', '*', '&', '+', '-', '/', '%', '^', '|', '~', '!', '<', '>', '=', ':', '.', '?']);

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isIdentChar(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function isHexDigit(c: string): boolean {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

function isIntSuffix(c: string): boolean {
  return c === 'u' || c === 'U' || c === 'l' || c === 'L';
}

/** Whether name is a process name, P followed by digits. */
function isProcName(name: string): boolean {
  if (name.length < 2 || name[0] !== 'P') return false;
  for (let k = 1; k < name.length; k++) if (!isDigit(name[k])) return false;
  return true;
}

/**
 * Splits litmus text into tokens. Comments are `(* ... *)` (nesting allowed,
 * as herd's), `/* ... *\/` and `// ...`. Inside a process body a `(*` is a
 * comment only when the next character cannot continue a C expression, so
 * that `(*x)` stays a parenthesised dereference. With `comments`, each
 * comment is also added there.
 */
export function tokenize(text: string, startOffset = 0, startPos: Pos = { line: 1, col: 1 }, comments?: SourceComment[]): Token[] {
  const toks: Token[] = [];
  let i = startOffset;
  let line = startPos.line;
  let col = startPos.col;
  let depth = 0;
  let inBody = false;
  let afterProc = false;
  /** Top-level blocks so far: the first is the initial state, those after it bodies (helper functions, processes). */
  let blocks = 0;
  /** Moves i to `to`, counting lines and columns on the way. */
  const moveTo = (to: number) => {
    for (; i < to; i++) {
      if (text.charCodeAt(i) === 10) {
        line++;
        col = 1;
      } else col++;
    }
  };
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      col++;
      continue;
    }
    if (c === '\n') {
      i++;
      line++;
      col = 1;
      continue;
    }
    const pos = { line, col };
    const start = i;
    if (c === '(' && text[i + 1] === '*' && (!inBody || isOcamlCommentStart(text, i))) {
      let nested = 0;
      while (i < text.length) {
        if (text[i] === '(' && text[i + 1] === '*') {
          nested++;
          moveTo(i + 2);
        } else if (text[i] === '*' && text[i + 1] === ')') {
          nested--;
          moveTo(i + 2);
          if (nested === 0) break;
        } else moveTo(i + 1);
      }
      if (nested !== 0) fail('unterminated comment "(*"', pos);
      comments?.push({ text: text.slice(start, i), pos });
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) fail('unterminated comment "/*"', pos);
      moveTo(end + 2);
      comments?.push({ text: text.slice(start, i), pos });
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      moveTo(end < 0 ? text.length : end);
      comments?.push({ text: text.slice(start, i), pos });
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) fail('unterminated string', pos);
      toks.push({ kind: 'string', text: text.slice(i + 1, end), pos });
      moveTo(end + 1);
      continue;
    }
    if (isDigit(c)) {
      let j = i;
      if (c === '0' && (text[i + 1] === 'x' || text[i + 1] === 'X')) {
        j += 2;
        while (j < text.length && isHexDigit(text[j])) j++;
      } else {
        while (j < text.length && isDigit(text[j])) j++;
      }
      const digitsEnd = j;
      // C integer suffixes.
      while (j < text.length && isIntSuffix(text[j])) j++;
      if (j < text.length && isIdentChar(text[j])) fail(`bad number "${text.slice(i, j + 1)}"`, pos);
      const value = Number(text.slice(i, digitsEnd));
      toks.push({ kind: 'num', text: text.slice(i, j), pos, value });
      col += j - i;
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < text.length && isIdentChar(text[j])) j++;
      const name = text.slice(i, j);
      toks.push({ kind: 'ident', text: name, pos });
      if (depth === 0 && isProcName(name)) afterProc = true;
      col += j - i;
      i = j;
      continue;
    }
    const two = text.slice(i, i + 2);
    const p = PUNCTS2.has(two) ? two : PUNCTS1.has(c) ? c : undefined;
    if (!p) fail(`unexpected character "${c}"`, pos);
    toks.push({ kind: 'punct', text: p, pos });
    // Inside a process body `(*x)` is code; elsewhere `(*` opens a comment.
    if (p === '{') {
      if (depth === 0 && (afterProc || blocks > 0)) inBody = true;
      if (depth === 0) blocks++;
      afterProc = false;
      depth++;
    } else if (p === '}') {
      depth = Math.max(0, depth - 1);
      if (depth === 0) inBody = false;
    }
    i += p.length;
    col += p.length;
  }
  toks.push({ kind: 'eof', text: '', pos: { line, col } });
  return toks;
}

function isOcamlCommentStart(text: string, i: number): boolean {
  const next = text[i + 2];
  if (next === undefined) return true;
  // `(*x`, `(*(`, `(**` as in a cast `(int **)` are code; `(* ` is a comment.
  return !(isIdentChar(next) || next === '(' || next === '*' || next === ')');
}
