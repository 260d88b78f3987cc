// `litmus serve` end to end in a real headless browser: Playwright driving
// Debian's chromium (never a downloaded browser). Skipped, with a message,
// where /usr/bin/chromium is absent (.ci/run installs it).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { CLI } from './util.js';
import { MP_REL_ACQ, SHAPES } from './shapes.js';
import { litmus } from './util.js';
import { COLORS } from '../src/report/svg.js';

const CHROMIUM = '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) console.warn(`browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

const sbShape = SHAPES.find((s) => s.name === 'SB+poonceonces')!;
const SB = litmus('SB', sbShape.procs, sbShape.cond);

let tmp: string;
let server: ChildProcess | undefined;
/** The address litmus serve printed, with its token. */
let base: string;
/** The server's origin (no token). */
let origin: string;
let context: BrowserContext | undefined;
let page: Page;
const requested: string[] = [];

/** Whether an RGB pixel is the rf colour, give or take anti-aliasing. */
function rfPixels(rgba: number[]): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(COLORS.rf.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if (Math.abs(rgba[i] - r) < 40 && Math.abs(rgba[i + 1] - g) < 40 && Math.abs(rgba[i + 2] - b) < 40) n++;
  }
  return n;
}

describe.skipIf(!haveBrowser)('litmus serve in a headless browser', () => {
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'litmus-browser-'));
    const root = join(tmp, 'tests');
    mkdirSync(root);
    writeFileSync(join(root, 'sb.litmus'), SB);
    writeFileSync(join(root, 'mp.litmus'), MP_REL_ACQ);
    // A suite folder: its grid's verdicts come from POSTs of the page.
    mkdirSync(join(root, 'grid'));
    const headed = (version: string, body: string) => body.replace('{', `(*\n * Version: ${version}\n * Scenario: mp: the stale read\n *)\n{`);
    writeFileSync(join(root, 'grid', 'a-new.litmus'), headed('new', MP_REL_ACQ));
    writeFileSync(join(root, 'grid', 'b-old.litmus'), headed('old', SB));
    writeFileSync(join(root, 'grid', 'suite.json'), JSON.stringify({ title: 'A grid', underReview: 'new', badOutcome: 'the stale read' }));
    server = spawn(process.execPath, [CLI, 'serve', root, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    base = await new Promise<string>((resolve, reject) => {
      let out = '';
      server!.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /http:\/\/\S+/.exec(out);
        if (m) resolve(m[0]);
      });
      server!.on('exit', (code) => reject(new Error(`litmus serve exited (${code})`)));
    });
    origin = new URL(base).origin;
    const { chromium } = await import('playwright-core');
    context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1400, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (r) => requested.push(r.url()));
  });

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('without the token, gets nothing but a 403', async () => {
    const r = await page.goto(`${origin}/`);
    expect(r?.status()).toBe(403);
    expect(await page.locator('body').textContent()).toContain('no or wrong token');
  });

  it('lists the tests, opens one, and draws its witness graph beside its trace', async () => {
    await page.goto(base);
    // The token is kept in a cookie and taken off the address bar.
    await page.waitForFunction(() => location.search === '');
    expect(page.url()).toBe(`${origin}/`);
    await page.getByRole('link', { name: 'sb.litmus' }).click();
    const svg = page.locator('#explained .picture svg').first();
    await svg.waitFor();
    expect(await page.locator('#verdict').textContent()).toContain('Sometimes');
    expect(await page.locator('#explained pre.trace').first().textContent()).toMatch(/^Witness for 0:r0=0; 1:r0=0;/);
    expect(await svg.locator('rect.event').count()).toBe(4);
    expect(await svg.locator('path.edge.rf').count()).toBe(2);
    expect(await svg.locator('path.cycle').count()).toBe(4);
    const box = await svg.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(200);
    // The screenshot of the graph has rf-red pixels: the arrows are drawn.
    const png = await svg.screenshot();
    const rgba = await page.evaluate(async (data: string) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0);
      return Array.from(g.getImageData(0, 0, c.width, c.height).data);
    }, png.toString('base64'));
    expect(rfPixels(rgba)).toBeGreaterThan(100);
    // The block is litmus's own output (in herd7's format), and the panel says so.
    const headings = await page.locator('#results h3').allTextContents();
    expect(headings).toContain("litmus's output, as herd7 prints it");
    expect(headings.join('|')).not.toContain("herd7's output");
  });

  it('shows each trace whole: no line is cut, whatever the width of the window', async () => {
    for (const width of [1400, 900, 600]) {
      await page.setViewportSize({ width, height: 1000 });
      const cut = await page.locator('#explained pre.trace').evaluateAll((pres) =>
        pres.filter((p) => p.scrollWidth > p.clientWidth + 1 || p.scrollHeight > p.clientHeight + 1).length,
      );
      expect(cut, `${width} px`).toBe(0);
      // Nothing of the page is cut either: no trace reaches past the window's right edge.
      const right = await page.locator('#explained pre.trace').evaluateAll((pres) => Math.max(...pres.map((p) => p.getBoundingClientRect().right)));
      expect(right, `${width} px`).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1400, height: 1000 });
  });

  it("fills a suite's grid with its verdicts and its closing line", async () => {
    await page.goto(`${origin}/`);
    const cells = page.locator('table.grid td a');
    await page.locator('section.suite p.note', { hasText: 'Version "new"' }).waitFor();
    // Versions in the order their tests are listed: new, old.
    expect(await cells.allTextContents()).toEqual(['Never', 'Sometimes']);
    // The version under review is marked, in its column's header and cells.
    expect(await page.locator('table.grid th.under-review').allTextContents()).toEqual(['new (under review)']);
    expect(await page.locator('table.grid td.under-review a').allTextContents()).toEqual(['Never']);
  });

  it("shows each test's verdict in the list (checked on the server, the grid's reused)", async () => {
    await page.goto(`${origin}/`);
    const mark = (path: string) => page.locator(`ul.tests span.verdict[data-path="${path}"]`);
    for (const [path, verdict] of [['sb.litmus', 'Sometimes'], ['mp.litmus', 'Never'], ['grid/a-new.litmus', 'Never'], ['grid/b-old.litmus', 'Sometimes']]) {
      await page.waitForFunction((p) => {
        const e = document.querySelector(`ul.tests span.verdict[data-path="${p}"]`);
        return e !== null && e.textContent !== '\u2026';
      }, path);
      expect(await mark(path).textContent(), path).toBe(verdict);
      expect(await mark(path).getAttribute('class'), path).toBe(`verdict ${verdict}`);
    }
  });

  it('re-checks an edited test: with smp_mb() on both sides, the forbidden candidate and its cycle', async () => {
    await page.goto(`${base}#test/sb.litmus`);
    const editor = page.locator('#editor');
    await editor.waitFor();
    const text = await editor.inputValue();
    await editor.fill(text.replace(/(WRITE_ONCE\(\*[xy], 1\);)/g, '$1\n\tsmp_mb();'));
    await page.locator('#check').click();
    await page.locator('#status', { hasText: 'checked the edited text' }).waitFor();
    expect(await page.locator('#verdict').textContent()).toContain('Never');
    const cycle = page.locator('#explained .picture svg path.cycle');
    expect(await cycle.count()).toBeGreaterThan(2);
    expect(await page.locator('#explained pre.trace').textContent()).toContain('forbidden by the "propagation" axiom');
  });

  it('keeps working from its cookie once the token is off the address bar', async () => {
    await page.goto(`${origin}/#test/mp.litmus`);
    await page.locator('#verdict').waitFor();
    expect(await page.locator('#verdict').textContent()).toContain('Never');
  });

  it('fetched nothing but from the server itself', () => {
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
  });
});
