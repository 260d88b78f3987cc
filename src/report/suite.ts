// Suites: a folder of tests whose headers say which version of some code and
// which scenario each one checks (` * Version: v`, ` * Scenario: s`), and
// whose `exists` clause describes a bad outcome. An optional suite.json in
// the folder names the version under review and what the bad outcome means:
//   { "title": "...", "underReview": "patch", "badOutcome": "..." }
// The table and the closing line are computed from the verdicts alone.

import { existsSync } from 'node:fs';
import { readInputFile } from '../limits.js';
import { join } from 'node:path';

export interface SuiteMeta {
  version?: string;
  scenario?: string;
}

export interface SuiteConfig {
  title?: string;
  underReview?: string;
  /** The version before the change, to tell old problems from new ones. */
  baseline?: string;
  badOutcome?: string;
}

/** A scenario's short name: the words before its first colon. */
const short = (s: string) => s.split(':')[0].trim();

export function suiteMeta(text: string): SuiteMeta | undefined {
  const brace = text.indexOf('{');
  const head = brace >= 0 ? text.slice(0, brace) : text;
  const version = /Version:\s*([^\n*]+)/.exec(head)?.[1].trim();
  const scenario = /Scenario:\s*([^\n*]+)/.exec(head)?.[1].trim();
  if (!version && !scenario) return undefined;
  return { version, scenario };
}

export function suiteConfig(folder: string): SuiteConfig {
  const p = join(folder, 'suite.json');
  if (!existsSync(p)) return {};
  try {
    return JSON.parse(readInputFile(p)) as SuiteConfig;
  } catch {
    return {};
  }
}

export interface SuiteRow {
  test: string;
  version: string;
  scenario: string;
  verdict: string;
  expected: string;
  matches: boolean | undefined;
  /** Where a thread can wait forever (a test with waits: docs/liveness.md), the summary line's words for it. */
  hang?: string;
}

export function suiteTable(rows: SuiteRow[], cfg: SuiteConfig): string {
  const head = ['test', 'version', 'scenario', 'verdict', 'expected', ''];
  const body = rows.map((r) => [r.test, r.version, short(r.scenario), `${r.verdict}${r.hang ? ' (can hang)' : ''}`, r.expected, r.matches === false ? 'MISMATCH' : r.matches ? 'ok' : '']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const lines = [fmt(head), fmt(widths.map((w) => '-'.repeat(w)))];
  for (const b of body) lines.push(fmt(b));
  const verdict = suiteVerdict(rows, cfg);
  if (verdict) lines.push('', verdict);
  return lines.join('\n');
}

/** The closing line for the version under review (undefined without one). */
export function suiteVerdict(rows: SuiteRow[], cfg: SuiteConfig): string | undefined {
  if (!cfg.underReview) return undefined;
  const bad = cfg.badOutcome ?? 'the bad outcome';
  const mine = rows.filter((r) => r.version === cfg.underReview);
  const reachable = mine.filter((r) => r.verdict !== 'Never');
  if (mine.length === 0) return `No test of version "${cfg.underReview}" in this run.`;
  if (reachable.length === 0) {
    return `Version "${cfg.underReview}" (under review): ${bad} is impossible in ${mine.length === 1 ? 'the one scenario' : `all ${mine.length} scenarios`} checked.${hangs(rows, cfg)}`;
  }
  const before = (sc: string) =>
    cfg.baseline && rows.some((r) => r.version === cfg.baseline && r.scenario === sc && r.verdict !== 'Never')
      ? ` (also possible in "${cfg.baseline}")`
      : '';
  return (
    `Version "${cfg.underReview}" (under review): ${bad} CAN happen, in ${reachable.length} of ${mine.length} scenarios: ` +
    reachable.map((r) => short(r.scenario) + before(r.scenario)).join(', ') + '.' + hangs(rows, cfg)
  );
}

/** " A thread can wait forever in s7 (also in "pre")." for the version under review, or nothing. */
function hangs(rows: SuiteRow[], cfg: SuiteConfig): string {
  const mine = rows.filter((r) => r.version === cfg.underReview && r.hang);
  if (mine.length === 0) return '';
  const before = (sc: string) => (cfg.baseline && rows.some((r) => r.version === cfg.baseline && r.scenario === sc && r.hang) ? ` (also in "${cfg.baseline}")` : '');
  return ` A thread can wait forever in ${mine.map((r) => short(r.scenario) + before(r.scenario)).join(', ')}.`;
}

/** Whether the version under review reaches the bad outcome in some scenario of these rows. */
export function underReviewReaches(rows: readonly SuiteRow[], cfg: SuiteConfig): boolean {
  return cfg.underReview !== undefined && rows.some((r) => r.version === cfg.underReview && (r.verdict !== 'Never' || r.hang !== undefined));
}
