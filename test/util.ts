// Shared helpers for the test files (not a test file itself).

import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LitmusError } from '../src/parse/errors.js';

export const TEST_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(TEST_DIR, '..');
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'start.cjs');
export const NFS_DIR = join(ROOT, 'litmus', 'clear_invalid_mapping');

/** A deep copy without source positions, to compare syntax trees. */
export function stripPos<T>(x: T): unknown {
  return JSON.parse(JSON.stringify(x, (k, v: unknown) => (k === 'pos' || k === 'conditionPos' ? undefined : v)));
}

/**
 * A litmus test from its parts. `procs` are process bodies (P0, P1, ...);
 * every process takes `int *x, int *y, int *z` unless `params` says otherwise.
 */
export function litmus(
  name: string,
  procs: string[],
  cond: string,
  opts: { init?: string; params?: string[]; result?: string } = {},
): string {
  const params = opts.params ?? procs.map(() => 'int *x, int *y, int *z');
  const head = opts.result ? `\n(* Result: ${opts.result} *)\n` : '';
  const body = procs.map((p, i) => `P${i}(${params[i]})\n{\n${p}\n}\n`).join('\n');
  return `C ${name}\n${head}\n{\n${opts.init ?? ''}\n}\n\n${body}\n${cond}\n`;
}

/** The final states of a result as comparable strings. */
export function stateSet(r: { states: { bindings: [string, string][] }[] }): Set<string> {
  return new Set(r.states.map((s) => s.bindings.map(([k, v]) => `${k}=${v};`).join(' ')));
}

/** Runs node on `args` in `cwd` without blocking the test worker (a loaded machine makes the runner's messages time out otherwise). */
export function runNode(args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, LITMUS_DEBUG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/**
 * The kernel's LKMM files (linux-kernel.cfg, .cat, .bell, .def, lock.cat),
 * when ../shared/lkmm is at hand (tests that need them skip otherwise: the
 * project does not ship them).
 */
export const LKMM_DIR = process.env.LITMUS_LKMM ?? join(ROOT, '..', 'shared', 'lkmm');
export const HAVE_LKMM = existsSync(join(LKMM_DIR, 'linux-kernel.cfg'));
if (!HAVE_LKMM) console.warn(`note: ${LKMM_DIR} is absent: the tests that read the kernel's LKMM files are skipped`);

/** Copies the kernel's LKMM files into dir (a test's own folder), as a kernel tree's tools/memory-model holds them. */
export function copyLkmm(dir: string): void {
  for (const f of readdirSync(LKMM_DIR)) if (/\.(cfg|cat|bell|def)$/.test(f)) copyFileSync(join(LKMM_DIR, f), join(dir, f));
}

/** The LitmusError `run` throws, as `line:col message`; 'no error' when it throws none (another error is rethrown). */
export function litmusErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof LitmusError) return `${e.pos.line}:${e.pos.col} ${e.message}`;
    throw e;
  }
  return 'no error';
}

/** Makes a FIFO at `path`; false where mkfifo is not available (the caller then skips that case). */
export function makeFifo(path: string): boolean {
  try {
    execFileSync('mkfifo', [path]);
    return true;
  } catch {
    return false;
  }
}

/**
 * A tmpfs of `kb` kilobytes mounted on a fresh folder, or undefined where
 * mounting is not allowed (not root, a container without the capability).
 */
export function smallDisk(kb: number): { path: string; unmount: () => void } | undefined {
  const path = mkdtempSync(join(tmpdir(), 'litmus-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', path], { stdio: 'ignore' });
  } catch {
    rmSync(path, { recursive: true, force: true });
    return undefined;
  }
  return {
    path,
    unmount: () => {
      execFileSync('umount', [path], { stdio: 'ignore' });
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Fills a file system to its last byte. */
export function fill(path: string): void {
  const chunk = Buffer.alloc(4096, 1);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(path, `.fill${i}`), chunk);
    } catch {
      break;
    }
  }
  // The last few bytes a block-sized file could not take.
  try {
    for (let i = 0; ; i++) writeFileSync(join(path, `.fill-small${i}`), 'x');
  } catch {
    // full
  }
}
