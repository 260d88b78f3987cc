// A worker thread of `litmus history`: the .litmus.out text of each file it is sent.
import { parentPort, workerData } from 'node:worker_threads';
import { recordOne, type RecordOptions } from '../history/record.js';

const opts = workerData as RecordOptions;
parentPort!.on('message', (m: { i: number; file: string }) => {
  parentPort!.postMessage({ i: m.i, report: recordOne(m.file, opts) });
});
