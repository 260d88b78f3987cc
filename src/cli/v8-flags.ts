// V8 tuning for a checker whose typical run is short: many small tests, each
// a few milliseconds. V8's default is to optimize a function (TurboFan, on
// background threads) after little execution, which on a run over the kernel
// corpus spends about as much CPU compiling as checking. A larger interrupt
// budget lets only the functions that really run hot be optimized; long runs
// (thousands of executions) reach the threshold early and lose nothing
// measurable (bench/: spinlock N=8 within noise). Imported first by the
// command-line entry points, before any checker module is loaded.

import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--interrupt-budget=1000000');
