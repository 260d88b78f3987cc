import { parentPort, workerData } from 'node:worker_threads';
import { runOne, type RunOptions } from './run-one.js';

const opts = workerData as RunOptions;
parentPort!.on('message', async (m: { i: number; file: string }) => {
  const report = await runOne(m.file, opts);
  parentPort!.postMessage({ i: m.i, report });
});
