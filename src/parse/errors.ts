import type { Pos } from './ast.js';

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
    super(message);
    this.name = 'LitmusError';
  }

  /** Further problems found in the same file (e.g. every unknown primitive, not just the first). */
  others?: LitmusError[];

  /** One line per problem: `file:line:col: message`. */
  format(file: string): string {
    return [this, ...(this.others ?? [])].map((e) => `${file}:${e.pos.line}:${e.pos.col}: ${e.message}`).join('\n');
  }
}

/** An exploration stopped by a limit (executions, time). */
export class LimitError extends Error {
  /** timedOut: the time limit stopped it (not the candidate cap or the stack). */
  constructor(message: string, readonly timedOut = false) {
    super(message);
    this.name = 'LimitError';
  }
}

export function fail(message: string, pos: Pos): never {
  throw new LitmusError(message, pos);
}

/**
 * The explorer recurses once per event of an execution, so a thread with
 * very many memory accesses (about a thousand) can exhaust the JavaScript
 * stack: that is a limit of this checker, reported as one.
 */
export function asLimit(e: unknown): LimitError | undefined {
  if (e instanceof LimitError) return e;
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new LimitError('stopped: the exploration ran out of stack (a thread with about a thousand memory accesses or more)');
  }
  return undefined;
}
