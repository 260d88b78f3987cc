// The public conformance corpus: rows of expected.tsv (herd7's results) and
// how a CheckResult compares with one. Used by scripts/conformance.ts and by
// the corpus test.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult } from '../src/check.js';

export interface Row {
  test: string;
  verdict: string;
  positive: number;
  negative: number;
  flags: string;
  states: string;
}

/** ../shared/corpus next to the project (or $LITMUS_CORPUS), if it is there. */
export function corpusDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = process.env.LITMUS_CORPUS
    ? [resolve(process.env.LITMUS_CORPUS)]
    : [resolve(here, '..', '..', 'shared', 'corpus'), resolve(here, '..', '..', '..', 'shared', 'corpus')];
  return candidates.find((d) => existsSync(join(d, 'expected.tsv')));
}

export function readRows(corpus: string): Row[] {
  return readFileSync(join(corpus, 'expected.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [test, verdict, positive, negative, flags, states] = l.split('\t');
      return { test, verdict, positive: Number(positive), negative: Number(negative), flags, states: states ?? '' };
    });
}

/** States as expected.tsv writes them: bindings sorted, states sorted, ` | `-joined. */
export function statesOf(r: CheckResult): string {
  return r.states
    .map((s) => s.bindings.map(([k, v]) => `${k}=${v}`).sort().join(' '))
    .sort()
    .join(' | ');
}

export function normaliseStates(states: string): string {
  return states.split(' | ').map((s) => s.split(' ').sort().join(' ')).sort().join(' | ');
}

export function flagsOf(r: CheckResult): string {
  return r.flags.length ? [...r.flags].sort().join(',') : '-';
}

export function normaliseFlags(flags: string): string {
  return flags === '-' ? '-' : flags.split(',').sort().join(',');
}

/** What differs between our result and herd's row (empty: they agree). */
export function differences(row: Row, r: CheckResult): string[] {
  const diffs: string[] = [];
  if (r.observation !== row.verdict) diffs.push(`verdict ${r.observation} (herd: ${row.verdict})`);
  if (r.positive !== row.positive || r.negative !== row.negative) {
    diffs.push(`P/N ${r.positive}/${r.negative} (herd: ${row.positive}/${row.negative})`);
  }
  if (flagsOf(r) !== normaliseFlags(row.flags)) diffs.push(`flags ${flagsOf(r)} (herd: ${row.flags})`);
  const got = statesOf(r);
  const want = normaliseStates(row.states);
  if (got !== want) diffs.push(`states differ:\n    ours: ${got}\n    herd: ${want}`);
  return diffs;
}
