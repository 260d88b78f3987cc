// Checks for the page, off the server's thread: a few worker threads take
// requests from a bounded queue. Each check runs under the CLI's limits
// (--max-executions, --timeout); a check that outlives them by a grace
// period (the explanations get their own bounded search) has its thread
// ended and replaced, so nothing a test does can hang the server.

import { Worker } from 'node:worker_threads';
import type { CheckRequest } from './check-worker.js';
import type { Limits, TestView } from './explain.js';

export interface CheckerOptions {
  limits: Limits;
  /** Worker threads (default 2). */
  threads?: number;
  /** Waiting requests beyond which new ones are refused (default 64). */
  maxQueue?: number;
  /** How long past --timeout a check may run before its thread is ended (default 10 s). */
  graceMs?: number;
}

interface Job {
  text: string;
  file: string;
  full: boolean;
  resolve: (v: TestView) => void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number; timer: NodeJS.Timeout };
}

export class Checker {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: CheckerOptions) {
    for (let i = 0; i < (opts.threads ?? 2); i++) this.slots.push(this.spawn());
  }

  /** The view of a test; undefined when the queue is full (the caller answers 503). */
  check(text: string, file: string, full: boolean): Promise<TestView> | undefined {
    if (this.queue.length >= (this.opts.maxQueue ?? 64)) return undefined;
    return new Promise((resolve) => {
      this.queue.push({ text, file, full, resolve });
      this.pump();
    });
  }

  get threads(): number {
    return this.slots.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) j.resolve({ error: 'the server is stopping' });
    await Promise.all(this.slots.map((s) => this.finish(s, { error: 'the server is stopping' })));
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(new URL('./check-worker.js', import.meta.url)) };
    slot.worker.on('message', (m: { id: number; view: TestView }) => {
      if (slot.job?.id !== m.id) return;
      clearTimeout(slot.job.timer);
      const { resolve } = slot.job;
      slot.job = undefined;
      resolve(m.view);
      this.pump();
    });
    slot.worker.on('error', (e) => {
      void this.restart(slot, { error: `${slot.job?.file ?? 'test'}: internal error: ${e.message} (please report it)` });
    });
    slot.worker.unref();
    return slot;
  }

  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      const job = this.queue.shift()!;
      const id = this.nextId++;
      const hard = this.opts.limits.timeoutMs + (this.opts.graceMs ?? 10_000);
      const timer = setTimeout(() => {
        void this.restart(slot, { error: `${job.file}: stopped after ${hard} ms (--timeout ${this.opts.limits.timeoutMs} and the time to explain)` });
      }, hard);
      slot.job = { ...job, id, timer };
      const req: CheckRequest = { id, text: job.text, file: job.file, full: job.full, limits: this.opts.limits };
      slot.worker.postMessage(req);
    }
  }

  /** Ends a slot's thread, answers its job with `view`, and starts a fresh thread in its place. */
  private async restart(slot: Slot, view: TestView): Promise<void> {
    await this.finish(slot, view);
    if (this.closed) return;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots[i] = this.spawn();
    this.pump();
  }

  private async finish(slot: Slot, view: TestView): Promise<void> {
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.resolve(view);
    }
    slot.worker.removeAllListeners('message');
    slot.worker.removeAllListeners('error');
    slot.worker.on('error', () => {});
    await slot.worker.terminate();
  }
}
