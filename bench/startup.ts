// Start-up per process, as the kernel's scripts pay it: they start one herd7
// per test, in tools/memory-model (here: a copy of ../shared/lkmm, the
// kernel's model files, where `-conf linux-kernel.cfg` finds them), with the
// files as they are and with an edit of their own (a comment added to
// linux-kernel.cat: any edit makes the files another model, read and
// compiled; the kernel's own files are today recognised and run on the
// built-in copy). CPU (user + system) per process of:
//
//   node -e 0                      Node's own start, the floor
//   litmus-herd7 (snapshot)        the command, Node started from its snapshot (src/cli/snapshot.cts)
//   herd7-start.cjs (code cache)   the start without a snapshot (the bundle and V8's code cache)
//   litmus check T                 the `litmus` command
//   herd7                          where installed
//
// in a cache folder of this run's (LITMUS_CACHE_DIR), warmed by one run of
// each first (the snapshot made, the edited model compiled and stored).
// /usr/bin/time counts in hundredths of a second, so each figure is a loop
// of N processes under one time, divided by N (a shell loop of N `true`
// costs nothing measurable); the best of R such loops is kept (CPU time
// hardly depends on load, but a busy machine's caches make it vary a
// little). Rounds interleave the commands.
//
//   npm run bench:startup (its section of bench/RESULTS.md; --startup-n, --startup-rounds)

import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findHerd } from './targets.js';
import type { BenchOptions } from './options.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'src', 'cli');
const TIME = '/usr/bin/time';

