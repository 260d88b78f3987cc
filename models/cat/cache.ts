// Compiled cat models kept on disk between processes. The kernel's scripts
// start one herd7 per test, and a model read from files (an edited
// linux-kernel.cat, or the kernel's own) would otherwise be parsed and
// compiled again in each of them: the compiled form (`CompiledCat`,
// models/cat/compile.ts: plain data) is written once, as JSON (its Maps and
// Sets as arrays), and read back by the next process (JSON.parse of the
// kernel's LKMM takes ~1 ms; V8's deserializer 2-5 ms).
//
// - Where: `models/` in litmus's cache folder (src/cache-dir.cts:
//   LITMUS_CACHE_DIR, else $XDG_CACHE_HOME/litmus, else ~/.cache/litmus;
//   LITMUS_CACHE_DIR=off keeps nothing).
// - Key: a SHA-256 of the bytes of every file the model reads (the bell, the
//   cat and each file reached through an include, found as the compiler
//   finds them, with their paths: messages name them), the variants, the
//   package version and the compiler's own code (the bytes of models/cat's
//   modules it imports).
//   An edit of any of them is another key: an entry is never stale, only
//   unused. Nothing else decides what compileCat returns.
// - Safe to share and to lose: an entry is written to a new temporary file
//   (O_EXCL | O_NOFOLLOW: nothing planted at that name is written through)
//   and renamed into place, so a reader sees an entry whole or not at all;
//   processes racing to write the same entry write the same bytes. An entry
//   is read only if it is a regular file of this user's (opened with
//   O_NOFOLLOW: a link is never followed), its header names the same key,
//   and its payload has the length and SHA-256 the header gives; anything
//   else (a corrupt, cut or foreign file) is ignored and the model compiled,
//   then written again. The folder is made 0700; a cache that cannot be
//   read or written is silently passed over (it is an optimisation).
// - Beside each entry, what was derived from the model for a kind of
//   program (DerivedFacts: which checks judge prefixes, whether a read of
//   the last write keeps a prefix consistent), so that a process does not
//   derive again what an earlier one did: a file `KEY.facts` in the same
//   form, keyed also by the bytes of the modules that derive them (a fact
//   derived by other code is another file), rewritten whole (merged with
//   what another process added meanwhile) when a fact is added.

import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDir, makeCacheFolder } from '../../src/cache-dir.cjs';
import { writeFileAtomic } from '../../src/write-file.cjs';
import { fileURLToPath } from 'node:url';
import { compileCat, fingerprintOf, type CompiledCat, type ModelSource } from './compile.js';

/** Bumped when the entry's layout (not the compiled form, which the code's bytes key) changes. */
const FORMAT = 2;
const MAGIC = `litmus compiled model ${FORMAT}\n`;
/** Entries larger than this are not read (the kernel's LKMM compiles to ~160 KB). */
const MAX_ENTRY_BYTES = 64 << 20;

/**
 * compileCat's result for these files, from the cache when it holds it
 * (else compiled, and stored). `fingerprint`: fingerprintOf these files, when
 * the caller has it. `check`: what a model must pass to be kept (it throws
 * otherwise): run on a model compiled here, before it is stored, so that one
 * read from the cache has passed it. Files whose includes cannot all be
 * found are compiled (compileCat says what is missing).
 */
export function compileCatCached(
  mains: { path: string; text: string }[],
  source: ModelSource,
  variants: ReadonlySet<string>,
  fingerprint?: ReturnType<typeof fingerprintOf>,
  check: (c: CompiledCat) => void = () => undefined,
): CompiledCat {
  return cachedModel(mains, source, variants, fingerprint, check).compiled;
}

/** compileCatCached, with the model's key in the cache (undefined when caching is off). */
export function cachedModel(
  mains: { path: string; text: string }[],
  source: ModelSource,
  variants: ReadonlySet<string>,
  fingerprint?: ReturnType<typeof fingerprintOf>,
  check: (c: CompiledCat) => void = () => undefined,
): { compiled: CompiledCat; key?: string } {
  const dir = modelCacheDir();
  const known = dir ? (fingerprint ?? fingerprintOf(mains, source, variants)) : undefined;
  const key = known && modelKey(known.fingerprint, known.files);
  const stored = key ? loadCompiled(key, dir) : undefined;
  if (stored) return { compiled: stored, key };
  const compiled = compileCat(mains, source, variants);
  check(compiled);
  if (key) storeCompiled(key, compiled, dir);
  return { compiled, key };
}

