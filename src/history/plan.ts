// Which tests a history run takes and in which order. A collection's time
// goes to a few long tests (the RCU chains of auto/: one alone runs for
// seconds): started last, one of them holds a worker while the others have
// finished. So the run starts the tests that cost most first, by what each
// cost in an earlier history (`Time` lines; a timeout costs its limit), and
// a test not in one by an estimate from its text. Shared over machines
// (`--shard K/N`), the tests are dealt by the same costs, each to the shard
// with the least cost so far (longest first), so that the shards take about
// the same time; without costs, every Nth test in sorted order.

/** A test of a run: its name in the history, and its file. */
export interface PlannedTest {
  key: string;
  file: string;
}

/** `K/N`: the K-th of N shards (1-based). */
export function parseShard(spec: string): { k: number; n: number } {
  const m = /^(\d{1,9})\/(\d{1,9})$/.exec(spec);
  if (!m) throw new Error(`--shard takes K/N (e.g. 2/4), not "${spec}"`);
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || k < 1 || k > n) throw new Error(`--shard ${spec}: K must be between 1 and N`);
  return { k, n };
}

/**
 * A test's cost in seconds when no earlier history has it: from its text,
 * by the number of processes (herd7's cost grows with them, steeply past a
 * few). Only the order matters.
 */
export function estimateCost(text: string | undefined): number {
  if (text === undefined) return 0;
  const procs = new Set(text.match(/^P\d+\b/gm) ?? []).size;
  return 0.001 * 2 ** Math.min(procs, 20);
}

/** Each test's cost: measured where `costs` has it, else estimated from its text (read by `textOf`). */
export function costOf(tests: readonly PlannedTest[], costs: ReadonlyMap<string, number> | undefined, textOf: (file: string) => string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of tests) out.set(t.key, costs?.get(t.key) ?? estimateCost(textOf(t.file)));
  return out;
}

/** The tests, most costly first (ties by name, so that a plan is the same every time). */
export function costliestFirst<T extends PlannedTest>(tests: readonly T[], cost: ReadonlyMap<string, number>): T[] {
  return [...tests].sort((a, b) => cost.get(b.key)! - cost.get(a.key)! || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Shard K of N: with costs, the tests dealt longest first, each to the
 * shard with the least cost so far (the lowest-numbered of equal ones);
 * without, every Nth in sorted order. Deterministic: the same tests and
 * costs give every machine the same shards. In the order given.
 */
export function shardOf<T extends PlannedTest>(tests: readonly T[], spec: string, cost?: ReadonlyMap<string, number>): T[] {
  const { k, n } = parseShard(spec);
  const mine = new Set<string>();
  if (cost) {
    const loads = new Array<number>(n).fill(0);
    for (const t of costliestFirst(tests, cost)) {
      let least = 0;
      for (let i = 1; i < n; i++) if (loads[i] < loads[least]) least = i;
      loads[least] += cost.get(t.key)!;
      if (least === k - 1) mine.add(t.key);
    }
  } else {
    [...tests].map((t) => t.key).sort().forEach((key, i) => {
      if (i % n === k - 1) mine.add(key);
    });
  }
  return tests.filter((t) => mine.has(t.key));
}
