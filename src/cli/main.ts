#!/usr/bin/env node
// The litmus command line. Only commander is loaded up front; the checker is
// imported when a command needs it, so that startup stays small.

import './v8-flags.cjs';
import { Command, InvalidArgumentError } from 'commander';
import { addModelOptions } from './model-flags.js';
import { OPTION_RULES, ruleText, wholeNumberIn, type NumberRule } from '../limits.js';
import { jsonFailure, wantsJson, type JsonCommand } from './json-failure.js';
import type { JsonError } from './run-one.js';
import { say } from './say.js';
import { printable } from '../parse/errors.js';

const program = new Command();

/** A whole-number option within its rule (src/limits.ts: decimal digits, a range); anything else is a usage error. */
function intArg(name: string, rule: NumberRule) {
  return (v: string) => {
    const n = wholeNumberIn(v, rule);
    if (n === undefined) throw new InvalidArgumentError(`${name} takes ${ruleText(rule)}, not "${v}"`);
    return n;
  };
}

const JOBS = { min: 1, max: 1024 };

/** How a command reports a bad model option: its line on stderr, and with --json the command's document on stdout. */
function modelErrorOf(command: JsonCommand, json: boolean | undefined): (text: string, errors: JsonError[]) => void {
  return (text, errors) => {
    say(text);
    if (json) console.log(jsonFailure(command, errors));
  };
}
const PORT = { min: 0, max: 65535 };

/**
 * The limits of a check, one list for every command that checks (check, audit, serve): the same
 * names, defaults and rules (src/limits.ts OPTION_RULES; README's Limits). 0 is no "no limit" for any.
 */
function addLimitOptions(c: Command): Command {
  return c
    .option('--unroll <n>', 'loop unrolling bound (herd7: 2)', intArg('--unroll', OPTION_RULES.unroll), 2)
    .option('--max-executions <n>', 'stop a check after this many candidate executions', intArg('--max-executions', OPTION_RULES.maxExecutions), 1_000_000)
    .option('--timeout <ms>', 'stop a check after this many milliseconds', intArg('--timeout', OPTION_RULES.timeoutMs), 60_000);
}

program
  .name('litmus')
  .description('Check Linux-kernel C litmus tests against the LKMM, with herd7-compatible output.')
  .version('0.1.0')
  .exitOverride((err) => {
    // A usage error of a --json run is JSON on stdout too (commander has written its line on stderr).
    const json = err.exitCode === 0 ? undefined : wantsJson(process.argv.slice(2));
    if (json) process.stdout.write(`${jsonFailure(json, [{ file: '', message: err.message.replace(/^error: /, '') }])}\n`);
    process.exit(err.exitCode === 0 ? 0 : 2);
  })
  .configureOutput({ outputError: (s, write) => write(printable(s)) });

addLimitOptions(addModelOptions(program
  .command('check')
  .description('check litmus files, folders, or names in the bundled litmus/ folder')
  .argument('<inputs...>', 'files, folders or bundled test names'))
  .option('--json', 'print results as JSON')
  .option('--trace', 'show a witnessing execution for each outcome the condition describes')
  .option('--dot <dir>', 'write a Graphviz picture per test into <dir>: a witness of the condition, or the forbidden candidate with its cycle')
  .option('--svg <dir>', 'write the same picture as SVG (no Graphviz needed) into <dir>'))
  .option('-j, --jobs <n>', 'worker threads for many files (default: this thread, then all cores once a run takes over 1 s)', intArg('--jobs', JOBS))
  .option('--shard <k/n>', 'check only a deterministic 1/n share of the inputs (k-th)')
  .option('-q, --quiet', 'only the one-line summaries (for a suite: its verdict and grid)')
  .option('--herd-compatible', 'also warn (on stderr) about what herd7 would refuse to read; verdicts and exit status are unchanged')
  .option('--herd', "for TypeScript suites: also print herd7's block for every test")
  .option('--speedcheck', "decide each .litmus test's verdict without counting every execution (herd7's -speedcheck): counts, states and flags then cover only the executions built")
  .option('--unroll-waits', 'read waiting loops as herd7 does (unrolled to --unroll, cut paths not counted) instead of exactly; no liveness verdict')
  .option('--fail-on-bad-outcome', 'exit 1 when a suite\'s version under review can reach its bad outcome (for CI)')
  .action(async (inputs: string[], o, cmd: Command) => {
    const { applyModelFlags } = await import('./model-options.js');
    if (!applyModelFlags(o, modelErrorOf('check', o.json), cmd.getOptionValueSource('unroll') === 'cli')) return void (process.exitCode = 2);
    const { runCheck } = await import('./commands.js');
    process.exitCode = await runCheck(inputs, o);
  });

program
  .command('export')
  .description('write herd7-readable C litmus files: bit operations as linux-kernel.def primitives, reserved names renamed')
  .argument('<inputs...>', 'files, folders or bundled test names')
  .requiredOption('--out <dir>', 'folder to write the exported files into')
  .option('--macros <file.def>', "the primitives as a .def file defines them (for herd7 -macros with the same file); default: the built-in table, the kernel's .def")
  .action(async (inputs: string[], o: { out: string; macros?: string }) => {
    const { runExport } = await import('./commands.js');
    process.exitCode = await runExport(inputs, o.out, o.macros);
  });

