// SIGINT (Ctrl-C) and SIGTERM in the middle of a run: the run stops taking
// files, ends its workers and prints what is done (check: the finished
// results and a line saying the run was interrupted; --json: a whole
// document with "interrupted": true), then exits 128 + the signal's number
// (130, 143), as a shell reports a command ended by it. A second signal
// while that is printed ends the process at once.
//
// A check in this thread holds the event loop, so a signal's handler runs
// only once it ends; interruptibly() runs it so that SIGINT ends it at once
// (node:vm's breakOnSigint, as Node's REPL stops a runaway line). SIGTERM
// waits for the check in this thread to end (at most its --timeout); on
// worker threads both are answered at once.

import { createContext, Script, type Context } from 'node:vm';

/** The signals a run answers, with their numbers. */
const SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;
type Name = keyof typeof SIGNALS;

/** Listens for SIGINT and SIGTERM while a run lasts (stop() when it ends). */
export class Interruption {
  private readonly controller = new AbortController();
  private seen: Name | undefined;
  private readonly handlers = new Map<Name, () => void>();

  constructor() {
    for (const name of Object.keys(SIGNALS) as Name[]) {
      const handler = () => {
        if (this.seen !== undefined) process.exit(this.exitCode);
        this.seen = name;
        this.controller.abort();
      };
      this.handlers.set(name, handler);
      process.on(name, handler);
    }
  }

  private context: Context | undefined;
  private readonly script = new Script('run()', { filename: 'litmus-interruptible' });

  /**
   * Runs `fn` (its synchronous part: an async function up to its first
   * await) so that SIGINT stops it at once; undefined when it did (the run
   * is then interrupted, as by the handler).
   */
  interruptibly<T>(fn: () => T): { value: T } | undefined {
    if (this.seen !== undefined) return undefined;
    this.context ??= createContext({ run: undefined });
    this.context.run = fn;
    try {
      return { value: this.script.runInContext(this.context, { breakOnSigint: true }) as T };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_INTERRUPTED') throw e;
      this.seen = 'SIGINT';
      this.controller.abort();
      return undefined;
    } finally {
      this.context.run = undefined;
    }
  }

  /** Aborted at the first signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The signal received, if any. */
  get received(): Name | undefined {
    return this.seen;
  }

  /** 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). */
  get exitCode(): number {
    return this.seen === undefined ? 0 : 128 + SIGNALS[this.seen];
  }

  /** The line a run prints on stderr when it was interrupted: how far it got. */
  line(done: number, total: number, what = 'test'): string {
    return `litmus: interrupted by ${this.seen}: ${done} of ${total} ${what}${total === 1 ? '' : 's'} finished (shown); the others were not checked`;
  }

  /** Stops listening: a signal then does what it does by default. */
  stop(): void {
    for (const [name, handler] of this.handlers) process.off(name, handler);
  }
}
