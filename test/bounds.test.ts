// Work that used to be unbounded, outside --timeout: a model's files (.def,
// .cat, .cfg) read by another reader than the tests' (a FIFO blocked for
// ever, /dev/zero was read without end), a .def whose macros expand
// exponentially, C helper functions that inline to 2^22 calls, and `litmus
// merge` of a deeply nested JSON file, of a shard whose run failed, or of
// shards that miss one or repeat one (results lost or counted twice).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMacros, MAX_EXPANDED_TERMS } from '../src/events/def.js';
import { LIMITS } from '../src/limits.js';
import { CLI, makeFifo } from './util.js';
import { MP_REL_ACQ } from './shapes.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-bounds-'));
  writeFileSync(join(dir, 'mp.litmus'), MP_REL_ACQ);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI, ended after `ms` if it has not stopped (a hang is then a failure, not a stuck test run). */
function litmus(args: string[], ms = 20_000): Promise<{ status: number | null; stdout: string; stderr: string; hung: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir });
    let stdout = '';
    let stderr = '';
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, ms);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr, hung });
    });
  });
}

describe('a model\'s files are read by the tests\' reader', () => {
  it('--macros /dev/zero and a FIFO are refused at once, not read without end or waited on', async () => {
    if (existsSync('/dev/zero')) {
      const r = await litmus(['check', '--macros', '/dev/zero', 'mp.litmus']);
      expect(r.hung).toBe(false);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe('/dev/zero:1:1: cannot read the macro file: not a regular file (a device, a FIFO or a socket): not read\n');
    }
    if (!makeFifo(join(dir, 'fifo.def'))) return void console.warn('no mkfifo here: the FIFO cases are not checked');
    for (const args of [['check', '--macros', 'fifo.def'], ['herd7', '-macros', 'fifo.def'], ['export', '--out', 'x', '--macros', 'fifo.def']]) {
      const r = await litmus([...args, 'mp.litmus']);
      expect(r.hung, args.join(' ')).toBe(false);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/fifo\.def:1:1: cannot read the macro file: not a regular file \(a device, a FIFO or a socket\): not read/);
    }
  });

  it('a .cat or .cfg that is a FIFO or a device is refused at once', async () => {
    if (!makeFifo(join(dir, 'fifo.cat'))) return void console.warn('no mkfifo here: the FIFO cases are not checked');
    writeFileSync(join(dir, 'fifo.cfg'), 'model fifo.cat\n');
    for (const args of [['--model', 'fifo.cat'], ['--conf', 'fifo.cfg'], ...(existsSync('/dev/zero') ? [['--conf', '/dev/zero']] : [])]) {
      const r = await litmus(['check', ...args, 'mp.litmus']);
      expect(r.hung, args.join(' ')).toBe(false);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/:1:1: not a regular file \(a device, a FIFO or a socket\): not read\n$/);
    }
  });

  it('a suite.json that is a FIFO does not hang the folder\'s check', async () => {
    const d = join(dir, 'suite-fifo');
    mkdirSync(d);
    writeFileSync(join(d, 'mp.litmus'), MP_REL_ACQ.replace('(*', '(*\n * Version: v1\n * Scenario: s\n'));
    if (!makeFifo(join(d, 'suite.json'))) return void console.warn('no mkfifo here: the FIFO case is not checked');
    const r = await litmus(['check', '-q', 'suite-fifo']);
    expect(r.hung).toBe(false);
    expect(r.stdout).toContain('Never');
  });
});

