// The collection across machines (.github/workflows/collection.yml): its
// shard, merge and compare steps are scripts/collection-ci.sh's
// subcommands; here they run as separate processes, as the workflow's jobs
// do, on a small collection, and the merged shards must be the history of
// one run. Also history merge, diff and the cost-dealt shards on their own.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { openHistory, parseHistory, TIMED_OUT_LINE } from '../src/history/history.js';
import { costsOf } from '../src/history/store.js';
import { shardOf } from '../src/history/plan.js';
import { CLI, ROOT, litmus } from './util.js';

const SCRIPT = join(ROOT, 'scripts', 'collection-ci.sh');
const WORKFLOW = join(ROOT, '.github', 'workflows', 'collection.yml');
let dir: string;
let collection: string;

const run = (args: string[], env: Record<string, string> = {}) => spawnSync('bash', [SCRIPT, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, LITMUS: `${process.execPath} ${CLI}`, LITMUS_JOBS: '1', ...env } });
const history = (...args: string[]) => spawnSync(process.execPath, [CLI, 'history', ...args], { cwd: dir, encoding: 'utf8' });
/** A history's entries without the Time lines (which differ from run to run). */
const entriesOf = (file: string) => {
  const h = parseHistory(readFileSync(join(dir, file)), file);
  return new Map([...h.entries].map(([k, e]) => [k, e.out.replace(/^Time .*$/m, '')]));
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-collection-ci-'));
  collection = join(dir, 'collection');
  const corpus = join(ROOT, '..', 'shared', 'corpus', 'kernel');
  mkdirSync(join(collection, 'generated'), { recursive: true });
  // The kernel's litmus tests where ../shared is here; generated ones always (a few of each shape and size).
  try {
    cpSync(corpus, join(collection, 'kernel'), { recursive: true });
  } catch {
    // ../shared is absent: the generated tests only
  }
  for (let n = 0; n < 12; n++) {
    const threads = Array.from({ length: 2 + (n % 3) }, (_, i) => `\tint r0;\n\n\tWRITE_ONCE(*x, ${i + 1});\n\t${n % 2 ? 'smp_mb();' : ''}\n\tr0 = READ_ONCE(*y);`);
    writeFileSync(join(collection, 'generated', `G${n}.litmus`), litmus(`G${n}`, threads, 'exists (0:r0=0)'));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the collection workflow's steps", () => {
  it('the workflow runs scripts/collection-ci.sh shard, merge and compare', () => {
    const yml = readFileSync(WORKFLOW, 'utf8');
    expect(yml).toMatch(/run: scripts\/collection-ci\.sh shard \$\{\{ matrix\.shard \}\} "\$SHARDS" collection previous\/all\.hist/);
    expect(yml).toMatch(/run: scripts\/collection-ci\.sh merge all\.hist shards\/shard-\*\.hist/);
    expect(yml).toMatch(/scripts\/collection-ci\.sh compare previous\/all\.hist all\.hist comparison\.txt/);
    // As many shards in the matrix as SHARDS says.
    const shards = Number(/SHARDS: (\d+)/.exec(yml)![1]);
    expect(/shard: \[([\d, ]+)\]/.exec(yml)![1].split(',').map(Number)).toEqual(Array.from({ length: shards }, (_, i) => i + 1));
  });

  it('three shards recorded by separate processes, merged, are the history of one run; compared with it, nothing changed', () => {
    expect(history('record', '-j', '1', '--timeout', '10s', '--out', 'one.hist', collection).status).toBe(0);
    // The first time without costs (every third test), then dealt by the costs of one.hist, as the workflow's next run.
    for (const previous of ['', 'one.hist']) {
      for (const k of [1, 2, 3]) {
        const r = run(['shard', String(k), '3', collection, ...(previous ? [previous] : [])]);
        expect(r.status, r.stderr).toBe(0);
      }
      const shards = [1, 2, 3].map((k) => entriesOf(`shard-${k}.hist`));
      const keys = shards.flatMap((s) => [...s.keys()]);
      expect(new Set(keys).size).toBe(keys.length);
      const m = run(['merge', 'all.hist', 'shard-1.hist', 'shard-2.hist', 'shard-3.hist']);
      expect(m.status, m.stderr).toBe(0);
      expect(entriesOf('all.hist')).toEqual(entriesOf('one.hist'));
      const c = run(['compare', 'one.hist', 'all.hist', 'comparison.txt']);
      expect(c.status, c.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'comparison.txt.json'), 'utf8')) as { categories: Record<string, number>; changed: unknown[] };
      expect(report.changed).toEqual([]);
      expect(report.categories.exact).toBe(entriesOf('one.hist').size);
    }
  });

  it('compare flags a changed result (exit 1), and names it in both reports', () => {
    const h = readFileSync(join(dir, 'one.hist'), 'utf8');
    const key = 'generated/G0.litmus';
    const changed = h.replace(/(=== generated\/G0\.litmus\n[\s\S]*?Observation G0 )(\w+)/, (_m, head: string, verdict: string) => `${head}${verdict === 'Never' ? 'Sometimes' : 'Never'}`);
    writeFileSync(join(dir, 'changed.hist'), changed);
    const c = run(['compare', 'one.hist', 'changed.hist', 'report.txt']);
    expect(c.status).toBe(1);
    expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toMatch(new RegExp(`Result changed: ${key.replace('.', '\\.')}`));
    expect((JSON.parse(readFileSync(join(dir, 'report.txt.json'), 'utf8')) as { changed: { file: string }[] }).changed.map((x) => x.file)).toEqual([key]);
  });

  it('compare names a result changed only by a timeout in one run, and does not fail on it (the limit is wall time)', () => {
    const h = readFileSync(join(dir, 'one.hist'), 'utf8');
    // G1 timed out in the later run: its entry is the scripts' timeout.
    const slow = h.replace(/(=== generated\/G1\.litmus\n)[\s\S]*?(?=\n===)/, `$1${TIMED_OUT_LINE}`);
    expect(slow).not.toBe(h);
    writeFileSync(join(dir, 'slow.hist'), slow);
    const c = run(['compare', 'one.hist', 'slow.hist', 'slow.txt']);
    expect(c.status, c.stderr).toBe(0);
    const report = readFileSync(join(dir, 'slow.txt'), 'utf8');
    expect(report).toMatch(/Result changed: generated\/G1\.litmus/);
    expect(report).toMatch(/1 changed only by a test that timed out in one run/);
    const json = JSON.parse(readFileSync(join(dir, 'slow.txt.json'), 'utf8')) as { changed: { file: string; after: string }[] };
    expect(json.changed).toEqual([expect.objectContaining({ file: 'generated/G1.litmus', after: 'timed out' })]);
    // With a real change beside it, the step fails.
    const both = slow.replace(/(=== generated\/G0\.litmus\n[\s\S]*?Observation G0 )(\w+)/, (_m, head: string, verdict: string) => `${head}${verdict === 'Never' ? 'Sometimes' : 'Never'}`);
    writeFileSync(join(dir, 'both.hist'), both);
    expect(run(['compare', 'one.hist', 'both.hist', 'both.txt']).status).toBe(1);
  });
});

