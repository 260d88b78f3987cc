// `litmus serve`, as a user (or a hostile page or test) would try it: a real
// server process on 127.0.0.1 with an ephemeral port, over HTTP.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI, ROOT } from './util.js';
import { MP_REL_ACQ, sbTest } from './shapes.js';

const SB = sbTest();

/** Four CPUs writing and reading two locations: far more executions than 300 ms can explore. */
function runaway(): string {
  const procs = [0, 1, 2, 3].map((t) => {
    const body = [0, 1, 2].map((i) => `\tWRITE_ONCE(*x, ${t * 10 + i});\n\tr${i} = READ_ONCE(*y);\n\tWRITE_ONCE(*y, ${t * 10 + i});`).join('\n');
    return `P${t}(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\tint r2;\n${body}\n}\n`;
  });
  return `C runaway\n{}\n${procs.join('\n')}exists (0:r0=1)\n`;
}

/** A TypeScript suite: message passing, relaxed (base) and with release/acquire (fixed). */
const KERNEL = join(ROOT, 'litmus', 'kernel.js');
const TS_SUITE: Record<string, string> = {
  'base.ts': `import { READ_ONCE, WRITE_ONCE, type Ref } from '${KERNEL}';
export interface S { data: Ref; flag: Ref }
export function publish(s: S): void { WRITE_ONCE(s.data, 1); WRITE_ONCE(s.flag, 1); }
export function consume(s: S): number { return READ_ONCE(s.flag) === 1 ? READ_ONCE(s.data) : 1; }
`,
  'fixed.ts': `export * from './base.js';
import { smp_load_acquire, smp_store_release, READ_ONCE } from '${KERNEL}';
import type { S } from './base.js';
export function publish(s: S): void { smp_store_release(s.data, 1); smp_store_release(s.flag, 1); }
export function consume(s: S): number { return smp_load_acquire(s.flag) === 1 ? READ_ONCE(s.data) : 1; }
`,
  'suite.ts': `import { scenario, suite } from '${KERNEL}';
import * as base from './base.js';
import * as fixed from './fixed.js';
import { consume, publish, type S } from './base.js';
const mp = scenario({ name: 'mp', says: 'the reader sees the flag but not the data', threads: [(s: S) => publish(s), (s: S) => ({ got: consume(s) })], exists: ([, p1]) => p1.got === 0 });
export default suite({ title: 'MP as TypeScript', underReview: 'fixed', baseline: 'base', badOutcome: 'a stale read', versions: { base, fixed }, scenarios: [mp] });
`,
};

const suiteTest = (version: string, scenario: string, body: string) => body.replace('{}', `(*\n * Version: ${version}\n * Scenario: ${scenario}\n *)\n{}`);

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

let base: string;
let port: number;
let root: string;
let outside: string;
let server: ChildProcess;

