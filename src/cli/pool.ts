// Checking many files on all cores: worker threads take the next file as
// they finish one; results come back in input order. On a terminal a
// progress bar goes to stderr; elsewhere nothing is drawn.

import type { FileReport, RunOptions } from './run-one.js';

/**
 * A worker's young generation as small as the main thread's. V8 gives a
 * worker's isolate its full young generation (2 x 16 MB semi-spaces here)
 * from the start, where the main thread starts at 1 MB and, with
 * cli/v8-flags.cts, stays there: on 2 workers, auto/ with --speedcheck
 * peaked at ~195 MB RSS, ~65 MB of it young generations; with this, ~130 MB
 * for the same CPU.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 3 };

export async function runPool(files: string[], opts: RunOptions, jobs: number): Promise<FileReport[]> {
  // Loaded here, not up front: a run in one thread never needs it (~6 ms of start-up).
  const { Worker } = await import('node:worker_threads');
  const results: FileReport[] = new Array(files.length);
  let next = 0;
  let done = 0;
  const tty = process.stderr.isTTY === true;
  const draw = () => {
    if (!tty) return;
    const width = 30;
    const fill = Math.round((done / files.length) * width);
    process.stderr.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${files.length}`);
  };
  const workerUrl = new URL('./worker.js', import.meta.url);
  await Promise.all(
    Array.from({ length: jobs }, () =>
      new Promise<void>((resolveP, reject) => {
        const w = new Worker(workerUrl, { workerData: opts, resourceLimits: WORKER_LIMITS });
        const feed = () => {
          if (next >= files.length) {
            void w.terminate();
            resolveP();
            return;
          }
          const i = next++;
          w.postMessage({ i, file: files[i] });
        };
        w.on('message', (m: { i: number; report: FileReport }) => {
          results[m.i] = m.report;
          done++;
          draw();
          feed();
        });
        w.on('error', reject);
        feed();
      }),
    ),
  );
  if (tty) process.stderr.write('\r\x1b[K');
  return results;
}

/**
 * How `litmus check` runs its files when -j is not given: in this thread
 * while that is cheapest, and on worker threads once it is not. A worker
 * costs a fresh start (loading the checker again, compiling it again), which
 * a run of small tests never earns back (the kernel corpus: -j 2 takes more
 * CPU than -j 1 and no less wall time). So files are checked here until the
 * run has taken `serialMs`; what is left then goes to `cores` workers.
 */
export async function runAdaptive(
  files: string[],
  opts: RunOptions,
  cores: number,
  checkHere: (file: string, opts: RunOptions) => Promise<FileReport>,
  serialMs = 1000,
): Promise<FileReport[]> {
  const reports: FileReport[] = [];
  const start = performance.now();
  let i = 0;
  for (; i < files.length; i++) {
    if (cores > 1 && files.length - i > 1 && performance.now() - start > serialMs) break;
    reports.push(await checkHere(files[i], opts));
  }
  if (i < files.length) reports.push(...(await runPool(files.slice(i), opts, Math.min(cores, files.length - i))));
  return reports;
}
