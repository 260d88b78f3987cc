// Checks (and TypeScript suites' readings) for the page, off the server's
// thread: a few worker threads take tasks from a bounded queue. Each check
// runs under the CLI's limits (--max-executions, --timeout); a task that
// outlives --timeout by a grace period (the explanations get their own
// bounded search), or whose heap outgrows its bound, has its thread ended
// and replaced, so nothing a test or a suite does can hang the server or
// take all the machine's memory. A task whose client has gone (its signal
// aborted) leaves the queue, or has its thread ended if it is running. The
// queue is fair: the next task is taken from the request with the fewest
// tasks running, then the fewest started (a suite's grid does not hold back
// one test's check), in arrival order among equals.

import { Worker } from 'node:worker_threads';
import type { Task, TaskRequest } from './check-worker.js';
import type { Limits, TestView } from './explain.js';
import { scrubPaths, WALK_BOUNDS, type FolderListing } from './paths.js';
import { LIMITS } from '../limits.js';
import { unreadSuite, type LoweredSuite } from './suites.js';

/** The longest delay setTimeout keeps (2^31-1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A checking thread's heap bound, in MB. */
const DEFAULT_MEMORY_MB = LIMITS.workerHeapMb;

export interface CheckerOptions {
  limits: Limits;
  /** Worker threads (default 2). */
  threads?: number;
  /** Waiting tasks beyond which new ones are refused (default 64). */
  maxQueue?: number;
  /** How long past --timeout a task may run before its thread is ended (default 10 s). */
  graceMs?: number;
  /** The heap a thread may grow to, in MB (default 2048): beyond, the thread is ended and its task says so. */
  memoryMb?: number;
}

export interface CheckerStatus {
  threads: number;
  running: number;
  queued: number;
  maxQueue: number;
}

interface Job {
  task: Task;
  /** The file the messages name (relative to the folder served). */
  label: string;
  /** Who asked (one HTTP request): the queue is fair between them. */
  owner: object;
  resolve: (answer: unknown) => void;
  /** The answer for a task that could not finish, saying why. */
  fail: (why: string) => unknown;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** Set when a thread takes it: the message id, and the timer that ends the thread. */
  id?: number;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  job?: Job;
  /** Its thread is being ended: it takes no job. */
  ending?: boolean;
}

