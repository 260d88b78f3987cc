// herd7's command line, as the kernel's tools/memory-model scripts and
// reviewers write it: single-dash options, each followed by its value
// (`-conf linux-kernel.cfg`, `-o DIR`, `-show prop`, `-speedcheck true`),
// and configuration files of `key value` lines. What litmus can honour is
// honoured; options that only style herd's Graphviz output are accepted and
// ignored (litmus draws its own picture); options that would change the
// answer in a way litmus cannot follow are refused, never silently dropped.

import { basename, resolve } from 'node:path';
import { builtinModel, filesSpec, withMacros } from '../../models/index.js';
import { findIn, herdUnroll, readConf, type ConfSettings } from '../../models/cat/files.js';
import type { CatPos } from '../../models/cat/ast.js';
import { ModelError } from '../../models/cat/lexer.js';
import { OPTION_RULES, ruleText, wholeNumberIn } from '../limits.js';

export type Speed = 'false' | 'true' | 'fast';

export interface HerdOptions {
  /** The model spec (models/index.ts), settled once every option is read. */
  model: string;
  /** The model's files as the options name them, in the order given (a later option wins). */
  modelFiles: { cat?: string; bell?: string; macros?: string; variants: string[]; skipChecks: string[]; at?: { cat?: CatPos; bell?: CatPos; macros?: CatPos } };
  unroll?: number;
  speedcheck: Speed;
  /** Which executions -o pictures: none (herd's default: an empty file) or those satisfying the proposition. */
  show: 'none' | 'prop';
  /** -nshow N (-showone true: 1): stop a test once N executions are shown (with -show prop: N satisfying it). */
  nshow?: number;
  outDir?: string;
  timeoutMs?: number;
  /** -exit true: stop at the first test that fails (exit 1). */
  exitIfFailed: boolean;
  /** Folders searched for -conf and model files (-I). */
  includeDirs: string[];
  /** herd's library folders (-set-libdir), searched after them; its library files are litmus's own. */
  libraryDirs: string[];
  /** The .cfg files being read, innermost last (a file naming itself is refused). */
  confChain: string[];
  /** Notes for stderr (e.g. what -gv does here). */
  notes: string[];
  version?: boolean;
  help?: boolean;
}

/** A usage error; `pos` when it is a line of a configuration file. */
export class HerdUsageError extends Error {
  constructor(
    message: string,
    readonly pos?: CatPos,
  ) {
    super(message);
  }
}

/**
 * Judges a configuration file's lines other than the model's files
 * (litmus's own --conf reads only those): a line herd7 refuses (an unknown
 * key, a value out of its range) is an error at that line.
 */
export function checkConfLines(settings: ConfSettings): void {
  const scratch = defaultHerdOptions();
  for (const [key, value, pos] of settings.entries) {
    // Lines that name files or folders are herd7's search, not the model's: not followed here.
    if (['model', 'cat', 'bell', 'macros', 'variant', 'conf', 'I', 'set-libdir', 'o'].includes(key)) continue;
    try {
      applyOption(scratch, key, value, pos.file);
    } catch (e) {
      if (e instanceof HerdUsageError) throw new ModelError(e.message, pos);
      throw e;
    }
  }
}

/** Options that only style herd's Graphviz pictures; each takes one value. */
const PICTURE_OPTIONS = new Set([
  'graph', 'squished', 'showevents', 'movelabel', 'fontsize', 'xscale', 'yscale', 'arrowsize', 'showinitrf',
  'showfinalrf', 'showinitwrites', 'splines', 'pad', 'edgeattr', 'doshow', 'unshow', 'showpo', 'symetric', 'noid',
  'showraw', 'oneinit', 'showobserved', 'edgemerge', 'showlegend', 'showkind', 'shortlegend', 'labelinit',
  'showthread', 'fixedsize', 'extrachars', 'brackets', 'initrfpos', 'finalrfpos', 'initpos', 'margin', 'sep',
  'fontname', 'edgefontsizedelta', 'penwidth', 'overlap', 'dotmode', 'mono', 'scale', 'dsiy', 'siwidth', 'ptscale',
  'boxscale', 'shift', 'threadposy', 'relabel', 'cycles', 'classes', 'dotheader', 'dotcom',
  'withbox', 'labelbox', 'texmacros', 'tikz', 'suffix',
]);

