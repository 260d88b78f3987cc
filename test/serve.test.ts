// `litmus serve`, as a user (or a hostile page or test) would try it: a real
// server process on 127.0.0.1 with an ephemeral port, over HTTP.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
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

/** A `litmus serve` process: its address (with the token), port and token. */
interface Served {
  proc: ChildProcess;
  base: string;
  port: number;
  token: string;
  /** Everything it printed on stderr. */
  err: () => string;
}

/** Starts `litmus serve ARGS` and waits for the address it prints. */
async function serve(args: string[]): Promise<Served> {
  const proc = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL from litmus serve: ${out}`)), 30_000);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /http:\/\/[^\s]+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    proc.on('exit', (code) => reject(new Error(`litmus serve exited (${code}): ${out}${err}`)));
  });
  const u = new URL(url);
  return { proc, base: url, port: Number(u.port), token: u.searchParams.get('token') ?? '', err: () => err };
}

let base: string;
let port: number;
let token: string;
let root: string;
let outside: string;
let server: ChildProcess;

interface Ask {
  headers?: Record<string, string>;
  /** Which server (default: the one all tests share). */
  to?: { port: number; token: string; address?: string };
  /** Leave the token out. */
  noToken?: boolean;
  /** Leave the Origin out of a POST. */
  noOrigin?: boolean;
}

/**
 * A request with its path sent exactly as written (no normalisation of "..":
 * fetch would remove them), carrying the token and, for a POST, the page's
 * own Origin, as the page's requests do.
 */
function raw(method: string, path: string, body?: string, ask: Ask = {}): Promise<Reply> {
  const to = ask.to ?? { port, token };
  const headers: Record<string, string> = {
    ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...(ask.noToken ? {} : { 'X-Litmus-Token': to.token }),
    ...(method === 'POST' && !ask.noOrigin ? { Origin: `http://127.0.0.1:${to.port}` } : {}),
    ...ask.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: to.address ?? '127.0.0.1', port: to.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

const get = (path: string, ask?: Ask) => raw('GET', path, undefined, ask);
const post = (path: string, data: unknown, ask?: Ask) => raw('POST', path, JSON.stringify(data), ask);
/** A test's text and view, as the page asks for it. */
const showTest = (path: string, ask?: Ask) => post('/api/test', { path }, ask);
const showSuite = (dir: string) => post('/api/suite', { dir });

/** A POST of a check that is left hanging up: the request, and how to hang up. */
function hangingCheck(source: string, to: { port: number; token: string }): { hangUp: () => void } {
  const req = request({ host: '127.0.0.1', port: to.port, method: 'POST', path: '/api/check', headers: { 'Content-Type': 'application/json', 'X-Litmus-Token': to.token, Origin: `http://127.0.0.1:${to.port}` } });
  req.on('error', () => {});
  req.end(JSON.stringify({ source }));
  return { hangUp: () => req.destroy() };
}

/** Asks for the server's status until `done` holds of it. */
async function waitForStatus(to: { port: number; token: string }, done: (s: { running: number; queued: number }) => boolean): Promise<{ running: number; queued: number }> {
  for (;;) {
    const s = JSON.parse((await get('/api/status', { to })).body) as { running: number; queued: number };
    if (done(s)) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until `done` holds (asked every 20 ms). */
async function waitFor(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 20));
}

/** The exit code of a process (or the signal that ended it). */
const exited = (p: ChildProcess) => new Promise<number | string>((resolve) => p.on('exit', (code, sig) => resolve(code ?? sig ?? '')));

/** A TypeScript suite whose inlining doubles at each of 30 levels: 2^30 writes, never lowered in time. */
function exponentialSuite(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const levels = Array.from({ length: 30 }, (_, i) => `export function g${i}(s: S): void { g${i + 1}(s); g${i + 1}(s); }`);
  writeFileSync(join(dir, 'base.ts'), `import { WRITE_ONCE, type Ref } from '${KERNEL}';\nexport interface S { x: Ref }\n${levels.join('\n')}\nexport function g30(s: S): void { WRITE_ONCE(s.x, 1); }\n`);
  writeFileSync(join(dir, 'suite.ts'), `import { scenario, suite, READ_ONCE } from '${KERNEL}';
import * as base from './base.js';
import { g0, type S } from './base.js';
const blow = scenario({ name: 'blow', says: 'grows', threads: [(s: S) => g0(s), (s: S) => ({ got: READ_ONCE(s.x) })], exists: ([, p1]) => p1.got === 0 });
export default suite({ title: 'exponential', underReview: 'base', versions: { base }, scenarios: [blow] });
`);
}

/** Every file under a folder with its contents and modification time. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (!st.isFile()) out.push(`${p} (not a file)`);
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
  writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY secret\n');
  writeFileSync(join(root, 'notes.txt'), 'not a test: secret\n');
  symlinkSync(join(outside, 'secret.litmus'), join(root, 'link.litmus'));
  symlinkSync(outside, join(root, 'linkdir'));
  symlinkSync(join(outside, 'nothing-yet.litmus'), join(root, 'dangling.litmus'));
  // Names that look like tests for files that are not: a symlink and a hard link to a key, a symlink to notes.txt.
  symlinkSync(join(outside, 'id_rsa'), join(root, 'key.litmus'));
  linkSync(join(outside, 'id_rsa'), join(root, 'hardkey.litmus'));
  symlinkSync(join(root, 'notes.txt'), join(root, 'notes.litmus'));
  // A symlink to a test inside the folder: read as that test, never written through.
  symlinkSync(join(root, 'sb.litmus'), join(root, 'alias.litmus'));
  // A FIFO named as a test: opening it to read would wait for a writer.
  execFileSync('mkfifo', [join(root, 'fifo.litmus')]);
  symlinkSync('/dev/zero', join(root, 'zero.litmus'));
  mkdirSync(join(root, 'ts'));
  for (const [name, text] of Object.entries(TS_SUITE)) writeFileSync(join(root, 'ts', name), text);
  const s = await serve([root, '--port', '0', '--timeout', '300']);
  ({ proc: server, base, port, token } = s);
});

afterAll(() => {
  server?.kill('SIGTERM');
  if (root) rmSync(join(root, '..'), { recursive: true, force: true });
});

describe('litmus serve', () => {
  it('listens on 127.0.0.1 by default, on the port it was given (0: a free one), and prints a token with its address', () => {
    expect(new URL(base).hostname).toBe('127.0.0.1');
    expect(port).toBeGreaterThan(0);
    expect(token).toMatch(/^[\w-]{40,}$/);
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

  it('answers 403 to every request without its token, page and assets included', async () => {
    for (const [method, path] of [['GET', '/'], ['GET', '/static/app.js'], ['GET', '/static/app.css'], ['GET', '/api/list'], ['GET', '/api/status'], ['GET', '/nosuch'], ['GET', '/files/sb.litmus'], ['POST', '/api/test'], ['POST', '/api/check'], ['POST', '/api/save'], ['GET', '/?token=wrong']]) {
      const r = await raw(method, path, method === 'POST' ? JSON.stringify({ path: 'sb.litmus', source: SB }) : undefined, { noToken: true });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).not.toContain('C SB');
    }
    // A wrong token, in the header or the cookie.
    expect((await get('/api/list', { noToken: true, headers: { 'X-Litmus-Token': `${token.slice(1)}x` } })).status).toBe(403);
    expect((await get('/api/list', { noToken: true, headers: { Cookie: `litmus-token-${port}=nope` } })).status).toBe(403);
    expect(readFileSync(join(root, 'sb.litmus'), 'utf8')).toBe(SB);
  });

  it('lets the page in by its printed address: a cookie, HttpOnly and SameSite=Strict, then carries the token', async () => {
    const entry = await get(`/?token=${token}`, { noToken: true });
    expect(entry.status).toBe(200);
    const cookie = String(entry.headers['set-cookie']);
    expect(cookie).toBe(`litmus-token-${port}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    const jar = { Cookie: cookie.split(';')[0] };
    expect((await get('/static/app.js', { noToken: true, headers: jar })).status).toBe(200);
    expect((await get('/api/list', { noToken: true, headers: jar })).status).toBe(200);
    expect((await showTest('sb.litmus', { noToken: true, headers: jar })).status).toBe(200);
  });

  it('lists the tests under its folder, and not those symlinks or hard links lead out to, nor other files', async () => {
    const l = JSON.parse((await get('/api/list')).body) as { tests: { path: string }[]; suites: { dir: string; title: string }[] };
    expect(l.tests.map((t) => t.path).sort()).toEqual(['alias.litmus', 'mp.litmus', 'sb.litmus', 'suite/a-new.litmus', 'suite/a-old.litmus', 'ts/suite.ts#mp-base', 'ts/suite.ts#mp-fixed']);
    expect(l.suites).toEqual([
      expect.objectContaining({ dir: 'suite', title: 'A small suite', underReview: 'new' }),
      expect.objectContaining({ dir: 'ts/suite.ts', title: 'MP as TypeScript', underReview: 'fixed', tests: [
        { path: 'ts/suite.ts#mp-base', name: 'mp-base', meta: { version: 'base', scenario: 'mp' } },
        { path: 'ts/suite.ts#mp-fixed', name: 'mp-fixed', meta: { version: 'fixed', scenario: 'mp' } },
      ] }),
    ]);
  });

  it('serves no file as such: tests only through their views, and 404 for "..", absolute paths, links that lead out and other files', async () => {
    for (const p of ['/files/sb.litmus', '/files/notes.txt', '/files/../outside/id_rsa', '/sb.litmus', '/notes.txt', '/ts/suite.ts', '/static/../sb.litmus']) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(r.body, p).not.toContain('C SB');
    }
    expect(JSON.parse((await showTest('alias.litmus')).body).source).toBe(SB);
    for (const path of [
      '../outside/secret.litmus',
      '/etc/passwd',
      '/tmp',
      'link.litmus',
      'linkdir/secret.litmus',
      'key.litmus',
      'hardkey.litmus',
      'notes.litmus',
      'notes.txt',
      'fifo.litmus',
      'zero.litmus',
      'ts/base.ts',
      'ts/suite.ts',
      'suite/suite.json',
      'suite/../sb.litmus',
      './sb.litmus',
      'ts/suite.ts#nosuch',
      '../ts/suite.ts#mp-base',
      'linkdir/suite.ts#mp-base',
    ]) {
      const r = await showTest(path);
      expect(r.status, path).toBe(404);
      expect(r.body, path).not.toContain('secret');
    }
    for (const dir of ['..', '../suite.ts', 'linkdir/suite.ts']) expect((await showSuite(dir)).status, dir).toBe(404);
  });

  it('answers only requests addressed to its own host name (no DNS rebinding)', async () => {
    expect((await get('/api/list', { headers: { Host: 'attacker.example:80' } })).status).toBe(421);
    expect((await get('/api/list', { headers: { Host: `attacker.example:${port}` } })).status).toBe(421);
    expect((await get('/api/list', { headers: { Host: `localhost:${port}` } })).status).toBe(200);
    expect((await get('/api/list', { headers: { Host: `[::1]:${port}` } })).status).toBe(200);
  });

  it('runs a check only on a POST from its own page: a GET of one is 405, a foreign or absent Origin 403', async () => {
    for (const p of ['/api/check', '/api/test?path=sb.litmus', '/api/suite?dir=suite', '/api/verdicts?paths=sb.litmus', '/api/save']) {
      const r = await get(p);
      expect(r.status, p).toBe(405);
      expect(r.headers.allow).toBe('POST');
    }
    const before = snapshot(join(root, '..'));
    for (const origin of ['http://attacker.example', `http://localhost:${port + 1}`, 'null', `https://127.0.0.1:${port}`, undefined]) {
      const ask: Ask = origin === undefined ? { noOrigin: true } : { headers: { Origin: origin } };
      expect((await post('/api/check', { source: SB }, ask)).status, origin).toBe(403);
      expect((await showTest('sb.litmus', ask)).status, origin).toBe(403);
      expect((await post('/api/suite', { dir: 'suite' }, ask)).status, origin).toBe(403);
      expect((await post('/api/verdicts', { paths: 'sb.litmus' }, ask)).status, origin).toBe(403);
      expect((await post('/api/save', { path: 'sb.litmus', source: 'C pwned\n' }, ask)).status, origin).toBe(403);
    }
    expect(snapshot(join(root, '..'))).toBe(before);
    // Its own origin under another of its names.
    expect((await post('/api/check', { source: SB }, { headers: { Host: `localhost:${port}`, Origin: `http://localhost:${port}` } })).status).toBe(200);
  });

  it('shows a test: source, states, each witness as a picture with its trace', async () => {
    const r = JSON.parse((await showTest('sb.litmus')).body);
    expect(r.source).toBe(SB);
    expect(r.view.observation).toBe('Sometimes');
    expect(r.view.states).toHaveLength(4);
    expect(r.view.witnesses).toHaveLength(1);
    expect(r.view.witnesses[0].picture).toMatch(/^<svg /);
    expect(r.view.witnesses[0].trace).toMatch(/^Witness for 0:r0=0; 1:r0=0;/);
  });

  it('shows the forbidden candidate of a Never with its cycle', async () => {
    const r = JSON.parse((await showTest('mp.litmus')).body);
    expect(r.view.observation).toBe('Never');
    expect(r.view.forbidden.picture).toContain('happens-before: po-rel');
    expect(r.view.forbidden.trace).toContain('the happens-before cycle');
  });

  it('checks a suite: its rows and the verdict on the version under review', async () => {
    const r = JSON.parse((await showSuite('suite')).body);
    expect(r.rows.map((x: { test: string; verdict: string }) => `${x.test} ${x.verdict}`).sort()).toEqual(['a-new Never', 'a-old Sometimes']);
    expect(r.verdict).toContain('Version "new" (under review): the stale read is impossible');
  });

  it("gives the list's verdicts a batch at a time: only tests under the folder, at most 64 a request", async () => {
    const r = JSON.parse((await post('/api/verdicts', { paths: 'sb.litmus\nmp.litmus\nsuite/a-old.litmus\nlink.litmus\n../outside/secret.litmus\nnotes.txt' })).body);
    expect(r.rows).toEqual([
      { path: 'sb.litmus', verdict: 'Sometimes', expected: '' },
      { path: 'mp.litmus', verdict: 'Never', expected: 'Never', matches: true },
      { path: 'suite/a-old.litmus', verdict: 'Sometimes', expected: '' },
      { path: 'link.litmus', verdict: 'error', expected: '', matches: false },
      { path: '../outside/secret.litmus', verdict: 'error', expected: '', matches: false },
      { path: 'notes.txt', verdict: 'error', expected: '', matches: false },
    ]);
    expect(JSON.stringify(r)).not.toContain('secret\n');
    const many = Array.from({ length: 65 }, () => 'sb.litmus').join('\n');
    expect((await post('/api/verdicts', { paths: many })).status).toBe(413);
    expect((await post('/api/verdicts', { paths: 7 })).body).toBe('no "paths"\n');
  });

  it('checks a TypeScript suite: its grid rows and the verdict on the version under review', async () => {
    const r = JSON.parse((await showSuite('ts/suite.ts')).body);
    expect(r.title).toBe('MP as TypeScript');
    expect(r.rows.map((x: { test: string; version: string; scenario: string; verdict: string }) => `${x.test} ${x.version} ${x.scenario} ${x.verdict}`)).toEqual([
      'mp-base base mp Sometimes',
      'mp-fixed fixed mp Never',
    ]);
    expect(r.verdict).toBe('Version "fixed" (under review): a stale read is impossible in the one scenario checked.');
  });

  it('shows a test of a TypeScript suite as the C it is inlined into, read-only, with its pictures', async () => {
    const r = JSON.parse((await showTest('ts/suite.ts#mp-base')).body);
    expect(r.readOnly).toBe(true);
    expect(r.source).toMatch(/^C mp-base\n/);
    expect(r.source).toContain(' * Version: base\n * Scenario: mp: the reader sees the flag but not the data');
    expect(r.source).toContain('WRITE_ONCE(*data, 1);');
    expect(r.view.observation).toBe('Sometimes');
    expect(r.view.witnesses[0].picture).toMatch(/^<svg /);
  });

  it('writes nothing while browsing and checking; saves only .litmus files inside its folder, never through a link', async () => {
    const before = snapshot(join(root, '..'));
    await showTest('sb.litmus');
    await post('/api/check', { source: SB.replace('C SB', 'C SB2') });
    await showSuite('ts/suite.ts');
    const refusals: [string, number, RegExp][] = [
      ['../outside/new.litmus', 404, /only a \.litmus file under the folder/],
      ['/tmp/new.litmus', 404, /only a \.litmus file/],
      ['linkdir/secret.litmus', 404, /only a \.litmus file under the folder/],
      ['sb.txt', 404, /only a \.litmus file/],
      ['notes.txt', 404, /only a \.litmus file/],
      ['nofolder/x.litmus', 404, /no such folder/],
      ['suite/../sb.litmus', 404, /only a \.litmus file/],
      ['ts/suite.ts', 404, /only a \.litmus file/],
      ['ts/suite.ts#mp-base', 404, /only a \.litmus file/],
      // Symlinks, to a file outside, to a non-test, to a test inside, to nothing yet: never written through.
      ['link.litmus', 403, /symbolic link/],
      ['key.litmus', 403, /symbolic link/],
      ['notes.litmus', 403, /symbolic link/],
      ['alias.litmus', 403, /symbolic link/],
      ['dangling.litmus', 403, /symbolic link/],
      ['zero.litmus', 403, /symbolic link/],
      ['fifo.litmus', 403, /not a regular file/],
      // A hard link: the key outside has another name in the folder.
      ['hardkey.litmus', 403, /hard link/],
    ];
    for (const [path, status, why] of refusals) {
      const r = await post('/api/save', { path, source: 'C pwned\n' });
      expect(r.status, path).toBe(status);
      expect(r.body, path).toMatch(why);
      expect(r.body, path).not.toContain(root);
    }
    expect(snapshot(join(root, '..'))).toBe(before);
    expect(readFileSync(join(outside, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY secret\n');
    const edited = SB.replace('C SB', 'C SB-edited');
    expect((await post('/api/save', { path: 'sb.litmus', source: edited })).status).toBe(200);
    expect(readFileSync(join(root, 'sb.litmus'), 'utf8')).toBe(edited);
    expect((await post('/api/save', { path: 'suite/new.litmus', source: edited })).status).toBe(200);
    expect(readFileSync(join(root, 'suite', 'new.litmus'), 'utf8')).toBe(edited);
    // Shorter than what it replaces: nothing of the old text is left.
    expect((await post('/api/save', { path: 'sb.litmus', source: 'C x\n' })).status).toBe(200);
    expect(readFileSync(join(root, 'sb.litmus'), 'utf8')).toBe('C x\n');
    writeFileSync(join(root, 'sb.litmus'), SB);
    rmSync(join(root, 'suite', 'new.litmus'));
  });

  it('answers a body that is not a JSON object with 400 and says what to send', async () => {
    for (const body of ['null', '[]', '"sb.litmus"', '42', 'true']) {
      for (const p of ['/api/check', '/api/save', '/api/test', '/api/suite', '/api/verdicts']) {
        const r = await raw('POST', p, body);
        expect(r.status, `${p} ${body}`).toBe(400);
        expect(r.body).toMatch(/^send a JSON object \("/);
      }
    }
    expect((await post('/api/save', { path: 'sb.litmus', source: 7 })).body).toBe('no "source"\n');
    expect((await post('/api/save', { source: SB })).body).toBe('no "path" to save to\n');
  });

  it('refuses a name too long with 400, and no answer names the folder\'s absolute path', async () => {
    for (const path of [`${'a'.repeat(300)}.litmus`, `suite/${'b'.repeat(256)}.litmus`, `${'c/'.repeat(600)}x.litmus`]) {
      const r = await post('/api/save', { path, source: SB });
      expect(r.status).toBe(400);
      expect(r.body).toMatch(/name too long/);
      expect(r.body).not.toContain(root);
      expect(r.body).not.toContain(tmpdir());
      const shown = await showTest(path);
      expect(shown.status).toBe(404);
      expect(shown.body).not.toContain(tmpdir());
    }
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
    expect((await raw('POST', '/api/check', 'source=1', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
  });

  it('stops a runaway test at the --timeout and stays responsive meanwhile', async () => {
    const t0 = Date.now();
    const slow = post('/api/check', { source: runaway() });
    // While it runs, the server answers other requests at once.
    const list = await get('/api/list');
    expect(list.status).toBe(200);
    const r = JSON.parse((await slow).body);
    expect(r.view.error).toBe('edited test: limit: the search stopped after 300 ms (--timeout)');
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});

describe('litmus serve: listening on every address', () => {
  let any: Served;
  beforeAll(async () => {
    any = await serve([root, '--host', '0.0.0.0', '--port', '0', '--allow-host', 'litmus.example']);
  });
  afterAll(() => any?.proc.kill('SIGTERM'));

  it('still answers only its own names, its addresses and those allowed (no DNS rebinding)', async () => {
    const to = { port: any.port, token: any.token };
    expect(new URL(any.base).hostname).toBe('127.0.0.1');
    for (const host of ['attacker.example', '0.0.0.0', 'litmus.example.attacker.example', 'localhost.attacker.example']) {
      expect((await get('/api/list', { to, headers: { Host: `${host}:${any.port}` } })).status, host).toBe(421);
      // Reads, checks and saves alike.
      expect((await post('/api/save', { path: 'sb.litmus', source: 'C pwned\n' }, { to, headers: { Host: `${host}:${any.port}`, Origin: `http://${host}:${any.port}` } })).status, host).toBe(421);
    }
    expect((await get('/api/list', { to, headers: { Host: `localhost:${any.port + 1}` } })).status).toBe(421);
    for (const host of ['127.0.0.1', 'localhost', 'LOCALHOST', 'litmus.example']) {
      expect((await get('/api/list', { to, headers: { Host: `${host}:${any.port}` } })).status, host).toBe(200);
    }
    expect(readFileSync(join(root, 'sb.litmus'), 'utf8')).toBe(SB);
  });
});

describe('litmus serve: listening on another loopback address', () => {
  let other: Served;
  beforeAll(async () => {
    other = await serve([root, '--host', '127.0.0.2', '--port', '0']);
  });
  afterAll(() => other?.proc.kill('SIGTERM'));

  it('answers that address and the loopback names, nothing else', async () => {
    const to = { port: other.port, token: other.token, address: '127.0.0.2' };
    expect(new URL(other.base).hostname).toBe('127.0.0.2');
    for (const host of ['attacker.example', '127.0.0.3', '0.0.0.0']) {
      expect((await get('/api/list', { to, headers: { Host: `${host}:${other.port}` } })).status, host).toBe(421);
    }
    for (const host of ['127.0.0.2', '127.0.0.1', 'localhost']) {
      expect((await get('/api/list', { to, headers: { Host: `${host}:${other.port}` } })).status, host).toBe(200);
    }
  });
});

describe('litmus serve: work that is abandoned, too much, or never ends', () => {
  let slow: Served;
  let tmp: string;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'litmus-serve-slow-'));
    writeFileSync(join(tmp, 'sb.litmus'), SB);
    // A check here runs for ten minutes unless its client's going away ends it.
    slow = await serve([tmp, '--port', '0', '--timeout', '600000']);
  });
  afterAll(() => {
    slow?.proc.kill('SIGTERM');
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('drops a check whose client hung up, running or queued: the next check is answered', async () => {
    const to = { port: slow.port, token: slow.token };
    // Both threads busy and one more waiting, for ten minutes each.
    const hung = [0, 1, 2].map(() => hangingCheck(runaway(), to));
    await waitForStatus(to, (s) => s.running === 2 && s.queued === 1);
    for (const h of hung) h.hangUp();
    expect(await waitForStatus(to, (s) => s.running === 0 && s.queued === 0)).toEqual({ threads: 2, running: 0, queued: 0, maxQueue: 64 });
    const r = JSON.parse((await showTest('sb.litmus', { to })).body);
    expect(r.view.observation).toBe('Sometimes');
  });

  it('stops on SIGTERM, with checks running', async () => {
    const p = await serve([tmp, '--port', '0', '--timeout', '600000']);
    hangingCheck(runaway(), p);
    await waitForStatus(p, (s) => s.running === 1);
    p.proc.kill('SIGTERM');
    expect(await exited(p.proc)).toBe(0);
  });

  it('stops on SIGINT, while a suite whose inlining grows exponentially is being read', async () => {
    const dir = join(tmp, 'exp');
    exponentialSuite(dir);
    const p = await serve([dir, '--port', '0']);
    const list = get('/api/list', { to: p }).catch(() => undefined);
    await waitForStatus(p, (s) => s.running === 1);
    // The server's own thread is free meanwhile: it answers at once.
    expect((await get('/static/app.css', { to: p })).status).toBe(200);
    p.proc.kill('SIGINT');
    expect(await exited(p.proc)).toBe(0);
    await list;
  });

  it.each(['3000000000', '0'])('refuses --timeout %s as check does (one rule: 1 to 2^31-1 ms, what a timer can wait; no "no limit"), with a message', async (value) => {
    const p = spawn(process.execPath, [CLI, 'serve', tmp, '--port', '0', '--timeout', value], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    expect(await exited(p)).toBe(2);
    expect(err).toContain(`--timeout takes a whole number of milliseconds from 1 to 2147483647, not "${value}"`);
  });
});

describe('litmus serve: the bundled suites', () => {
  it('are listed with their tests when the bundled folder is served', async () => {
    const { listing } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'server.js')).href)) as typeof import('../src/serve/server.js');
    const { Checker } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'checker.js')).href)) as typeof import('../src/serve/checker.js');
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 } });
    try {
      const l = await listing(join(ROOT, 'litmus'), checker);
      if (l === 'busy') throw new Error('busy');
      const nfs = l.suites.find((x) => x.dir === 'clear_invalid_mapping/suite.ts');
      expect(nfs?.title).toBe('nfs_clear_invalid_mapping: can the lockless fast path skip a required invalidation?');
      expect(nfs?.tests).toHaveLength(28);
      expect(nfs?.tests[0]).toEqual({ path: 'clear_invalid_mapping/suite.ts#s1-publish-pre', name: 's1-publish-pre', meta: { version: 'pre', scenario: 's1-publish' } });
      expect(l.suites.map((x) => x.dir).sort()).toEqual(['clear_invalid_mapping/suite.ts', 'nfsd_io_stats/suite.ts', 'sb_iostats/suite.ts']);
      expect(l.tests.filter((t) => t.path.startsWith('sb_iostats/suite.ts#irq-same-cpu-raw-')).map((t) => t.meta?.scenario)).toEqual([
        'irq-same-cpu (interrupt before)', 'irq-same-cpu (interrupt at irq_window 1)', 'irq-same-cpu (interrupt after)',
      ]);
    } finally {
      await checker.close();
    }
  });
});

describe('litmus serve: the checking threads', () => {
  const load = async () => (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'checker.js')).href)) as typeof import('../src/serve/checker.js');

  it('end a check that outlives the limits and answer for it, then check again', async () => {
    const { Checker } = await load();
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 1 }, threads: 1, graceMs: 0 });
    try {
      const stopped = await checker.check(runaway(), 'big.litmus', true);
      expect(stopped?.error).toMatch(/^big\.litmus: (stopped after 1 ms|limit: .* stopped after 1 ms)/);
      // A fresh thread takes the next check.
      const next = await checker.check(SB, 'sb.litmus', false);
      expect(next?.error ?? next?.observation).toMatch(/Sometimes|stopped after 1 ms/);
    } finally {
      await checker.close();
    }
  });

  it('read a suite in a thread, under the same limits: one that cannot be lowered in time is stopped and says so', async () => {
    const { Checker } = await load();
    const dir = mkdtempSync(join(tmpdir(), 'litmus-serve-exp-'));
    exponentialSuite(dir);
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 1 }, threads: 1, graceMs: 0 });
    try {
      const read = await checker.lower(dir, join(dir, 'suite.ts'), 'exp/suite.ts');
      expect(read).toEqual({ dir: 'exp/suite.ts', title: 'exp/suite.ts', tests: [], texts: [], config: {}, error: 'exp/suite.ts: reading the suite stopped after 1 ms (--timeout 1)' });
      expect((await checker.check(SB, 'sb.litmus', false))?.error).toMatch(/^sb\.litmus: (exploration )?stopped after 1 ms/);
    } finally {
      await checker.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('say where a suite cannot be read relative to the folder served, never by its absolute path', async () => {
    const { Checker } = await load();
    const dir = mkdtempSync(join(tmpdir(), 'litmus-serve-bad-'));
    mkdirSync(join(dir, 'ts'));
    for (const [name, text] of Object.entries(TS_SUITE)) writeFileSync(join(dir, 'ts', name), text);
    writeFileSync(join(dir, 'ts', 'fixed.ts'), TS_SUITE['fixed.ts'].replace('smp_store_release(s.data, 1);', 'smp_store_release(s.data, Math.random());'));
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 }, threads: 1 });
    try {
      const read = await checker.lower(dir, join(dir, 'ts', 'suite.ts'), 'ts/suite.ts');
      expect(read?.tests.map((t) => t.name)).toEqual(['mp-base']);
      expect(read?.error).toMatch(/^ts\/fixed\.ts:\d+:\d+: /);
      expect(read?.error).not.toContain(dir);
    } finally {
      await checker.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('end a check whose heap outgrows its bound, say so, and check again', async () => {
    const { Checker } = await load();
    // Within the counts src/limits.ts allows (1,000 primitive calls), past 16 MB in the write analysis.
    const n = 900;
    const wide = `C wide\n{ ${Array.from({ length: n }, (_, i) => `x${i}=0;`).join(' ')} }\nP0(${Array.from({ length: n }, (_, i) => `int *x${i}`).join(', ')})\n{\n${Array.from({ length: n }, (_, i) => `\tWRITE_ONCE(*x${i}, 1);`).join('\n')}\n}\nexists (x0=1)\n`;
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 }, threads: 1, memoryMb: 16 });
    try {
      expect((await checker.check(wide, 'wide.litmus', true))?.error).toBe('wide.litmus: stopped: it needs more than 16 MB of memory');
      expect((await checker.check(SB, 'sb.litmus', true))?.observation).toBe('Sometimes');
    } finally {
      await checker.close();
    }
  });

  it('stop at --max-executions, as check does', async () => {
    const { Checker } = await load();
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 2, timeoutMs: 60_000 }, threads: 1 });
    try {
      expect((await checker.check(SB, 'sb.litmus', true))?.error).toBe('sb.litmus: more than 2 candidate executions (--max-executions)');
    } finally {
      await checker.close();
    }
  });

  it('refuse a check when the queue is full, and take the next from the request that has had the fewest', async () => {
    const { Checker } = await load();
    const checker = new Checker({ limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 }, threads: 1, maxQueue: 3 });
    try {
      const grid = {};
      const one = {};
      const done: string[] = [];
      const ask = (name: string, owner: object) => checker.check(SB, name, false, undefined, owner)?.then(() => done.push(name));
      // The grid's first check runs; its next two wait, then one test's check comes.
      const all = [ask('grid-1', grid), ask('grid-2', grid), ask('grid-3', grid), ask('one', one)];
      expect(checker.check(SB, 'too many', false)).toBeUndefined();
      await Promise.all(all);
      expect(done).toEqual(['grid-1', 'one', 'grid-2', 'grid-3']);
    } finally {
      await checker.close();
    }
  });
});

describe('litmus serve: bounded connections and queue', () => {
  it('keeps room for a request that carries the token: past its cap, the oldest connection that has not shown it is closed', async () => {
    const { startServer } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'server.js')).href)) as typeof import('../src/serve/server.js');
    const s = await startServer({ root, port: 0, limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 }, maxConnections: 2, threads: 1 });
    const idle = [connect(s.port, '127.0.0.1'), connect(s.port, '127.0.0.1')];
    try {
      const closed = idle.map((c) => new Promise<void>((r) => c.once('close', () => r())));
      for (const c of idle) c.on('error', () => {});
      await Promise.all(idle.map((c) => new Promise((r) => c.once('connect', r))));
      await waitFor(async () => (await new Promise<number>((r) => s.server.getConnections((_e, n) => r(n)))) === 2);
      expect((await get('/api/status', { to: s })).status).toBe(200);
      // The oldest idle connection made the room.
      await closed[0];
      expect(idle[1].destroyed).toBe(false);
    } finally {
      for (const c of idle) c.destroy();
      await s.close();
    }
  });

  it('80 connections trickling header lines do not lock the page out; each is closed at the header deadline', async () => {
    const { startServer } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'server.js')).href)) as typeof import('../src/serve/server.js');
    const s = await startServer({ root, port: 0, limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 }, threads: 1, headersTimeoutMs: 1000 });
    const trickles = Array.from({ length: 80 }, () => {
      const c = connect(s.port, '127.0.0.1');
      c.on('error', () => {});
      const closed = new Promise<void>((r) => c.once('close', () => r()));
      c.once('connect', () => c.write(`GET /api/list HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n`));
      const timer = setInterval(() => c.writable && c.write('X-Slow: 1\r\n'), 100);
      return { c, closed, timer };
    });
    try {
      await Promise.all(trickles.map((t) => new Promise((r) => (t.c.readyState === 'open' ? r(0) : t.c.once('connect', r)))));
      for (let i = 0; i < 3; i++) expect((await get('/api/status', { to: s })).status).toBe(200);
      // The header deadline (1 s here, 5 s by default) closes every trickle, however long it keeps sending.
      await Promise.all(trickles.map((t) => t.closed));
    } finally {
      for (const t of trickles) {
        clearInterval(t.timer);
        t.c.destroy();
      }
      await s.close();
    }
  });

  it('lists the folder in a checking thread (the server answers meanwhile), and a list cut at its bound says so', async () => {
    const { startServer } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'server.js')).href)) as typeof import('../src/serve/server.js');
    const s = await startServer({ root, port: 0, limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 600_000 }, threads: 1, walkBounds: { files: 2, entries: 200_000, ms: 5000 } });
    try {
      const hung = hangingCheck(runaway(), s);
      await waitForStatus(s, (x) => x.running === 1);
      const list = get('/api/list', { to: s });
      // The listing waits for a checking thread; the server's own thread answers.
      await waitForStatus(s, (x) => x.queued === 1);
      hung.hangUp();
      const l = JSON.parse((await list).body) as { tests: unknown[]; truncated?: string };
      expect(l.tests).toHaveLength(2);
      expect(l.truncated).toBe('only the first 2 tests and suites are listed');
    } finally {
      await s.close();
    }
  });

  it('lists a folder of more suites than the queue holds: they are read a thread at a time', async () => {
    const { startServer } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'server.js')).href)) as typeof import('../src/serve/server.js');
    const many = mkdtempSync(join(tmpdir(), 'litmus-serve-many-'));
    for (const d of ['s1', 's2', 's3']) {
      mkdirSync(join(many, d));
      for (const [name, text] of Object.entries(TS_SUITE)) writeFileSync(join(many, d, name), text);
    }
    const s = await startServer({ root: many, port: 0, limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 }, maxQueue: 1, threads: 1 });
    try {
      const r = await get('/api/list', { to: s });
      expect(r.status).toBe(200);
      expect((JSON.parse(r.body) as { suites: { dir: string }[] }).suites.map((x) => x.dir)).toEqual(['s1/suite.ts', 's2/suite.ts', 's3/suite.ts']);
    } finally {
      await s.close();
      rmSync(many, { recursive: true, force: true });
    }
  });

  it('answers 503 with Retry-After when the queue is full', async () => {
    const { startServer } = (await import(pathToFileURL(join(ROOT, 'dist', 'src', 'serve', 'server.js')).href)) as typeof import('../src/serve/server.js');
    const s = await startServer({ root, port: 0, limits: { model: 'lkmm', maxExecutions: 1_000_000, timeoutMs: 60_000 }, maxQueue: 0, threads: 1 });
    try {
      const r = await post('/api/check', { source: SB }, { to: s });
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.body).toBe('too many checks waiting; try again in 5 s\n');
    } finally {
      await s.close();
    }
  });
});
