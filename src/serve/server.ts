// `litmus serve`: a local page to explore a folder of tests (or a suite's
// scenario-by-version grid), each test's witnesses and forbidden candidate
// as pictures beside their traces, and an editor to change a test and check
// it again. node:http only; the page's HTML, CSS and JS are ours (page.ts),
// nothing is fetched from elsewhere.
//
// Who gets in: a request must carry the secret made at each start (the
// `?token=` of the printed address, kept by the page in an HttpOnly,
// SameSite=Strict cookie, or an X-Litmus-Token header), else 403; it must be
// addressed to this host (its Host one of the loopback names, the address
// listened on, or one given with --allow-host), else 421, whatever address
// the server listens on; a check or a save must be a POST from the page's
// own origin (Origin), else 403 (a GET of it: 405). What it serves: the page,
// the list of tests and suites, and each test's text and view; it reads only
// tests and suite entries (paths.ts) and writes only when the user saves a
// .litmus file there. Work is bounded: request bodies, connections, and the
// queue of checks (503 with Retry-After when full); checks and suite
// readings run in worker threads under the CLI's limits (checker.ts) and are
// dropped when their client goes away.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIPv6, type AddressInfo, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { suiteConfig, suiteVerdict, type SuiteConfig, type SuiteMeta, type SuiteRow } from '../report/suite.js';
import { Checker } from './checker.js';
import type { Limits } from './explain.js';
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from './page.js';
import { MAX_READ_BYTES, readablePath, readTest, saveTest, scrubPaths, type FolderListing, type WALK_BOUNDS } from './paths.js';
import { listed, suiteTestPath, type LoweredSuite, type ServedSuite, type ServedTest } from './suites.js';

export interface ServeOptions {
  /** The folder served (its real path is used). */
  root: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  limits: Limits;
  /** Host names (or addresses) accepted besides the loopback ones and the address listened on. */
  allowHosts?: string[];
  /** Largest request body accepted, in bytes (default 256 KiB). */
  maxBody?: number;
  /**
   * Connections that have not yet shown the token (default 64): past it, the
   * oldest such connection is closed to make room, so that a flood of
   * connections never locks out a request that carries the token. Connections
   * that showed it have room of their own (three times as many).
   */
  maxConnections?: number;
  /** How long a request's headers may take to arrive, in ms (default 5,000): a connection trickling them is closed. */
  headersTimeoutMs?: number;
  /** How far the listing of the folder goes (default paths.ts WALK_BOUNDS). */
  walkBounds?: typeof WALK_BOUNDS;
  /** Checks waiting beyond which new ones get 503 (default 64). */
  maxQueue?: number;
  /** A test to open first (relative to root). */
  open?: string;
  threads?: number;
  graceMs?: number;
}

