import type { Pos } from './ast.js';

/**
 * A text as a message may show it: control characters (NUL, escape, bell,
 * carriage return, ...), and the Unicode ones that reorder or hide text,
 * written as escapes (`\x00`, `\x1b`, `\u202e`), so that a message never
 * puts a raw control byte on the terminal (a test, a file name or a model
 * may hold any byte). Newlines and tabs are kept.
 */
export function printable(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A file's name as a message shows it: printable, and a newline or a tab in it escaped too (a name never starts a line of its own). */
export function printableName(name: string): string {
  return printable(name).replace(/[\n\t]/g, (c) => (c === '\n' ? '\\n' : '\\t'));
}

/**
 * A problem with a litmus test that the user must fix: bad syntax, an
 * unsupported construct, a name that is not declared. Always carries a
 * position, so that the CLI can print `file:line:col: message`.
 */
export class LitmusError extends Error {
  constructor(
    message: string,
    readonly pos: Pos,
  ) {
    super(printable(message));
    this.name = 'LitmusError';
  }

  /** Further problems found in the same file (e.g. every unknown primitive, not just the first). */
  others?: LitmusError[];

  /** One line per problem: `file:line:col: message`. */
  format(file: string): string {
    return [this, ...(this.others ?? [])].map((e) => `${printableName(file)}:${e.pos.line}:${e.pos.col}: ${e.message}`).join('\n');
  }
}

/** A call of a primitive the test's primitive table lacks; `statement` when it is called as a statement (herd7 words the two apart). */
export class UnknownPrimitiveError extends LitmusError {
  constructor(
    message: string,
    pos: Pos,
    readonly primitive: string,
    readonly statement: boolean,
  ) {
    super(message, pos);
  }
}

/** A check stopped by a limit (executions, time, size: src/limits.ts), with a position when one says where. */
export class LimitError extends Error {
  constructor(
    message: string,
    readonly pos?: Pos,
    /** The time limit stopped it (not the candidate cap, a size bound or the stack). */
    readonly timedOut = false,
  ) {
    super(printable(message));
    this.name = 'LimitError';
  }

  /** `file:line:col: message`, or `file: message` without a position. */
  format(file: string): string {
    return this.pos ? `${printableName(file)}:${this.pos.line}:${this.pos.col}: ${this.message}` : `${printableName(file)}: ${this.message}`;
  }
}

export function fail(message: string, pos: Pos): never {
  throw new LitmusError(message, pos);
}

/**
 * The explorer recurses once per event of an execution, so an execution of
 * very many events (about five hundred) can exhaust the JavaScript stack
 * below LIMITS.primitives: that is a limit of this checker, reported as one
 * (`at`: where the deepest event came from, when known).
 */
export function asLimit(e: unknown, at?: Pos): LimitError | undefined {
  if (e instanceof LimitError) return e;
  if (isStackOverflow(e)) {
    return new LimitError('limit: the search ran out of stack (an execution of about five hundred events or more)', at);
  }
  return undefined;
}

export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}