describe('a .def whose macros expand exponentially', () => {
  /** Macros each using its argument twice, calling the one before: level n is 2^n terms. */
  const doubling = (levels: number, block: boolean) => {
    const lines = block ? ['B0(X) { __fence{MB}; }'] : ['A0(X) X'];
    for (let i = 1; i <= levels; i++) lines.push(block ? `B${i}(X) { B${i - 1}(X); B${i - 1}(X); }` : `A${i}(X) A${i - 1}(X)+A${i - 1}(X)`);
    if (!block) lines.push(`BOOM(X) __load{ONCE}(A${levels}(X))`);
    return [...lines, 'READ_ONCE(X) __load{ONCE}(X)', 'WRITE_ONCE(X,V) { __store{ONCE}(X,V); }', 'smp_store_release(X,V) { __store{RELEASE}(*X,V); }', 'smp_load_acquire(X) __load{ACQUIRE}(*X)', ''].join('\n');
  };

  it('keeps such a macro as one litmus cannot run, saying why; the file\'s other macros are read', () => {
    for (const block of [false, true]) {
      const t0 = performance.now();
      const table = readMacros(doubling(60, block), 'exp.def');
      expect(performance.now() - t0).toBeLessThan(10_000);
      const name = block ? 'B60' : 'BOOM';
      expect(table.unsupportedMacro(name)?.reason).toBe(`its expansion grows past ${MAX_EXPANDED_TERMS} terms (macros that use an argument more than once, calling each other, expand exponentially): not expanded`);
      expect(table.lookup('READ_ONCE')).toBeDefined();
      // Below the bound, the doubling is expanded as herd expands it (a block of fences is no primitive litmus knows).
      expect(table.unsupportedMacro(block ? 'B3' : 'A3')?.reason ?? '').not.toMatch(/grows past/);
    }
  });

  it('a test that calls it is told why; a test that does not is checked', async () => {
    writeFileSync(join(dir, 'exp.def'), doubling(40, false));
    writeFileSync(join(dir, 'boom.litmus'), 'C boom\n{}\nP0(int *x)\n{\n\tint r0;\n\tr0 = BOOM(x);\n}\nexists (0:r0=0)\n');
    const r = await litmus(['check', '--macros', 'exp.def', 'mp.litmus', 'boom.litmus']);
    expect(r.hung).toBe(false);
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('MP+pooncerelease+poacquireonce: Never');
    expect(r.stderr).toMatch(/^boom\.litmus:6:7: litmus cannot run the macro BOOM of exp\.def:\d+:1: its expansion grows past/);
  });
});

