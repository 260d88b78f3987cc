// `litmus serve`: a local page to explore a folder of tests (or a suite's
// scenario-by-version grid), each test's witnesses and forbidden candidate
// as pictures beside their traces, and an editor to change a test and check
// it again. node:http only; the page's HTML, CSS and JS are ours (page.ts),
// nothing is fetched from elsewhere. Safe to leave running: it listens on
// 127.0.0.1 unless told otherwise, answers only requests addressed to the
// host it listens on, reads only files under its folder (paths.ts), writes
// only when the user saves a .litmus file there, bounds request bodies, and
// checks in worker threads under the CLI's limits (checker.ts).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { suiteConfig, suiteMeta, suiteVerdict, type SuiteConfig, type SuiteMeta, type SuiteRow } from '../report/suite.js';
import { Checker } from './checker.js';
import type { Limits } from './explain.js';
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from './page.js';
import { filesUnder, readablePath, writablePath } from './paths.js';
import { readServed, servedSuite, suiteTestPath, suiteTestText } from './suites.js';

export interface ServeOptions {
  /** The folder served (its real path is used). */
  root: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  limits: Limits;
  /** Largest request body accepted, in bytes (default 256 KiB). */
  maxBody?: number;
  /** A test to open first (relative to root). */
  open?: string;
  threads?: number;
  graceMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

const MAX_FILES = 20_000;

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const root = realpathSync(opts.root);
  const host = opts.host ?? '127.0.0.1';
  const maxBody = opts.maxBody ?? 256 * 1024;
  const checker = new Checker({ limits: opts.limits, threads: opts.threads, graceMs: opts.graceMs });
  let port = opts.port ?? 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => send(res, 500, 'text/plain', `internal error: ${e instanceof Error ? e.message : String(e)}`));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host, host, port)) return send(res, 421, 'text/plain', 'unexpected Host header\n');
    // The path as sent: URL parsing would resolve "..", and a request with ".." is refused, not resolved.
    const path = (req.url ?? '/').split('?')[0];
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET') {
      if (path === '/') return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML);
      if (path === '/static/app.js') return send(res, 200, 'text/javascript; charset=utf-8', PAGE_JS);
      if (path === '/static/app.css') return send(res, 200, 'text/css; charset=utf-8', PAGE_CSS);
      if (path === '/api/list') return json(res, 200, await listing(root, opts.open));
      if (path.startsWith('/files/')) {
        const file = readablePath(root, safeDecode(path.slice('/files/'.length)));
        if (!file) return notFound(res);
        return send(res, 200, 'text/plain; charset=utf-8', readFileSync(file));
      }
      if (path === '/api/test') {
        const rel = url.searchParams.get('path') ?? '';
        const inSuite = suiteTestPath(rel);
        if (inSuite) return suiteTest(res, rel, inSuite);
        const file = readablePath(root, rel);
        if (!file) return notFound(res);
        const source = readFileSync(file, 'utf8');
        const view = await checker.check(source, rel, true);
        if (!view) return busy(res);
        return json(res, 200, { path: rel, source, view });
      }
      if (path === '/api/suite') return suite(res, url.searchParams.get('dir') ?? '');
      return notFound(res);
    }
    if (req.method === 'POST' && (path === '/api/check' || path === '/api/save')) {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return send(res, 415, 'text/plain', 'send JSON\n');
      const body = await readBody(req, maxBody);
      if (body === undefined) {
        res.setHeader('Connection', 'close');
        return send(res, 413, 'text/plain', `request body larger than ${maxBody} bytes\n`);
      }
      let data: { source?: unknown; path?: unknown };
      try {
        data = JSON.parse(body) as typeof data;
      } catch {
        return send(res, 400, 'text/plain', 'not JSON\n');
      }
      if (typeof data.source !== 'string') return send(res, 400, 'text/plain', 'no "source"\n');
      if (path === '/api/check') {
        const view = await checker.check(data.source, typeof data.path === 'string' ? data.path : 'edited test', true);
        return view ? json(res, 200, { view }) : busy(res);
      }
      const target = typeof data.path === 'string' ? writablePath(root, data.path) : undefined;
      if (!target) return notFound(res);
      writeFileSync(target, data.source);
      return json(res, 200, { saved: data.path });
    }
    return send(res, 405, 'text/plain', 'method not allowed\n');
  }

  /** A test of a TypeScript suite: the C it is inlined into (read-only: it is written in the suite's modules). */
  async function suiteTest(res: ServerResponse, rel: string, at: { entry: string; name: string }): Promise<void> {
    const read = await readServed(root, at.entry);
    const t = read?.suite?.tests.find((x) => x.test.name === at.name);
    if (!t) return notFound(res);
    const source = suiteTestText(t);
    const view = await checker.check(source, rel, true);
    if (!view) return busy(res);
    return json(res, 200, { path: rel, source, view, readOnly: true });
  }

  async function suite(res: ServerResponse, dir: string): Promise<void> {
    const found = await suiteItems(dir);
    if (!found) return notFound(res);
    const { items, config } = found;
    // As many at a time as there are checking threads, in the suite's order.
    const rows: (SuiteRow & { path: string })[] = new Array(items.length);
    let next = 0;
    let refused = false;
    const lane = async () => {
      while (next < items.length && !refused) {
        const i = next++;
        const t = items[i];
        const text = t.text();
        const view = text !== undefined ? await checker.check(text, t.path, false) : { error: `${t.path}: gone` };
        if (!view) {
          refused = true;
          return;
        }
        rows[i] = {
          path: t.path,
          test: t.name,
          version: t.meta.version ?? '',
          scenario: t.meta.scenario ?? '',
          verdict: view.error ? 'error' : view.observation ?? '',
          expected: view.expected ?? '',
          matches: view.error ? false : view.matches,
        };
      }
    };
    await Promise.all(Array.from({ length: checker.threads }, lane));
    if (refused) return busy(res);
    return json(res, 200, { dir, title: found.title, rows, verdict: suiteVerdict(rows, config) ?? null });
  }

  /** A suite's tests with their texts: a TypeScript suite (dir is its suite.ts) or a folder of .litmus files. */
  async function suiteItems(dir: string): Promise<{ title: string; config: SuiteConfig; items: (TestEntry & { text: () => string | undefined })[] } | undefined> {
    if (dir === 'suite.ts' || dir.endsWith('/suite.ts')) {
      const read = await readServed(root, dir);
      if (!read?.suite) return undefined;
      const shown = servedSuite(dir, read);
      const byName = new Map(read.suite.tests.map((t) => [t.test.name, t]));
      return { title: shown.title, config: shown.config, items: shown.tests.map((t) => ({ ...t, text: () => suiteTestText(byName.get(t.name)!) })) };
    }
    const s = (await listing(root)).suites.find((x) => x.dir === dir);
    if (!s) return undefined;
    const items = s.tests.map((t) => ({ ...t, text: () => {
      const file = readablePath(root, t.path);
      return file ? readFileSync(file, 'utf8') : undefined;
    } }));
    return { title: s.title, config: suiteConfig(join(root, dir)), items };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    server,
    async close() {
      await checker.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface TestEntry {
  path: string;
  name: string;
  meta: SuiteMeta;
}

export interface Listing {
  root: string;
  open?: string;
  tests: { path: string; name: string; meta?: SuiteMeta }[];
  /** Folders of .litmus files with suite headers (dir: the folder), and TypeScript suites (dir: their suite.ts). */
  suites: { dir: string; title: string; tests: TestEntry[]; error?: string }[];
}

/**
 * The tests under root (symlinked folders are not entered), the folders that
 * are suites, and the TypeScript suites with their tests.
 */
export async function listing(root: string, open?: string): Promise<Listing> {
  const tests = filesUnder(root, MAX_FILES, (name) => name.endsWith('.litmus')).map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    return { path, name: basename(path, '.litmus'), meta: suiteMeta(text) };
  });
  const byDir = new Map<string, TestEntry[]>();
  for (const t of tests) {
    if (!t.meta) continue;
    const d = dirname(t.path);
    const dir = d === '.' ? '' : d;
    byDir.set(dir, [...(byDir.get(dir) ?? []), { path: t.path, name: t.name, meta: t.meta }]);
  }
  const suites: Listing['suites'] = [...byDir].map(([dir, ts]) => ({ dir, title: suiteConfig(join(root, dir)).title ?? (basename(join(root, dir)) || basename(root)), tests: ts }));
  for (const entry of filesUnder(root, MAX_FILES, (name) => name === 'suite.ts')) {
    const read = await readServed(root, entry);
    if (!read) continue;
    const { dir, title, tests: ts, error } = servedSuite(entry, read);
    suites.push({ dir, title, tests: ts, ...(error ? { error } : {}) });
    tests.push(...ts);
  }
  return { root: basename(root), open, tests, suites };
}

/** Only requests addressed to us: a page elsewhere cannot reach the server by rebinding a name to 127.0.0.1. */
function hostAllowed(header: string | undefined, host: string, port: number): boolean {
  if (!header) return false;
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  if (!loopback) return true;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(header.toLowerCase());
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return '';
  }
}

/** The body as text, or undefined once it passes `max` bytes (the rest is not read). */
function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > max) {
      req.resume();
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > max) {
        done = true;
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'Content-Type': type, ...SECURITY_HEADERS });
  res.end(body);
}

function json(res: ServerResponse, status: number, data: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(data));
}

function notFound(res: ServerResponse): void {
  send(res, 404, 'text/plain', 'not found\n');
}

function busy(res: ServerResponse): void {
  send(res, 503, 'text/plain', 'too many checks waiting; try again\n');
}
