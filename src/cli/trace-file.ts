import { runOne, type RunOptions } from './run-one.js';

/** The trace of one file (for a suite's failing rows). */
export async function traceFile(file: string, opts: RunOptions): Promise<string> {
  const r = await runOne(file, { ...opts, trace: true });
  return r.trace ?? r.error ?? '';
}
