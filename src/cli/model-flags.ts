// The model options of litmus's own commands, declared once for every
// command that takes them (their meaning: src/cli/model-options.ts, loaded
// only when a command runs).

import type { Command } from 'commander';

export interface ModelFlags {
  model?: string;
  conf?: string;
  bell?: string;
  variant?: string[];
  macros?: string;
  /** false with --no-shortcuts: the model without any of its pruning (src/model/model.ts withoutShortcuts). */
  shortcuts?: boolean;
}

/** Adds the model options to a command. */
export function addModelOptions(cmd: Command): Command {
  return cmd
    .option('-m, --model <model>', 'memory model: lkmm (default), sc, x86-tso; or a .cat file, a .cfg file, or a folder with linux-kernel.cfg')
    .option('--conf <file.cfg>', "a herd7 configuration file naming the model's .cat, .bell and variants (e.g. a kernel tree's tools/memory-model/linux-kernel.cfg)")
    .option('--bell <file.bell>', 'with a .cat model: the bell file read before it')
    .option('--variant <name>', 'a variant the model tests (repeatable), as herd7 -variant', (v: string, acc: string[] = []) => [...acc, v])
    .option('--macros <file.def>', "the primitives as a .def file defines them (herd7's -macros, e.g. an edited linux-kernel.def); default: a --conf's macros line, else the built-in table, the kernel's .def")
    .option('--no-shortcuts', "explore without any pruning the model declares and judge every candidate by all of the model's axioms (slow; for differential runs: the answers must not change)");
}

