// Every model litmus can check under, named once: the built-in ones (with
// their aliases) and models given as files (a .cat with its .bell, found
// from a --model, --conf or herd7 option, see src/cli/model-options.ts).
// A model travels through the program (worker threads, the server) as a
// spec string: a built-in name, or `files:` and the files' JSON. Every
// command turns a spec into a Model with getModel.

import { withoutShortcuts, type Model } from '../src/model/model.js';
import { compileModelFiles, describeFiles, filesModelName, fingerprintOfFiles } from './cat/model.js';
import { loadMacros, MacroFileError, tagsUnknownToBuiltinModels } from '../src/events/def.js';
import type { ModelFiles } from './cat/files.js';
import { lkmm } from './lkmm.js';
import { sc } from './sc.js';
import { x86tso } from './x86tso.js';
import { modelTextFiles } from './texts.js';

/**
 * A model explained from the definitions of the same model compiled from
 * its files (Model.orderOf and Model.explain, models/cat/explain.ts), the
 * files compiled when first explained. The built-in models are explained
 * so from their own text (models/text/), and the kernel's files run on the
 * built-in copy from those files: every explanation names the model's own
 * definitions, the same under the built-in model, its text, and the
 * kernel's files however commented.
 */
function explainedBy(model: Model, files: () => ModelFiles, where: 'shown' | 'not shown'): Model {
  let compiled: Model | undefined;
  const of = () => (compiled ??= compileModelFiles(files()));
  // A built-in model is not a file of the user's: where its text defines a name is not shown.
  const place = <T extends { definedAt?: string[] }>(v: T | undefined): T | undefined => (v && where === 'not shown' ? { ...v, definedAt: undefined } : v);
  return {
    ...model,
    orderOf: (x, a, b) => place(of().orderOf!(x, a, b)),
    explain: (x, axiom) => place(of().explain!(x, axiom)),
    flagged: (x, flag) => place(of().flagged!(x, flag)),
  };
}

/** The built-in models and the other names each answers to (herd's model file names among them). */
export const BUILTIN_MODELS: readonly { model: Model; aliases: readonly string[] }[] = [
  { model: explainedBy(lkmm, () => modelTextFiles('lkmm'), 'not shown'), aliases: ['linux-kernel'] },
  { model: explainedBy(sc, () => modelTextFiles('sc'), 'not shown'), aliases: [] },
  { model: explainedBy(x86tso, () => modelTextFiles('x86-tso'), 'not shown'), aliases: ['tso', 'x86', 'x86tso'] },
];

/** The built-in models by name (kept for callers that list them). */
export const MODELS: Readonly<Record<string, Model>> = Object.fromEntries(BUILTIN_MODELS.map((m) => [m.model.name, m.model]));

/** The built-in model a name or alias means, if any. */
export function builtinModel(name: string): Model | undefined {
  return BUILTIN_MODELS.find((m) => m.model.name === name || m.aliases.includes(name))?.model;
}

/** What the built-in names are, for messages. */
export const BUILTIN_NAMES = BUILTIN_MODELS.map((m) => m.model.name).join(', ');

export function unknownModelMessage(name: string): string {
  return `unknown model "${name}" (built in: ${BUILTIN_NAMES}; or a .cat file, a .cfg file, or a folder with linux-kernel.cfg)`;
}

const FILES_PREFIX = 'files:';

/** The spec of a model given as files. */
export function filesSpec(files: ModelFiles): string {
  return FILES_PREFIX + JSON.stringify(files);
}

/** The files of a spec, if it names files. */
export function specFiles(spec: string): ModelFiles | undefined {
  const named = shortcutsOf(spec).spec;
  return named.startsWith(FILES_PREFIX) ? (JSON.parse(named.slice(FILES_PREFIX.length)) as ModelFiles) : undefined;
}

const NO_SHORTCUTS_PREFIX = 'noshortcuts:';

/** The spec of the model a spec names, without any of its shortcuts (--no-shortcuts: src/model/model.ts withoutShortcuts). */
export function withoutShortcutsSpec(spec: string): string {
  return spec.startsWith(NO_SHORTCUTS_PREFIX) ? spec : NO_SHORTCUTS_PREFIX + spec;
}

