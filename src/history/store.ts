// Histories too large to hold: what a run makes, kept on disk as it comes,
// and histories put together or compared from their files. A whole
// collection's history is about a gigabyte; holding every test's output of
// a run (and, to compare, of the saved history too) took 4 GB. Here a run's
// outputs go to a spill file as each test finishes (OutputSpill: a few
// bytes of memory per test), a saved history is read from its file
// (openHistory), and a history is written from either, one entry at a time
// (writeHistory reads each output when it writes it).

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATEGORIES, categorize, HistoryError, openHistory, timedOut, type Category, type History, type HistoryEntry } from './history.js';

/**
 * A run's outputs, appended to a temporary file as they come; each read
 * back when asked for. `close` removes the file.
 */
export class OutputSpill {
  private readonly dir = mkdtempSync(join(tmpdir(), 'litmus-history-'));
  private readonly fd = openSync(join(this.dir, 'outputs'), 'w+', 0o600);
  private size = 0;
  private readonly where = new Map<string, [number, number]>();

  put(key: string, out: string): void {
    const bytes = Buffer.from(out, 'utf8');
    for (let put = 0; put < bytes.length; ) put += writeSync(this.fd, bytes, put, bytes.length - put, this.size + put);
    this.where.set(key, [this.size, bytes.length]);
    this.size += bytes.length;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  /** The output put under `key`. */
  out(key: string): string {
    const at = this.where.get(key);
    if (!at) throw new Error(`internal: no output for ${key}`);
    const bytes = Buffer.allocUnsafe(at[1]);
    for (let got = 0; got < bytes.length; ) got += readSync(this.fd, bytes, got, bytes.length - got, at[0] + got);
    return bytes.toString('utf8');
  }

  /** Every output put, as history entries (each read when its `out` is). */
  entries(): HistoryEntry[] {
    const read = (key: string) => this.out(key);
    return [...this.where.keys()].map((key) => ({
      key,
      get out(): string {
        return read(key);
      },
    }));
  }

  close(): void {
    closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The options a history was made with that decide its outputs (its per-test time limit aside, which only makes timeouts). */
const DECIDING = ['model', 'unroll', 'speedcheck'] as const;

/**
 * The histories of shards of one run, as one (`litmus history merge`): every
 * entry of each, read from the files. A test in two of them is refused
 * (shards hold disjoint tests), as are histories made with other options
 * (model, loop bound, --speedcheck): they are not one run. `close` when
 * written.
 */
export function mergeHistories(paths: readonly string[]): History & { sources: number; close: () => void } {
  if (paths.length === 0) throw new HistoryError('history merge needs at least one history');
  const opened = paths.map((p) => ({ path: p, h: openHistory(p) }));
  const close = () => opened.forEach((o) => o.h.close());
  try {
    const first = opened[0];
    for (const o of opened.slice(1)) {
      for (const k of DECIDING) {
        const a = JSON.stringify(first.h.options?.[k] ?? null);
        const b = JSON.stringify(o.h.options?.[k] ?? null);
        if (a !== b) throw new HistoryError(`${o.path} was made with ${k} ${b}, ${first.path} with ${a}: not one run's shards`);
      }
    }
    const entries = new Map<string, HistoryEntry>();
    const from = new Map<string, string>();
    for (const o of opened) {
      for (const [key, e] of o.h.entries) {
        const other = from.get(key);
        if (other !== undefined) throw new HistoryError(`the test ${key} is in ${other} and in ${o.path}: shards hold each test once`);
        from.set(key, o.path);
        entries.set(key, e);
      }
    }
    return { header: first.h.header, options: first.h.options, entries, sources: opened.length, close };
  } catch (e) {
    close();
    throw e;
  }
}

/** How two saved histories compare, test by test (cmplitmushist.sh's categories), without running anything. */
export interface HistoryDiff {
  counts: Record<Category, number>;
  /** Every test in both with its category, in key order. */
  judged: { key: string; category: Category }[];
  /** Tests in the new history only, and in the old one only. */
  onlyNew: string[];
  onlyOld: string[];
}

/** Compares a history (`after`) with an older one (`before`), reading each pair of outputs once. */
export function diffHistories(before: History, after: History): HistoryDiff {
  const counts = Object.fromEntries(CATEGORIES.map(([c]) => [c, 0])) as Record<Category, number>;
  const judged: HistoryDiff['judged'] = [];
  const keys = [...after.entries.keys()].sort();
  const onlyNew: string[] = [];
  for (const key of keys) {
    const b = before.entries.get(key);
    if (!b) {
      onlyNew.push(key);
      continue;
    }
    const category = categorize(b.out, after.entries.get(key)!.out);
    counts[category]++;
    judged.push({ key, category });
  }
  const onlyOld = [...before.entries.keys()].filter((k) => !after.entries.has(k)).sort();
  return { counts, judged, onlyNew, onlyOld };
}

/**
 * What each test cost in a history, in seconds, to order and share out the
 * next run: its `Time NAME S` line; a test given up at its time limit costs
 * that limit (`timeoutS`); a test refused (no Time line) next to nothing.
 */
export function costsOf(h: History, timeoutS: number): Map<string, number> {
  const costs = new Map<string, number>();
  for (const [key, e] of h.entries) {
    const out = e.out;
    if (timedOut(out)) {
      costs.set(key, timeoutS);
      continue;
    }
    const m = /^Time \S+ (\d+(?:\.\d+)?)$/m.exec(out);
    costs.set(key, m ? Number(m[1]) : 0.001);
  }
  return costs;
}
