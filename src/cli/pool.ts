// Checking many files on all cores: worker threads take the next file as
// they finish one; results come back in input order. On a terminal a
// progress bar goes to stderr; elsewhere nothing is drawn.

import { LIMITS } from '../limits.js';
import { failedReport, type FileReport, type RunOptions } from './run-one.js';

/**
 * A worker's young generation as small as the main thread's. V8 gives a
 * worker's isolate its full young generation (2 x 16 MB semi-spaces here)
 * from the start, where the main thread starts at 1 MB and, with
 * cli/v8-flags.cts, stays there: on 2 workers, auto/ with --speedcheck
 * peaked at ~195 MB RSS, ~65 MB of it young generations; with this, ~130 MB
 * for the same CPU. Its heap is bounded (LIMITS.workerHeapMb): a check that
 * outgrows it ends its worker only (without a bound, V8's running out of
 * heap in a worker ends the whole process), and that file gets a limit error.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 3, maxOldGenerationSizeMb: LIMITS.workerHeapMb };

/**
 * Checks the files on `jobs` worker threads. With `signal`, an abort ends
 * every worker and the reports come back as far as they got (a file not
 * finished: undefined).
 */
export async function runPool(files: string[], opts: RunOptions, jobs: number): Promise<FileReport[]>;
export async function runPool(files: string[], opts: RunOptions, jobs: number, signal: AbortSignal | undefined): Promise<(FileReport | undefined)[]>;
export async function runPool(files: string[], opts: RunOptions, jobs: number, signal?: AbortSignal): Promise<(FileReport | undefined)[]> {
  const tty = process.stderr.isTTY === true;
  const draw = (done: number) => {
    if (!tty) return;
    const width = 30;
    const fill = Math.round((done / files.length) * width);
    process.stderr.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${files.length}`);
  };
  const results = await runWorkers<FileReport>(files, {
    workerUrl: new URL('./worker.js', import.meta.url), workerData: opts, jobs, onDone: draw, signal,
    onFailure: (file, why) => failedReport(file, why),
  });
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
  /**
   * The result for a file whose worker died while checking it (out of heap,
   * a crash): `why` says so. The file's worker is replaced and the run goes on.
   */
  onFailure: (file: string, why: string) => R;
  /** Called after each file with the number done so far. */
  onDone?: (done: number) => void;
  /** Ends the run when aborted (a signal): every worker is ended, the results so far returned (undefined for the others). */
  signal?: AbortSignal;
  /** Each file's result as it comes (`i`: its index): the results are then not kept (runWorkers returns none). */
  onResult?: (i: number, r: R) => void;
}

/** Why a worker died, for the file it was checking. */
function deathOf(e: Error & { code?: string }): string {
  if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') return `limit: the check ran out of memory (more than ${LIMITS.workerHeapMb} MB of heap); the other files are checked`;
  return `internal error: its worker thread failed: ${e.message} (please report it)`;
}

/**
 * Runs every file on `jobs` worker threads, each taking the next file as it
 * finishes one; results in input order. A worker that dies (out of heap, a
 * crash) or passes the deadline is replaced, its file answered by
 * onFailure or onDeadline; the others go on. An abort (t.signal) ends every
 * worker and returns what is done (undefined for the rest).
 */
export async function runWorkers<R>(files: string[], t: WorkerTasks<R>): Promise<(R | undefined)[]> {
  // Loaded here, not up front: a run in one thread never needs it (~6 ms of start-up).
  const { Worker } = await import('node:worker_threads');
  const results: (R | undefined)[] = new Array(files.length).fill(undefined);
  let next = 0;
  let done = 0;
  const finish = (i: number, r: R) => {
    if (t.onResult) t.onResult(i, r);
    else results[i] = r;
    t.onDone?.(++done);
  };
  /** Each lane's worker, ended (and the lane done) when the run is aborted. */
  const live = new Set<() => void>();
  const stopped = () => t.signal?.aborted === true;
  const onAbort = () => {
    for (const stop of [...live]) stop();
  };
  t.signal?.addEventListener('abort', onAbort, { once: true });
  /** One lane: a worker and the files it takes; a worker ended at a deadline or dead is replaced. */
  const lane = () =>
    new Promise<void>((resolveP) => {
      const start = () => {
        const w = new Worker(t.workerUrl, { workerData: t.workerData, resourceLimits: WORKER_LIMITS });
        let timer: NodeJS.Timeout | undefined;
        let current = -1;
        const end = () => {
          clearTimeout(timer);
          w.removeAllListeners();
          w.on('error', () => {});
          live.delete(stop);
          void w.terminate();
        };
        const stop = () => {
          end();
          resolveP();
        };
        live.add(stop);
        const feed = () => {
          current = -1;
          if (next >= files.length || stopped()) {
            end();
            resolveP();
            return;
          }
          current = next++;
          w.postMessage({ i: current, file: files[current] });
          if (t.deadlineMs !== undefined) timer = setTimeout(giveUp, t.deadlineMs);
        };
        /** The current file answered without its worker, which is ended and replaced. */
        const replace = (r: R) => {
          const i = current;
          end();
          finish(i, r);
          if (stopped()) return resolveP();
          start();
        };
        const giveUp = () => replace(t.onDeadline!(files[current]));
        w.on('message', (m: { i: number; report: R }) => {
          clearTimeout(timer);
          finish(m.i, m.report);
          feed();
        });
        w.on('error', (e) => {
          if (current >= 0) replace(t.onFailure(files[current], deathOf(e)));
        });
        w.on('exit', (code) => {
          if (current >= 0) replace(t.onFailure(files[current], `internal error: its worker thread stopped (exit code ${code}) (please report it)`));
        });
        feed();
      };
      start();
    });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(t.jobs, files.length)) }, lane));
  t.signal?.removeEventListener('abort', onAbort);
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
  /** A file checked in this thread; undefined when the run was interrupted meanwhile. */
  checkHere: (file: string, opts: RunOptions) => Promise<FileReport | undefined>,
  serialMs = 1000,
  signal?: AbortSignal,
): Promise<(FileReport | undefined)[]> {
  const reports: (FileReport | undefined)[] = [];
  const start = performance.now();
  let i = 0;
  for (; i < files.length; i++) {
    if (cores > 1 && files.length - i > 1 && performance.now() - start > serialMs) break;
    const r = signal && (await signalSeen(signal)) ? undefined : await checkHere(files[i], opts);
    if (r === undefined) return [...reports, ...new Array<undefined>(files.length - i).fill(undefined)];
    reports.push(r);
  }
  if (i < files.length) reports.push(...(await runPool(files.slice(i), opts, Math.min(cores, files.length - i), signal)));
  return reports;
}

/**
 * Whether the run has been told to stop: a check in this thread holds the
 * event loop, so a signal's handler runs only between two files; this
 * lets it run, then reads the signal.
 */
export async function signalSeen(signal: AbortSignal): Promise<boolean> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  return signal.aborted;
}
