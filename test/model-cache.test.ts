// Compiled models kept on disk (models/cat/cache.ts): an entry is what
// compileCat returns, keyed by the bytes of every file the model reads;
// a corrupt, cut, foreign or linked entry is ignored and written again;
// nothing is left half-written; the herd7 command gives the same output
// with the cache as without.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const TEXT_DIR = join(ROOT, 'models', 'text');
import { compileCat, fingerprintOf } from '../models/cat/compile.js';
import { compileCatCached, DerivedFacts, fromStored, loadCompiled, modelKey, storeCompiled, toStored } from '../models/cat/cache.js';
import { compileModelFiles } from '../models/cat/model.js';
import { filesOfConf } from '../models/cat/files.js';
import { checkSource } from '../src/check.js';
import { fileSource } from '../models/cat/files.js';
import { HAVE_LKMM, LKMM_DIR, ROOT } from './util.js';

let dir: string;
let cache: string;

/** A model folder: litmus's own LKMM text (always here), or the kernel's files when ../shared/lkmm is. */
function modelIn(name: string, kernel = false): { dir: string; mains: { path: string; text: string }[]; variants: Set<string> } {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  const from = kernel ? LKMM_DIR : TEXT_DIR;
  for (const f of readdirSync(from)) if (/\.(cat|bell|def|cfg)$/.test(f)) copyFileSync(join(from, f), join(d, f));
  const [bell, cat] = kernel ? ['linux-kernel.bell', 'linux-kernel.cat'] : ['lkmm.bell', 'lkmm.cat'];
  const mains = [bell, cat].map((f) => ({ path: join(d, f), text: readFileSync(join(d, f), 'utf8') }));
  return { dir: d, mains, variants: new Set(['lkmmv2']) };
}

const compiled = (m: ReturnType<typeof modelIn>) => compileCat(m.mains, fileSource([m.dir], true), m.variants);
const cached = (m: ReturnType<typeof modelIn>) => compileCatCached(m.mains, fileSource([m.dir], true), m.variants);
const keyOf = (m: ReturnType<typeof modelIn>) => {
  const f = fingerprintOf(m.mains, fileSource([m.dir], true), m.variants)!;
  return modelKey(f.fingerprint, f.files);
};
const entries = () => readdirSync(join(cache, 'models'));

