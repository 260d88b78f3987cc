// The head of a litmus test, before the "{" of its initial state, read the
// way herd7 splits a test: the first line `ARCH name`, then anything up to the
// "{" — a doc string, comments, and `Key=Value` lines (diy7 writes `Cycle=`,
// `Relax=`, `Safe=`, `Prefetch=`, `Com=`, `Orig=`, `Generator=`, ...), which
// are kept. Other text there is skipped, as herd7 skips it.

import type { HeaderInfo, Pos } from './ast.js';
import { fail } from './errors.js';

export interface Header {
  arch: string;
  name: string;
  /** `Key=Value` lines, in order. */
  info: HeaderInfo[];
  /** Offset and position of the "{" opening the initial state. */
  offset: number;
  pos: Pos;
}

// herd7's characters of a test name, and of an info key.
const FIRST_LINE = /^[ \t\r\n]*([A-Za-z0-9_]+)[ \t]+([A-Za-z0-9_/.\-+[\]:]+)/;
const TEX_NAME = /[ \t]*\([A-Za-z][A-Za-z0-9_/.-]*\)/y;
const INFO_LINE = /([A-Za-z][A-Za-z0-9_/.-]*)[ \t]*=[ \t]*([^\n\r]*)/y;
/** Lines that belong after the initial state: the "{" is missing. */
const NOT_HEADER = /(P\d+[ \t]*\(|exists\b|forall\b|~[ \t]*exists\b|locations[ \t]*\[|filter[ \t]*\()/y;

/** A test's first line as herd7 splits it: its architecture (C, AArch64, ...) and name; undefined when it has none. */
export function firstLine(text: string): { arch: string; name: string } | undefined {
  const m = FIRST_LINE.exec(text);
  return m ? { arch: m[1], name: m[2] } : undefined;
}

export function readHeader(text: string): Header {
  const m = FIRST_LINE.exec(text);
  if (!m) fail('a litmus test starts with "C <name>"', { line: 1, col: 1 });
  const arch = m[1];
  if (arch !== 'C') fail(`only C litmus tests are supported (this one is "${arch}")`, { line: 1, col: 1 });
  const name = m[2].replace(/\.litmus$/, '');
  const cursor = new Cursor(text, m[0].length);
  TEX_NAME.lastIndex = cursor.i;
  if (TEX_NAME.exec(text)) cursor.advanceTo(TEX_NAME.lastIndex);
  const info: HeaderInfo[] = [];
  for (;;) {
    const i = cursor.i;
    const c = text[i];
    if (c === undefined) fail('expected "{" opening the initial state, found end of file', cursor.pos());
    if (c === '{') return { arch, name, info, offset: i, pos: cursor.pos() };
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f' || c === ';') {
      cursor.advanceTo(i + 1);
      continue;
    }
    if (text.startsWith('(*', i)) {
      cursor.skipOcamlComment();
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) fail('unterminated comment "/*"', cursor.pos());
      cursor.advanceTo(end + 2);
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) fail('unterminated string', cursor.pos());
      cursor.advanceTo(end + 1);
      continue;
    }
    NOT_HEADER.lastIndex = i;
    if (NOT_HEADER.test(text)) {
      const word = /^[A-Za-z_0-9~]+/.exec(text.slice(i))?.[0] ?? c;
      fail(`expected "{" opening the initial state, found "${word}"`, cursor.pos());
    }
    INFO_LINE.lastIndex = i;
    const kv = INFO_LINE.exec(text);
    if (kv) {
      info.push({ key: kv[1], value: kv[2].trimEnd() });
      cursor.advanceTo(INFO_LINE.lastIndex);
      continue;
    }
    // Anything else up to the end of the line (or a "{") is skipped, as herd7 does.
    let j = i;
    while (j < text.length && text[j] !== '\n' && text[j] !== '{' && !text.startsWith('(*', j)) j++;
    cursor.advanceTo(Math.max(j, i + 1));
  }
}

/** An offset in the text with its line and column. */
class Cursor {
  private line = 1;
  private col = 1;
  private at = 0;

  constructor(
    private readonly text: string,
    start: number,
  ) {
    this.advanceTo(start);
  }

  get i(): number {
    return this.at;
  }

  pos(): Pos {
    return { line: this.line, col: this.col };
  }

  advanceTo(offset: number): void {
    for (; this.at < offset; this.at++) {
      if (this.text[this.at] === '\n') {
        this.line++;
        this.col = 1;
      } else this.col++;
    }
  }

  /** Skips a `(* ... *)` comment, nested ones included. */
  skipOcamlComment(): void {
    const start = this.pos();
    let depth = 0;
    let j = this.at;
    while (j < this.text.length) {
      if (this.text.startsWith('(*', j)) {
        depth++;
        j += 2;
      } else if (this.text.startsWith('*)', j)) {
        depth--;
        j += 2;
        if (depth === 0) break;
      } else j++;
    }
    if (depth !== 0) fail('unterminated comment "(*"', start);
    this.advanceTo(j);
  }
}