/** Options that tune herd's own search and change nothing in its answer; each takes one value. */
const NEUTRAL_OPTIONS = new Set(['optace', 'maxphantom', 'archcheck', 'machsize', 'endian', 'debug', 'initwrites']);

/** Options without a value that litmus can ignore. */
const NEUTRAL_FLAGS = new Set(['v', 'q', 'switch']);

export function defaultHerdOptions(): HerdOptions {
  return {
    model: 'lkmm', modelFiles: { variants: [], skipChecks: [] }, speedcheck: 'false', show: 'none', exitIfFailed: false,
    includeDirs: [], libraryDirs: [], notes: [], confChain: [],
  };
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
  opts.model = settleModel(opts);
  return { opts, files };
}

/** The folders herd7 looks in for a file an option or a .cfg names: the current one, then the -I ones (then its library's). */
function herdDirs(opts: HerdOptions, withLibrary = true): string[] {
  return [process.cwd(), ...opts.includeDirs.map((d) => resolve(d)), ...(withLibrary ? opts.libraryDirs.map((d) => resolve(d)) : [])];
}

/**
 * The model the options name. A .cat file is read from where herd7 would
 * find it; herd's own library models sc.cat and x86tso.cat, when no such
 * file is at hand, are litmus's built-in SC and x86-TSO; a built-in name
 * that is no file (`-model lkmm`) is litmus's own model, with a note
 * (herd7 would look for a file of that name).
 */
function settleModel(opts: HerdOptions): string {
  const f = opts.modelFiles;
  const dirs = herdDirs(opts);
  const found = (name: string | undefined, at?: CatPos) => {
    if (name === undefined) return undefined;
    const path = findIn(name, dirs);
    if (!path) throw new HerdUsageError(`Cannot find file ${name}`, at);
    return path;
  };
  const builtinWithMacros = (name: string) => (f.macros === undefined ? name : withMacros(name, found(f.macros, f.at?.macros)!));
  if (f.cat === undefined) {
    if (f.bell !== undefined) throw new HerdUsageError(`-bell ${f.bell}: a bell file needs a model (-model or -conf)`);
    opts.notes.push(`no -conf or -model: litmus's built-in LKMM${f.macros === undefined ? ' and its primitives' : ''} (herd7 would use its default C model, c11_partialSC.cat${f.macros === undefined ? ', with no kernel macros' : ''})`);
    return builtinWithMacros('lkmm');
  }
  const cat = findIn(f.cat, dirs);
  if (!cat) {
    const base = basename(f.cat);
    const builtin = base === 'sc.cat' ? 'sc' : base === 'x86tso.cat' ? 'x86-tso' : !f.cat.endsWith('.cat') ? builtinModel(f.cat)?.name : undefined;
    if (!builtin) throw new HerdUsageError(`Cannot find file ${f.cat}`, f.at?.cat);
    if (!f.cat.endsWith('.cat')) opts.notes.push(`-model ${f.cat}: litmus's built-in model (herd7 would look for a file of that name)`);
    return builtinWithMacros(builtin);
  }
  return filesSpec({
    cat, bell: found(f.bell, f.at?.bell), macros: found(f.macros, f.at?.macros), variants: f.variants, searchDirs: herdDirs(opts, false),
    libraryDirs: opts.libraryDirs.map((d) => resolve(d)), skipChecks: f.skipChecks, besideIncluder: false,
  });
}

/** Variants add up, as in herd7 (with lkmmv2 among them, herd7 7.58 builds lkmmv2's events whatever else is given). */
function addVariants(list: string[], value: string): void {
  for (const v of value.split(',').map((x) => x.trim()).filter(Boolean)) if (!list.includes(v)) list.push(v);
}