describe('C helper functions', () => {
  /** Functions each calling the one before twice: the process's one call inlines to 2^levels calls. */
  const doubling = (levels: number) => {
    const fns = ['static void f0(int *x) { WRITE_ONCE(*x, 1); }'];
    for (let i = 1; i <= levels; i++) fns.push(`static void f${i}(int *x) { f${i - 1}(x); f${i - 1}(x); }`);
    return `C helpers\n{}\n${fns.join('\n')}\nP0(int *x)\n{\n\tf${levels}(x);\n}\nP1(int *x)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}\nexists (1:r0=1)\n`;
  };

  it('are inlined under the TypeScript suites\' bounds: 2^22 calls are refused at the first past the bound, for check and export', async () => {
    writeFileSync(join(dir, 'helpers.litmus'), doubling(22));
    writeFileSync(join(dir, 'small-helpers.litmus'), doubling(3));
    const want = `helpers.litmus:5:33: limit: more than ${LIMITS.inlinedCalls} calls of helper functions inlined into one process`;
    const r = await litmus(['check', '-q', 'helpers.litmus', 'small-helpers.litmus', '--timeout', '600000']);
    expect(r.hung).toBe(false);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`${want}\n`);
    expect(r.stdout).toMatch(/^helpers: Sometimes/m);
    const e = await litmus(['export', 'helpers.litmus', '--out', 'exported']);
    expect(e.status).toBe(2);
    expect(e.stderr).toBe(`${want}\n`);
  });

  it('an if that returns copies what follows it into its branches: that growth is bounded too', async () => {
    // Each level returns on one path of each branch, so what follows is copied into both: 2^levels statements.
    const levels = 30;
    const body = Array.from({ length: levels }, (_, i) => `\tif (READ_ONCE(*x)) { if (READ_ONCE(*y)) return ${i}; } else { if (READ_ONCE(*y)) return ${i}; }\n`).join('');
    writeFileSync(join(dir, 'returns.litmus'), `C returns\n{}\nstatic int h(int *x, int *y) {\n${body}\treturn 99;\n}\nP0(int *x, int *y)\n{\n\tint r0;\n\tr0 = h(x, y);\n}\nexists (0:r0=1)\n`);
    const r = await litmus(['check', '-q', 'returns.litmus']);
    expect(r.hung).toBe(false);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^returns\\.litmus:\\d+:\\d+: limit: more than ${LIMITS.loweredStatements} statements inlined into one process\\n$`));
  });
});

describe('litmus merge', () => {
  it('a deeply nested JSON file: the file named and what is wrong, never a stack overflow', async () => {
    writeFileSync(join(dir, 'deep.json'), `{"results":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    writeFileSync(join(dir, 'deep2.json'), `{"results":[{"file":"a","status":"ok","x":${'['.repeat(8000)}${']'.repeat(8000)}}]}`);
    for (const f of ['deep.json', 'deep2.json']) {
      const r = await litmus(['merge', f]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^${f.replace('.', '\\.')}: cannot read results: nested \\d+ levels deep, more than the 64 of any "litmus check --json" output: not one\\n$`));
    }
    writeFileSync(join(dir, 'odd.json'), '{"results":[[1]]}');
    const r = await litmus(['merge', 'odd.json']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^odd\.json: cannot read results: result 1 is not a result of "litmus check --json"/);
  });

  it('a shard whose own run failed (status 2) with no results is reported, and the merge fails', async () => {
    writeFileSync(join(dir, 'ok.json'), (await litmus(['check', '--json', 'mp.litmus'])).stdout);
    writeFileSync(join(dir, 'failed.json'), JSON.stringify({ status: 2, summary: { inputs: 0, ok: 0, mismatches: 0, errors: 0 }, results: [] }));
    const r = await litmus(['merge', 'ok.json', 'failed.json']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^failed\.json: the run that wrote it failed \(status 2\) and checked nothing\n/);
    const merged = JSON.parse(r.stdout) as { status: number; summary: { errors: number } };
    expect(merged.status).toBe(2);
    expect(merged.summary.errors).toBe(1);
  });

  it('a shard missing, a shard or a file given twice, shards of runs split differently: said, and the merge fails', async () => {
    mkdirSync(join(dir, 'sharded'));
    for (const n of ['a', 'b', 'c']) writeFileSync(join(dir, 'sharded', `${n}.litmus`), MP_REL_ACQ.replace(/^C \S+/, `C ${n}`));
    for (const k of ['1/2', '2/2', '1/3']) {
      const r = await litmus(['check', '--json', '--shard', k, 'sharded']);
      expect((JSON.parse(r.stdout) as { shard: string }).shard).toBe(k);
      writeFileSync(join(dir, `shard-${k.replace('/', '-of-')}.json`), r.stdout);
    }
    writeFileSync(join(dir, 'copy.json'), (await litmus(['check', '--json', '--shard', '01/2', 'sharded'])).stdout);
    const whole = await litmus(['merge', 'shard-1-of-2.json', 'shard-2-of-2.json']);
    expect(whole.status).toBe(0);
    expect(whole.stderr).toBe('merged 3 results from 2 files; 0 mismatches\n');
    const cases: [string[], RegExp][] = [
      [['shard-1-of-2.json'], /^shard-1-of-2\.json: shard 2\/2 of 2 not given: the merge would miss its results\n/],
      [['shard-1-of-2.json', 'shard-2-of-2.json', 'shard-1-of-2.json'], /^shard-1-of-2\.json: named twice \(as shard-1-of-2\.json too\): its results are merged once\n/],
      [['shard-1-of-2.json', 'shard-2-of-2.json', 'copy.json'], /^copy\.json: 2 inputs \(sharded\/a\.litmus, \.\.\.\) have their results here and in shard-1-of-2\.json: the same shard twice, or runs that overlap\ncopy\.json: shard 1\/2 again \(also shard-1-of-2\.json\)\n/],
      [['shard-1-of-2.json', 'shard-2-of-2.json', 'shard-1-of-3.json'], /shard-1-of-2\.json: shards of runs split differently \(1\/2, 1\/3, 2\/2\)\n/],
    ];
    for (const [args, message] of cases) {
      const r = await litmus(['merge', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect((JSON.parse(r.stdout) as { status: number }).status).toBe(2);
    }
  });
});
