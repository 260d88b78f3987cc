// herd7's command line, as the kernel's tools/memory-model scripts and
// reviewers write it: single-dash options, each followed by its value
// (`-conf linux-kernel.cfg`, `-o DIR`, `-show prop`, `-speedcheck true`),
// and configuration files of `key value` lines. What litmus can honour is
// honoured; options that only style herd's Graphviz output are accepted and
// ignored (litmus draws its own picture); options that would change the
// answer in a way litmus cannot follow are refused, never silently dropped.

import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export type Speed = 'false' | 'true' | 'fast';

export interface HerdOptions {
  model: string;
  unroll?: number;
  speedcheck: Speed;
  /** Which executions -o pictures: none (herd's default: an empty file) or those satisfying the proposition. */
  show: 'none' | 'prop';
  outDir?: string;
  timeoutMs?: number;
  /** -exit true: stop at the first test that fails (exit 1). */
  exitIfFailed: boolean;
  /** Folders searched for -conf files (-I, -set-libdir). */
  includeDirs: string[];
  /** Notes for stderr (e.g. what -gv does here). */
  notes: string[];
  version?: boolean;
  help?: boolean;
}

export class HerdUsageError extends Error {}

/** Options that only style herd's Graphviz pictures; each takes one value. */
const PICTURE_OPTIONS = new Set([
  'graph', 'squished', 'showevents', 'movelabel', 'fontsize', 'xscale', 'yscale', 'arrowsize', 'showinitrf',
  'showfinalrf', 'showinitwrites', 'splines', 'pad', 'edgeattr', 'doshow', 'unshow', 'showpo', 'symetric', 'noid',
  'showraw', 'oneinit', 'showobserved', 'edgemerge', 'showlegend', 'showkind', 'shortlegend', 'labelinit',
  'showthread', 'fixedsize', 'extrachars', 'brackets', 'initrfpos', 'finalrfpos', 'initpos', 'margin', 'sep',
  'fontname', 'edgefontsizedelta', 'penwidth', 'overlap', 'dotmode', 'mono', 'scale', 'dsiy', 'siwidth', 'ptscale',
  'boxscale', 'shift', 'threadposy', 'relabel', 'cycles', 'classes', 'dotheader', 'dotcom', 'nshow', 'showone',
  'withbox', 'labelbox', 'texmacros', 'tikz', 'suffix',
]);

/** Options that tune herd's own search and change nothing in its answer; each takes one value. */
const NEUTRAL_OPTIONS = new Set(['optace', 'maxphantom', 'archcheck', 'machsize', 'endian', 'debug', 'initwrites']);

/** Options without a value that litmus can ignore. */
const NEUTRAL_FLAGS = new Set(['v', 'q', 'switch']);

const BUILTIN_MODELS: Record<string, string> = {
  'linux-kernel': 'lkmm',
  lkmm: 'lkmm',
  sc: 'sc',
  x86tso: 'x86-tso',
  'x86-tso': 'x86-tso',
  tso: 'x86-tso',
};

export function modelFor(name: string): string {
  const base = basename(name).replace(/\.cat$/, '');
  const m = BUILTIN_MODELS[base];
  if (!m) {
    throw new HerdUsageError(
      `model "${name}" is not supported: litmus has linux-kernel.cat (the LKMM), sc.cat and x86tso.cat built in, and does not read .cat files`,
    );
  }
  return m;
}

export function defaultHerdOptions(): HerdOptions {
  return { model: 'lkmm', speedcheck: 'false', show: 'none', exitIfFailed: false, includeDirs: [], notes: [] };
}

/** Parses herd7's arguments; returns the options and the test files. Throws HerdUsageError. */
export function parseHerdArgs(argv: string[]): { opts: HerdOptions; files: string[] } {
  const opts = defaultHerdOptions();
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-') || a === '-') {
      files.push(a);
      continue;
    }
    let key = a.replace(/^--?/, '');
    let inline: string | undefined;
    const eq = key.indexOf('=');
    if (eq > 0) {
      inline = key.slice(eq + 1);
      key = key.slice(0, eq);
    }
    const takesValue = !['gv', 'evince', 'version', 'help', ...NEUTRAL_FLAGS].includes(key);
    let value = '';
    if (takesValue) {
      if (inline !== undefined) value = inline;
      else if (i + 1 < argv.length) value = argv[++i];
      else throw new HerdUsageError(`option '-${key}' needs an argument.`);
    }
    applyOption(opts, key, value, 'command line');
  }
  return { opts, files };
}

