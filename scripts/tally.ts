// What `npm run corpus` prints: the reports of a run over a collection of
// tests, counted as judged (and whether each agrees with its `Result:`
// line), refused (by reason), stopped by a limit, or failed inside litmus.

import type { FileReport } from '../src/cli/run-one.js';

export interface Tally {
  total: number;
  judged: number;
  agree: number;
  disagree: { file: string; line: string }[];
  /** Judged tests whose Result: makes no claim (none, or `Maybe`). */
  noClaim: number;
  /** Reason (quoted names and numbers generalised) -> files. */
  refused: Map<string, string[]>;
  limited: Map<string, string[]>;
  internal: string[];
}

/** `file:12:3: unknown primitive "smp_memb"` -> `unknown primitive "…"`. */
export function reasonOf(error: string, file: string): { kind: 'refused' | 'limited' | 'internal'; reason: string } {
  const rest = error.startsWith(file) ? error.slice(file.length) : error;
  const positioned = /^:\d+:\d+: /.exec(rest);
  const message = positioned ? rest.slice(positioned[0].length) : rest.replace(/^: /, '');
  const reason = message.replace(/"[^"]*"/g, '"…"').replace(/\d+/g, 'N');
  if (/^limit: /.test(message)) return { kind: 'limited', reason };
  if (positioned) return { kind: 'refused', reason };
  if (/^internal error/.test(message)) return { kind: 'internal', reason: message };
  return { kind: 'limited', reason };
}

export function tally(reports: FileReport[]): Tally {
  const t: Tally = {
    total: reports.length, judged: 0, agree: 0, disagree: [], noClaim: 0,
    refused: new Map(), limited: new Map(), internal: [],
  };
  const add = (m: Map<string, string[]>, k: string, f: string) => m.set(k, [...(m.get(k) ?? []), f]);
  for (const r of reports) {
    if (r.status === 2 || !r.json) {
      const { kind, reason } = reasonOf(r.error ?? 'no result', r.file);
      if (kind === 'refused') add(t.refused, reason, r.file);
      else if (kind === 'limited') add(t.limited, reason, r.file);
      else t.internal.push(r.error ?? r.file);
      continue;
    }
    t.judged++;
    const { expected, observation, matches } = r.json;
    if (expected === undefined || expected === 'Maybe') t.noClaim++;
    else if (matches) t.agree++;
    else t.disagree.push({ file: r.file, line: r.human ?? `${observation} (Result: ${expected})` });
  }
  return t;
}

export function formatTally(t: Tally, seconds: number): string {
  const lines: string[] = [];
  const count = (m: Map<string, string[]>) => [...m.values()].reduce((n, fs) => n + fs.length, 0);
  const byCount = (m: Map<string, string[]>) => [...m.entries()].sort((a, b) => b[1].length - a[1].length);
  lines.push(`corpus: ${t.total} tests in ${seconds.toFixed(0)} s`);
  lines.push(`  judged: ${t.judged} (agree with their Result: ${t.agree}; disagree: ${t.disagree.length}; no claim (none or Maybe): ${t.noClaim})`);
  lines.push(`  refused: ${count(t.refused)}`);
  for (const [reason, files] of byCount(t.refused)) lines.push(`    ${String(files.length).padStart(5)}  ${reason}  (e.g. ${files[0]})`);
  lines.push(`  stopped by a limit: ${count(t.limited)}`);
  for (const [reason, files] of byCount(t.limited)) lines.push(`    ${String(files.length).padStart(5)}  ${reason}`);
  if (t.internal.length) {
    lines.push(`  internal errors: ${t.internal.length}`);
    for (const e of t.internal) lines.push(`    ${e}`);
  }
  if (t.disagree.length) {
    lines.push('disagreements with Result: lines:');
    for (const d of t.disagree) lines.push(`  ${d.file}: ${d.line}`);
  }
  return lines.join('\n');
}