addLimitOptions(addModelOptions(program
  .command('serve')
  .description('a local page: the tests of a folder (or a suite\'s grid), each with its pictures and traces, and an editor to re-check')
  .argument('[target]', 'a folder, a test file or a bundled suite name', '.')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--allow-host <name>', 'also answer requests addressed to this host name or address (repeatable; the loopback names and the address listened on always are)', (v: string, all: string[] = []) => [...all, v])
  .option('--port <n>', 'port (0: any free one)', intArg('--port', PORT), 7411)))
  .action(async (target: string, o, cmd: Command) => {
    const { applyModelFlags } = await import('./model-options.js');
    if (!applyModelFlags(o, undefined, cmd.getOptionValueSource('unroll') === 'cli')) return void (process.exitCode = 2);
    const { runServe } = await import('../serve/command.js');
    process.exitCode = await runServe(target, o);
  });

addLimitOptions(addModelOptions(program
  .command('audit')
  .description('weaken each ordering device of a test whose condition is Never, one at a time, and say which are load-bearing')
  .argument('<inputs...>', 'files, folders (a suite: the tests of one version) or bundled test names'))
  .option('--suite-version <v>', "in a suite folder, the version to audit (default: suite.json's underReview)")
  .option('--json', 'print results as JSON'))
  .action(async (inputs: string[], o, cmd: Command) => {
    const { applyModelFlags } = await import('./model-options.js');
    if (!applyModelFlags(o, modelErrorOf('audit', o.json), cmd.getOptionValueSource('unroll') === 'cli')) return void (process.exitCode = 2);
    const { runAudit } = await import('./audit.js');
    process.exitCode = await runAudit(inputs, o);
  });

program
  .command('new')
  .description('write a new test to edit: NAME.litmus (C), or with --ts a TypeScript suite NAME/ (two versions, one scenario; NAME.ts: one scenario)')
  .argument('<name>', 'the test name (or a path ending in .litmus or .ts)')
  .option('--from <shape>', 'the shape to start from: MP, SB, LB, 2+2W, WRC, ISA2, IRIW, R, S, Z6.0, RWC', 'MP')
  .option('--ts', 'write a TypeScript suite (a folder) instead of a C test')
  .action(async (name: string, o: { from: string; ts?: boolean }) => {
    const { writeNewTest } = await import('./new.js');
    try {
      console.log(`wrote ${writeNewTest(name, o.from, o.ts ?? false)}`);
    } catch (e) {
      say(`litmus new: ${(e as Error).message}`);
      process.exitCode = 2;
    }
  });

program
  .command('merge')
  .description('merge --json outputs (e.g. of --shard runs) into one')
  .argument('<files...>', 'JSON files written by "litmus check --json"')
  .action(async (files: string[]) => {
    const { runMerge } = await import('./commands.js');
    process.exitCode = runMerge(files);
  });

program
  .command('primitives')
  .description('list the kernel primitives litmus understands: what each does and how it orders')
  .action(async () => {
    const { primitiveLines } = await import('./primitives-list.js');
    console.log(primitiveLines().join('\n'));
  });

const history = program
  .command('history')
  .description("the kernel's initlitmushist.sh / checklitmushist.sh workflow in one process: record every test's herd7 output, then compare a re-run (another model, another litmus) with it");

/** The options `history record` and `history compare` share: check's model options, then the scripts' limits. */
function historyOptions(c: Command): Command {
  return addModelOptions(c)
    .option('--unroll <n>', 'loop unrolling bound (herd7: 2)', intArg('--unroll', OPTION_RULES.unroll), 2)
    .option('--timeout <T>', "per test, as the scripts write it: 10s, 10m, 2h (no candidate cap: the time is the limit)", '1m')
    .option('--procs <n>', 'only C tests with at most <n> processes (no line starting P<n>), as the scripts\' --procs', intArg('--procs', { min: 1, max: 1024 }))
    .option('-j, --jobs <n>', 'worker threads (default: one per core)', intArg('--jobs', JOBS))
    .option('--speedcheck', "run each test as herd7 -speedcheck true does (only the states the condition looks for, the Observation decided without counting every execution): where only the Observation is needed")
    .option('--costs <history>', 'an earlier history whose Time lines say what each test costs: the costliest start first (compare: by default its history), and --shard deals them out by it');
}

historyOptions(history.command('record'))
  .description("run every test under the folders and save each one's herd7 output")
  .argument('<dirs...>', 'folders (every .litmus below) or test files')
  .option('--out <file>', 'the history file to write (one file: per test, its .litmus.out text)')
  .option('--destdir <dir>', "also write the scripts' .litmus.out files under <dir> (DIR/PATH.litmus.out; '.' puts each beside its test)")
  .option('--shard <k/n>', 'record only the k-th of n shares of the tests (dealt by --costs, so that the shares take about the same time; else every n-th); litmus history merge puts the shards together')
  .action(async (dirs: string[], o, cmd: Command) => {
    const { applyModelFlags } = await import('./model-options.js');
    if (!applyModelFlags(o, undefined, cmd.getOptionValueSource('unroll') === 'cli')) return void (process.exitCode = 2);
    const { runHistoryRecord } = await import('./history.js');
    process.exitCode = await runHistoryRecord(dirs, o);
  });