function applyOption(opts: HerdOptions, key: string, value: string, where: string): void {
  const unsupported = (why: string) => new HerdUsageError(`-${key} ${value}: ${why}`);
  switch (key) {
    case 'conf':
      applyConf(opts, value);
      return;
    case 'model':
    case 'cat':
      opts.model = modelFor(value);
      return;
    case 'bell':
      if (basename(value) !== 'linux-kernel.bell') throw unsupported('only the LKMM\'s linux-kernel.bell is built in');
      return;
    case 'macros':
      if (basename(value) !== 'linux-kernel.def') throw unsupported('only the LKMM\'s linux-kernel.def is built in');
      return;
    case 'variant':
      if (value !== '' && value !== 'lkmmv2' && value !== 'lkmmv1') throw unsupported('variants other than the LKMM\'s are not supported');
      return;
    case 'unroll':
      opts.unroll = wholeNumber(key, value);
      return;
    case 'timeout': {
      const s = Number(value);
      if (!(s > 0)) throw new HerdUsageError(`-timeout takes a number of seconds, not "${value}"`);
      opts.timeoutMs = Math.ceil(s * 1000);
      return;
    }
    case 'speedcheck': {
      const v = value.toLowerCase();
      if (v !== 'false' && v !== 'true' && v !== 'fast') throw new HerdUsageError(`-speedcheck takes false, true or fast, not "${value}"`);
      opts.speedcheck = v;
      return;
    }
    case 'show': {
      const v = value.toLowerCase();
      if (v === 'none' || v === 'prop') opts.show = v;
      else throw unsupported('litmus pictures no execution (none) or one execution that satisfies the proposition (prop)');
      return;
    }
    case 'o':
      opts.outDir = value;
      return;
    case 'through':
      if (value.toLowerCase() !== 'none') throw unsupported('litmus keeps only the executions the model allows (-through none)');
      return;
    case 'exit':
      opts.exitIfFailed = value === 'true';
      return;
    case 'I':
    case 'set-libdir':
      opts.includeDirs.push(value);
      return;
    case 'gv':
    case 'evince':
      opts.notes.push(`-${key}: litmus starts no viewer; use -o DIR and open the .dot files there`);
      return;
    case 'view':
      opts.notes.push(`-view ${value}: litmus starts no viewer; use -o DIR and open the .dot files there`);
      return;
    case 'hexa':
      if (value !== 'false') throw unsupported('litmus prints numbers in decimal');
      return;
    case 'version':
      opts.version = true;
      return;
    case 'help':
      opts.help = true;
      return;
  }
  if (PICTURE_OPTIONS.has(key) || NEUTRAL_OPTIONS.has(key) || NEUTRAL_FLAGS.has(key)) return;
  throw new HerdUsageError(where === 'command line' ? `unknown option '-${key}'.` : `unknown key "${key}" in ${where}`);
}

function wholeNumber(key: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new HerdUsageError(`-${key} takes a whole number, not "${v}"`);
  return n;
}

/**
 * A configuration file: `key value` lines, `#` comments. Found as named, else
 * in the -I folders; `linux-kernel.cfg` is built in (the kernel's, whose
 * model is the LKMM) when no such file is at hand.
 */
function applyConf(opts: HerdOptions, name: string): void {
  const candidates = [name, ...opts.includeDirs.map((d) => join(d, name))];
  const file = candidates.find((f) => existsSync(f));
  if (!file) {
    if (basename(name) === 'linux-kernel.cfg') {
      opts.model = 'lkmm';
      return;
    }
    throw new HerdUsageError(`cannot find the configuration file "${name}"`);
  }
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    const m = /^(\S+)\s*(.*)$/.exec(line)!;
    applyOption(opts, m[1], m[2].trim(), file);
  }
}
