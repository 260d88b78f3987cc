// The litmus-herd7 start-up snapshot: a V8 heap in which litmus herd7's code
// (dist/litmus-herd7.cjs) is loaded, initialised and warmed up, from which
// Node starts in place of its own (node --snapshot-blob). The kernel's
// scripts start one herd7 per test; from the snapshot a process checks its
// test without loading, compiling or initialising any module first.
//
// The `litmus-herd7` command is a shell script (scripts/bundle.ts writes it
// into dist/src/cli/litmus-herd7) that runs Node from the snapshot kept in
// litmus's cache folder (src/cache-dir.cts: `start/herd7-HASH.blob`, HASH
// the bundle's, with `.node` beside it naming the Node that made it), when
// that Node is still there and no newer than the snapshot, and no
// NODE_OPTIONS is set (V8 takes a snapshot only under the flags it was made
// with). Otherwise, or when Node refuses the snapshot (exit status 14: made
// by another Node or under other flags; the snapshot's own main exits 14
// too when the bundle it was made from is gone or older than the compiled
// modules of a checkout), it runs herd7-start.cjs, the code-cache start,
// with LITMUS_HERD7_SNAPSHOT naming the snapshot: that process, once its
// run is over, makes the snapshot for the Node running it (makeSnapshot),
// so the next process starts from it. Making it takes about a second, once.
//
// A snapshot is made by `node FLAGS --snapshot-blob TMP --build-snapshot
// dist/snapshot-build.cjs` (buildSnapshot, below, is what it runs),
// written to a temporary file and renamed into place; a lock file keeps
// concurrent processes (the scripts' -j jobs) from all making it; a Node
// that could not make one is remembered (`.failed`) and not asked again for
// a day. A snapshot file damaged on the disk makes Node crash at start (it
// checks versions and flags, not the bytes): `rm -r ~/.cache/litmus/start`
// (docs/herd7.md says so).

import { closeSync, constants, existsSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HerdIo } from './herd7.js';

/** The folder holding the bundles (dist/). */
const DIST = join(__dirname, '..', '..');

/** What the herd7 bundle exports (src/cli/herd7-snapshot.ts). */
interface Herd7Bundle {
  herd7Main(argv: string[], io?: HerdIo): Promise<number>;
  warmUp(tests: string, models: string): Promise<void>;
}

/**
 * Whether dist/litmus-herd7.cjs is the code to run: it exists and, in a
 * checkout (src/ beside dist/), is no older than the compiled herd7.js (a
 * tsc run since the bundle was made means the modules are newer), as
 * start.cts decides for the litmus bundle.
 */
export function herd7BundleUsable(dist = DIST): boolean {
  try {
    const bundle = statSync(join(dist, 'litmus-herd7.cjs'));
    const checkout = existsSync(join(dist, '..', 'src', 'cli', 'main.ts'));
    return !checkout || bundle.mtimeMs >= statSync(join(dist, 'src', 'cli', 'herd7.js')).mtimeMs;
  } catch {
    return false;
  }
}

/** Exit status of a process that could not use its snapshot (Node's own, for a snapshot it refuses). */
export const SNAPSHOT_REFUSED = 14;

/**
 * Run by `node --build-snapshot` (snapshot-build.cjs): loads the bundle,
 * warms it up, and sets the main function of a process started from the
 * snapshot. Only Node's own modules can be required while a snapshot is
 * built: the bundle's require gets them, and gets a full require (for
 * anything else) once the process has started.
 */
export function buildSnapshot(builtinRequire: NodeJS.Require, dist = DIST): void {
  const { startupSnapshot } = builtinRequire('node:v8') as typeof import('node:v8');
  const bundle = join(dist, 'litmus-herd7.cjs');
  let load: (id: string) => unknown = builtinRequire;
  const module = { exports: {} as Herd7Bundle };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const run = new Function('exports', 'require', 'module', '__filename', '__dirname', readFileSync(bundle, 'latin1'));
  run(module.exports, (id: string) => load(id), module, bundle, dist);
  const { herd7Main, warmUp } = module.exports;
  void warmUp(join(dist, 'warm-up'), join(dist, '..', 'models', 'text')).then(() => {
    startupSnapshot.setDeserializeMainFunction(() => {
      if (!herd7BundleUsable(dist)) process.exit(SNAPSHOT_REFUSED);
      if (process.env.LITMUS_CODE_CACHE === 'report') process.stderr.write(`litmus-herd7: started from the snapshot of ${bundle}\n`);
      const { createRequire, isBuiltin } = builtinRequire('node:module') as typeof import('node:module');
      let full: NodeJS.Require | undefined;
      load = (id) => (isBuiltin(id) ? builtinRequire(id) : (full ??= createRequire(bundle))(id));
      herd7Main(process.argv.slice(2)).then(
        (code) => {
          process.exitCode = code;
        },
        (e: unknown) => {
          process.stderr.write(`litmus-herd7: ${e instanceof Error ? e.message : String(e)}\n`);
          process.exitCode = 2;
        },
      );
    });
  });
}

