// The checking thread of `litmus serve`: one task at a time (a test's check,
// a TypeScript suite's reading, or the listing of the folder served), so
// that a runaway one can be stopped by ending the thread.

import { parentPort } from 'node:worker_threads';
import { explainSource, type Limits } from './explain.js';
import { lowerSuite } from './suites.js';
import { listFolder, type WALK_BOUNDS } from './paths.js';

export type Task =
  | { kind: 'check'; text: string; file: string; full: boolean; limits: Limits }
  | { kind: 'suite'; root: string; file: string; entry: string }
  | { kind: 'list'; root: string; bounds?: typeof WALK_BOUNDS };

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
  if (t.kind === 'list') {
    parentPort!.postMessage({ id: m.id, answer: listFolder(t.root, t.bounds) });
    return;
  }
  lowerSuite(t.root, t.file, t.entry).then(
    (answer) => parentPort!.postMessage({ id: m.id, answer }),
    (e: unknown) => parentPort!.postMessage({ id: m.id, failed: e instanceof Error ? e.message : String(e) }),
  );
});
