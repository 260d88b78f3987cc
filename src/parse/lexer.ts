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

// Longest first: the lexer takes the first that matches.
const PUNCTS = [
  '/\\', '\\/', '=>', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '->', '<>',
  '(', ')', '{', '}', '[', ']', ';', ',', '*', '&', '+', '-', '/', '%', '^', '|',
  '~', '!', '<', '>', '=', ':', '.', '?',
];

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isIdentChar(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}

/**
 * Splits litmus text into tokens. Comments are `(* ... *)` (nesting allowed,
 * as herd's), `/* ... *\/` and `// ...`. Inside a process body a `(*` is a
 * comment only when the next character cannot continue a C expression, so
 * that `(*x)` stays a parenthesised dereference.
 */
export function tokenize(text: string, startOffset = 0, startPos: Pos = { line: 1, col: 1 }): Token[] {
  const toks: Token[] = [];
  let i = startOffset;
  let line = startPos.line;
  let col = startPos.col;
  let depth = 0;
  let inBody = false;
  let afterProc = false;
  const advance = (n: number) => {
    for (let k = 0; k < n; k++) {
      if (text[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f') {
      advance(1);
      continue;
    }
    const pos = { line, col };
    if (c === '(' && text[i + 1] === '*' && (!inBody || isOcamlCommentStart(text, i))) {
      let depth = 0;
      while (i < text.length) {
        if (text[i] === '(' && text[i + 1] === '*') {
          depth++;
          advance(2);
        } else if (text[i] === '*' && text[i + 1] === ')') {
          depth--;
          advance(2);
          if (depth === 0) break;
        } else advance(1);
      }
      if (depth !== 0) fail('unterminated comment "(*"', pos);
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) fail('unterminated comment "/*"', pos);
      advance(end + 2 - i);
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') advance(1);
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) fail('unterminated string', pos);
      toks.push({ kind: 'string', text: text.slice(i + 1, end), pos });
      advance(end + 1 - i);
      continue;
    }
    if (c >= '0' && c <= '9') {
      let j = i;
      if (c === '0' && (text[i + 1] === 'x' || text[i + 1] === 'X')) {
        j += 2;
        while (j < text.length && /[0-9a-fA-F]/.test(text[j])) j++;
      } else {
        while (j < text.length && text[j] >= '0' && text[j] <= '9') j++;
      }
      // C integer suffixes.
      while (j < text.length && /[uUlL]/.test(text[j])) j++;
      if (j < text.length && isIdentChar(text[j])) fail(`bad number "${text.slice(i, j + 1)}"`, pos);
      const raw = text.slice(i, j).replace(/[uUlL]+$/, '');
      const value = Number(raw);
      toks.push({ kind: 'num', text: text.slice(i, j), pos, value });
      advance(j - i);
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < text.length && isIdentChar(text[j])) j++;
      toks.push({ kind: 'ident', text: text.slice(i, j), pos });
      if (depth === 0 && /^P\d+$/.test(text.slice(i, j))) afterProc = true;
      advance(j - i);
      continue;
    }
    const p = PUNCTS.find((s) => text.startsWith(s, i));
    if (!p) fail(`unexpected character "${c}"`, pos);
    toks.push({ kind: 'punct', text: p, pos });
    // Inside a process body `(*x)` is code; elsewhere `(*` opens a comment.
    if (p === '{') {
      if (depth === 0 && afterProc) inBody = true;
      afterProc = false;
      depth++;
    } else if (p === '}') {
      depth = Math.max(0, depth - 1);
      if (depth === 0) inBody = false;
    }
    advance(p.length);
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
