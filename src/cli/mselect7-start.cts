#!/usr/bin/env node
// The `litmus-mselect7` command: `litmus mselect7 ARGS...` through the same
// start as `litmus` (start.cts), for the kernel's scripts, which call it as
// `mselect7` (a link named mselect7 to this command, on PATH: docs/herd7.md).

process.argv.splice(2, 0, 'mselect7');
require('./start.cjs');
