// A run of many files is not lost to one of them, nor to a signal: a worker
// that dies (out of heap, a crash) is that one file's error and the rest is
// checked and printed; SIGINT or SIGTERM prints what is done (a line saying
// the run was interrupted; --json: a whole document with "interrupted":
// true) and exits 130 or 143; every error of a --json run is JSON.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, makeFifo } from './util.js';
import { MP_REL_ACQ, sbTest } from './shapes.js';

let dir: string;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI in `dir`; `signal` is sent to it `after` ms (a test that hangs is ended at 120 s). */
function litmus(args: string[], how: { env?: Record<string, string>; signal?: NodeJS.Signals; after?: number } = {}): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, LITMUS_DEBUG: '', ...how.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const sent = how.signal ? setTimeout(() => child.kill(how.signal), how.after ?? 0) : undefined;
    const hung = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status, signal) => {
      clearTimeout(sent);
      clearTimeout(hung);
      done({ status: status ?? (signal ? -1 : null), stdout, stderr });
    });
  });
}

/** One thread writing `n` variables once each: a candidate with n + n events, its relations' matrices far past 16 MB of heap. */
function heavy(n: number): string {
  const params = Array.from({ length: n }, (_, i) => `int *x${i}`).join(', ');
  const writes = Array.from({ length: n }, (_, i) => `\tWRITE_ONCE(*x${i}, 1);`).join('\n');
  return `C heavy\n{}\nP0(${params})\n{\n${writes}\n}\nexists (x0=1)\n`;
}

/** Two threads, one writing n variables, one reading them: 2^n executions (n = 24: minutes), a test still running when the signal comes. */
function slow(n: number): string {
  const params = Array.from({ length: n }, (_, i) => `int *x${i}`).join(', ');
  const writes = Array.from({ length: n }, (_, i) => `\tWRITE_ONCE(*x${i}, 1);`).join('\n');
  const reads = Array.from({ length: n }, (_, i) => `\tint r${i};\n\tr${i} = READ_ONCE(*x${i});`).join('\n');
  return `C slow\n{}\nP0(${params})\n{\n${writes}\n}\nP1(${params})\n{\n${reads}\n}\nexists (1:r0=1)\n`;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-workers-'));
  for (const d of ['oom', 'sig']) mkdirSync(join(dir, d));
  for (const d of ['oom', 'sig']) {
    writeFileSync(join(dir, d, 'a-mp.litmus'), MP_REL_ACQ);
    writeFileSync(join(dir, d, 'b-sb.litmus'), sbTest());
    writeFileSync(join(dir, d, 'c-mp.litmus'), MP_REL_ACQ.replace('C MP+pooncerelease+poacquireonce', 'C MP2'));
  }
  writeFileSync(join(dir, 'oom', 'm-heavy.litmus'), heavy(990));
  writeFileSync(join(dir, 'oom', 'z-sb.litmus'), sbTest().replace('C SB', 'C SB2'));
  writeFileSync(join(dir, 'sig', 'z-slow.litmus'), slow(24));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a worker that dies', () => {
  it('is that one file\'s error; the other files are answered, by fresh workers (runWorkers)', async () => {
    // A small heap bound, so that the worker meant to run out of it does so at once.
    process.env.LITMUS_WORKER_HEAP_MB = '16';
    const { runWorkers } = await import('../src/cli/pool.js');
    const files = ['a', 'oom', 'b', 'throw', 'c', 'exit', 'd', 'e'];
    const results = await runWorkers<string>(files, {
      workerUrl: new URL('./fixtures/dying-worker.mjs', import.meta.url),
      workerData: undefined,
      jobs: 2,
      onFailure: (file, why) => `failed ${file}: ${why}`,
    });
    expect(results.slice(0, 3)).toEqual(['done a', 'failed oom: limit: the check ran out of memory (more than 16 MB of heap); the other files are checked', 'done b']);
    expect(results[3]).toBe('failed throw: internal error: its worker thread failed: a bug in the checker (please report it)');
    expect(results[5]).toBe('failed exit: internal error: its worker thread stopped (exit code 7) (please report it)');
    expect([results[4], ...results.slice(6)]).toEqual(['done c', 'done d', 'done e']);
  });

  it('litmus check -j: a test that outgrows the workers\' heap is a limit error, every other result printed', async () => {
    const r = await litmus(['check', '-q', '-j', '2', 'oom'], { env: { LITMUS_WORKER_HEAP_MB: '16' } });
    expect(r.stderr).toBe('oom/m-heavy.litmus: limit: the check ran out of memory (more than 16 MB of heap); the other files are checked\n');
    expect(r.status).toBe(2);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split(':')[0])).toEqual(['MP+pooncerelease+poacquireonce', 'SB', 'MP2', 'SB2']);
  });

  it('litmus history record: the entry says so, the others are recorded', async () => {
    const r = await litmus(['history', 'record', '-j', '2', '--out', 'oom.hist', 'oom'], { env: { LITMUS_WORKER_HEAP_MB: '16' } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const h = readFileSync(join(dir, 'oom.hist'), 'utf8');
    expect(h).toContain('=== m-heavy.litmus\nWarning: File "oom/m-heavy.litmus": limit: the check ran out of memory');
    expect(h.match(/^Observation /gm)).toHaveLength(4);
  });
});

