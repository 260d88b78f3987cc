// The model options of litmus's own commands (check, serve, audit, history),
// declared once: `--model NAME|FILE.cat|FILE.cfg|DIR`, `--conf FILE.cfg`,
// `--bell FILE.bell`, `--variant NAME`, `--macros FILE.def`. A .cfg (or a folder's
// linux-kernel.cfg, such as a kernel tree's tools/memory-model) names the
// model, bell and variants as herd7 reads them; files it names are looked
// for beside it first, then in the current folder. The result is a model
// spec (models/index.ts) that every layer and worker turns into a Model.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtinModel, filesSpec, getModel, unknownModelMessage, withMacros, withoutShortcutsSpec } from '../../models/index.js';
import { besideFirst, filesOfConf, findIn, readConf, unrollOfConf } from '../../models/cat/files.js';
import { OPTION_RULES, ruleText } from '../limits.js';
import { checkConfLines } from './herd7-args.js';
import { ModelError } from '../../models/cat/lexer.js';

import type { ModelFlags } from './model-flags.js';
import type { JsonError } from './run-one.js';
import { say } from './say.js';

/** A problem with the model options (not in a model file): a usage error. */
export class ModelOptionError extends Error {}

/**
 * The model spec the options name, its files read and compiled (so that an
 * error in them is reported once, before any test is checked).
 */
export function modelSpecFromFlags(o: ModelFlags): string {
  // The .def as the user named it (workers share the folder): it is read, and judged, where the primitives are needed.
  const named = o.macros === undefined ? specOf(o) : withMacros(specOf(o), o.macros);
  const spec = o.shortcuts === false ? withoutShortcutsSpec(named) : named;
  getModel(spec); // compiles, or throws ModelError
  return spec;
}

/** The .cfg the model options name (--conf, --model FILE.cfg or a folder's), if any. */
function confOf(o: ModelFlags): string | undefined {
  if (o.conf !== undefined) return o.conf;
  const name = o.model;
  if (name === undefined || (builtinModel(name) && !existsSync(name)) || !existsSync(name)) return undefined;
  if (statSync(name).isDirectory()) return confOfFolder(name);
  return name.endsWith('.cfg') ? name : undefined;
}

function specOf(o: ModelFlags): string {
  const variants = o.variant ?? [];
  const name = o.model;
  if (o.conf !== undefined) return fromConf(o.conf, name, o.bell, variants);
  if (name === undefined) {
    if (o.bell !== undefined || variants.length > 0) throw new ModelOptionError('--bell and --variant apply to a model given as files (--model FILE.cat or --conf FILE.cfg)');
    return 'lkmm';
  }
  if (builtinModel(name) && !existsSync(name)) {
    if (o.bell !== undefined || variants.length > 0) throw new ModelOptionError(`--bell and --variant apply to a model given as files, not the built-in "${name}"`);
    return builtinModel(name)!.name;
  }
  if (!existsSync(name)) throw new ModelOptionError(unknownModelMessage(name));
  if (statSync(name).isDirectory()) return fromConf(confOfFolder(name), undefined, o.bell, variants);
  if (name.endsWith('.cfg')) return fromConf(name, undefined, o.bell, variants);
  const cat = resolve(name);
  const bell = o.bell === undefined ? undefined : findOrFail(o.bell, besideFirst(cat), '--bell');
  return filesSpec({ cat, bell, variants, searchDirs: besideFirst(cat), skipChecks: [], besideIncluder: true });
}

/** A folder's configuration: linux-kernel.cfg, or its only .cfg file. */
function confOfFolder(dir: string): string {
  const kernel = join(dir, 'linux-kernel.cfg');
  if (existsSync(kernel)) return kernel;
  const cfgs = readdirSync(dir).filter((f) => f.endsWith('.cfg'));
  if (cfgs.length === 1) return join(dir, cfgs[0]);
  throw new ModelOptionError(`${dir}: no linux-kernel.cfg here${cfgs.length > 1 ? ` (and ${cfgs.length} other .cfg files: name one with --conf)` : ''}`);
}

function fromConf(confPath: string, modelOverride: string | undefined, bellOverride: string | undefined, extraVariants: string[]): string {
  // A line herd7 would refuse is an error at its line, though litmus's commands read only the model's lines.
  checkConfLines(readConf(resolve(confPath)));
  return filesSpec(filesOfConf(confPath, { model: modelOverride, bell: bellOverride, variants: extraVariants }));
}

function findOrFail(name: string, dirs: string[], what: string): string {
  const p = findIn(name, dirs);
  if (!p) throw new ModelOptionError(`${what} ${name}: no such file`);
  return p;
}

/**
 * Replaces the options' model by the spec they name; on a bad model prints
 * one `file:line:col: ...` (or `litmus: ...`) line and returns false. With
 * `onError`, the line and the error as data go to it instead (a --json run
 * prints its document too).
 */
export function applyModelFlags<T extends ModelFlags & { unroll?: number }>(
  o: T,
  onError: (text: string, errors: JsonError[]) => void = (text) => say(text),
  unrollGiven = true,
): o is T & { model: string } {
  try {
    // A .cfg's unroll line bounds the loops, as herd7 -conf reads it, unless --unroll says otherwise.
    const conf = unrollGiven ? undefined : confOf(o);
    o.model = modelSpecFromFlags(o); // its .cfg's lines checked as herd7 checks them
    const unroll = conf === undefined ? undefined : unrollOfConf(readConf(resolve(conf)));
    if (unroll !== undefined) {
      if (unroll > OPTION_RULES.unroll.max) throw new ModelOptionError(`${conf}: unroll ${unroll} is past litmus's bound (--unroll takes ${ruleText(OPTION_RULES.unroll)})`);
      o.unroll = unroll;
    }
    // The .def (and --no-shortcuts) are now part of the model spec, which every layer and worker reads.
    delete o.macros;
    delete o.shortcuts;
    return true;
  } catch (e) {
    if (e instanceof ModelError) onError(e.format(), [{ file: e.pos.file, line: e.pos.line, col: e.pos.col, message: e.message }]);
    else if (e instanceof ModelOptionError) onError(`litmus: ${e.message}`, [{ file: '', message: e.message }]);
    else throw e;
    return false;
  }
}
