// The LKMM read from the kernel's files and compiled (models/cat/) against
// the built-in copy (models/lkmm.ts), side by side in one process: the
// kernel corpus, the generated families, the NFS suite. CPU time of this
// process per run; per consistent execution where a family grows.
// Usage: node dist/bench/cat.js [--lkmm DIR] [--budget-s S] [--max-n N]
// herd7 is not run here (bench/run.ts puts it beside litmus where installed).

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { filesSpec, getModel } from '../models/index.js';
import { lkmm } from '../models/lkmm.js';
import type { Model } from '../src/model/model.js';
import { resolveInputs } from '../src/cli/inputs.js';
import { checkSource, type CheckResult } from '../src/check.js';
import { FAMILIES } from './families.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const lkmmDir = resolve(opt('--lkmm', '../shared/lkmm'));
const budgetMs = Number(opt('--budget-s', '10')) * 1000;
const maxN = Number(opt('--max-n', '12'));

const compiledSpec = filesSpec({
  cat: join(lkmmDir, 'linux-kernel.cat'), bell: join(lkmmDir, 'linux-kernel.bell'), macros: join(lkmmDir, 'linux-kernel.def'),
  variants: ['lkmmv2'], searchDirs: [lkmmDir], skipChecks: [], besideIncluder: true, compiled: true,
});
const compiled = getModel(compiledSpec)!;

/** CPU milliseconds of f in this process. */
function cpu<T>(f: () => T): [T, number] {
  const c0 = process.cpuUsage();
  const r = f();
  const u = process.cpuUsage(c0);
  return [r, (u.user + u.system) / 1000];
}

const summary = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative} ${r.flags.join(',')}`;


function both(text: string, timeoutMs: number): { builtin: number; compiled: number; consistent: number; same: boolean } | undefined {
  try {
    const [a, ta] = cpu(() => checkSource(text, { model: lkmm, timeoutMs }));
    const [b, tb] = cpu(() => checkSource(text, { model: compiled as Model, timeoutMs }));
    return { builtin: ta, compiled: tb, consistent: a.positive + a.negative, same: summary(a) === summary(b) };
  } catch {
    return undefined;
  }
}

const rows: string[] = ['| workload | built-in CPU | compiled CPU | ratio | per consistent execution (built-in / compiled) | same output |', '| --- | --- | --- | --- | --- | --- |'];
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const per = (ms: number, n: number) => `${((ms * 1000) / Math.max(1, n)).toFixed(0)} µs`;

// Warm both up (V8 compiles the hot paths once).
for (const f of FAMILIES) both(f.make(f.minN + 1), 5000);

const corpus = resolve('../shared/corpus');
try {
  const files = resolveInputs([join(corpus, 'herd-linux'), join(corpus, 'kernel')]).files;
  let tb = 0;
  let tc = 0;
  let n = 0;
  let same = true;
  for (const f of files) {
    const r = both(readFileSync(f, 'utf8'), 10_000);
    if (!r) continue;
    tb += r.builtin;
    tc += r.compiled;
    n += r.consistent;
    same &&= r.same;
  }
  rows.push(`| kernel corpus (${files.length} tests) | ${fmt(tb)} | ${fmt(tc)} | ${(tc / tb).toFixed(1)}x | ${per(tb, n)} / ${per(tc, n)} | ${same ? 'yes' : 'NO'} |`);
} catch {
  rows.push('| kernel corpus | (../shared/corpus absent) | | | | |');
}

for (const name of ['rcu', 'spinlock-counter', 'iriw', 'mp-chain']) {
  const fam = FAMILIES.find((f) => f.name === name)!;
  for (let n = fam.minN; n <= maxN; n++) {
    const r = both(fam.make(n), budgetMs);
    if (!r) {
      rows.push(`| ${name} N=${n} | stopped (limit ${budgetMs / 1000} s) | | | | |`);
      break;
    }
    rows.push(`| ${name} N=${n} | ${fmt(r.builtin)} | ${fmt(r.compiled)} | ${(r.compiled / Math.max(0.01, r.builtin)).toFixed(1)}x | ${per(r.builtin, r.consistent)} / ${per(r.compiled, r.consistent)} | ${r.same ? 'yes' : 'NO'} |`);
    if (r.compiled > budgetMs || r.builtin > budgetMs) break;
  }
}

const { runSuite } = await import('../src/suite/run.js');
const nfs = resolve('litmus/clear_invalid_mapping/scenarios.ts');
const [, tsb] = cpu(() => runSuite(nfs, { model: 'lkmm', explain: false }));
await runSuite(nfs, { model: 'lkmm', explain: false });
const t0 = process.cpuUsage();
await runSuite(nfs, { model: 'lkmm', explain: false });
const u0 = process.cpuUsage(t0);
const t1 = process.cpuUsage();
await runSuite(nfs, { model: compiledSpec, explain: false });
const u1 = process.cpuUsage(t1);
void tsb;
const sb = (u0.user + u0.system) / 1000;
const sc = (u1.user + u1.system) / 1000;
rows.push(`| NFS suite (clear_invalid_mapping) | ${fmt(sb)} | ${fmt(sc)} | ${(sc / sb).toFixed(1)}x | | |`);

console.log(rows.join('\n'));
