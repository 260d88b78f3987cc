// The last build step (npm run build, prepare): bundles the compiled command
// line (dist/src/cli/main.js and everything it imports) into one CommonJS file,
// dist/litmus.cjs, and writes V8's code cache for it, taken after a warm-up
// run, which src/cli/start.cts (the `litmus` command) loads with it.
//
// Why: a check of a few small tests is mostly start-up, and of that most is
// Node resolving, reading and compiling ~80 ES modules one by one, then V8
// compiling each function the first time it runs. Node 20 caches compiled code
// only for a script it is handed whole (vm.Script's cachedData), hence one
// file; esbuild (a dev dependency) makes it.
//
// Each module keeps its own import.meta.url (its file in dist/, which is still
// there): the walks up to the package's folder and the worker threads'
// `new URL('./worker.js', import.meta.url)` find what they found before.
//
// The warm-up checks small generated tests of bench/families.ts (message
// passing, RCU, spinlocks, IRIW, ...), never a corpus: only the code those
// runs compile is in the cache; anything else compiles when first called, as
// it would without a cache.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILIES } from '../bench/families.js';
import { V8_FLAGS } from '../src/cli/v8-flags.cjs';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundleFile = join(dist, 'litmus.cjs');
/** litmus herd7 alone, what its start-up snapshot is made of (src/cli/snapshot.cts). */
const herd7BundleFile = join(dist, 'litmus-herd7.cjs');
const warmUpDir = join(dist, 'warm-up');

/** Removes the bundles, every code cache (a stale one must not outlive its bundle) and the warm-up tests. */
function removeOld(): void {
  for (const name of readdirSync(dist)) {
    if (name === 'litmus.cjs' || name === 'litmus-herd7.cjs' || /^litmus\.[\w.-]+\.cache$/.test(name)) rmSync(join(dist, name), { force: true });
  }
  rmSync(warmUpDir, { recursive: true, force: true });
}

/** A bundle's text (of the compiled module `entry`), or undefined when esbuild is not installed (then `litmus` runs the modules as they are). */
async function bundleText(entry: string): Promise<string | undefined> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Loaded only for TypeScript inputs (and a CommonJS package): required from node_modules when needed.
    external: ['ts-morph'],
    // import() of ts-morph becomes require(): vm.Script has no loader for import() without an experimental flag.
    supported: { 'dynamic-import': false },
    banner: { js: 'var __litmusUrl = (f) => require("node:url").pathToFileURL(require("node:path").join(__dirname, f)).href;' },
    plugins: [
      {
        // commander requires node:child_process up front (~8 ms of start-up: it
        // brings net, dgram and streams) for executable subcommands, which
        // litmus has none of: its require gets the module when first used.
        name: 'lazy-child-process-for-commander',
        setup(build) {
          build.onResolve({ filter: /^node:child_process$/ }, (args) => {
            if (args.namespace === 'lazy') return { path: args.path, external: true };
            if (!args.importer.includes(`${sep}node_modules${sep}commander${sep}`)) return undefined;
            return { path: args.path, namespace: 'lazy' };
          });
          build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
            contents: `let m; module.exports = new Proxy({}, { get: (_, key) => (m ??= require(${JSON.stringify(args.path)}))[key] });`,
            loader: 'js',
          }));
        },
      },
      {
        name: 'own-import-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.js$/ }, async (args) => {
            if (!args.path.startsWith(dist + sep) || args.path.includes(`${sep}node_modules${sep}`)) return undefined;
            const { readFile } = await import('node:fs/promises');
            const src = await readFile(args.path, 'utf8');
            const rel = JSON.stringify(relative(dist, args.path));
            return { contents: src.replaceAll('import.meta.url', `__litmusUrl(${rel})`), loader: 'js', resolveDir: dirname(args.path) };
          });
        },
      },
    ],
    // Whitespace and syntax minified, names kept (stack traces still name
    // functions): Node reads and V8 hashes the whole text at every start,
    // ~570 KB -> ~370 KB, ~7 ms less per start.
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0].text.replace(/^#!.*\n/, '');
}

