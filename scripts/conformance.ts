// Conformance: every test of ../shared/corpus/expected.tsv (herd7 7.58 + LKMM)
// checked by litmus, compared on verdict, P/N counts, flags and states.
// Prints `conformance: A/T agree` and each disagreement; exits 1 below 100%.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSource, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { LitmusError } from '../src/parse/errors.js';

const here = dirname(fileURLToPath(import.meta.url));
const corpus = resolve(process.env.LITMUS_CORPUS ?? join(here, '..', '..', '..', 'shared', 'corpus'));
const tsv = join(corpus, 'expected.tsv');

if (!existsSync(tsv)) {
  console.log(`conformance: skipped (no corpus at ${corpus}; set LITMUS_CORPUS)`);
  process.exit(0);
}

interface Row {
  test: string;
  verdict: string;
  positive: number;
  negative: number;
  flags: string;
  states: string;
}

const rows: Row[] = readFileSync(tsv, 'utf8')
  .split('\n')
  .slice(1)
  .filter((l) => l.trim() !== '')
  .map((l) => {
    const [test, verdict, positive, negative, flags, states] = l.split('\t');
    return { test, verdict, positive: Number(positive), negative: Number(negative), flags, states: states ?? '' };
  });

function statesOf(r: CheckResult): string {
  return r.states
    .map((s) => s.bindings.map(([k, v]) => `${k}=${v}`).sort().join(' '))
    .sort()
    .join(' | ');
}

let agree = 0;
const problems: string[] = [];
const t0 = process.cpuUsage();
const w0 = performance.now();
for (const row of rows) {
  const text = readFileSync(join(corpus, row.test), 'utf8');
  let r: CheckResult;
  try {
    r = checkSource(text, { model: lkmm });
  } catch (e) {
    const msg = e instanceof LitmusError ? e.format(row.test) : `${row.test}: ${(e as Error).stack ?? e}`;
    problems.push(`${row.test}: error: ${msg}`);
    continue;
  }
  const diffs: string[] = [];
  if (r.observation !== row.verdict) diffs.push(`verdict ${r.observation} (herd: ${row.verdict})`);
  if (r.positive !== row.positive || r.negative !== row.negative) {
    diffs.push(`P/N ${r.positive}/${r.negative} (herd: ${row.positive}/${row.negative})`);
  }
  const flags = r.flags.length ? r.flags.join(',') : '-';
  const expectedFlags = row.flags === '-' ? '-' : row.flags.split(',').sort().join(',');
  if (flags !== expectedFlags) diffs.push(`flags ${flags} (herd: ${row.flags})`);
  const got = statesOf(r);
  const want = row.states.split(' | ').map((s) => s.split(' ').sort().join(' ')).sort().join(' | ');
  if (got !== want) diffs.push(`states differ:\n    ours: ${got}\n    herd: ${want}`);
  if (diffs.length === 0) agree++;
  else problems.push(`${row.test}: ${diffs.join('; ')}`);
}
const cpu = process.cpuUsage(t0);
const wall = performance.now() - w0;
for (const p of problems) console.log(`DISAGREE ${p}`);
console.log(
  `conformance: ${agree}/${rows.length} agree (${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU, ${wall.toFixed(0)} ms wall)`,
);
process.exit(agree === rows.length ? 0 : 1);