/** A request with its path sent exactly as written (no normalisation of "..": fetch would remove them). */
function raw(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

const get = (path: string) => raw('GET', path);
const post = (path: string, data: unknown) => raw('POST', path, JSON.stringify(data));

/** Every file under a folder with its contents and modification time. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else out.push(`${p} ${st.mtimeMs} ${readFileSync(p, 'utf8').length}`);
    }
  };
  walk(dir);
  return out.join('\n');
}

beforeAll(async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'litmus-serve-'));
  root = join(tmp, 'tests');
  outside = join(tmp, 'outside');
  mkdirSync(join(root, 'suite'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'sb.litmus'), SB);
  writeFileSync(join(root, 'mp.litmus'), MP_REL_ACQ);
  writeFileSync(join(root, 'suite', 'a-old.litmus'), suiteTest('old', 'plain: no ordering', SB));
  writeFileSync(join(root, 'suite', 'a-new.litmus'), suiteTest('new', 'plain: no ordering', MP_REL_ACQ));
  writeFileSync(join(root, 'suite', 'suite.json'), JSON.stringify({ title: 'A small suite', underReview: 'new', badOutcome: 'the stale read' }));
  writeFileSync(join(outside, 'secret.litmus'), 'C secret\n');
  symlinkSync(join(outside, 'secret.litmus'), join(root, 'link.litmus'));
  symlinkSync(outside, join(root, 'linkdir'));
  symlinkSync(join(outside, 'nothing-yet.litmus'), join(root, 'dangling.litmus'));
  mkdirSync(join(root, 'ts'));
  for (const [name, text] of Object.entries(TS_SUITE)) writeFileSync(join(root, 'ts', name), text);
  server = spawn(process.execPath, [CLI, 'serve', root, '--port', '0', '--timeout', '300'], { stdio: ['ignore', 'pipe', 'pipe'] });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL from litmus serve: ${out}`)), 30_000);
    server.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /http:\/\/[^\s]+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    server.on('exit', (code) => reject(new Error(`litmus serve exited (${code}): ${out}`)));
  });
  port = Number(new URL(base).port);
});

afterAll(() => {
  server?.kill('SIGTERM');
  if (root) rmSync(join(root, '..'), { recursive: true, force: true });
});

describe('litmus serve', () => {
  it('listens on 127.0.0.1 by default, on the port it was given (0: a free one)', () => {
    expect(new URL(base).hostname).toBe('127.0.0.1');
    expect(port).toBeGreaterThan(0);
  });

  it('serves its own page, script and style; nothing refers elsewhere', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="/static/app.js"');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    for (const p of ['/', '/static/app.js', '/static/app.css']) {
      const r = await get(p);
      expect(r.status).toBe(200);
      expect(r.body).not.toMatch(/https?:\/\/|\/\/cdn|@import/);
    }
  });

  it('lists the tests under its folder, and not those symlinks lead out to', async () => {
    const l = JSON.parse((await get('/api/list')).body) as { tests: { path: string }[]; suites: { dir: string; title: string }[] };
    expect(l.tests.map((t) => t.path).sort()).toEqual(['mp.litmus', 'sb.litmus', 'suite/a-new.litmus', 'suite/a-old.litmus', 'ts/suite.ts#mp-base', 'ts/suite.ts#mp-fixed']);
    expect(l.suites).toEqual([
      expect.objectContaining({ dir: 'suite', title: 'A small suite' }),
      expect.objectContaining({ dir: 'ts/suite.ts', title: 'MP as TypeScript', tests: [
        { path: 'ts/suite.ts#mp-base', name: 'mp-base', meta: { version: 'base', scenario: 'mp' } },
        { path: 'ts/suite.ts#mp-fixed', name: 'mp-fixed', meta: { version: 'fixed', scenario: 'mp' } },
      ] }),
    ]);
  });

  it('answers 404 for "..", absolute paths and symlinks that lead out', async () => {
    expect((await get('/files/sb.litmus')).body).toBe(SB);
    for (const p of [
      '/files/../outside/secret.litmus',
      '/files/%2e%2e/outside/secret.litmus',
      '/files/..%2Foutside%2Fsecret.litmus',
      '/files//etc/passwd',
      '/files/%2Fetc%2Fpasswd',
      '/files/link.litmus',
      '/files/linkdir/secret.litmus',
      '/files/suite/../sb.litmus',
      '/files/./sb.litmus',
      '/api/test?path=../outside/secret.litmus',
      '/api/test?path=%2Fetc%2Fpasswd',
      '/api/test?path=link.litmus',
      '/api/test?path=linkdir%2Fsecret.litmus',
      '/api/suite?dir=..',
      '/api/suite?dir=..%2Fsuite.ts',
      '/api/test?path=ts%2Fsuite.ts%23nosuch',
      '/api/test?path=..%2Fts%2Fsuite.ts%23mp-base',
      '/api/test?path=linkdir%2Fsuite.ts%23mp-base',
    ]) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(r.body, p).not.toContain('secret');
    }
  });

  it('answers only requests addressed to its own host name (no DNS rebinding)', async () => {
    expect((await raw('GET', '/api/list', undefined, { Host: 'attacker.example:80' })).status).toBe(421);
    expect((await raw('GET', '/api/list', undefined, { Host: `localhost:${port}` })).status).toBe(200);
  });

  it('shows a test: source, states, each witness as a picture with its trace', async () => {
    const r = JSON.parse((await get('/api/test?path=sb.litmus')).body);
    expect(r.source).toBe(SB);
    expect(r.view.observation).toBe('Sometimes');
    expect(r.view.states).toHaveLength(4);
    expect(r.view.witnesses).toHaveLength(1);
    expect(r.view.witnesses[0].picture).toMatch(/^<svg /);
    expect(r.view.witnesses[0].trace).toMatch(/^Witness for 0:r0=0; 1:r0=0;/);
  });

  it('shows the forbidden candidate of a Never with its cycle', async () => {
    const r = JSON.parse((await get('/api/test?path=mp.litmus')).body);
    expect(r.view.observation).toBe('Never');
    expect(r.view.forbidden.picture).toContain('hb: po-rel');
    expect(r.view.forbidden.trace).toContain('the hb cycle');
  });

  it('checks a suite: its rows and the verdict on the version under review', async () => {
    const r = JSON.parse((await get('/api/suite?dir=suite')).body);
    expect(r.rows.map((x: { test: string; verdict: string }) => `${x.test} ${x.verdict}`).sort()).toEqual(['a-new Never', 'a-old Sometimes']);
    expect(r.verdict).toContain('Version "new" (under review): the stale read is impossible');
  });

  it('checks a TypeScript suite: its grid rows and the verdict on the version under review', async () => {
    const r = JSON.parse((await get('/api/suite?dir=ts%2Fsuite.ts')).body);
    expect(r.title).toBe('MP as TypeScript');
    expect(r.rows.map((x: { test: string; version: string; scenario: string; verdict: string }) => `${x.test} ${x.version} ${x.scenario} ${x.verdict}`)).toEqual([
      'mp-base base mp Sometimes',
      'mp-fixed fixed mp Never',
    ]);
    expect(r.verdict).toBe('Version "fixed" (under review): a stale read is impossible in all 1 scenarios checked.');
  });

  it('shows a test of a TypeScript suite as the C it is inlined into, read-only, with its pictures', async () => {
    const r = JSON.parse((await get('/api/test?path=ts%2Fsuite.ts%23mp-base')).body);
    expect(r.readOnly).toBe(true);
    expect(r.source).toMatch(/^C mp-base\n/);
    expect(r.source).toContain(' * Version: base\n * Scenario: mp: the reader sees the flag but not the data');
    expect(r.source).toContain('WRITE_ONCE(*data, 1);');
    expect(r.view.observation).toBe('Sometimes');
    expect(r.view.witnesses[0].picture).toMatch(/^<svg /);
  });

  it('writes nothing while browsing and checking; saves only .litmus files inside its folder', async () => {
    const before = snapshot(join(root, '..'));
    await get('/api/test?path=sb.litmus');
    await post('/api/check', { source: SB.replace('C SB', 'C SB2') });
    await get('/api/suite?dir=ts%2Fsuite.ts');
    for (const path of ['../outside/new.litmus', '/tmp/new.litmus', 'link.litmus', 'linkdir/secret.litmus', 'dangling.litmus', 'sb.txt', 'nofolder/x.litmus', 'suite/../sb.litmus', 'ts/suite.ts', 'ts/suite.ts#mp-base']) {
      const r = await post('/api/save', { path, source: 'C pwned\n' });
      expect(r.status, path).toBe(404);
    }
    expect(snapshot(join(root, '..'))).toBe(before);
    const edited = SB.replace('C SB', 'C SB-edited');
    expect((await post('/api/save', { path: 'sb.litmus', source: edited })).status).toBe(200);
    expect(readFileSync(join(root, 'sb.litmus'), 'utf8')).toBe(edited);
    expect((await post('/api/save', { path: 'suite/new.litmus', source: edited })).status).toBe(200);
    expect(readFileSync(join(root, 'suite', 'new.litmus'), 'utf8')).toBe(edited);
    writeFileSync(join(root, 'sb.litmus'), SB);
    rmSync(join(root, 'suite', 'new.litmus'));
  });

  it('checks a pasted test; bad input is one line, as on the command line', async () => {
    const ok = JSON.parse((await post('/api/check', { source: MP_REL_ACQ })).body);
    expect(ok.view.observation).toBe('Never');
    const bad = JSON.parse((await post('/api/check', { source: 'C bad\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1)\n}\nexists (x=1)\n', path: 'mine.litmus' })).body);
    expect(bad.view.error).toMatch(/^mine\.litmus:6:1: /);
  });

  it('refuses request bodies over 256 KiB (413) and anything but JSON (415)', async () => {
    const big = 'x'.repeat(300 * 1024);
    expect((await raw('POST', '/api/check', JSON.stringify({ source: big }))).status).toBe(413);
    expect((await raw('POST', '/api/check', 'source=1', { 'Content-Type': 'application/x-www-form-urlencoded' })).status).toBe(415);
  });

  it('stops a runaway test at the --timeout and stays responsive meanwhile', async () => {
    const t0 = Date.now();
    const slow = post('/api/check', { source: runaway() });
    // While it runs, the server answers other requests at once.
    const list = await get('/api/list');
    expect(list.status).toBe(200);
    const r = JSON.parse((await slow).body);
    expect(r.view.error).toBe('edited test: exploration stopped after 300 ms (--timeout)');
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});

describe('litmus serve: the bundled suites', () => {
  it('are listed with their tests when the bundled folder is served', async () => {
    const { listing } = await import('../src/serve/server.js');
    const l = await listing(join(ROOT, 'litmus'));
    const nfs = l.suites.find((x) => x.dir === 'clear_invalid_mapping/suite.ts');
    expect(nfs?.title).toBe('nfs_clear_invalid_mapping: can the lockless fast path skip a required invalidation?');
    expect(nfs?.tests).toHaveLength(24);
    expect(nfs?.tests[0]).toEqual({ path: 'clear_invalid_mapping/suite.ts#s1-publish-pre', name: 's1-publish-pre', meta: { version: 'pre', scenario: 's1-publish' } });
    expect(l.suites.map((x) => x.dir).sort()).toEqual(['clear_invalid_mapping/suite.ts', 'nfsd_io_stats/suite.ts', 'sb_iostats/suite.ts']);
    expect(l.tests.filter((t) => t.path.startsWith('sb_iostats/suite.ts#irq-same-cpu-raw-')).map((t) => t.meta?.scenario)).toEqual([
      'irq-same-cpu (interrupt before)', 'irq-same-cpu (interrupt at irq_window 1)', 'irq-same-cpu (interrupt after)',
    ]);
  });
});

describe('litmus serve: the checking threads', () => {
  it('end a check that outlives the limits and answer for it, then check again', async () => {
    const { Checker } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'checker.js')).href)) as typeof import('../src/serve/checker.js');
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 1 }, threads: 1, graceMs: 0 });
    try {
      const stopped = await checker.check(runaway(), 'big.litmus', true);
      expect(stopped?.error).toMatch(/^big\.litmus: (stopped after 1 ms|exploration stopped after 1 ms)/);
      // A fresh thread takes the next check.
      const next = await checker.check(SB, 'sb.litmus', false);
      expect(next?.error ?? next?.observation).toMatch(/Sometimes|stopped after 1 ms/);
    } finally {
      await checker.close();
    }
  });

  it('stop at --max-executions, as check does', async () => {
    const { Checker } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'checker.js')).href)) as typeof import('../src/serve/checker.js');
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 2, timeoutMs: 60_000 }, threads: 1 });
    try {
      expect((await checker.check(SB, 'sb.litmus', true))?.error).toBe('sb.litmus: more than 2 candidate executions (--max-executions)');
    } finally {
      await checker.close();
    }
  });
});
