// What every bench section shares: the command line's options, the
// formatting of figures and tables, and measuring a function in this process.

import os from 'node:os';
import { LimitError, LitmusError } from '../src/parse/errors.js';
import { FAMILIES } from './families.js';

export interface BenchOptions {
  /** The sections to run (names of SECTIONS), or null for all of them. */
  only: string[] | null;
  families: string[] | null;
  minN: number | null;
  maxN: number;
  budgetS: number;
  /** Seconds of CPU before a run of the targets (litmus's or herd7's) is stopped. */
  timeoutS: number;
  /**
   * The checker's --timeout for one family size, wall-clock seconds: far
   * beyond the budget, so that a loaded machine does not stop a size that
   * needs less CPU than the budget (the budget, in CPU, stops a family).
   */
  familyTimeoutS: number;
  maxExecutions: number;
  /** The file the sections are written into (default bench/RESULTS.md), or null: print only. */
  out: string | null;
  herd: boolean;
  auto: boolean;
  autoTimeoutS: number;
  jobs: number;
  /** Seconds of CPU before a herd7 run of a family size is stopped (ulimit -t). */
  herdTimeoutS: number;
  /** Where the families section draws its curves (SVG), or null. */
  svg: string | null;
  /** Start-up: processes per loop, and loops (the best is kept). */
  startupN: number;
  startupRounds: number;
  /** The kernel's model files, for the compiled model (cat section). */
  lkmm: string;
  list: boolean;
}

export const USAGE =
  'usage: npm run bench -- [--only NAME[,NAME...]] [--list] [--out FILE | --print]\n' +
  '                        [--family NAME[,NAME...]] [--min-n N] [--max-n N] [--budget-s S] [--timeout-s S] [--family-timeout-s S]\n' +
  '                        [--max-executions N] [--no-herd] [--herd-timeout-s S] [--no-auto] [--auto-timeout-s S] [-j N]\n' +
  '                        [--svg FILE | --no-svg] [--startup-n N] [--startup-rounds N] [--lkmm DIR]';

export function usage(msg?: string): never {
  if (msg) console.error(`bench: ${msg}`);
  console.error(`${USAGE}\nfamilies: ${FAMILIES.map((f) => f.name).join(', ')}`);
  process.exit(msg ? 2 : 0);
}

export function defaultOptions(): BenchOptions {
  return {
    only: null,
    families: null,
    minN: null,
    maxN: 1000,
    budgetS: 10,
    timeoutS: 60,
    familyTimeoutS: 600,
    maxExecutions: 5_000_000,
    out: 'bench/RESULTS.md',
    herd: true,
    auto: true,
    autoTimeoutS: 10,
    jobs: os.availableParallelism(),
    herdTimeoutS: 20,
    svg: 'bench/scale.svg',
    startupN: 20,
    startupRounds: 5,
    lkmm: '../shared/lkmm',
    list: false,
  };
}

export function parseArgs(argv: string[], sectionNames: string[]): BenchOptions {
  const o = defaultOptions();
  const num = (flag: string, v: string | undefined): number => {
    const x = Number(v);
    if (v === undefined || !Number.isFinite(x) || x <= 0) usage(`${flag} needs a positive number`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const val = (): string | undefined => inline ?? argv[++i];
    const text = (what: string): string => val() ?? usage(`${flag} needs ${what}`);
    switch (flag) {
      case '--only':
        for (const name of text('a section name').split(',')) {
          if (!sectionNames.includes(name)) usage(`unknown section '${name}' (${sectionNames.join(', ')})`);
          (o.only ??= []).push(name);
        }
        break;
      case '--list':
        o.list = true;
        break;
      case '--family':
        for (const name of text('a family name').split(',')) {
          if (!FAMILIES.some((f) => f.name === name)) usage(`unknown family '${name}'`);
          (o.families ??= []).push(name);
        }
        break;
      case '--min-n':
        o.minN = Math.floor(num(flag, val()));
        break;
      case '--max-n':
        o.maxN = Math.floor(num(flag, val()));
        break;
      case '--budget-s':
        o.budgetS = num(flag, val());
        break;
      case '--timeout-s':
        o.timeoutS = num(flag, val());
        break;
      case '--family-timeout-s':
        o.familyTimeoutS = num(flag, val());
        break;
      case '--max-executions':
        o.maxExecutions = Math.floor(num(flag, val()));
        break;
      case '--no-herd':
        o.herd = false;
        break;
      case '--no-auto':
        o.auto = false;
        break;
      case '--auto-timeout-s':
        o.autoTimeoutS = num(flag, val());
        break;
      case '-j':
      case '--jobs':
        o.jobs = Math.floor(num(flag, val()));
        break;
      case '--herd-timeout-s':
        o.herdTimeoutS = num(flag, val());
        break;
      case '--svg':
        o.svg = text('a file name');
        break;
      case '--no-svg':
        o.svg = null;
        break;
      case '--out':
        o.out = text('a file name');
        break;
      case '--print':
        o.out = null;
        break;
      case '--startup-n':
        o.startupN = Math.floor(num(flag, val()));
        break;
      case '--startup-rounds':
        o.startupRounds = Math.floor(num(flag, val()));
        break;
      case '--lkmm':
        o.lkmm = text('a folder');
        break;
      case '-h':
      case '--help':
        usage();
      default:
        usage(`unknown argument '${a}'`);
    }
  }
  return o;
}

// ---------------------------------------------------------------- formatting

export const MB = 1024 * 1024;
export const fmtMs = (ms: number): string => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`);
export const fmtInt = (n: number): string => n.toLocaleString('en-US');
export const fmtRate = (count: number, ms: number): string => {
  if (!(ms > 0)) return '-';
  const r = (count * 1000) / ms;
  return r < 10 ? r.toFixed(2) : fmtInt(Math.round(r));
};
export const fmtMb = (b: number): string => `${(b / MB).toFixed(0)} MB`;
export const loadAverage = (): string => os.loadavg().map((x) => x.toFixed(1)).join(', ');

export function table(header: string[], rows: string[][], right: boolean[] = []): string {
  const sep = header.map((_, i) => (right[i] ? '---:' : '---'));
  return [header, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

export function errText(e: unknown): string {
  if (e instanceof LimitError) return e.message.startsWith('limit:') ? e.message : `limit: ${e.message}`;
  if (e instanceof LitmusError) return `litmus error: ${e.message}`;
  return `error: ${e instanceof Error ? e.message : String(e)}`;
}

// ---------------------------------------------------------------- measuring in this process

let peakRss = process.memoryUsage().rss;

export function sampleRss(): number {
  const rss = process.memoryUsage().rss;
  if (rss > peakRss) peakRss = rss;
  return rss;
}

export interface Measure {
  wallMs: number;
  cpuMs: number;
  /** max(rss before, rss after) of this measurement. */
  rss: number;
  /** The process high-water mark (resourceUsage().maxRSS) after this measurement, bytes. */
  maxRss: number;
}

export function measure<T>(fn: () => T): { value: T; m: Measure } | { error: unknown; m: Measure } {
  const before = sampleRss();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  let value: T | undefined;
  let error: unknown;
  let failed = false;
  try {
    value = fn();
  } catch (e) {
    error = e;
    failed = true;
  }
  const wallMs = performance.now() - w0;
  const c = process.cpuUsage(c0);
  const after = sampleRss();
  const m: Measure = {
    wallMs,
    cpuMs: (c.user + c.system) / 1000,
    rss: Math.max(before, after),
    maxRss: process.resourceUsage().maxRSS * 1024,
  };
  return failed ? { error, m } : { value: value as T, m };
}
