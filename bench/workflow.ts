// The maintainer's day, measured (the `workflow` section of bench/RESULTS.md):
//
// 1. A sample of Paul McKenney's collection (every 40th test) run by the
//    kernel's history script initlitmushist.sh, which starts one herd7
//    process per test: with herd7 itself, and with litmus-herd7 in herd7's
//    place, beside litmus's own `history record` (one process, a worker per
//    core) on the same tests. The scripts come from a kernel tree's
//    tools/memory-model named by LITMUS_KERNEL_SCRIPTS (as for
//    test/kernel-scripts.test.ts; run in a copy, nothing downloaded); without
//    one, their rows say so.
// 2. The whole collection natively: `history record` (every test's full
//    output; the order an estimate, no earlier history), `history compare`
//    with that history (a second whole run, the costliest tests first by the
//    history's own Time lines, each output judged as it comes), then
//    `record --speedcheck` (only the Observation, ordered by the full
//    history's costs) and `compare --speedcheck` with it.
//
// CPU is user + system of the command and of everything it waited for
// (/usr/bin/time); peak RSS is the largest single process. Wall time grows
// with the machine's load, CPU much less.
//
//   npm run bench:workflow   (= npm run bench -- --only workflow)
//   LITMUS_BENCH_COLLECTION=DIR: another collection than ../shared/corpus/paulmckrcu-litmus

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions } from './options.js';
import { findHerd } from './targets.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'src', 'cli');
const TIME = '/usr/bin/time';
/** Every SAMPLE-th test of the collection is the scripts' sample. */
const SAMPLE = 40;
/** The sample's time limit per test (the scripts' --timeout), and the whole collection's. */
const SAMPLE_TIMEOUT = '30s';
const COLLECTION_TIMEOUT = '10s';

interface Measured {
  wall: number;
  cpu: number;
  rssMb: number;
  status: number | null;
  stdout: string;
}