describe('history merge, diff and shards', () => {
  it('reads a history from its file entry by entry as from its bytes', () => {
    const file = join(dir, 'one.hist');
    const whole = parseHistory(readFileSync(file), file);
    const h = openHistory(file);
    try {
      expect(h.header).toEqual(whole.header);
      expect(h.options).toEqual(whole.options);
      expect([...h.entries.keys()]).toEqual([...whole.entries.keys()]);
      for (const [k, e] of whole.entries) expect(h.entries.get(k)!.out).toBe(e.out);
    } finally {
      h.close();
    }
    // Cut short: refused as parseHistory refuses it.
    const text = readFileSync(file, 'utf8');
    writeFileSync(join(dir, 'cut.hist'), text.slice(0, Math.floor(text.length / 2)));
    expect(() => openHistory(join(dir, 'cut.hist'))).toThrow(/cut short/);
  });

  it('merge refuses a test in two shards, and shards made under other options', () => {
    expect(history('merge', '--out', 'bad.hist', 'one.hist', 'one.hist').stderr).toMatch(/is in one\.hist and in one\.hist/);
    expect(history('record', '-j', '1', '--unroll', '3', '--timeout', '10s', '--out', 'other.hist', join(collection, 'generated')).status).toBe(0);
    const r = history('merge', '--out', 'bad.hist', 'shard-1.hist', 'other.hist');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/made with unroll/);
    expect(readdirSync(dir)).not.toContain('bad.hist');
  });

  it('deals the tests by cost so that the shards cost about the same, the same way every time', () => {
    const h = openHistory(join(dir, 'one.hist'));
    try {
      const cost = costsOf(h, 10);
      const tests = [...h.entries.keys()].map((key) => ({ key, file: key }));
      // Costs with a few long tests, as a collection has.
      const skewed = new Map(tests.map((t, i) => [t.key, i < 3 ? 10 : 0.01 * ((i % 7) + 1)]));
      for (const c of [cost, skewed]) {
        const shards = [1, 2, 3, 4].map((k) => shardOf(tests, `${k}/4`, c));
        expect(shards.flat().map((t) => t.key).sort()).toEqual(tests.map((t) => t.key).sort());
        expect([1, 2, 3, 4].map((k) => shardOf(tests, `${k}/4`, c))).toEqual(shards);
        const loads = shards.map((s) => s.reduce((n, t) => n + c.get(t.key)!, 0));
        // Longest first into the least loaded: no shard exceeds the mean by more than the longest test.
        const mean = loads.reduce((a, b) => a + b, 0) / 4;
        expect(Math.max(...loads) - mean).toBeLessThanOrEqual(Math.max(...c.values()) + 1e-9);
      }
    } finally {
      h.close();
    }
  });
});
