// Start-up per process, as the kernel's scripts pay it: they start one herd7
// per test, in tools/memory-model (here: ../shared/lkmm, the kernel's model
// files, where `-conf linux-kernel.cfg` finds them; the current folder
// without it). CPU (user + system) per process of `litmus-herd7 -conf
// linux-kernel.cfg T`, `litmus check T` and `node -e 0` (Node's own start),
// and herd7's where it is installed, in one run. /usr/bin/time counts in
// hundredths of a second, so each figure is a loop of N processes under one
// time, divided by N (a shell loop of N `true` costs nothing measurable); the
// best of R such loops is kept (CPU time hardly depends on load, but a busy
// machine's caches make it vary a little).
//
//   npm run bench:startup (its section of bench/RESULTS.md; --startup-n, --startup-rounds)

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { BenchOptions } from './options.js';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findHerd } from './targets.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'src', 'cli');
const TIME = '/usr/bin/time';

/** CPU seconds of `n` runs of argv, one after the other, under one /usr/bin/time. */
function loopCpu(argv: string[], n: number, cwd: string): number {
  const dir = mkdtempSync(join(os.tmpdir(), 'litmus-startup-'));
  try {
    const out = join(dir, 'rusage');
    const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    spawnSync(TIME, ['-f', '%U %S', '-o', out, 'bash', '-c', `for i in $(seq ${n}); do ${quoted} >/dev/null 2>&1; done`], { stdio: 'ignore', cwd });
    const [u, s] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(/\s+/).map(Number);
    return u + s;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU per process of each command, best of `rounds` loops of `n`, as lines; undefined with why when it cannot be measured. */
export function startupLines(test: string, n: number, rounds: number): string[] {
  if (!existsSync(TIME)) return ['not measured: needs /usr/bin/time (GNU time)'];
  if (!existsSync(test)) return [`not measured: no test ${test}`];
  const herd = findHerd();
  const lkmm = join(here, '..', '..', '..', 'shared', 'lkmm');
  const cwd = existsSync(join(lkmm, 'linux-kernel.cfg')) ? lkmm : process.cwd();
  const commands: [string, string[]][] = [
    ['node -e 0', [process.execPath, '-e', '0']],
    ['litmus-herd7 -conf linux-kernel.cfg T', [process.execPath, join(cli, 'herd7-start.cjs'), '-conf', 'linux-kernel.cfg', test]],
    ['litmus herd7 -conf linux-kernel.cfg T', [process.execPath, join(cli, 'start.cjs'), 'herd7', '-conf', 'linux-kernel.cfg', test]],
    ['litmus check T', [process.execPath, join(cli, 'start.cjs'), 'check', test]],
    ...(herd ? [[`herd7 (${herd.where}) T`, [...herd.argv, test]] as [string, string[]]] : []),
  ];
  const best = commands.map(() => Infinity);
  // Rounds interleave the commands, so that a change in load touches all alike.
  for (let r = 0; r < rounds; r++) commands.forEach(([, argv], i) => (best[i] = Math.min(best[i], loopCpu(argv, n, cwd) / n)));
  const node = best[0];
  const out = [`CPU per process (user + system), best of ${rounds} loops of ${n}; T = ${test}; run in ${cwd}`];
  commands.forEach(([name], i) => out.push(`${(best[i] * 1000).toFixed(1).padStart(7)} ms  ${i ? `(+${((best[i] - node) * 1000).toFixed(1)} ms)` : '          '}  ${name}`));
  if (!herd) out.push('herd7: not installed here (no ~/herd/bin/lkmm-herd, no herd7 on PATH, no $LITMUS_BENCH_HERD)');
  return out;
}

/** The kernel's MP+poonceonces, where ../shared/corpus is. */
export const STARTUP_TEST = join(here, '..', '..', '..', 'shared', 'corpus', 'kernel', 'MP+poonceonces.litmus');

/** The start-up section's Markdown. */
export function startupSection(o: BenchOptions): string {
  return ['```', ...startupLines(STARTUP_TEST, o.startupN, o.startupRounds), '```'].join('\n');
}