describe('a signal in the middle of a run', () => {
  for (const jobs of ['1', '2']) {
    it(`SIGINT (-j ${jobs}): the finished results, a line saying the run was interrupted, exit 130`, async () => {
      const r = await litmus(['check', '-q', '-j', jobs, '--max-executions', '1000000000', 'sig'], { signal: 'SIGINT', after: 5000 });
      expect(r.status).toBe(130);
      expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split(':')[0])).toEqual(['MP+pooncerelease+poacquireonce', 'SB', 'MP2']);
      expect(r.stderr).toBe('litmus: interrupted by SIGINT: 3 of 4 tests finished (shown); the others were not checked\n');
    });
  }

  it('SIGTERM with --json: one whole document, "interrupted": true, what is done and what is not; exit 143; merge fails on it', async () => {
    const r = await litmus(['check', '--json', '-j', '2', '--max-executions', '1000000000', 'sig'], { signal: 'SIGTERM', after: 5000 });
    expect(r.status).toBe(143);
    const doc = JSON.parse(r.stdout) as { status: number; interrupted: boolean; signal: string; notChecked: string[]; results: { file: string; status: string }[] };
    expect(doc).toMatchObject({ status: 143, interrupted: true, signal: 'SIGTERM', notChecked: ['sig/z-slow.litmus'] });
    expect(doc.results.map((x) => [x.file, x.status])).toEqual([['sig/a-mp.litmus', 'ok'], ['sig/b-sb.litmus', 'ok'], ['sig/c-mp.litmus', 'ok']]);
    writeFileSync(join(dir, 'interrupted.json'), r.stdout);
    const m = await litmus(['merge', 'interrupted.json']);
    expect(m.status).toBe(2);
    expect(m.stderr).toMatch(/^interrupted\.json: the run that wrote it was interrupted: 1 of its inputs not checked\n/);
  });

  it('history record: nothing written, the old history kept; exit 130', async () => {
    writeFileSync(join(dir, 'kept.hist'), 'an old history\n');
    const r = await litmus(['history', 'record', '-j', '2', '--timeout', '10m', '--out', 'kept.hist', 'sig'], { signal: 'SIGINT', after: 5000 });
    expect(r.status).toBe(130);
    expect(r.stderr).toBe('litmus history: interrupted by SIGINT after 3 of 4 tests: nothing written (kept.hist is as it was)\n');
    expect(readFileSync(join(dir, 'kept.hist'), 'utf8')).toBe('an old history\n');
  });

  it('history compare: the tests finished are judged and shown, no history written; exit 130', async () => {
    const made = await litmus(['history', 'record', '-j', '2', '--timeout', '1s', '--out', 'before.hist', 'sig']);
    expect(made.status).toBe(0);
    writeFileSync(join(dir, 'after.hist'), 'an old history\n');
    const r = await litmus(['history', 'compare', '-j', '2', '--timeout', '10m', '--out', 'after.hist', 'before.hist', 'sig'], { signal: 'SIGINT', after: 5000 });
    expect(r.status).toBe(130);
    expect(r.stderr).toBe('litmus history: interrupted by SIGINT after 3 of 4 tests (shown): no history written\n');
    expect(r.stdout).toContain(' --- Summary: 3 tests of before.hist re-run under');
    expect(r.stdout).toContain('(interrupted: 1 not run)');
    expect(r.stdout).toContain('Exact output matches: 3');
    expect(readFileSync(join(dir, 'after.hist'), 'utf8')).toBe('an old history\n');
  });
});

describe('every error of a --json run is JSON', () => {
  it('a bad --conf or --model, a bad number, an unknown option, no input, a .def that cannot be read, a bad --shard, a missing history', async () => {
    writeFileSync(join(dir, 'bad.cfg'), 'model nosuch.cat\n');
    const fifo = makeFifo(join(dir, 'fifo.def'));
    const cases: [string[], RegExp][] = [
      [['check', '--json', '--conf', 'bad.cfg', 'oom/a-mp.litmus'], /nosuch\.cat/],
      [['check', '--json', '--timeout', '0', 'oom/a-mp.litmus'], /--timeout takes a whole number/],
      [['check', '--json', '--model', 'nosuch', 'oom/a-mp.litmus'], /unknown model "nosuch"/],
      [['check', '--json', '--no-such-option', 'oom/a-mp.litmus'], /unknown option '--no-such-option'/],
      [['check', '--json'], /missing required argument/],
      [['audit', '--json', '--model', 'nosuch', 'oom/a-mp.litmus'], /unknown model "nosuch"/],
      [['check', '--json', '--shard', '3/2', 'oom/a-mp.litmus'], /--shard 3\/2/],
      [['audit', '--json', '--conf', 'bad.cfg', 'oom/a-mp.litmus'], /nosuch\.cat/],
      [['history', 'compare', '--json', 'nosuch.hist', 'oom'], /nosuch\.hist: no such history/],
      ...(fifo ? [[['check', '--json', '--macros', 'fifo.def', 'oom/a-mp.litmus'], /not a regular file/] as [string[], RegExp]] : []),
    ];
    for (const [args, why] of cases) {
      const r = await litmus(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).not.toBe('');
      const doc = JSON.parse(r.stdout) as { status: number; errors: { message: string }[] };
      expect(doc.status, args.join(' ')).toBe(2);
      expect(doc.errors.map((e) => e.message).join('\n'), args.join(' ')).toMatch(why);
    }
    expect(existsSync(join(dir, 'nosuch.hist'))).toBe(false);
  });
});