/** CPU seconds of `n` runs of argv, one after the other, under one /usr/bin/time. */
function loopCpu(argv: string[], n: number, cwd: string, env: NodeJS.ProcessEnv): number {
  const dir = mkdtempSync(join(os.tmpdir(), 'litmus-startup-'));
  try {
    const out = join(dir, 'rusage');
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    spawnSync(TIME, ['-f', '%U %S', '-o', out, 'bash', '-c', `for i in $(seq ${n}); do ${quoted} >/dev/null 2>&1; done`], { stdio: 'ignore', cwd, env });
    const [u, s] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(/\s+/).map(Number);
    return u + s;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Row {
  name: string;
  argv: string[];
  cwd: string;
}

/** The start-up section's Markdown: CPU per process of each command, the kernel's MP+poonceonces as T. */
export function startupSection(o: BenchOptions): string {
  const n = o.startupN;
  const rounds = o.startupRounds;
  const test = join(here, '..', '..', '..', 'shared', 'corpus', 'kernel', 'MP+poonceonces.litmus');
  if (!existsSync(TIME)) return 'not measured: needs /usr/bin/time (GNU time)';
  if (!existsSync(test)) return `not measured: no test ${test}`;
  const work = mkdtempSync(join(os.tmpdir(), 'litmus-startup-'));
  try {
    const lkmm = join(here, '..', '..', '..', 'shared', 'lkmm');
    const haveLkmm = existsSync(join(lkmm, 'linux-kernel.cfg'));
    // The model folders: the kernel's files as they are, and edited (a comment added to the cat).
    const unedited = join(work, 'tools-memory-model');
    const edited = join(work, 'edited');
    for (const d of [unedited, edited]) {
      mkdirSync(d);
      if (haveLkmm) for (const f of readdirSync(lkmm)) if (/\.(cfg|cat|bell|def)$/.test(f)) copyFileSync(join(lkmm, f), join(d, f));
    }
    if (haveLkmm) appendFileSync(join(edited, 'linux-kernel.cat'), '\n(* an edit of the maintainer\'s *)\n');
    const conf = haveLkmm ? ['-conf', 'linux-kernel.cfg'] : [];
    const env = { ...process.env, LITMUS_CACHE_DIR: join(work, 'cache') };
    const herd = findHerd();
    const herdBin = herd ? herd.argv[0] : undefined;
    const rows: Row[] = [
      { name: 'node -e 0', argv: [process.execPath, '-e', '0'], cwd: unedited },
      { name: `litmus-herd7 ${conf.join(' ')} T (snapshot), the kernel's files`, argv: [join(cli, 'litmus-herd7'), ...conf, test], cwd: unedited },
      ...(haveLkmm ? [{ name: 'litmus-herd7 -conf linux-kernel.cfg T (snapshot), edited files', argv: [join(cli, 'litmus-herd7'), ...conf, test], cwd: edited }] : []),
      { name: `herd7-start.cjs ${conf.join(' ')} T (code cache, no snapshot), the kernel's files`, argv: [process.execPath, join(cli, 'herd7-start.cjs'), ...conf, test], cwd: unedited },
      ...(haveLkmm ? [{ name: 'herd7-start.cjs -conf linux-kernel.cfg T (code cache, no snapshot), edited files', argv: [process.execPath, join(cli, 'herd7-start.cjs'), ...conf, test], cwd: edited }] : []),
      { name: 'litmus check T', argv: [process.execPath, join(cli, 'start.cjs'), 'check', test], cwd: unedited },
      // herd7 itself, on the same files: its own -conf in the folder (lkmm-herd's -I would find the kernel's).
      ...(herdBin && haveLkmm
        ? [
            { name: `herd7 -conf linux-kernel.cfg T, the kernel's files (${herd!.where})`, argv: herdArgv(herdBin, test), cwd: unedited },
            { name: 'herd7 -conf linux-kernel.cfg T, edited files', argv: herdArgv(herdBin, test), cwd: edited },
          ]
        : []),
    ];
    // Warm: the snapshot made, the edited model compiled into the cache.
    for (const r of rows) spawnSync(r.argv[0], r.argv.slice(1), { cwd: r.cwd, env, stdio: 'ignore' });
    const best = rows.map(() => Infinity);
    for (let k = 0; k < rounds; k++) rows.forEach((r, i) => (best[i] = Math.min(best[i], loopCpu(r.argv, n, r.cwd, env) / n)));
    const node = best[0];
    const lines = rows.map((r, i) => `${(best[i] * 1000).toFixed(1).padStart(7)} ms  ${i ? `(${best[i] >= node ? '+' : ''}${((best[i] - node) * 1000).toFixed(1)} ms)`.padEnd(12) : '            '}  ${r.name}`);
    const head = `CPU per process (user + system), best of ${rounds} loops of ${n}; T = ${test}`;
    return [
      'One small test per process, as `checklitmus.sh` and `runlitmushist.sh` run herd7; the figure is what the',
      'process costs (a loop of processes under `/usr/bin/time`, the best of the rounds), in a folder holding the',
      'kernel\'s model files as they are, or edited (a comment added to linux-kernel.cat: the files are then',
      'another model, compiled once and kept in the cache folder). `litmus-herd7` is the command (Node started',
      'from its snapshot, made by its first run); `herd7-start.cjs` the same without the snapshot.',
      '',
      '```',
      head,
      ...lines,
      ...(haveLkmm ? [] : [`(no ${lkmm}: the built-in LKMM only, no edited files)`]),
      ...(herd ? [] : ['herd7: not installed here (no ~/herd/bin/lkmm-herd, no herd7 on PATH, no $LITMUS_BENCH_HERD)']),
      '```',
    ].join('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** herd7 run as the scripts run it: -conf linux-kernel.cfg from the current folder, its library where lkmm-herd says. */
function herdArgv(bin: string, test: string): string[] {
  // lkmm-herd is a wrapper that adds -I of the kernel's files; the real herd7 is beside it.
  const real = join(dirname(bin), 'herd7');
  if (existsSync(real) && real !== bin) {
    const wrapper = readFileSync(bin, 'utf8');
    const libdir = /-set-libdir\s+"?([^"\s]+)"?/.exec(wrapper)?.[1];
    return [real, ...(libdir ? ['-set-libdir', libdir] : []), '-conf', 'linux-kernel.cfg', test];
  }
  return [bin, '-conf', 'linux-kernel.cfg', test];
}

