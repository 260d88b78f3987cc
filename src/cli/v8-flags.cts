// V8 tuning for a checker whose typical run is short: many small tests, each
// a few milliseconds. Imported first by the command-line entry points, before
// any checker module is loaded.
//
// V8's default is to optimize a function (TurboFan, on background threads)
// after little execution, which on a run over the kernel corpus spends about
// as much CPU compiling as checking. A larger interrupt budget lets only the
// functions that really run hot be optimized; long runs (thousands of
// executions) reach the threshold early and lose nothing measurable (bench/:
// spinlock N=8 within noise).
//
// The young generation keeps its initial size instead of doubling as objects
// survive: a check's live data is small, and each new page of a larger young
// generation costs a page fault (a kernel-corpus run took ~10,300 faults,
// 0.15-0.20 s of system time; with this ~6,800 and ~0.08 s, for more but
// cheaper scavenges: ~0.08 s less CPU in all). The long families (RCU chain
// n=8, spinlock N=8) are within noise, with ~10 MB less peak RSS.

import { setFlagsFromString } from 'node:v8';

/**
 * The flags, also given on the command line of a process started from the
 * litmus-herd7 snapshot (src/cli/snapshot.cts): V8 takes a snapshot only
 * under the flags it was made with.
 */
export const V8_FLAGS = ['--interrupt-budget=1000000', '--semi-space-growth-factor=1'];

for (const flag of V8_FLAGS) setFlagsFromString(flag);