const saved = process.env.LITMUS_CACHE_DIR;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-model-cache-'));
  cache = join(dir, 'cache');
  process.env.LITMUS_CACHE_DIR = cache;
});
afterAll(() => {
  if (saved === undefined) delete process.env.LITMUS_CACHE_DIR;
  else process.env.LITMUS_CACHE_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe('the compiled-model cache', () => {
  it('stores exactly what compileCat returns (its JSON form round-trips)', () => {
    for (const m of [modelIn('rt'), ...(HAVE_LKMM ? [modelIn('rt-kernel', true)] : [])]) {
      const c = compiled(m);
      expect(fromStored(JSON.parse(JSON.stringify(toStored(c))))).toEqual(c);
    }
  });

  it('writes an entry on the first compile, in a folder of this user only, and reads it back', () => {
    const m = modelIn('first');
    const c = cached(m);
    expect(c).toEqual(compiled(m));
    expect(entries()).toHaveLength(1);
    expect(statSync(join(cache, 'models')).mode & 0o777).toBe(0o700);
    expect(loadCompiled(keyOf(m))).toEqual(c);
    // No temporary file is left beside it.
    expect(entries().filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('keys an entry by the bytes of every file the model reads: an edit of the cat, or of a file it includes, is another entry', () => {
    const m = modelIn('edits');
    const before = keyOf(m);
    appendFileSync(m.mains[1].path, '(* an edit *)\n');
    const edited = { ...m, mains: [m.mains[0], { path: m.mains[1].path, text: readFileSync(m.mains[1].path, 'utf8') }] };
    expect(keyOf(edited)).not.toBe(before);
    // An included file: lkmm.bell includes kernel-events.bell.
    const k = keyOf(edited);
    appendFileSync(join(m.dir, 'kernel-events.bell'), '(* an edit *)\n');
    expect(keyOf(edited)).not.toBe(k);
    // And a file of litmus's library put in the folder (lock-events.cat includes cross.cat: litmus's own until then).
    const k2 = keyOf(edited);
    writeFileSync(join(m.dir, 'cross.cat'), 'let nothing = 0\n');
    expect(keyOf(edited)).not.toBe(k2);
    // The same bytes at another path are another entry too (messages name the files).
    const other = modelIn('edits-elsewhere');
    expect(keyOf(other)).not.toBe(before);
  });

  it('ignores a corrupt, cut or foreign entry, compiles, and writes a good one over it', () => {
    const m = modelIn('corrupt');
    const key = keyOf(m);
    cached(m);
    const file = join(cache, 'models', entries().find((f) => key.startsWith(f.replace(/\.bin$/, '')))!);
    const good = readFileSync(file);
    for (const bad of [good.subarray(0, good.length - 10), Buffer.concat([good.subarray(0, good.length - 3), Buffer.from('xyz')]), Buffer.from('not an entry'), Buffer.alloc(0)]) {
      writeFileSync(file, bad);
      expect(loadCompiled(key)).toBeUndefined();
      expect(cached(m)).toEqual(compiled(m));
      expect(readFileSync(file).equals(good)).toBe(true);
    }
    // An entry whose header names another key (a file put in another's place) is not used.
    storeCompiled(key, compiled(modelIn('other-model')));
    const swapped = readFileSync(file);
    const otherKey = keyOf(modelIn('other-model'));
    writeFileSync(join(cache, 'models', `${otherKey.slice(0, 40)}.bin`), swapped);
    expect(loadCompiled(otherKey)).toBeUndefined();
  });

  it('never reads an entry through a symbolic link', () => {
    const m = modelIn('linked');
    const key = keyOf(m);
    cached(m);
    const file = join(cache, 'models', `${key.slice(0, 40)}.bin`);
    const elsewhere = join(dir, 'elsewhere.bin');
    copyFileSync(file, elsewhere);
    rmSync(file);
    symlinkSync(elsewhere, file);
    expect(loadCompiled(key)).toBeUndefined();
    // The next compile replaces the link with a file; the link's target is untouched.
    const target = readFileSync(elsewhere);
    cached(m);
    expect(statSync(file).isFile()).toBe(true);
    expect(readFileSync(elsewhere).equals(target)).toBe(true);
  });

  it('LITMUS_CACHE_DIR=off keeps nothing; a cache folder that cannot be made is no error', () => {
    const m = modelIn('off');
    process.env.LITMUS_CACHE_DIR = 'off';
    try {
      expect(cached(m)).toEqual(compiled(m));
      process.env.LITMUS_CACHE_DIR = join(m.mains[0].path, 'below-a-file');
      expect(cached(m)).toEqual(compiled(m));
    } finally {
      process.env.LITMUS_CACHE_DIR = cache;
    }
  });

  it('litmus check and litmus herd7 print the same with the cache (written, then read) as without', () => {
    const tests = readdirSync(join(ROOT, 'dist', 'warm-up')).filter((f) => f.endsWith('.litmus')).map((f) => join(ROOT, 'dist', 'warm-up', f));
    const noTime = (s: string) => s.replace(/^Time .*$/gm, '');
    // litmus's own LKMM text through check (its primitives: the built-in table); the kernel's files, edited, through herd7.
    const text = modelIn('check');
    const runs: [string, string[], string][] = [[join(ROOT, 'dist', 'src', 'cli', 'main.js'), ['check', '-j', '1', '--conf', 'lkmm.cfg', ...tests], text.dir]];
    if (HAVE_LKMM) {
      const kernel = modelIn('herd7', true);
      // An edit: the kernel's own files (known by their fingerprint) take litmus's built-in LKMM.
      appendFileSync(kernel.mains[1].path, '(* an edit *)\n');
      runs.push([join(ROOT, 'dist', 'src', 'cli', 'herd7.js'), ['-conf', 'linux-kernel.cfg', ...tests], kernel.dir]);
    }
    for (const [i, [cli, args, cwd]] of runs.entries()) {
      const run = (env: string) => spawnSync(process.execPath, [cli, ...args], { cwd, env: { ...process.env, LITMUS_CACHE_DIR: env }, encoding: 'utf8' });
      const off = run('off');
      const own = join(dir, `run-cache-${i}`);
      const first = run(own);
      const second = run(own);
      expect(off.stdout).toMatch(/Never|Sometimes/);
      expect(noTime(first.stdout)).toBe(noTime(off.stdout));
      expect(noTime(second.stdout)).toBe(noTime(off.stdout));
      // The compiled model, and the facts derived from it (DerivedFacts).
      expect(readdirSync(join(own, 'models')).map((f) => f.replace(/^.*\./, '')).sort()).toEqual(['bin', 'facts']);
    }
  });
});

describe('facts derived from a compiled model, kept beside it', () => {
  it('are read by the next store of the same model and code, not by another model or other code; a corrupt file is ignored', () => {
    const key = keyOf(modelIn('facts-unit'));
    const a = new DerivedFacts(key, ['monotone.js']);
    expect(a.get('prefix-safe', 'LKR')).toBeUndefined();
    a.set('prefix-safe', 'LKR', [1, 2]);
    a.set('latest-read', 'LKR', true);
    expect(new DerivedFacts(key, ['monotone.js']).get('prefix-safe', 'LKR')).toEqual([1, 2]);
    // Two stores adding facts at once: each write keeps what the other wrote.
    const b = new DerivedFacts(key, ['monotone.js']);
    const c = new DerivedFacts(key, ['monotone.js']);
    b.get('prefix-safe', 'x');
    c.get('prefix-safe', 'x');
    b.set('prefix-safe', 'b', [3]);
    c.set('prefix-safe', 'c', [4]);
    const d = new DerivedFacts(key, ['monotone.js']);
    expect([d.get('prefix-safe', 'b'), d.get('prefix-safe', 'c'), d.get('latest-read', 'LKR')]).toEqual([[3], [4], true]);
    // Derived by other code, or for another model: nothing known.
    expect(new DerivedFacts(key, ['derive-latest-read.js']).get('prefix-safe', 'LKR')).toBeUndefined();
    expect(new DerivedFacts(keyOf(modelIn('facts-other')), ['monotone.js']).get('prefix-safe', 'LKR')).toBeUndefined();
    // A cut or altered file is not read.
    const facts = entries().filter((f) => f.endsWith('.facts'));
    expect(facts.length).toBeGreaterThan(0);
    for (const f of facts) {
      const p = join(cache, 'models', f);
      const good = readFileSync(p);
      writeFileSync(p, Buffer.concat([good.subarray(0, good.length - 3), Buffer.from('[9]')]));
    }
    expect(new DerivedFacts(key, ['monotone.js']).get('prefix-safe', 'LKR')).toBeUndefined();
    // Without a cache (a model not stored) the facts live in memory only.
    const mem = new DerivedFacts(undefined, ['monotone.js']);
    mem.set('latest-read', 'k', false);
    expect(mem.get('latest-read', 'k')).toBe(false);
  });

  it('a compiled model derives its prefix-safe checks, latest-read rule, RCU section rule and implied coherence once per kind of program, and the next process reads them', () => {
    const m = modelIn('facts-model');
    const files = filesOfConf(join(m.dir, 'lkmm.cfg'));
    const mp = `C MP
{}
P0(int *x, int *y) { WRITE_ONCE(*x, 1); smp_store_release(y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = smp_load_acquire(y); r1 = READ_ONCE(*x); }
exists (1:r0=1 /\\ 1:r1=0)
`;
    // RCU: a read-side section and a grace period (the section rule of models/cat/derive-rcu-reads.ts is derived for it).
    const rcu = `C RCU-MP
{}
P0(int *x, int *y) { rcu_read_lock(); int r0 = READ_ONCE(*x); int r1 = READ_ONCE(*y); rcu_read_unlock(); }
P1(int *x, int *y) { WRITE_ONCE(*y, 1); synchronize_rcu(); WRITE_ONCE(*x, 1); }
exists (0:r0=1 /\\ 0:r1=0)
`;
    const answers = (model: ReturnType<typeof compileModelFiles>) => [mp, rcu].map((t) => { const r = checkSource(t, { model }); return [r.positive, r.negative]; });
    const before = new Set(entries());
    const first = answers(compileModelFiles(files));
    expect(first[1][0]).toBe(0);
    const written = entries().filter((f) => f.endsWith('.facts') && !before.has(f));
    expect(written).toHaveLength(1);
    const file = join(cache, 'models', written[0]);
    const text = readFileSync(file, 'utf8');
    for (const kind of ['prefix-safe', 'latest-read', 'section-rule', 'implies-coherence']) expect(text).toContain(`"${kind}"`);
    const { ino } = statSync(file);
    // A second model of the same files (another process's) answers the same from the facts and adds none.
    const second = answers(compileModelFiles(files));
    expect(second).toEqual(first);
    expect(statSync(file).ino).toBe(ino);
    // Without the file (or with a damaged one), the same answers.
    rmSync(file);
    expect(answers(compileModelFiles(files))).toEqual(first);
  });
});