/** The model a spec names, and whether its shortcuts are kept. */
function shortcutsOf(spec: string): { spec: string; shortcuts: boolean } {
  return spec.startsWith(NO_SHORTCUTS_PREFIX) ? { spec: spec.slice(NO_SHORTCUTS_PREFIX.length), shortcuts: false } : { spec, shortcuts: true };
}

const MACROS_PREFIX = 'macros:';

/** A built-in model with its primitives from a .def file (--macros, herd7's -macros). */
interface BuiltinWithMacros {
  model: string;
  macros: string;
}

function specBuiltinWithMacros(spec: string): BuiltinWithMacros | undefined {
  return spec.startsWith(MACROS_PREFIX) ? (JSON.parse(spec.slice(MACROS_PREFIX.length)) as BuiltinWithMacros) : undefined;
}

/** The spec with its primitives read from the .def file at `macros`, whatever the spec named before. */
export function withMacros(spec: string, macros: string): string {
  const s = shortcutsOf(spec);
  if (!s.shortcuts) return withoutShortcutsSpec(withMacros(s.spec, macros));
  const files = specFiles(spec);
  if (files) return filesSpec({ ...files, macros });
  return MACROS_PREFIX + JSON.stringify({ model: specBuiltinWithMacros(spec)?.model ?? spec, macros });
}

/** The .def file whose macros are a spec's primitives; undefined for the built-in table. */
export function specMacros(spec: string): string | undefined {
  return specFiles(spec)?.macros ?? specBuiltinWithMacros(shortcutsOf(spec).spec)?.macros;
}

/**
 * The fingerprint (models/cat/compile.ts fingerprintOf) of the kernel's LKMM files as
 * herdtools7 and tools/memory-model ship them (linux-kernel.cat, .bell,
 * lock.cat, with litmus's library files and the variant lkmmv2). Given
 * those files, litmus checks with its built-in copy, models/lkmm.ts, and
 * the explorer's pruning derived from it: test/cat.test.ts shows that the
 * compiled files and the built-in model give identical output on the
 * whole kernel corpus, and that this fingerprint is that of the files in
 * ../shared/lkmm. Any edit (of a byte) changes the fingerprint,
 * and the model is then the compiled one.
 */
export const KERNEL_LKMM_FINGERPRINT = 'df1340bed84fe4051bf4e8fbcaff1cb57e6699e3ee8eec0c21cdfa6e4df4a912';

/** Whether a .def gives events tags the built-in models do not know (a broken .def is reported where it is read). */
function macrosHaveNewTags(path: string): boolean {
  try {
    return tagsUnknownToBuiltinModels(loadMacros(path)).length > 0;
  } catch (e) {
    if (e instanceof MacroFileError) return false;
    throw e;
  }
}

/** Compiled models by spec: each file set is read and compiled once per process. */
const compiledBySpec = new Map<string, Model>();

/**
 * The model a spec names; undefined for an unknown name. A spec of files
 * is compiled (a ModelError, positioned in the model's files, when they
 * cannot be read).
 */
export function getModel(spec: string): Model | undefined {
  const s = shortcutsOf(spec);
  if (!s.shortcuts) {
    const m = getModel(s.spec);
    return m && withoutShortcuts(m);
  }
  const files = specFiles(spec);
  if (!files) return builtinModel(specBuiltinWithMacros(spec)?.model ?? spec);
  let m = compiledBySpec.get(spec);
  if (!m) compiledBySpec.set(spec, (m = modelOfFiles(files)));
  return m;
}

/**
 * The compiled model of the files, or the built-in LKMM under the files'
 * name when they are the kernel's (known by their fingerprint, without
 * compiling them: this is asked at every start of litmus herd7 -conf).
 */
function modelOfFiles(files: ModelFiles): Model {
  const known = files.compiled || files.skipChecks.length > 0 ? undefined : fingerprintOfFiles(files);
  // A .def with tags the built-in copy does not know: the files' own model gives them their meaning.
  if (known?.fingerprint !== KERNEL_LKMM_FINGERPRINT || (files.macros !== undefined && macrosHaveNewTags(files.macros))) return compileModelFiles(files, {}, known);
  const copy = { ...builtinModel('lkmm')!, name: filesModelName(files), description: `${describeFiles(files, known.title)} (the kernel's LKMM: litmus's built-in copy)` };
  return explainedBy(copy, () => ({ ...files, compiled: true }), 'shown');
}
