#!/usr/bin/env node
// The `litmus-herd7` command (and a link to it named herd7): `litmus herd7
// ARGS...` through the same start as `litmus` (start.cts: the one-file
// bundle with V8's code cache, CommonJS), so that the kernel's scripts,
// which start one process per test, pay the same start-up for either name.
// (The ES module herd7.js, as a command, resolved and compiled its ~50
// modules at every start: ~34 ms of CPU more per test.)

process.argv.splice(2, 0, 'herd7');
require('./start.cjs');