/** Runs a command under /usr/bin/time: wall, CPU of it and all it waited for, peak RSS of the largest process. */
function measure(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Measured {
  const dir = mkdtempSync(join(os.tmpdir(), 'litmus-workflow-'));
  try {
    const out = join(dir, 'rusage');
    const r = spawnSync(TIME, ['-f', '%e %U %S %M', '-o', out, ...argv], { cwd, env, encoding: 'utf8', maxBuffer: 1 << 30 });
    const [e, u, s, m] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(/\s+/).map(Number);
    return { wall: e, cpu: u + s, rssMb: m / 1024, status: r.status, stdout: r.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function litmusFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.litmus'))
    .sort();
}

/** Every `every`-th .litmus file under the collection, copied into `dest` with its path; how many. */
function sampleInto(collection: string, dest: string, every: number): number {
  const chosen = litmusFiles(collection).filter((_, i) => (i + 1) % every === 0);
  for (const f of chosen) {
    mkdirSync(dirname(join(dest, f)), { recursive: true });
    cpSync(join(collection, f), join(dest, f));
  }
  return chosen.length;
}

/** The tests the scripts' default --procs 3 keeps: C tests without a line starting P3. */
function withinProcs3(dir: string): number {
  return litmusFiles(dir).filter((f) => {
    const t = readFileSync(join(dir, f), 'utf8');
    return /^C /m.test(t) && !/^P3/m.test(t);
  }).length;
}

const row = (name: string, m: Measured, tests: number) =>
  `| ${name} | ${m.wall.toFixed(1)} s | ${m.cpu.toFixed(1)} s | ${((m.cpu / Math.max(tests, 1)) * 1000).toFixed(0)} ms | ${m.rssMb.toFixed(0)} MB |`;

/** What a `history record` printed: how many timed out. */
const timedOutOf = (stdout: string) => /(\d+) timed out/.exec(stdout)?.[1] ?? '?';

/** What a `history compare --json` printed: the changed results, and how many of them are a test timed out on one side only. */
function changedOf(stdout: string): string {
  try {
    const doc = JSON.parse(stdout) as { changed: { before: string | null; after: string | null }[] };
    const timing = doc.changed.filter((c) => c.before === 'timed out' || c.after === 'timed out').length;
    if (doc.changed.length === 0) return 'none';
    return `${doc.changed.length}${timing ? ` (${timing === doc.changed.length ? 'each' : timing} timed out in one run only)` : ''}`;
  } catch {
    return '?';
  }
}

export function workflowSection(o: BenchOptions): string {
  const collection = process.env.LITMUS_BENCH_COLLECTION ?? join(here, '..', '..', '..', 'shared', 'corpus', 'paulmckrcu-litmus');
  if (!existsSync(TIME)) return 'not measured: needs /usr/bin/time (GNU time)';
  if (!existsSync(collection)) return `not measured: no collection at ${collection}`;
  const lkmm = o.lkmm;
  const scriptsDir = process.env.LITMUS_KERNEL_SCRIPTS;
  const scripts = scriptsDir && existsSync(join(scriptsDir, 'scripts', 'initlitmushist.sh')) ? scriptsDir : undefined;
  const litmus = [process.execPath, join(cli, 'start.cjs')];
  const jobs = ['-j', String(o.jobs)];
  const work = mkdtempSync(join(os.tmpdir(), 'litmus-workflow-'));
  const lines: string[] = [];
  try {
    const env = { ...process.env, LITMUS_CACHE_DIR: join(work, 'cache') };
    // 1. The sample: the scripts with herd7, with litmus-herd7, and litmus history record.
    const sample = join(work, 'sample');
    const n = sampleInto(collection, join(sample, 'litmus'), SAMPLE);
    const procs3 = withinProcs3(join(sample, 'litmus'));
    console.error(`bench: workflow: the sample, ${procs3} of ${n} tests`);
    lines.push(
      `### A sample: every ${SAMPLE}th test of the collection (${n} tests, ${procs3} of at most 3 processes: the scripts' default \`--procs 3\`), \`--timeout ${SAMPLE_TIMEOUT}\``,
      '',
      'The kernel\'s `initlitmushist.sh` starts one herd7 process per test (`--jobs` one per core); `litmus history record` runs the same tests in one process.',
      '',
      '| how | wall | CPU | CPU per test | peak RSS (one process) |',
      '| --- | --- | --- | --- | --- |',
    );
    const herd = findHerd();
    if (scripts) {
      const modelDir = existsSync(join(lkmm, 'linux-kernel.cfg')) ? lkmm : scripts;
      const runScripts = (name: string, herd7: string) => {
        const copy = join(work, name);
        cpSync(join(scripts, 'scripts'), join(copy, 'scripts'), { recursive: true });
        for (const f of readdirSync(modelDir)) if (/\.(cfg|cat|bell|def)$/.test(f)) cpSync(join(modelDir, f), join(copy, f));
        cpSync(join(sample, 'litmus'), join(copy, 'litmus'), { recursive: true });
        const bin = join(work, `${name}-bin`);
        mkdirSync(bin);
        symlinkSync(herd7, join(bin, 'herd7'));
        // One run first, so that the measured run is any run after the first (litmus-herd7's snapshot made, the model compiled into the cache).
        const first = litmusFiles(join(copy, 'litmus'))[0];
        if (first) spawnSync(herd7, ['-conf', 'linux-kernel.cfg', join('litmus', first)], { cwd: copy, env, stdio: 'ignore' });
        const m = measure(['sh', 'scripts/initlitmushist.sh', '--procs', '3', '--timeout', SAMPLE_TIMEOUT, '--jobs', String(o.jobs)], copy, { ...env, PATH: `${bin}:${process.env.PATH}` });
        const outs = readdirSync(join(copy, 'litmus'), { recursive: true }).filter((f) => String(f).endsWith('.litmus.out')).length;
        return { m, outs };
      };
      if (herd && existsSync(herd.argv[0])) {
        // herd7 as the scripts run it: -conf linux-kernel.cfg from the folder, with the library folder its wrapper passes.
        const wrapperText = readFileSync(herd.argv[0], 'utf8');
        const real = existsSync(join(dirname(herd.argv[0]), 'herd7')) ? join(dirname(herd.argv[0]), 'herd7') : herd.argv[0];
        const libdir = /-set-libdir\s+"?([^"\s]+)"?/.exec(wrapperText)?.[1];
        const wrapper = join(work, 'herd7-wrapper.sh');
        writeFileSync(wrapper, `#!/bin/sh\nexec ${real}${libdir ? ` -set-libdir ${libdir}` : ''} "$@"\n`);
        chmodSync(wrapper, 0o755);
        console.error('bench: workflow: initlitmushist.sh with herd7');
        const h = runScripts('scripts-herd7', wrapper);
        lines.push(row(`initlitmushist.sh, herd7 per test (${h.outs} tests)`, h.m, h.outs));
      } else lines.push('| initlitmushist.sh, herd7 per test | herd7 not installed | | | |');
      console.error('bench: workflow: initlitmushist.sh with litmus-herd7');
      const l = runScripts('scripts-litmus', join(cli, 'litmus-herd7'));
      lines.push(row(`initlitmushist.sh, litmus-herd7 per test (${l.outs} tests; Node from its start-up snapshot)`, l.m, l.outs));
    } else {
      lines.push("| initlitmushist.sh (herd7 or litmus-herd7 per test) | not run: LITMUS_KERNEL_SCRIPTS names no kernel tree's tools/memory-model | | | |");
    }
    console.error('bench: workflow: litmus history record on the sample');
    const native = measure([...litmus, 'history', 'record', ...jobs, '--procs', '3', '--timeout', SAMPLE_TIMEOUT, '--out', join(work, 'sample.hist'), join(sample, 'litmus')], work, env);
    lines.push(row(`litmus history record --procs 3 (one process, ${o.jobs} workers; ${procs3} tests)`, native, procs3));
    lines.push('');

    // 2. The whole collection, natively.
    const total = litmusFiles(collection).length;
    const full = join(work, 'full.hist');
    const speed = join(work, 'speed.hist');
    lines.push(
      `### The whole collection (${total} tests), litmus history, \`--timeout ${COLLECTION_TIMEOUT}\`, ${o.jobs} workers`,
      '',
      'The first record has no earlier history (its order is an estimate); each later run starts the costliest tests first, by the full history\'s `Time` lines (`compare`: its history\'s own; `record`: `--costs`). A compare runs every test again and judges each output as it comes, holding only the changed ones. A time limit is wall time: on a loaded machine, a test near it may time out in one run and not in another, which `cmplitmushist.sh`\'s categories call a changed result.',
      '',
      '| run | wall | CPU | CPU per test | peak RSS | timed out / changed |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    const runs: { name: string; argv: string[]; compare: boolean }[] = [
      { name: 'record (every test\'s full output)', argv: ['history', 'record', ...jobs, '--timeout', COLLECTION_TIMEOUT, '--out', full, collection], compare: false },
      { name: 'compare with that history', argv: ['history', 'compare', ...jobs, '--timeout', COLLECTION_TIMEOUT, '--json', full, collection], compare: true },
      { name: 'record --speedcheck (the Observation only) --costs', argv: ['history', 'record', ...jobs, '--speedcheck', '--timeout', COLLECTION_TIMEOUT, '--costs', full, '--out', speed, collection], compare: false },
      { name: 'compare --speedcheck with that history', argv: ['history', 'compare', ...jobs, '--speedcheck', '--timeout', COLLECTION_TIMEOUT, '--json', speed, collection], compare: true },
    ];
    for (const r of runs) {
      console.error(`bench: workflow: ${r.name}`);
      const m = measure([...litmus, ...r.argv], work, env);
      const what = r.compare ? `changed: ${changedOf(m.stdout)}` : `timed out: ${timedOutOf(m.stdout)}`;
      const failed = m.status !== 0 && !(r.compare && m.status === 1) ? ` (exit ${m.status})` : '';
      lines.push(`${row(r.name, m, total)} ${what}${failed} |`);
    }
    lines.push('');
    const size = (f: string) => (existsSync(f) ? `${(statSync(f).size / 2 ** 20).toFixed(0)} MB` : 'not written');
    lines.push(`The history files: ${size(full)} (full), ${size(speed)} (\`--speedcheck\`).`);
    return lines.join('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
