// `npm run corpus [FOLDER] [--timeout MS] [-j N] [--speedcheck]`: checks Paul
// McKenney's litmus collection (../shared/corpus/paulmckrcu-litmus, or FOLDER)
// on all cores and prints how many tests were judged, refused (by reason),
// stopped by a limit, and how many agree with their `Result:` line. Not part
// of CI: the whole collection takes tens of minutes (a few with --speedcheck,
// which decides each verdict without counting every execution).

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { resolveInputs } from '../src/cli/inputs.js';
import { runPool } from '../src/cli/pool.js';
import { corpusDir } from './corpus.js';
import { formatTally, tally } from './tally.js';

interface Args {
  folder?: string;
  timeoutMs: number;
  jobs: number;
  speedcheck: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { timeoutMs: 10_000, jobs: availableParallelism(), speedcheck: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--timeout') args.timeoutMs = Number(argv[++i]);
    else if (a === '-j' || a === '--jobs') args.jobs = Number(argv[++i]);
    else if (a === '--speedcheck') args.speedcheck = true;
    else if (a === '-h' || a === '--help') {
      console.log('usage: npm run corpus -- [FOLDER] [--timeout MS (default 10000)] [-j N] [--speedcheck]');
      process.exit(0);
    } else args.folder = a;
  }
  if (!(args.timeoutMs > 0) || !(args.jobs >= 1)) {
    console.error('corpus: --timeout and -j take positive numbers');
    process.exit(2);
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const shared = corpusDir();
const folder = args.folder ?? (shared ? join(shared, 'paulmckrcu-litmus') : undefined);
if (!folder || !existsSync(folder)) {
  console.log(`corpus: skipped (no collection at ${folder ?? '../shared/corpus/paulmckrcu-litmus'}; give a folder or set LITMUS_CORPUS)`);
  process.exit(0);
}
const { files } = resolveInputs([folder]);
const t0 = performance.now();
// The Result: lines are herd7's: loops are read as herd7 reads them (unrolled).
const reports = await runPool(files, { model: 'lkmm', timeoutMs: args.timeoutMs, speedcheck: args.speedcheck, waits: 'unrolled' }, Math.max(1, Math.min(args.jobs, files.length)));
const result = tally(reports);
console.log(formatTally(result, (performance.now() - t0) / 1000));
process.exit(result.internal.length ? 1 : 0);
