// The benchmark (not a test): `npm run bench` runs every section of
// sections.ts and writes bench/RESULTS.md whole from what it measured;
// `--only NAME[,NAME...]` runs those sections and replaces them in place,
// each with its own date, commit and load average; `--out FILE` writes
// elsewhere, `--print` only prints. `--list` names the sections. The
// options are in options.ts (USAGE).

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../src/write-file.cjs';
import { loadAverage, parseArgs } from './options.js';
import { SECTIONS } from './sections.js';
import { block, head, replaced } from './results-file.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The commit the checker was built from, and whether the tree had local changes. */
function gitDescribe(): string {
  const root = join(here, '..', '..');
  try {
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    // What the bench writes (RESULTS.md, scale.svg) is not a change of what it measures.
    const dirty = git('status', '--porcelain', '--', 'src', 'models', 'bench/*.ts', 'package.json').length > 0;
    return `git ${head}${dirty ? ' + uncommitted changes in src/, models/, bench/*.ts or package.json' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.platform()} ${os.release()}, node ${process.version}`;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2), SECTIONS.map((s) => s.name));
  if (opts.list) {
    for (const s of SECTIONS) console.log(`${s.name.padEnd(10)} ${s.title} (${s.script})`);
    return;
  }
  const chosen = opts.only ? SECTIONS.filter((s) => opts.only!.includes(s.name)) : SECTIONS;
  const parts = new Map<string, string>();
  for (const s of chosen) {
    const start = new Date();
    const loadBefore = loadAverage();
    const commit = gitDescribe();
    console.error(`bench: ${s.name} (${s.script}), load average ${loadBefore}`);
    const body = await s.run(opts, `${start.toISOString().slice(0, 16)} UTC, ${commit}, ${os.cpus().length} cores`);
    const provenance = `Measured ${start.toISOString().slice(0, 16).replace('T', ' ')} UTC by ${s.script} at ${commit}; ${machine()}; load average (1, 5, 15 min) ${loadBefore} at the start, ${loadAverage()} at the end (a shared machine: wall times grow with the load, CPU times much less).`;
    const part = block(s, body, provenance);
    parts.set(s.name, part);
    console.log(`${part}\n`);
  }
  if (!opts.out) return;
  const old = opts.only && existsSync(opts.out) ? readFileSync(opts.out, 'utf8') : undefined;
  const text = old !== undefined ? replaced(old, parts) : `${head()}\n\n${[...parts.values()].join('\n\n')}\n`;
  writeFileAtomic(opts.out, text);
  console.error(`bench: wrote ${opts.only ? `${[...parts.keys()].join(', ')} into ` : ''}${opts.out}`);
}

main().catch((e: unknown) => {
  console.error(`bench: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  process.exitCode = 1;
});