/** The cache folder for compiled models, or undefined when caching is off. */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return cacheDir('models', env);
}

/** The bytes of the compiler's own modules (models/cat, reached by imports from compile.js), digested once per process. */
function compilerCode(): string {
  return moduleCode(['compile.js', 'cache.js']);
}

/**
 * Digests of modules' bytes, by their roots, made once per process (in the
 * start-up snapshot, once when it is made: src/cli/snapshot.cts).
 */
const moduleDigests = new Map<string, string>();

/** A digest of the bytes of models/cat's modules `roots` and those they import from models/cat. */
function moduleCode(roots: readonly string[]): string {
  const id = roots.join('\0');
  let d = moduleDigests.get(id);
  if (d === undefined) moduleDigests.set(id, (d = digestModules(roots)));
  return d;
}

function digestModules(roots: readonly string[]): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const h = createHash('sha256');
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    // dist/ holds the compiled .js; a run from the sources (vitest) reads the .ts.
    let text = '';
    for (const file of [name, name.replace(/\.js$/, '.ts')]) {
      try {
        text = readFileSync(join(here, file), 'latin1');
        break;
      } catch {
        // not this one
      }
    }
    h.update(`${name}\0${text.length}\0${text}\0`);
    for (const m of text.matchAll(/\bfrom\s*["']\.\/([\w.-]+\.js)["']/g)) visit(m[1]);
  };
  for (const r of roots) visit(r);
  return h.digest('hex');
}

/** The package's version (package.json two folders above dist/models/cat, or above models/cat in a checkout), read once per process. */
let version: string | undefined;

function packageVersion(): string {
  if (version !== undefined) return version;
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of [join(here, '..', '..', '..'), join(here, '..', '..')]) {
    try {
      return (version = (JSON.parse(readFileSync(join(up, 'package.json'), 'utf8')) as { version?: string }).version ?? '');
    } catch {
      // not this folder
    }
  }
  return (version = '');
}

/**
 * The key of a model: `fingerprint` is compile.ts's digest of the bytes of
 * every file the model reads and of its variants; `files` are their paths.
 */
export function modelKey(fingerprint: string, files: readonly string[]): string {
  return createHash('sha256')
    .update(`format ${FORMAT}\0version ${packageVersion()}\0code ${compilerCode()}\0model ${fingerprint}\0`)
    .update(files.join('\0'))
    .digest('hex');
}

function entryPath(dir: string, key: string): string {
  return join(dir, `${key.slice(0, 40)}.bin`);
}

/** The compiled model stored under `key`, or undefined (none, or one that is not whole, not ours, or not for this key). */
export function loadCompiled(key: string, dir = modelCacheDir()): CompiledCat | undefined {
  if (!dir) return undefined;
  const payload = readEntry(entryPath(dir, key), MAGIC, key);
  return payload === undefined ? undefined : fromStored(payload as StoredCat);
}

