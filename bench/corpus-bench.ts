// The kernel corpus (../shared/corpus: the kernel's litmus-tests/ and herd's
// herd-linux/ tests with herd7's results) checked in this process, one test
// after the other: CPU and wall time, candidates, agreement with herd7's
// verdicts and counts, and the slowest tests.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDir, readRows } from '../scripts/corpus.js';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { errText, fmtInt, fmtMb, fmtMs, fmtRate, measure, sampleRss, table, type BenchOptions } from './options.js';

/** The corpus section's Markdown. */
export function corpusSection(opts: BenchOptions): string {
  const out: string[] = [];
  const corpus = corpusDir();
  if (!corpus) {
    const msg = 'skipped: no corpus at ../shared/corpus (set LITMUS_CORPUS)';
    console.error(`bench: corpus ${msg}`);
    return msg;
  }
  const rows = readRows(corpus);
  console.error(`bench: corpus: ${rows.length} tests from ${corpus}`);
  const per: { test: string; ms: number; candidates: number; consistent: number }[] = [];
  const failures: string[] = [];
  let candidates = 0;
  let consistent = 0;
  let agree = 0;
  const total = measure(() => {
    for (const row of rows) {
      const text = readFileSync(join(corpus, row.test), 'utf8');
      const w0 = performance.now();
      try {
        const r = checkSource(text, {
          model: lkmm,
          maxExecutions: opts.maxExecutions,
          timeoutMs: opts.timeoutS * 1000,
          // Compared with herd7's results: loops read as herd7 reads them.
          waits: 'unrolled',
        });
        const ms = performance.now() - w0;
        candidates += r.stats.candidates;
        consistent += r.positive + r.negative;
        per.push({ test: row.test, ms, candidates: r.stats.candidates, consistent: r.positive + r.negative });
        if (r.observation === row.verdict && r.positive === row.positive && r.negative === row.negative) agree++;
        else
          failures.push(
            `${row.test}: ${r.observation} ${r.positive}/${r.negative} (herd: ${row.verdict} ${row.positive}/${row.negative})`,
          );
      } catch (e) {
        per.push({ test: row.test, ms: performance.now() - w0, candidates: 0, consistent: 0 });
        failures.push(`${row.test}: ${errText(e)}`);
      }
      sampleRss();
    }
  });
  const m = total.m;
  out.push(
    table(
      ['tests', 'agree with herd (verdict+P/N)', 'wall', 'CPU', 'candidates', 'consistent', 'cand/s', 'RSS (max before/after)', 'maxRSS so far'],
      [
        [
          String(rows.length),
          `${agree}/${rows.length}`,
          fmtMs(m.wallMs),
          fmtMs(m.cpuMs),
          fmtInt(candidates),
          fmtInt(consistent),
          fmtRate(candidates, m.wallMs),
          fmtMb(m.rss),
          fmtMb(m.maxRss),
        ],
      ],
      [true, true, true, true, true, true, true, true, true],
    ),
    '',
  );
  const slow = [...per].sort((a, b) => b.ms - a.ms).slice(0, 8);
  out.push(
    'Slowest corpus tests:',
    '',
    table(
      ['test', 'wall', 'candidates', 'consistent'],
      slow.map((s) => [s.test, fmtMs(s.ms), fmtInt(s.candidates), fmtInt(s.consistent)]),
      [false, true, true, true],
    ),
    '',
  );
  if (failures.length) {
    out.push(`Disagreements / errors (${failures.length}):`, '', ...failures.map((f) => `- ${f}`), '');
  }
  console.error(`bench: corpus done in ${fmtMs(m.wallMs)} (${agree}/${rows.length} agree)`);
  return out.join('\n');
}