historyOptions(history.command('compare'))
  .description("re-run a history's tests and sort each as cmplitmushist.sh does; explain every changed result (exit 1 if any)")
  .argument('<history>', "a history file, or a folder holding the scripts' .litmus.out files ('.': beside the tests)")
  .argument('<dirs...>', 'the folders (or files) the tests are in')
  .option('--before-model <model>', 'the model the history was made under (a name, a .cat, a .cfg or a folder, as --model): each changed outcome is then shown as both models judge it')
  .option('--json', 'print {categories, changed: [{file, before, after}], notInHistory, notRun}')
  .option('--out <file>', 'also save this run as a history file')
  .option('--destdir <dir>', "also write this run's .litmus.out.new files under <dir>, as checklitmushist.sh does")
  .action(async (hist: string, dirs: string[], o, cmd: Command) => {
    const { applyModelFlags } = await import('./model-options.js');
    if (!applyModelFlags(o, modelErrorOf('history compare', o.json), cmd.getOptionValueSource('unroll') === 'cli')) return void (process.exitCode = 2);
    if (o.beforeModel !== undefined) {
      const before = { model: o.beforeModel };
      if (!applyModelFlags(before, modelErrorOf('history compare', o.json))) return void (process.exitCode = 2);
      o.beforeModel = before.model;
    }
    const { runHistoryCompare } = await import('./history.js');
    process.exitCode = await runHistoryCompare(hist, dirs, o);
  });

history
  .command('merge')
  .description('put the histories of a run\'s shards (record --shard) together into one')
  .argument('<histories...>', 'the shards\' history files')
  .requiredOption('--out <file>', 'the history file to write')
  .action(async (hists: string[], o: { out: string }) => {
    const { runHistoryMerge } = await import('./history.js');
    process.exitCode = runHistoryMerge(hists, o);
  });

history
  .command('diff')
  .description('sort each test of two saved histories as cmplitmushist.sh does, running nothing (exit 1 if a result changed)')
  .argument('<before>', 'the older history file')
  .argument('<after>', 'the newer history file')
  .option('--json', 'print {categories, changed: [{file, before, after}], onlyBefore, onlyAfter}')
  .action(async (before: string, after: string, o: { json?: boolean }) => {
    const { runHistoryDiff } = await import('./history.js');
    process.exitCode = runHistoryDiff(before, after, o);
  });

program
  .command('herd7')
  .description("herd7's command line and output (e.g. herd7 -conf linux-kernel.cfg X.litmus), for the kernel's scripts; also the litmus-herd7 command")
  .argument('[args...]', 'herd7 options and test files (litmus herd7 -help)');

program
  .command('mselect7')
  .description("herdtools7's mselect7 as the kernel's scripts use it (e.g. find litmus -name '*.litmus' | mselect7 -arch C); also the litmus-mselect7 command")
  .argument('[args...]', 'mselect7 options and test files (litmus mselect7 -help)');

program
  .command('models')
  .description('list the memory models')
  .action(async () => {
    const { BUILTIN_MODELS } = await import('../../models/index.js');
    const { MODEL_TEXTS, modelTextConf } = await import('../../models/texts.js');
    for (const { model: m, aliases } of BUILTIN_MODELS) {
      console.log(`${m.name.padEnd(8)} ${m.description}${aliases.length ? ` (also: ${aliases.join(', ')})` : ''}`);
      if (MODEL_TEXTS[m.name]) console.log(`${''.padEnd(8)} as cat text: --conf ${modelTextConf(m.name)}`);
    }
    console.log('FILE.cat, FILE.cfg or a folder with linux-kernel.cfg: a model read from its files (--model, --conf; see docs/models.md)');
  });

function fail(e: unknown): never {
  const message = e instanceof Error ? e.message : String(e);
  say(`litmus: ${message}`);
  const json = wantsJson(process.argv.slice(2));
  if (json) process.stdout.write(`${jsonFailure(json, [{ file: '', message: `internal error: ${message} (please report it)` }])}\n`);
  process.exit(2);
}

// herd7's and mselect7's single-dash options are not commander's: `litmus herd7 ...` and `litmus mselect7 ...` go straight to their own parsers.
if (process.argv[2] === 'herd7') {
  import('./herd7.js')
    .then(async ({ herd7Main }) => {
      process.exitCode = await herd7Main(process.argv.slice(3));
    })
    .catch(fail);
} else if (process.argv[2] === 'mselect7') {
  import('./mselect7.js')
    .then(({ mselect7Main }) => {
      process.exitCode = mselect7Main(process.argv.slice(3));
    })
    .catch(fail);
} else program.parseAsync(process.argv).catch(fail);