export interface RunningServer {
  /** The address to open, with its token. */
  url: string;
  /** The address without the token. */
  origin: string;
  token: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** What a 503 asks a client to wait before trying again, in seconds. */
export const RETRY_AFTER_S = 5;
const TOKEN_HEADER = 'x-litmus-token';

/** One request's context: who asked (the queue is fair between requests) and whether its client is still there. */
interface Asker {
  signal: AbortSignal;
}

type Busy = 'busy';

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const root = realpathSync(opts.root);
  const host = opts.host ?? '127.0.0.1';
  const maxBody = opts.maxBody ?? 256 * 1024;
  const token = randomBytes(32).toString('base64url');
  const checker = new Checker({ limits: opts.limits, threads: opts.threads, graceMs: opts.graceMs, maxQueue: opts.maxQueue });
  const listings = new Listings(root, checker, opts.walkBounds);
  const hosts = acceptedHosts(host, opts.allowHosts ?? []);
  let port = opts.port ?? 0;
  const cookieName = () => `litmus-token-${port}`;
  const headersTimeout = opts.headersTimeoutMs ?? 5_000;
  // The header deadline is enforced when connections are checked: often enough that it is what it says.
  const server = createServer({ connectionsCheckingInterval: Math.max(50, Math.min(1000, headersTimeout / 4)) }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) res.destroy();
      else send(res, 500, 'text/plain', `internal error: ${scrubPaths(e instanceof Error ? e.message : String(e))} (please report it)\n`);
    });
  });
  const guard = new ConnectionGuard(opts.maxConnections ?? 64);
  server.maxConnections = guard.hardCap;
  server.on('connection', (socket) => guard.admit(socket));
  server.headersTimeout = headersTimeout;
  server.requestTimeout = 60_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host, hosts, port)) {
      return send(res, 421, 'text/plain', 'this server does not answer to that Host (litmus serve --allow-host NAME accepts a name)\n');
    }
    // The path as sent: URL parsing would resolve "..", and a request with ".." is refused, not resolved.
    const path = (req.url ?? '/').split('?')[0];
    const url = new URL(req.url ?? '/', 'http://localhost');
    const given = url.searchParams.get('token');
    const entering = req.method === 'GET' && path === '/' && given !== null && sameSecret(given, token);
    if (!entering && !sameSecret(tokenOf(req, cookieName()), token)) {
      return send(res, 403, 'text/plain', 'no or wrong token: open the address litmus serve printed (it ends in ?token=...)\n');
    }
    guard.trust(req.socket);
    const route = ROUTES[path];
    if (!route) return notFound(res);
    if (req.method !== route.method) {
      res.setHeader('Allow', route.method);
      return send(res, 405, 'text/plain', `${path} takes ${route.method} only\n`);
    }
    // Dropped when the client goes away before its answer.
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) gone.abort();
    });
    const asker: Asker = { signal: gone.signal };
    if (route.method === 'GET') {
      if (path === '/') {
        if (entering) res.setHeader('Set-Cookie', `${cookieName()}=${token}; HttpOnly; SameSite=Strict; Path=/`);
        return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML);
      }
      if (path === '/static/app.js') return send(res, 200, 'text/javascript; charset=utf-8', PAGE_JS);
      if (path === '/static/app.css') return send(res, 200, 'text/css; charset=utf-8', PAGE_CSS);
      if (path === '/api/status') return json(res, 200, checker.status());
      const l = await listing(root, checker, opts.open, asker, listings.get());
      return l === 'busy' ? busy(res) : json(res, 200, l);
    }
    if (req.headers.origin === undefined || req.headers.origin.toLowerCase() !== `http://${(req.headers.host ?? '').toLowerCase()}`) {
      return send(res, 403, 'text/plain', 'refused: a check or a save must come from the page itself (its Origin header is missing or another site\'s)\n');
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return send(res, 415, 'text/plain', 'send JSON\n');
    const body = await readBody(req, maxBody);
    if (body === undefined) {
      res.setHeader('Connection', 'close');
      return send(res, 413, 'text/plain', `request body larger than ${maxBody} bytes\n`);
    }
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch {
      return send(res, 400, 'text/plain', 'not JSON\n');
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return send(res, 400, 'text/plain', `send a JSON object (${route.fields})\n`);
    const field = (name: string) => {
      const v = (data as Record<string, unknown>)[name];
      return typeof v === 'string' ? v : undefined;
    };
    if (path === '/api/test') {
      const rel = field('path');
      return rel === undefined ? send(res, 400, 'text/plain', 'no "path"\n') : showTest(res, rel, asker);
    }
    if (path === '/api/suite') {
      const dir = field('dir');
      return dir === undefined ? send(res, 400, 'text/plain', 'no "dir"\n') : suite(res, dir, asker);
    }
    if (path === '/api/verdicts') {
      const paths = field('paths');
      return paths === undefined ? send(res, 400, 'text/plain', 'no "paths"\n') : verdicts(res, paths.split('\n').filter(Boolean), asker);
    }
    const source = field('source');
    if (source === undefined) return send(res, 400, 'text/plain', 'no "source"\n');
    if (path === '/api/check') {
      const view = await checker.check(source, field('path') ?? 'edited test', true, asker.signal, asker);
      return view ? json(res, 200, { view }) : busy(res);
    }
    const target = field('path');
    if (target === undefined) return send(res, 400, 'text/plain', 'no "path" to save to\n');
    const refused = saveTest(root, target, source);
    // A new test is listed at once.
    listings.forget();
    if (refused) return send(res, refused.status, 'text/plain', `${refused.message}\n`);
    return json(res, 200, { saved: target });
  }

  /** A test's text and view: a .litmus file, or a test of a TypeScript suite (read-only: it is written in the suite's modules). */
  async function showTest(res: ServerResponse, rel: string, asker: Asker): Promise<void> {
    const inSuite = suiteTestPath(rel);
    let source: string;
    if (inSuite) {
      const read = await servedSuite(root, checker, inSuite.entry, asker);
      if (read === 'busy') return busy(res);
      const i = read?.tests.findIndex((t) => t.name === inSuite.name) ?? -1;
      if (!read || i < 0) return notFound(res);
      source = read.texts[i];
    } else {
      const read = readTest(root, rel);
      if (!read) return notFound(res);
      if ('tooBig' in read) return send(res, 413, 'text/plain', `${rel}: larger than ${MAX_READ_BYTES} bytes\n`);
      source = read.text;
    }
    const view = await checker.check(source, rel, true, asker.signal, asker);
    if (!view) return busy(res);
    return json(res, 200, { path: rel, source, view, ...(inSuite ? { readOnly: true } : {}) });
  }

  async function suite(res: ServerResponse, dir: string, asker: Asker): Promise<void> {
    const found = await suiteItems(dir, asker);
    if (found === 'busy') return busy(res);
    if (!found) return notFound(res);
    const { items, config } = found;
    // As many at a time as there are checking threads, in the suite's order.
    const rows: (SuiteRow & { path: string })[] = new Array(items.length);
    let next = 0;
    let refused = false;
    const lane = async () => {
      while (next < items.length && !refused && !asker.signal.aborted) {
        const i = next++;
        const t = items[i];
        const text = t.text();
        const view = text !== undefined ? await checker.check(text, t.path, false, asker.signal, asker) : { error: `${t.path}: gone` };
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

  /**
   * The verdicts of some .litmus tests under the folder (the page's list asks
   * for them a batch at a time), checked as a suite's are: without pictures,
   * as many at a time as there are checking threads. A path that names no
   * test gets the verdict "error".
   */
  async function verdicts(res: ServerResponse, paths: string[], asker: Asker): Promise<void> {
    if (paths.length > MAX_VERDICTS) return send(res, 413, 'text/plain', `at most ${MAX_VERDICTS} paths at a time\n`);
    const rows: { path: string; verdict: string; expected: string; matches?: boolean }[] = new Array(paths.length);
    let next = 0;
    let refused = false;
    const lane = async () => {
      while (next < paths.length && !refused && !asker.signal.aborted) {
        const i = next++;
        const read = readTest(root, paths[i]);
        const view = read && 'text' in read ? await checker.check(read.text, paths[i], false, asker.signal, asker) : { error: `${paths[i]}: not a test here` };
        if (!view) {
          refused = true;
          return;
        }
        rows[i] = { path: paths[i], verdict: view.error ? 'error' : view.observation ?? '', expected: view.expected ?? '', matches: view.error ? false : view.matches };
      }
    };
    await Promise.all(Array.from({ length: checker.threads }, lane));
    if (refused) return busy(res);
    return json(res, 200, { rows });
  }

  /** A suite's tests with their texts: a TypeScript suite (dir is its suite.ts) or a folder of .litmus files. */
  async function suiteItems(dir: string, asker: Asker): Promise<{ title: string; config: SuiteConfig; items: (ServedTest & { text: () => string | undefined })[] } | undefined | Busy> {
    if (dir === 'suite.ts' || dir.endsWith('/suite.ts')) {
      const read = await servedSuite(root, checker, dir, asker);
      if (read === 'busy' || !read) return read;
      return { title: read.title, config: read.config, items: read.tests.map((t, i) => ({ ...t, text: () => read.texts[i] })) };
    }
    const folder = await listings.get();
    if (folder === 'busy') return 'busy';
    const s = folderSuites(root, folder.tests).find((x) => x.dir === dir);
    if (!s) return undefined;
    const items = s.tests.map((t) => ({ ...t, text: () => {
      const read = readTest(root, t.path);
      return read && 'text' in read ? read.text : undefined;
    } }));
    return { title: s.title, config: suiteConfig(join(root, dir)), items };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${shownHost(host)}:${port}/`;
  return {
    url: `${origin}?token=${token}`,
    origin,
    token,
    port,
    server,
    async close() {
      await checker.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The routes: each takes one method; a POST's body is a JSON object with these fields. */
const ROUTES: Record<string, { method: 'GET' | 'POST'; fields?: string }> = {
  '/': { method: 'GET' },
  '/static/app.js': { method: 'GET' },
  '/static/app.css': { method: 'GET' },
  '/api/list': { method: 'GET' },
  '/api/status': { method: 'GET' },
  '/api/test': { method: 'POST', fields: '"path"' },
  '/api/suite': { method: 'POST', fields: '"dir"' },
  '/api/verdicts': { method: 'POST', fields: '"paths", one per line' },
  '/api/check': { method: 'POST', fields: '"source", and "path" to name it' },
  '/api/save': { method: 'POST', fields: '"source" and "path"' },
};

export interface Listing {
  root: string;
  open?: string;
  tests: { path: string; name: string; meta?: SuiteMeta }[];
  /** Folders of .litmus files with suite headers (dir: the folder), and TypeScript suites (dir: their suite.ts), each with its version under review. */
  suites: (Omit<ServedSuite, 'config'> & { underReview?: string })[];
  /** Why not every test under the folder is listed (a bound of paths.ts WALK_BOUNDS), when one was reached. */
  truncated?: string;
}

/** How many tests one /api/verdicts request may name. */
const MAX_VERDICTS = 64;

/**
 * Who holds the server's connections. A connection that has not shown the
 * token (whose headers may still be trickling in) is "pending"; at most
 * `pending` of them are kept, the oldest closed when another comes, so
 * that 64 connections sending a header line now and then cannot lock out
 * the page (whose requests come whole, at once). A connection that has
 * shown the token is kept (up to three times as many more: hardCap).
 */
class ConnectionGuard {
  /** Pending connections, oldest first. */
  private readonly waiting = new Set<Socket>();
  private readonly trusted = new WeakSet<Socket>();

  constructor(private readonly pending: number) {}

  /** The most connections open at once (node's maxConnections: past it, new ones are refused). */
  get hardCap(): number {
    return this.pending * 4;
  }

  admit(socket: Socket): void {
    this.waiting.add(socket);
    socket.once('close', () => this.waiting.delete(socket));
    while (this.waiting.size > this.pending) {
      const oldest = this.waiting.values().next().value as Socket;
      this.waiting.delete(oldest);
      oldest.destroy();
    }
  }

  /** A connection whose request carried the token. */
  trust(socket: Socket): void {
    if (this.trusted.has(socket)) return;
    this.trusted.add(socket);
    this.waiting.delete(socket);
  }
}

/** How long a listing of the folder is kept: requests meanwhile share it (a save forgets it). */
const LISTING_TTL_MS = 5_000;

/**
 * The folder's listing (paths.ts listFolder), walked in a checking thread,
 * never on the server's: at most one walk at a time, its answer shared by
 * every request for LISTING_TTL_MS.
 */
class Listings {
  private last: { at: number; answer: Promise<FolderListing | Busy> } | undefined;

  constructor(
    private readonly root: string,
    private readonly checker: Checker,
    private readonly bounds?: typeof WALK_BOUNDS,
  ) {}

  get(): Promise<FolderListing | Busy> {
    if (this.last && Date.now() - this.last.at < LISTING_TTL_MS) return this.last.answer;
    const walking = this.checker.list(this.root, this.bounds);
    if (!walking) return Promise.resolve('busy');
    // Infinity while it runs: requests meanwhile wait for this walk, not another.
    const entry: { at: number; answer: Promise<FolderListing | Busy> } = { at: Infinity, answer: Promise.resolve('busy') };
    entry.answer = walking.then((l) => {
      entry.at = Date.now();
      return l;
    });
    this.last = entry;
    return entry.answer;
  }

  forget(): void {
    this.last = undefined;
  }
}

/** The folders whose tests carry suite headers. */
function folderSuites(root: string, tests: { path: string; name: string; meta?: SuiteMeta }[]): ServedSuite[] {
  const byDir = new Map<string, ServedTest[]>();
  for (const t of tests) {
    if (!t.meta) continue;
    const d = dirname(t.path);
    const dir = d === '.' ? '' : d;
    byDir.set(dir, [...(byDir.get(dir) ?? []), { path: t.path, name: t.name, meta: t.meta }]);
  }
  return [...byDir].map(([dir, ts]) => {
    const config = suiteConfig(join(root, dir));
    return { dir, title: config.title ?? (basename(join(root, dir)) || basename(root)), tests: ts, config };
  });
}

/** A TypeScript suite under root, read in a checking thread; undefined if `entry` names none there. */
async function servedSuite(root: string, checker: Checker, entry: string, asker: Asker): Promise<LoweredSuite | undefined | Busy> {
  const file = readablePath(root, entry, 'suite');
  if (!file) return undefined;
  return (await checker.lower(root, file, entry, asker.signal, asker)) ?? 'busy';
}

/**
 * The tests under root (symlinked folders are not entered), the folders that
 * are suites, and the TypeScript suites with their tests (each read in a
 * checking thread; one that cannot be read in time is listed with why).
 */
export async function listing(root: string, checker: Checker, open?: string, asker: Asker = { signal: new AbortController().signal }, walked?: Promise<FolderListing | Busy>): Promise<Listing | Busy> {
  const folder = await (walked ?? checker.list(root) ?? 'busy');
  if (folder === 'busy') return 'busy';
  const tests = [...folder.tests];
  const suites = folderSuites(root, tests);
  // As many at a time as there are checking threads: a folder of many suites does not fill the queue.
  const entries = folder.suites;
  const read: (LoweredSuite | undefined | Busy)[] = new Array(entries.length);
  let next = 0;
  const lane = async () => {
    while (next < entries.length && !read.includes('busy') && !asker.signal.aborted) {
      const i = next++;
      read[i] = await servedSuite(root, checker, entries[i], asker);
    }
  };
  await Promise.all(Array.from({ length: checker.threads }, lane));
  if (read.includes('busy')) return 'busy';
  for (const s of read) {
    if (!s || s === 'busy') continue;
    suites.push(listed(s));
    tests.push(...s.tests);
  }
  return {
    root: basename(root), open, tests, suites: suites.map(({ config, ...s }) => ({ ...s, underReview: config.underReview })),
    ...(folder.truncated ? { truncated: folder.truncated } : {}),
  };
}

/** Whether an address is "any": listening on it accepts connections to every address of the host. */
function isWildcard(host: string): boolean {
  return host === '' || host === '0.0.0.0' || (isIPv6(host) && /^[0:]+$/.test(host));
}

/** The host part of the printed address. */
function shownHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (isWildcard(host)) return '[::1]';
  return isIPv6(host) ? `[${host}]` : host;
}

/**
 * The names a request's Host may give: the loopback ones, the address
 * listened on (for "any", every address of the host's interfaces), and those
 * given with --allow-host. A page elsewhere that rebinds its own name to one
 * of our addresses still sends its own name, and is refused.
 */
function acceptedHosts(host: string, extra: string[]): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const add = (h: string) => names.add(isIPv6(h) ? `[${h.toLowerCase()}]` : h.toLowerCase());
  if (isWildcard(host)) {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) add(a.address);
  } else add(host);
  for (const h of extra) add(h.replace(/^\[(.*)\]$/, '$1'));
  return names;
}

function hostAllowed(header: string | undefined, names: Set<string>, port: number): boolean {
  if (!header) return false;
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/i.exec(header);
  if (!m) return false;
  const given = m[2] === undefined ? 80 : Number(m[2]);
  return given === port && names.has(m[1].toLowerCase());
}

/** The token a request carries: its X-Litmus-Token header, else its cookie. */
function tokenOf(req: IncomingMessage, cookie: string): string | undefined {
  const header = req.headers[TOKEN_HEADER];
  if (typeof header === 'string') return header;
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === cookie) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sameSecret(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
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
  res.setHeader('Retry-After', String(RETRY_AFTER_S));
  send(res, 503, 'text/plain', `too many checks waiting; try again in ${RETRY_AFTER_S} s\n`);
}
