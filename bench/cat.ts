// The LKMM read from the kernel's files and compiled (models/cat/) against
// the built-in copy (models/lkmm.ts), side by side in one process: the
// kernel corpus, the generated families, the NFS suite. CPU time of this
// process per run; per consistent execution where a family grows.
// herd7 is not run here (the families section puts it beside litmus).

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { filesSpec, getModel } from '../models/index.js';
import { lkmm } from '../models/lkmm.js';
import type { Model } from '../src/model/model.js';
import { resolveInputs } from '../src/cli/inputs.js';
import { checkSource, type CheckResult } from '../src/check.js';
import { runSuite } from '../src/suite/run.js';
import { FAMILIES } from './families.js';
import type { BenchOptions } from './options.js';

/** The families grown here, each up to this N or the budget. */
const FAMILY_NAMES = ['rcu', 'spinlock-counter', 'iriw', 'mp-chain'];
const MAX_N = 12;

/** CPU milliseconds of f in this process. */
function cpu<T>(f: () => T): [T, number] {
  const c0 = process.cpuUsage();
  const r = f();
  const u = process.cpuUsage(c0);
  return [r, (u.user + u.system) / 1000];
}

async function cpuAsync(f: () => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  await f();
  const u = process.cpuUsage(c0);
  return (u.user + u.system) / 1000;
}

const summary = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative} ${r.flags.join(',')}`;
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const per = (ms: number, n: number) => `${((ms * 1000) / Math.max(1, n)).toFixed(0)} µs`;

/** The cat section's Markdown. */
export async function catSection(o: BenchOptions): Promise<string> {
  const lkmmDir = resolve(o.lkmm);
  if (!existsSync(join(lkmmDir, 'linux-kernel.cat'))) return `not measured: no linux-kernel.cat in ${o.lkmm} (--lkmm DIR)`;
  const budgetMs = o.budgetS * 1000;
  // Each check's own limit is wall time, far beyond the budget (a loaded machine must not stop a check within it); the budget, in CPU, stops a family.
  const timeoutMs = o.familyTimeoutS * 1000;
  const compiledSpec = filesSpec({
    cat: join(lkmmDir, 'linux-kernel.cat'), bell: join(lkmmDir, 'linux-kernel.bell'), macros: join(lkmmDir, 'linux-kernel.def'),
    variants: ['lkmmv2'], searchDirs: [lkmmDir], skipChecks: [], besideIncluder: true, compiled: true,
  });
  const compiled = getModel(compiledSpec)! as Model;
  const both = (text: string, timeoutMs: number) => {
    try {
      const [a, ta] = cpu(() => checkSource(text, { model: lkmm, timeoutMs }));
      const [b, tb] = cpu(() => checkSource(text, { model: compiled, timeoutMs }));
      return { builtin: ta, compiled: tb, consistent: a.positive + a.negative, same: summary(a) === summary(b) };
    } catch {
      return undefined;
    }
  };
  const rows: string[] = [
    `The compiled model is the kernel's linux-kernel.cat, .bell and lock.cat from ${o.lkmm}, read by models/cat/ and compiled (its fingerprint's fast path, which checks the kernel's unchanged files with the built-in copy, not taken). Both models warmed up first; each family grows to N=${MAX_N} or until one model takes ${o.budgetS} s of CPU.`,
    '',
    '| workload | built-in CPU | compiled CPU | ratio | per consistent execution (built-in / compiled) | same output |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  // Warm both up (V8 compiles the hot paths once).
  for (const f of FAMILIES) both(f.make(f.minN + 1), 5000);
  const corpus = resolve('../shared/corpus');
  if (existsSync(corpus)) {
    const files = resolveInputs([join(corpus, 'herd-linux'), join(corpus, 'kernel')]).files;
    let tb = 0;
    let tc = 0;
    let n = 0;
    let same = true;
    for (const f of files) {
      const r = both(readFileSync(f, 'utf8'), timeoutMs);
      if (!r) continue;
      tb += r.builtin;
      tc += r.compiled;
      n += r.consistent;
      same &&= r.same;
    }
    rows.push(`| kernel corpus (${files.length} tests) | ${fmt(tb)} | ${fmt(tc)} | ${(tc / tb).toFixed(1)}x | ${per(tb, n)} / ${per(tc, n)} | ${same ? 'yes' : 'NO'} |`);
  } else rows.push('| kernel corpus | (../shared/corpus absent) | | | | |');
  for (const name of FAMILY_NAMES) {
    const fam = FAMILIES.find((f) => f.name === name)!;
    for (let n = fam.minN; n <= MAX_N; n++) {
      const r = both(fam.make(n), timeoutMs);
      if (!r) {
        rows.push(`| ${name} N=${n} | stopped (a limit: ${o.familyTimeoutS} s of wall time, or --max-executions) | | | | |`);
        break;
      }
      rows.push(`| ${name} N=${n} | ${fmt(r.builtin)} | ${fmt(r.compiled)} | ${(r.compiled / Math.max(0.01, r.builtin)).toFixed(1)}x | ${per(r.builtin, r.consistent)} / ${per(r.compiled, r.consistent)} | ${r.same ? 'yes' : 'NO'} |`);
      if (r.compiled > budgetMs || r.builtin > budgetMs) break;
    }
  }
  const nfs = resolve('litmus/clear_invalid_mapping/scenarios.ts');
  await runSuite(nfs, { model: 'lkmm', explain: false });
  await runSuite(nfs, { model: compiledSpec, explain: false });
  const sb = await cpuAsync(() => runSuite(nfs, { model: 'lkmm', explain: false }));
  const sc = await cpuAsync(() => runSuite(nfs, { model: compiledSpec, explain: false }));
  rows.push(`| NFS suite (clear_invalid_mapping) | ${fmt(sb)} | ${fmt(sc)} | ${(sc / sb).toFixed(1)}x | | |`);
  return rows.join('\n');
}
