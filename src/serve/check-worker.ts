// The checking thread of `litmus serve`: one task at a time (a test's check,
// or a TypeScript suite's reading), so that a runaway one can be stopped by
// ending the thread.

import { parentPort } from 'node:worker_threads';
import { explainSource, type Limits } from './explain.js';
import { lowerSuite } from './suites.js';

export type Task =
  | { kind: 'check'; text: string; file: string; full: boolean; limits: Limits }
  | { kind: 'suite'; root: string; file: string; entry: string };

export interface TaskRequest {
  id: number;
  task: Task;
}

parentPort!.on('message', (m: TaskRequest) => {
  const t = m.task;
  if (t.kind === 'check') {
    parentPort!.postMessage({ id: m.id, answer: explainSource(t.text, t.limits, t.full, t.file) });
    return;
  }
  lowerSuite(t.root, t.file, t.entry).then(
    (answer) => parentPort!.postMessage({ id: m.id, answer }),
    (e: unknown) => parentPort!.postMessage({ id: m.id, failed: e instanceof Error ? e.message : String(e) }),
  );
});