function applyOption(opts: HerdOptions, key: string, value: string, where: string): void {
  const unsupported = (why: string) => new HerdUsageError(`-${key} ${value}: ${why}`);
  switch (key) {
    case 'conf':
      applyConf(opts, value);
      return;
    case 'model':
    case 'cat':
      opts.modelFiles.cat = value;
      if (opts.modelFiles.at) delete opts.modelFiles.at.cat;
      return;
    case 'bell':
      opts.modelFiles.bell = value;
      if (opts.modelFiles.at) delete opts.modelFiles.at.bell;
      return;
    case 'macros':
      opts.modelFiles.macros = value;
      if (opts.modelFiles.at) delete opts.modelFiles.at.macros;
      return;
    case 'variant':
      addVariants(opts.modelFiles.variants, value);
      return;
    case 'skipchecks':
      for (const c of value.split(',').map((x) => x.trim()).filter(Boolean)) opts.modelFiles.skipChecks.push(c);
      return;
    case 'unroll': {
      // herd7 takes any integer (a negative bound cuts every loop at once, as 0 does).
      const n = herdUnroll(value);
      if (n === undefined) {
        throw new HerdUsageError(where === 'command line' ? `wrong argument '${value}'; option '-unroll' expects an integer.` : `unroll ${value}: integer parameter expected (herd7 stops there)`);
      }
      if (n > OPTION_RULES.unroll.max) throw new HerdUsageError(`-unroll takes ${ruleText(OPTION_RULES.unroll)}, not "${value}"`);
      opts.unroll = n;
      return;
    }
    case 'timeout':
      opts.timeoutMs = timeoutSeconds(value);
      return;
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
    case 'nshow': {
      const rule = { min: 0, max: Number.MAX_SAFE_INTEGER };
      const n = wholeNumberIn(value, rule);
      if (n === undefined) throw new HerdUsageError(`-nshow takes ${ruleText(rule)}, not "${value}"`);
      opts.nshow = n;
      return;
    }
    case 'showone':
      if (value === 'true') opts.nshow = 1;
      return;
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
      opts.includeDirs.push(value);
      return;
    case 'set-libdir':
      opts.libraryDirs.push(value);
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
  throw new HerdUsageError(where === 'command line' ? `unknown option '-${key}'.` : `unknown key "${key}" in a configuration file`);
}

/**
 * herd7's -timeout, in seconds (a fraction allowed), as milliseconds: a
 * decimal number from 0.001 (1 ms) to LIMITS.timeoutMs / 1000 (24.8 days);
 * no exponent, Infinity or NaN.
 */
function timeoutSeconds(v: string): number {
  const ms = /^\d+(\.\d+)?$/.test(v) ? Math.ceil(Number(v) * 1000) : NaN;
  const { min, max } = OPTION_RULES.timeoutMs;
  if (!(ms >= min && ms <= max) || Number(v) < min / 1000) {
    throw new HerdUsageError(`-timeout takes a number of seconds from ${min / 1000} to ${max / 1000}, not "${v}"`);
  }
  return ms;
}

/**
 * A configuration file: `key value` lines, `#` comments, found where herd7
 * finds it (the current folder, then the -I folders; never beside it for
 * the files it names). Its keys are options, applied in order.
 */
function applyConf(opts: HerdOptions, name: string): void {
  const file = findIn(name, herdDirs(opts));
  if (!file) throw new HerdUsageError(`Cannot find file ${name}`);
  if (opts.confChain.includes(file)) throw new HerdUsageError(`-conf ${name}: configuration files name each other in a loop (${[...opts.confChain, file].join(' -> ')})`);
  opts.confChain.push(file);
  let settings;
  try {
    settings = readConf(file);
  } catch (e) {
    if (e instanceof ModelError) throw new HerdUsageError(e.message, e.pos);
    throw e;
  }
  // Each line in turn, as herd7 reads them; a line it refuses is an error at that line.
  for (const [key, value, pos] of settings.entries) {
    try {
      applyOption(opts, key, value, file);
    } catch (e) {
      if (e instanceof HerdUsageError && !e.pos) throw new HerdUsageError(e.message, pos);
      throw e;
    }
    // Where the model's files were named (a file not found is an error there); a later option naming one forgets it.
    const named = key === 'model' ? 'cat' : key;
    if (named === 'cat' || named === 'bell' || named === 'macros') opts.modelFiles.at = { ...opts.modelFiles.at, [named]: pos };
  }
  opts.confChain.pop();
}
