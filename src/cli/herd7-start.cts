#!/usr/bin/env node
// litmus herd7's code-cache start: `litmus herd7 ARGS...` through the same
// start as `litmus` (start.cts: the one-file bundle with V8's code cache,
// CommonJS). The `litmus-herd7` command (dist/src/cli/litmus-herd7, written
// by scripts/bundle.ts) runs Node from litmus herd7's start-up snapshot
// (snapshot.cts) and runs this file when there is none yet for this build
// and this Node: it then names the snapshot in LITMUS_HERD7_SNAPSHOT, and
// this process, once its run is over, makes it for the next one.
// (The ES module herd7.js, as a command, resolved and compiled its ~50
// modules at every start: ~34 ms of CPU more per test.)

import { V8_FLAGS } from './v8-flags.cjs';

const snapshot = process.env.LITMUS_HERD7_SNAPSHOT;
if (snapshot) {
  delete process.env.LITMUS_HERD7_SNAPSHOT;
  process.once('beforeExit', () => {
    const { makeSnapshot } = require('./snapshot.cjs') as typeof import('./snapshot.cjs');
    makeSnapshot(snapshot, V8_FLAGS);
  });
}
process.argv.splice(2, 0, 'herd7');
require('./start.cjs');
