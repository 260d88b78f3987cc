// What a --json run prints when it stops on an error before (or instead of)
// its results: still one JSON document on stdout, status 2 and the errors,
// in the shape of the command's own document (check's, read by merge;
// audit's; history compare's), so that a script reading stdout always reads
// JSON. The same errors go to stderr as lines, as without --json.

import type { JsonError } from './run-one.js';

export type JsonCommand = 'check' | 'audit' | 'history compare';

/** The document of a --json run that failed with `errors`. */
export function jsonFailure(command: JsonCommand, errors: JsonError[]): string {
  const shape =
    command === 'check' ? { summary: { inputs: 0, ok: 0, mismatches: 0, errors: errors.length }, results: [] }
    : command === 'audit' ? { tests: [], suites: [] }
    : {};
  return JSON.stringify({ status: 2, ...shape, errors }, null, 2);
}

/** Whether a command line asks `command` for JSON (before a `--`). */
export function wantsJson(argv: string[]): JsonCommand | undefined {
  const end = argv.indexOf('--');
  const args = end < 0 ? argv : argv.slice(0, end);
  if (!args.includes('--json')) return undefined;
  if (args[0] === 'check' || args[0] === 'audit') return args[0];
  if (args[0] === 'history' && args[1] === 'compare') return 'history compare';
  return undefined;
}