/**
 * The warm-up tests, written into dist/warm-up/ (the litmus-herd7 snapshot,
 * made later on the user's machine, runs them too, also under litmus's own
 * LKMM text, models/text/): the generated families at their two smallest
 * sizes.
 */
function writeWarmUp(): string[] {
  mkdirSync(warmUpDir);
  const files: string[] = [];
  for (const f of FAMILIES) {
    for (const n of [f.minN, f.minN + 1]) {
      files.push(join(warmUpDir, `${f.name}-${n}.litmus`));
      writeFileSync(files[files.length - 1], f.make(n));
    }
  }
  return files;
}

/**
 * Runs `litmus check`, then `litmus herd7` (the kernel's scripts' command,
 * which has its own cache), on the warm-up tests with
 * LITMUS_CODE_CACHE=write; true when both checked them.
 */
function warmUp(families: string[]): boolean {
  // herd7 without -conf: its built-in LKMM (the kernel's files are not part of the package). A cache
  // holds what one process compiled, so each command's is one run (the snapshot's warm-up also runs
  // the warm-up model, src/cli/herd7-snapshot.ts).
  for (const args of [['check', '-j', '1', ...families], ['herd7', ...families]]) {
    const run = spawnSync(process.execPath, [join(dist, 'src', 'cli', 'start.cjs'), ...args], {
      env: { ...process.env, LITMUS_CODE_CACHE: 'write', LITMUS_CACHE_DIR: 'off' },
      encoding: 'utf8',
    });
    if (run.status !== 0) {
      console.error(`bundle: the warm-up run of ${args.join(' ').slice(0, 60)} exited ${run.status}: ${run.stderr.trim().split('\n')[0]}`);
      return false;
    }
  }
  return true;
}

/** The entry of `node --build-snapshot` (a script: while a snapshot is built there is no `exports`; src/cli/snapshot.cts). */
const SNAPSHOT_BUILD = `"use strict";
// Written by scripts/bundle.ts: the entry of node --build-snapshot for the litmus-herd7 snapshot (src/cli/snapshot.cts).
(() => {
  const { readFileSync } = require("node:fs");
  const { join } = require("node:path");
  const file = join(__dirname, "src", "cli", "snapshot.cjs");
  const module = { exports: {} };
  new Function("exports", "require", "module", "__filename", "__dirname", readFileSync(file, "utf8"))(module.exports, require, module, file, join(__dirname, "src", "cli"));
  module.exports.buildSnapshot(require);
})();
`;

/**
 * The litmus-herd7 command: a POSIX shell script that starts Node from the
 * start-up snapshot of this build (`hash`: the herd7 bundle's; none without
 * a bundle) when litmus's cache folder holds one made by a Node that is
 * still there and no newer than it, and falls back to herd7-start.cjs (which
 * then makes it). src/cli/snapshot.cts says why each step is there.
 */