/** The JSON payload of an entry file (the header names `magic` and `key`, the payload has the length and SHA-256 it says), or undefined. */
function readEntry(path: string, magic: string, key: string): unknown {
  const bytes = readOwnFile(path);
  if (!bytes) return undefined;
  try {
    const magicEnd = magic.length;
    if (bytes.toString('latin1', 0, magicEnd) !== magic) return undefined;
    const nl = bytes.indexOf(0x0a, magicEnd);
    if (nl < 0) return undefined;
    const header = JSON.parse(bytes.toString('utf8', magicEnd, nl)) as { key?: unknown; length?: unknown; sha256?: unknown };
    const payload = bytes.subarray(nl + 1);
    if (header.key !== key || header.length !== payload.length) return undefined;
    if (createHash('sha256').update(payload).digest('hex') !== header.sha256) return undefined;
    return JSON.parse(payload.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Writes an entry file (see readEntry) whole or not at all; true when written. */
function writeEntry(dir: string, path: string, magic: string, key: string, value: unknown): boolean {
  let payload: Buffer;
  try {
    payload = Buffer.from(JSON.stringify(value), 'utf8');
  } catch {
    return false;
  }
  const header = JSON.stringify({ key, length: payload.length, sha256: createHash('sha256').update(payload).digest('hex') });
  try {
    makeCacheFolder(dir);
    writeFileAtomic(path, [`${magic}${header}\n`, payload], { noSync: true, mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** A file's bytes if it is a regular file of this user's, not reached through a link, and not too large. */
function readOwnFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_ENTRY_BYTES) return undefined;
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) return undefined;
      got += n;
    }
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A CompiledCat as JSON holds it: its Maps and Sets as arrays (the rest is plain data). */
type StoredCat = Omit<CompiledCat, 'base' | 'tags' | 'variantsTested'> & {
  base: [string, number][];
  tags: string[];
  variantsTested: [string, CompiledCat['variantsTested'] extends Map<string, infer P> ? P : never][];
};

export function toStored(c: CompiledCat): StoredCat {
  return { ...c, base: [...c.base], tags: [...c.tags], variantsTested: [...c.variantsTested] };
}

/** The CompiledCat a stored one holds; undefined for a payload of another shape (ignored). */
export function fromStored(s: StoredCat): CompiledCat | undefined {
  if (typeof s !== 'object' || s === null || !Array.isArray(s.instrs) || !Array.isArray(s.slots) || !Array.isArray(s.base) || !Array.isArray(s.tags) || !Array.isArray(s.variantsTested) || !Array.isArray(s.files)) return undefined;
  return { ...s, base: new Map(s.base), tags: new Set(s.tags), variantsTested: new Map(s.variantsTested) };
}

/** Stores a compiled model under `key`; true when it was written (any failure is passed over). */
export function storeCompiled(key: string, compiled: CompiledCat, dir = modelCacheDir()): boolean {
  if (!dir) return false;
  return writeEntry(dir, entryPath(dir, key), MAGIC, key, toStored(compiled));
}

const FACTS_MAGIC = `litmus derived facts ${FORMAT}\n`;

/** Facts of one kind, by the key of the kind of program they were derived for (JSON values). */
type Facts = Record<string, Record<string, unknown>>;

/**
 * What was derived from one compiled model, kept on disk beside it (see
 * the header): `get(kind, key)` is a fact an earlier process (or this one)
 * derived, or undefined; `set` adds one. `code`: the modules of models/cat
 * that derive them (their bytes, and those of the modules they import, key
 * the file). A model not in the cache (caching off) keeps its facts in
 * memory only.
 */
export class DerivedFacts {
  private facts: Facts | undefined;
  private readonly path: string | undefined;
  private readonly key: string;

  constructor(
    modelKey: string | undefined,
    code: readonly string[],
    private readonly dir = modelCacheDir(),
  ) {
    this.key = modelKey ? createHash('sha256').update(`${modelKey}\0derived by ${moduleCode(code)}`).digest('hex') : '';
    this.path = modelKey && dir ? join(dir, `${this.key.slice(0, 40)}.facts`) : undefined;
  }

  get(kind: string, key: string): unknown {
    return this.read()[kind]?.[key];
  }

  set(kind: string, key: string, value: unknown): void {
    (this.read()[kind] ??= {})[key] = value;
    if (!this.path || !this.dir) return;
    // Another process may have added facts since this one read the file: keep theirs too.
    const now = this.load();
    for (const [k, byKey] of Object.entries(this.facts!)) Object.assign((now[k] ??= {}), byKey);
    this.facts = now;
    writeEntry(this.dir, this.path, FACTS_MAGIC, this.key, now);
  }

  private read(): Facts {
    return (this.facts ??= this.load());
  }

  private load(): Facts {
    const v = this.path ? readEntry(this.path, FACTS_MAGIC, this.key) : undefined;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Facts) : {};
  }
}