/** A lock left by a process that died while making the snapshot is taken over after this long. */
const STALE_LOCK_MS = 10 * 60 * 1000;
/** A Node that could not make the snapshot is asked again after this long (the failure may have been a full disk). */
const RETRY_FAILED_MS = 24 * 3600 * 1000;
/** Snapshots of other builds not used for this long are removed when one is made. */
const OLD_BLOB_MS = 30 * 24 * 3600 * 1000;

/**
 * Makes the snapshot `blob` for this Node (what the litmus-herd7 script
 * asked for through LITMUS_HERD7_SNAPSHOT), unless the bundle is not the
 * code to run, another process is making it, or this Node could not make
 * one before. Silent; any failure leaves no snapshot and litmus-herd7
 * starts without one. `flags`: V8's flags, as the script passes them.
 */
export function makeSnapshot(blob: string, flags: readonly string[], dist = DIST): void {
  if (!herd7BundleUsable(dist)) return;
  const failed = `${blob}.failed`;
  try {
    if (readFileSync(failed, 'utf8').trim() === process.execPath && Date.now() - statSync(failed).mtimeMs < RETRY_FAILED_MS) return;
  } catch {
    // never failed
  }
  const lock = `${blob}.lock`;
  let fd: number;
  try {
    const { makeCacheFolder } = require('../cache-dir.cjs') as typeof import('../cache-dir.cjs');
    makeCacheFolder(dirname(blob));
    fd = takeLock(lock);
  } catch {
    return;
  }
  // Node writes the snapshot itself: to a new name in the cache folder (this user's, 0700), renamed into place.
  const tmp = join(dirname(blob), `.${process.pid}.${Date.now()}.blob.tmp`);
  try {
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const made = spawnSync(process.execPath, [...flags, '--snapshot-blob', tmp, '--build-snapshot', join(dist, 'snapshot-build.cjs')], {
      stdio: 'ignore',
      cwd: dist,
      env: { ...process.env, NODE_OPTIONS: '', LITMUS_CACHE_DIR: 'off' },
      timeout: 120_000,
    });
    // The two notes beside the snapshot are written as every file of the tool is: whole, never through a link.
    const { writeFileAtomic } = require('../write-file.cjs') as typeof import('../write-file.cjs');
    if (made.status !== 0 || !existsSync(tmp)) {
      if (made.error === undefined) writeFileAtomic(failed, `${process.execPath}\n`);
      return;
    }
    writeFileAtomic(`${blob}.node`, `${process.execPath}\n`);
    renameSync(tmp, blob);
    removeOldBlobs(dirname(blob), blob);
  } catch {
    // no snapshot this time
  } finally {
    rmSync(tmp, { force: true });
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

/** Creates the lock file (O_EXCL); one older than STALE_LOCK_MS is taken over. Throws if another process holds it. */
function takeLock(lock: string): number {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  try {
    return openSync(lock, flags, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) throw e;
    unlinkSync(lock);
    const fd = openSync(lock, flags, 0o600);
    writeSync(fd, String(process.pid));
    return fd;
  }
}

/** Removes the snapshots of other builds that no process has started from (or made) for a month. */
function removeOldBlobs(dir: string, keep: string): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (p === keep || !/^herd7-[\w]+\.blob$/.test(name)) continue;
    try {
      const st = statSync(p);
      if (Date.now() - Math.max(st.atimeMs, st.mtimeMs) > OLD_BLOB_MS) for (const f of [p, `${p}.node`, `${p}.failed`]) rmSync(f, { force: true });
    } catch {
      // gone
    }
  }
}