function herd7Command(hash: string | undefined): string {
  return `#!/bin/sh
# litmus-herd7: herd7's command line, answered by litmus. Written by
# scripts/bundle.ts; src/cli/snapshot.cts explains the start-up snapshot.
snapshot_hash=${hash ?? ''}
if [ -n "$snapshot_hash" ] && [ "\${LITMUS_CACHE_DIR-}" != off ]; then
  cache=\${LITMUS_CACHE_DIR:-\${XDG_CACHE_HOME:-\${HOME:-/nonexistent}/.cache}/litmus}
  blob=$cache/start/herd7-$snapshot_hash.blob
  if [ -z "\${NODE_OPTIONS-}" ] && [ -f "$blob" ] && read -r node < "$blob.node" 2>/dev/null && [ -x "$node" ] && [ ! "$node" -nt "$blob" ]; then
    # Node runs as a child, so that a snapshot it refuses (14) can be left for the start below;
    # a signal this script gets is passed on to it, and its end is this script's.
    pid=
    for sig in HUP INT QUIT TERM; do trap "[ -n \\"\\$pid\\" ] && kill -$sig \\$pid 2>/dev/null" $sig; done
    exec 3<&0
    "$node" ${V8_FLAGS.join(' ')} --snapshot-blob "$blob" litmus-herd7 "$@" 0<&3 3<&- &
    pid=$!
    exec 3<&-
    status=0
    wait "$pid" || status=$?
    while kill -0 "$pid" 2>/dev/null; do status=0; wait "$pid" || status=$?; done
    if [ "$status" -ne 14 ]; then
      if [ "$status" -gt 128 ]; then
        trap - HUP INT QUIT TERM
        kill -$((status - 128)) $$ 2>/dev/null
      fi
      exit "$status"
    fi
    rm -f "$blob"
  fi
  LITMUS_HERD7_SNAPSHOT=$blob
  export LITMUS_HERD7_SNAPSHOT
fi
self=$0
case $self in */*) ;; *) self=./$self ;; esac
n=0
while [ -L "$self" ] && [ $n -lt 40 ]; do
  link=$(readlink -- "$self") || break
  case $link in /*) self=$link ;; *) self=\${self%/*}/$link ;; esac
  n=$((n + 1))
done
exec node "\${self%/*}/herd7-start.cjs" "$@"
`;
}

/** Writes the litmus-herd7 command and the snapshot's build entry. */
function writeHerd7Command(hash: string | undefined): void {
  const command = join(dist, 'src', 'cli', 'litmus-herd7');
  writeFileSync(command, herd7Command(hash));
  // The commands are executable after a build too (npm's prepare does it for an install).
  for (const f of [command, ...['start.cjs', 'herd7-start.cjs', 'mselect7-start.cjs'].map((n) => join(dist, 'src', 'cli', n))]) chmodSync(f, 0o755);
  writeFileSync(join(dist, 'snapshot-build.cjs'), SNAPSHOT_BUILD);
}

async function main(): Promise<number> {
  removeOld();
  const text = await bundleText(join(dist, 'src', 'cli', 'main.js'));
  const herd7Text = await bundleText(join(dist, 'src', 'cli', 'herd7-snapshot.js'));
  if (text === undefined || herd7Text === undefined) {
    writeHerd7Command(undefined);
    console.error('bundle: esbuild is not installed; `litmus` will load the modules one by one, litmus-herd7 will start without a snapshot');
    return 0;
  }
  // One character outside ASCII, and Node reads the whole bundle as UTF-16
  // at every start (~10 ms more CPU for ~560 KB): write such characters
  // escaped in the sources (test/start.test.ts checks).
  const outside = /[^\x00-\x7f]/.exec(text + herd7Text);
  if (outside) console.error(`bundle: the bundle is not ASCII ("${outside[0]}"); each start reads it as UTF-16`);
  const hashOf = (t: string) => createHash('sha256').update(t).digest('hex').slice(0, 16);
  const cacheName = `litmus.${hashOf(text)}.cache`;
  writeFileSync(bundleFile, `${text}//# litmus-code-cache=${cacheName}\n`);
  writeFileSync(herd7BundleFile, herd7Text);
  // The snapshot's name: the herd7 bundle, the code that makes it and the flags it runs under.
  const maker = readFileSync(join(dist, 'src', 'cli', 'snapshot.cjs'), 'utf8');
  writeHerd7Command(hashOf(`${herd7Text}\0${maker}\0${SNAPSHOT_BUILD}\0${V8_FLAGS.join(' ')}`));
  const families = writeWarmUp();
  if (!warmUp(families)) {
    removeOld();
    return 1;
  }
  if (!readdirSync(dist).includes(cacheName)) console.error(`bundle: the warm-up wrote no ${cacheName}; \`litmus\` will compile the bundle each run`);
  return 0;
}

process.exitCode = await main();
