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
  const tty = process.stderr.isTTY === true;
  const draw = (done: number) => {
    if (!tty) return;
    const width = 30;
    const fill = Math.round((done / files.length) * width);
    process.stderr.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${files.length}`);
  };
  const results = await runWorkers<FileReport>(files, { workerUrl: new URL('./worker.js', import.meta.url), workerData: opts, jobs, onDone: draw });
  if (tty) process.stderr.write('\r\x1b[K');
  return results;
}

/** What runWorkers runs: a worker script answering `{i, file}` messages with `{i, report}`. */
export interface WorkerTasks<R> {
  workerUrl: URL;
  workerData: unknown;
  jobs: number;
  /**
   * A file whose answer takes longer than this is given up: its worker is
   * ended (whatever it is doing) and a fresh one takes the next file.
   */
  deadlineMs?: number;
  /** The result for a file given up at the deadline (required with deadlineMs). */
  onDeadline?: (file: string) => R;
  /** Called after each file with the number done so far. */
  onDone?: (done: number) => void;
}

/** Runs every file on `jobs` worker threads, each taking the next file as it finishes one; results in input order. */
export async function runWorkers<R>(files: string[], t: WorkerTasks<R>): Promise<R[]> {
  // Loaded here, not up front: a run in one thread never needs it (~6 ms of start-up).
  const { Worker } = await import('node:worker_threads');
  const results: R[] = new Array(files.length);
  let next = 0;
  let done = 0;
  const finish = (i: number, r: R) => {
    results[i] = r;
    t.onDone?.(++done);
  };
  /** One lane: a worker and the files it takes; a worker ended at a deadline is replaced. */
  const lane = () =>
    new Promise<void>((resolveP, reject) => {
      const start = () => {
        const w = new Worker(t.workerUrl, { workerData: t.workerData, resourceLimits: WORKER_LIMITS });
        let timer: NodeJS.Timeout | undefined;
        let current = -1;
        const feed = () => {
          if (next >= files.length) {
            void w.terminate();
            resolveP();
            return;
          }
          current = next++;
          w.postMessage({ i: current, file: files[current] });
          if (t.deadlineMs !== undefined) timer = setTimeout(giveUp, t.deadlineMs);
        };
        const giveUp = () => {
          w.removeAllListeners();
          void w.terminate();
          finish(current, t.onDeadline!(files[current]));
          start();
        };
        w.on('message', (m: { i: number; report: R }) => {
          clearTimeout(timer);
          finish(m.i, m.report);
          feed();
        });
        w.on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
        feed();
      };
      start();
    });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(t.jobs, files.length)) }, lane));
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
