// The checking thread of `litmus serve`: one test at a time, so that a
// runaway test can be stopped by ending the thread.

import { parentPort } from 'node:worker_threads';
import { explainSource, type Limits } from './explain.js';

export interface CheckRequest {
  id: number;
  text: string;
  file: string;
  full: boolean;
  limits: Limits;
}

parentPort!.on('message', (m: CheckRequest) => {
  parentPort!.postMessage({ id: m.id, view: explainSource(m.text, m.limits, m.full, m.file) });
});