export class Checker {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  /** How many jobs each request has had started: the queue favours those with fewer. */
  private readonly started = new WeakMap<object, number>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: CheckerOptions) {
    for (let i = 0; i < (opts.threads ?? 2); i++) this.slots.push(this.spawn());
  }

  /** The view of a test; undefined when the queue is full (the caller answers 503). */
  check(text: string, file: string, full: boolean, signal?: AbortSignal, owner: object = {}): Promise<TestView> | undefined {
    const task: Task = { kind: 'check', text, file, full, limits: this.opts.limits };
    return this.submit<TestView>(task, file, owner, (why) => ({ error: why }), signal);
  }

  /** A TypeScript suite read (file: its entry's real path, entry: relative to root); undefined when the queue is full. */
  lower(root: string, file: string, entry: string, signal?: AbortSignal, owner: object = {}): Promise<LoweredSuite> | undefined {
    return this.submit<LoweredSuite>({ kind: 'suite', root, file, entry }, entry, owner, (why) => unreadSuite(entry, why), signal);
  }

  /** The folder's listing (walked in a checking thread); undefined when the queue is full. */
  list(root: string, bounds?: typeof WALK_BOUNDS, signal?: AbortSignal, owner: object = {}): Promise<FolderListing> | undefined {
    return this.submit<FolderListing>({ kind: 'list', root, bounds }, 'the folder', owner, (why) => ({ tests: [], suites: [], truncated: `the folder could not be listed: ${why}` }), signal);
  }

  get threads(): number {
    return this.slots.length;
  }

  status(): CheckerStatus {
    return { threads: this.slots.length, running: this.slots.filter((s) => s.job).length, queued: this.queue.length, maxQueue: this.maxQueue };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) this.settle(j, j.fail('the server is stopping'));
    await Promise.all(this.slots.map((s) => this.finish(s, 'the server is stopping')));
  }

  private get maxQueue(): number {
    return this.opts.maxQueue ?? 64;
  }

  private submit<T>(task: Task, label: string, owner: object, fail: (why: string) => T, signal?: AbortSignal): Promise<T> | undefined {
    if (this.closed) return Promise.resolve(fail('the server is stopping'));
    if (signal?.aborted) return Promise.resolve(fail('the client went away'));
    if (this.queue.length >= this.maxQueue) return undefined;
    return new Promise<T>((resolve) => {
      const job: Job = { task, label, owner, resolve: resolve as (a: unknown) => void, fail, signal };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** A job whose client went away: out of the queue, or its thread ended. */
  private cancel(job: Job): void {
    const i = this.queue.indexOf(job);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.settle(job, job.fail('the client went away'));
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (slot) void this.restart(slot, 'the client went away');
  }

  private settle(job: Job, answer: unknown): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    job.resolve(answer);
  }

  private spawn(): Slot {
    const memoryMb = this.opts.memoryMb ?? DEFAULT_MEMORY_MB;
    const slot: Slot = { worker: new Worker(new URL('./check-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: memoryMb } }) };
    slot.worker.on('message', (m: { id: number; answer?: unknown; failed?: string }) => {
      const job = slot.job;
      if (job?.id !== m.id) return;
      clearTimeout(job.timer);
      slot.job = undefined;
      this.settle(job, m.failed !== undefined ? job.fail(`${job.label}: cannot be read: ${scrubPaths(m.failed)}`) : m.answer);
      this.pump();
    });
    slot.worker.on('error', (e: Error & { code?: string }) => {
      const label = slot.job?.label ?? 'test';
      const why = e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `${label}: stopped: it needs more than ${memoryMb} MB of memory` : `${label}: internal error: ${scrubPaths(e.message)} (please report it)`;
      void this.restart(slot, why);
    });
    slot.worker.unref();
    return slot;
  }

  /**
   * The queued job to run next: the first of those whose request has the
   * fewest jobs running, then the fewest started.
   */
  private takeNext(): Job | undefined {
    let best = -1;
    let fewest = [Infinity, Infinity];
    for (let i = 0; i < this.queue.length; i++) {
      const owner = this.queue[i].owner;
      const here = [this.slots.filter((s) => s.job?.owner === owner).length, this.started.get(owner) ?? 0];
      if (here[0] < fewest[0] || (here[0] === fewest[0] && here[1] < fewest[1])) {
        best = i;
        fewest = here;
      }
    }
    if (best < 0) return undefined;
    const [job] = this.queue.splice(best, 1);
    this.started.set(job.owner, (this.started.get(job.owner) ?? 0) + 1);
    return job;
  }

  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.job || slot.ending) continue;
      const job = this.takeNext();
      if (!job) return;
      const id = this.nextId++;
      const { timeoutMs } = this.opts.limits;
      // --timeout follows check's rule (src/limits.ts: 1 ms to a timer's longest delay); the thread gets a grace to explain.
      // A listing is bounded by its own time (WALK_BOUNDS.ms), not --timeout.
      const hard = Math.min((job.task.kind === 'list' ? (job.task.bounds ?? WALK_BOUNDS).ms : timeoutMs) + (this.opts.graceMs ?? 10_000), MAX_TIMER_MS);
      const what = job.task.kind === 'check' ? '' : job.task.kind === 'list' ? 'listing ' : 'reading the suite ';
      job.id = id;
      job.timer = setTimeout(() => {
        void this.restart(slot, `${job.label}: ${what}stopped after ${hard} ms (--timeout ${timeoutMs}${job.task.kind === 'check' ? ' and the time to explain' : ''})`);
      }, hard);
      slot.job = job;
      const req: TaskRequest = { id, task: job.task };
      slot.worker.postMessage(req);
    }
  }

  /** Ends a slot's thread, answers its job saying why, and starts a fresh thread in its place. */
  private async restart(slot: Slot, why: string): Promise<void> {
    if (slot.ending) return;
    await this.finish(slot, why);
    if (this.closed) return;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots[i] = this.spawn();
    this.pump();
  }

  private async finish(slot: Slot, why: string): Promise<void> {
    if (slot.ending) return;
    slot.ending = true;
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      this.settle(job, job.fail(why));
    }
    slot.worker.removeAllListeners('message');
    slot.worker.removeAllListeners('error');
    slot.worker.on('error', () => {});
    await slot.worker.terminate();
  }
}
