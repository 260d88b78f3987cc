// The sections of bench/RESULTS.md, in the file's order. Each is measured by
// one bench script and returns its Markdown (its heading and provenance line
// are added by run.ts). `npm run bench` runs them all and writes the file
// whole; `npm run bench -- --only NAME` runs one and replaces its part of the
// file (between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`).
//
// To add a section: write the function that measures it, in a bench script
// of its own (it gets the command line's options, BenchOptions, and returns
// Markdown; progress goes to stderr), and add an entry below. Nothing in
// bench/RESULTS.md is written by hand: a figure worth keeping is a section,
// so that every run measures it again (older figures are in git).

import { catSection } from './cat.js';
import { corpusSection } from './corpus-bench.js';
import type { BenchOptions } from './options.js';
import { familiesSection, waitsSection } from './scale.js';
import { startupSection } from './startup.js';
import { targetsSection } from './targets.js';
import { workflowSection } from './workflow.js';

export interface Section {
  /** The name --only takes, and the file's markers use. */
  name: string;
  /** The section's heading. */
  title: string;
  /** The bench script that measures it. */
  script: string;
  /** Measures, and returns the section's Markdown; `describe` names the run (date, commit, machine) for a picture's caption. */
  run(opts: BenchOptions, describe: string): string | Promise<string>;
}

export const SECTIONS: Section[] = [
  { name: 'targets', title: 'Targets (one fresh process per figure: the CLI, start-up included)', script: 'bench/targets.ts', run: targetsSection },
  { name: 'corpus', title: 'Kernel corpus (one process)', script: 'bench/corpus-bench.ts', run: corpusSection },
  { name: 'families', title: 'Scalable families', script: 'bench/scale.ts', run: familiesSection },
  { name: 'waits', title: 'Scalable families: waits', script: 'bench/scale.ts', run: waitsSection },
  { name: 'startup', title: 'Start-up per process: the kernel\'s scripts start one herd7 per test', script: 'bench/startup.ts', run: startupSection },
  { name: 'cat', title: 'The LKMM compiled from the kernel\'s files against the built-in copy', script: 'bench/cat.ts', run: catSection },
  { name: 'workflow', title: "The maintainer's day: the kernel's history scripts, litmus history and herd7, the whole collection", script: 'bench/workflow.ts', run: workflowSection },
];
