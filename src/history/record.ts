// One test of a history run: what `herd7 $LKMM_HERD_OPTIONS FILE >
// FILE.litmus.out 2>&1` under `timeout T` leaves in the file, made by
// litmus herd7's own code (cli/herd7-test.ts), under the model `check`'s
// options name (cli/run-one.ts runModel).

import { checkOne } from '../cli/herd7-test.js';
import { defaultHerdOptions } from '../cli/herd7-args.js';
import { runModel, type RunOptions } from '../cli/run-one.js';
import { TIMED_OUT_LINE } from './history.js';

/** What a history run is made with: check's model options, the loop bound and the per-test time limit. */
export interface RecordOptions extends Pick<RunOptions, 'model' | 'unroll'> {
  timeoutMs: number;
  /** Run as herd7 -speedcheck true: only the states the condition looks for, the Observation decided without counting every execution. */
  speedcheck?: boolean;
}

/** The .litmus.out text for one test: warnings (stderr comes first), then herd7's block, Time and Hash lines. */
export function recordOne(file: string, opts: RecordOptions): string {
  const resolved = runModel(opts);
  if ('error' in resolved) return `Warning: File "${file}": ${resolved.error} (User error)\n`;
  // The spec, not only the Model: its .def (a --conf's macros line, --macros) gives the test's primitives.
  const herdOpts = { ...defaultHerdOptions(), model: opts.model, unroll: opts.unroll, timeoutMs: opts.timeoutMs, ...(opts.speedcheck ? { speedcheck: 'true' as const } : {}) };
  const r = checkOne(file, herdOpts, new Map(), { model: resolved.model, clock: 'wall' });
  if (r.stopped === 'timeout') return timedOutOutput();
  return r.warnings.map((w) => `Warning: ${w}\n`).join('') + r.output;
}

/** A test given up at its time limit, as the scripts' file shows it. */
export function timedOutOutput(): string {
  return `${TIMED_OUT_LINE}\n`;
}
