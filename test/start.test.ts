// The `litmus` command's start (src/cli/start.cts): the build's bundle runs
// with V8's code cache; a cache V8 refuses, or a bundle older than the
// compiled modules, still gives a working command.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { CLI, ROOT } from './util.js';
import { MP_REL_ACQ } from './shapes.js';
import { FAMILIES } from '../bench/families.js';

const DIST = join(ROOT, 'dist');
let dir: string;
let test: string;

function run(cli: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    // The litmus-herd7 command is a shell script; the others are Node's.
    const [file, argv] = cli.endsWith('.cjs') || cli.endsWith('.js') ? [process.execPath, [cli, ...args]] : [cli, args];
    const child = spawn(file, argv, { cwd: dir, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/**
 * A copy of the start: dist/litmus.cjs, its cache (or `cache` instead),
 * start.cjs, v8-flags.cjs and `main` as main.js; with `checkout`, a
 * src/cli/main.ts beside dist/ as in a clone.
 */
function layout(name: string, opts: { cache?: Buffer; main?: string; bundleOlder?: boolean; checkout?: boolean }): string {
  const root = join(dir, name);
  const cli = join(root, 'dist', 'src', 'cli');
  mkdirSync(cli, { recursive: true });
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  if (opts.checkout) {
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), '');
  }
  for (const f of ['start.cjs', 'v8-flags.cjs']) copyFileSync(join(DIST, 'src', 'cli', f), join(cli, f));
  const cacheName = readdirSync(DIST).find((f) => /^litmus\.[\w-]+\.cache$/.test(f))!;
  copyFileSync(join(DIST, 'litmus.cjs'), join(root, 'dist', 'litmus.cjs'));
  if (opts.cache) writeFileSync(join(root, 'dist', cacheName), opts.cache);
  else copyFileSync(join(DIST, cacheName), join(root, 'dist', cacheName));
  writeFileSync(join(cli, 'main.js'), opts.main ?? readFileSync(join(DIST, 'src', 'cli', 'main.js')));
  const now = Date.now() / 1000;
  utimesSync(join(root, 'dist', 'litmus.cjs'), now, opts.bundleOlder ? now - 60 : now);
  utimesSync(join(cli, 'main.js'), now, now - 30);
  return join(cli, 'start.cjs');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-start-'));
  test = join(dir, 'MP.litmus');
  writeFileSync(test, MP_REL_ACQ);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('litmus start', () => {
  it('has an ASCII bundle (Node reads anything else as UTF-16, at a cost on every start)', () => {
    const text = readFileSync(join(DIST, 'litmus.cjs'), 'latin1');
    expect(text.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
  });

  it('runs the bundle with the code cache the build made, and prints what the modules print', async () => {
    const bundled = await run(CLI, ['check', test], { LITMUS_CODE_CACHE: 'report' });
    expect(bundled.stderr).toMatch(/litmus\.cjs, code cache used/);
    const modules = await run(join(DIST, 'src', 'cli', 'main.js'), ['check', test]);
    expect(bundled.status).toBe(modules.status);
    expect(bundled.stdout).toBe(modules.stdout);
    expect(bundled.stdout).toMatch(/Never/);
  });

  it('litmus herd7 starts as litmus does (the bundle, with the cache of a herd7 warm-up), and prints what herd7.js prints', async () => {
    const bundled = await run(join(DIST, 'src', 'cli', 'herd7-start.cjs'), [test], { LITMUS_CODE_CACHE: 'report' });
    expect(bundled.stderr).toMatch(/litmus\.cjs, code cache used/);
    expect(readdirSync(DIST).filter((f) => /^litmus\.[\w-]+\.herd7\.cache$/.test(f))).toHaveLength(1);
    const modules = await run(join(DIST, 'src', 'cli', 'herd7.js'), [test]);
    const noTime = (s: string) => s.replace(/^Time .*$/m, '');
    expect(noTime(bundled.stdout)).toBe(noTime(modules.stdout));
    expect(bundled.stdout).toMatch(/^Observation /m);
  });

  it('compiles the bundle from its text when V8 rejects the cache', async () => {
    const cli = layout('rejected', { cache: Buffer.alloc(4096, 7) });
    const r = await run(cli, ['check', test], { LITMUS_CODE_CACHE: 'report' });
    expect(r.stderr).toMatch(/code cache rejected by V8/);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe((await run(CLI, ['check', test])).stdout);
  });

  it('in a checkout, runs main.js rather than a bundle older than it (tsc ran since)', async () => {
    const main = "console.log('the modules');\n";
    const stale = await run(layout('stale', { main, bundleOlder: true, checkout: true }), ['--version']);
    expect(stale.stdout.trim()).toBe('the modules');
    const fresh = await run(layout('fresh', { main, checkout: true }), ['--version']);
    expect(fresh.stdout.trim()).toBe('0.1.0');
  });

  it('in an installed package (no src/), runs the bundle whatever the order the files were written in', async () => {
    const r = await run(layout('installed', { main: "console.log('the modules');\n", bundleOlder: true }), ['--version']);
    expect(r.stdout.trim()).toBe('0.1.0');
  });
});

// The litmus-herd7 command (dist/src/cli/litmus-herd7, src/cli/snapshot.cts):
// Node started from a snapshot of litmus herd7 kept in the cache folder,
// made by the first run; anything that keeps Node from using it falls back
// to the code-cache start, with the same output.
describe('litmus-herd7 and its start-up snapshot', () => {
  const HERD7 = join(DIST, 'src', 'cli', 'litmus-herd7');
  const noTime = (s: string) => s.replace(/^Time .*$/gm, '');
  let cache: string;
  let expected: string;
  const blobs = () => readdirSync(join(cache, 'start')).filter((f) => f.endsWith('.blob'));

  beforeAll(async () => {
    cache = join(dir, 'snapshot-cache');
    expected = noTime((await run(join(DIST, 'src', 'cli', 'herd7.js'), [test])).stdout);
  });

  it('is the package\'s litmus-herd7 command', () => {
    const bin = (JSON.parse(readFileSync(join(DIST, '..', 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['litmus-herd7'];
    expect(bin).toBe('dist/src/cli/litmus-herd7');
  });

  it('makes the snapshot at the end of its first run, then starts from it, printing what herd7.js prints', async () => {
    const first = await run(HERD7, [test], { LITMUS_CACHE_DIR: cache, LITMUS_CODE_CACHE: 'report' });
    expect(first.stderr).toMatch(/litmus\.cjs, code cache used/);
    expect(noTime(first.stdout)).toBe(expected);
    expect(blobs()).toHaveLength(1);
    expect(readFileSync(join(cache, 'start', `${blobs()[0]}.node`), 'utf8').trim()).toBe(process.execPath);
    const second = await run(HERD7, [test], { LITMUS_CACHE_DIR: cache, LITMUS_CODE_CACHE: 'report' });
    expect(second.stderr).toMatch(/started from the snapshot/);
    expect(second.status).toBe(0);
    expect(noTime(second.stdout)).toBe(expected);
    // herd7's other paths through the snapshot: test names on standard input, a usage error (exit 2).
    const names = spawnSync(HERD7, [], { cwd: dir, input: `${test}\n`, env: { ...process.env, LITMUS_CACHE_DIR: cache }, encoding: 'utf8' });
    expect(noTime(names.stdout)).toBe(expected);
    const usage = await run(HERD7, ['-unroll'], { LITMUS_CACHE_DIR: cache });
    expect(usage.status).toBe(2);
  });

  it('does not use the snapshot under NODE_OPTIONS (other V8 flags), nor with LITMUS_CACHE_DIR=off', async () => {
    const opts = await run(HERD7, [test], { LITMUS_CACHE_DIR: cache, LITMUS_CODE_CACHE: 'report', NODE_OPTIONS: '--max-old-space-size=512' });
    expect(opts.stderr).not.toMatch(/started from the snapshot/);
    expect(noTime(opts.stdout)).toBe(expected);
    const off = await run(HERD7, [test], { LITMUS_CACHE_DIR: 'off', LITMUS_CODE_CACHE: 'report' });
    expect(off.stderr).toMatch(/code cache used/);
    expect(noTime(off.stdout)).toBe(expected);
  });

  it('leaves a snapshot Node refuses (another Node\'s, other flags) to the code-cache start, which makes it again', async () => {
    const own = join(dir, 'refused-cache');
    await run(HERD7, [test], { LITMUS_CACHE_DIR: own });
    const blob = join(own, 'start', readdirSync(join(own, 'start')).find((f) => f.endsWith('.blob'))!);
    // A snapshot made under another V8 flag: Node exits 14 before running anything.
    const other = spawnSync(process.execPath, ['--stack-size=900', '--snapshot-blob', blob, '--build-snapshot', join(DIST, 'snapshot-build.cjs')], { cwd: DIST, env: { ...process.env, LITMUS_CACHE_DIR: 'off' } });
    expect(other.status).toBe(0);
    const made = readFileSync(blob);
    const r = await run(HERD7, [test], { LITMUS_CACHE_DIR: own, LITMUS_CODE_CACHE: 'report' });
    expect(r.status).toBe(0);
    expect(noTime(r.stdout)).toBe(expected);
    expect(r.stderr).toMatch(/code cache used/);
    expect(readFileSync(blob).equals(made)).toBe(false);
    expect((await run(HERD7, [test], { LITMUS_CACHE_DIR: own, LITMUS_CODE_CACHE: 'report' })).stderr).toMatch(/started from the snapshot/);
  });

  it('passes a signal it gets on to Node and ends by it, leaving no process behind', async () => {
    const slow = join(dir, 'slow.litmus');
    // A test that runs for seconds: RCU readers, 13 of them.
    writeFileSync(slow, FAMILIES.find((f) => f.name === 'rcu')!.make(13));
    await run(HERD7, [test], { LITMUS_CACHE_DIR: cache });
    const child = spawn(HERD7, [slow], { cwd: dir, env: { ...process.env, LITMUS_CACHE_DIR: cache } });
    await new Promise((r) => setTimeout(r, 400));
    const ended = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_code, signal) => r(signal)));
    child.kill('SIGTERM');
    expect(await ended).toBe('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    const left = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes(slow));
    expect(left).toEqual([]);
  });
});
