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
//   node dist/bench/startup.js [TEST.litmus] [--n 20] [--rounds 5]

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
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

function main(): void {
  const args = process.argv.slice(2);
  const flag = (name: string, def: number) => {
    const i = args.indexOf(name);
    if (i < 0) return def;
    const v = Number(args[i + 1]);
    args.splice(i, 2);
    return v;
  };
  const n = flag('--n', 20);
  const rounds = flag('--rounds', 5);
  const test = args[0] !== undefined ? resolve(args[0]) : join(here, '..', '..', '..', 'shared', 'corpus', 'kernel', 'MP+poonceonces.litmus');
  if (!existsSync(TIME)) {
    console.error('startup: needs /usr/bin/time (GNU time)');
    process.exitCode = 2;
    return;
  }
  if (!existsSync(test)) {
    console.error(`startup: no test ${test}`);
    process.exitCode = 2;
    return;
  }
  const herd = findHerd();
  const lkmm = join(here, '..', '..', '..', 'shared', 'lkmm');
  const cwd = existsSync(join(lkmm, 'linux-kernel.cfg')) ? lkmm : process.cwd();
  const commands: [string, string[]][] = [
    ['node -e 0', [process.execPath, '-e', '0']],
    ['litmus-herd7 -conf linux-kernel.cfg T', [process.execPath, join(cli, 'herd7-start.cjs'), '-conf', 'linux-kernel.cfg', test]],
    ['litmus herd7 -conf linux-kernel.cfg T', [process.execPath, join(cli, 'start.cjs'), 'herd7', '-conf', 'linux-kernel.cfg', test]],
    ['litmus check T', [process.execPath, join(cli, 'start.cjs'), 'check', test]],
    ['herd7.js -conf linux-kernel.cfg T (the ES modules, as litmus-herd7 was)', [process.execPath, join(cli, 'herd7.js'), '-conf', 'linux-kernel.cfg', test]],
    ...(herd ? [[`herd7 (${herd.where}) T`, [...herd.argv, test]] as [string, string[]]] : []),
  ];
  const best = commands.map(() => Infinity);
  // Rounds interleave the commands, so that a change in load touches all alike.
  for (let r = 0; r < rounds; r++) commands.forEach(([, argv], i) => (best[i] = Math.min(best[i], loopCpu(argv, n, cwd) / n)));
  const node = best[0];
  console.log(`CPU per process (user + system), best of ${rounds} loops of ${n}; T = ${test}; run in ${cwd}`);
  commands.forEach(([name], i) => console.log(`${(best[i] * 1000).toFixed(1).padStart(7)} ms  ${i ? `(+${((best[i] - node) * 1000).toFixed(1)} ms)` : '          '}  ${name}`));
  if (!herd) console.log('herd7: not installed here (no ~/herd/bin/lkmm-herd, no herd7 on PATH, no $LITMUS_BENCH_HERD)');
}

main();
