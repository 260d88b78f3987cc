// Conformance: every test of ../shared/corpus/expected.tsv (herd7 7.58 + LKMM)
// checked by litmus, compared on verdict, P/N counts, flags and states.
// Prints `conformance: A/T agree` and each disagreement; exits 1 below 100%.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { LitmusError } from '../src/parse/errors.js';
import { corpusDir, differences, readRows } from './corpus.js';

const corpus = corpusDir();
if (!corpus) {
  console.log('conformance: skipped (no corpus at ../shared/corpus; set LITMUS_CORPUS)');
  process.exit(0);
}

const rows = readRows(corpus);
let agree = 0;
const problems: string[] = [];
const t0 = process.cpuUsage();
const w0 = performance.now();
for (const row of rows) {
  const text = readFileSync(join(corpus, row.test), 'utf8');
  try {
    // herd7 is the reference here: loops read as herd7 reads them (unrolled).
    const diffs = differences(row, checkSource(text, { model: lkmm, waits: 'unrolled' }));
    if (diffs.length === 0) agree++;
    else problems.push(`${row.test}: ${diffs.join('; ')}`);
  } catch (e) {
    problems.push(`${row.test}: error: ${e instanceof LitmusError ? e.format(row.test) : String(e)}`);
  }
}
const cpu = process.cpuUsage(t0);
const wall = performance.now() - w0;
for (const p of problems) console.log(`DISAGREE ${p}`);
console.log(
  `conformance: ${agree}/${rows.length} agree (${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU, ${wall.toFixed(0)} ms wall)`,
);
process.exit(agree === rows.length ? 0 : 1);
