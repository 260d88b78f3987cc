// Saved lowerings (src/suite/lowered.ts): a bundled suite's product from the
// build is the same as reading it with ts-morph now, and is used only while
// its stamp matches the sources; a user suite's cache entry likewise.

import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledProduct, loadLowered } from '../src/suite/lowered.js';
import { readFresh, readSuite, type Suite } from '../src/suite/read.js';
import { NFS_DIR, ROOT } from './util.js';

/** What a lowering is: the suite and, per test, the syntax tree with the file of each of its positions. */
function comparable(s: Suite): unknown {
  return {
    ...s,
    tests: s.tests.map(({ files, ...t }) =>
      JSON.parse(JSON.stringify(t, (_k, v: unknown) => (v !== null && typeof v === 'object' && files.has(v as never) ? { ...v, file: files.get(v as never) } : v))),
    ),
  };
}

const saved = process.env.LITMUS_CACHE_DIR;
afterEach(() => {
  if (saved === undefined) delete process.env.LITMUS_CACHE_DIR;
  else process.env.LITMUS_CACHE_DIR = saved;
});

describe('saved lowerings', () => {
  it('the build saved every bundled suite, and loading one gives what ts-morph reads now', async () => {
    for (const name of ['clear_invalid_mapping', 'nfsd_io_stats', 'sb_iostats']) {
      const entry = join(ROOT, 'litmus', name, 'suite.ts');
      expect(existsSync(bundledProduct(entry)!), `${name}: run npm run build`).toBe(true);
      const loaded = loadLowered(entry);
      expect(loaded, `${name}'s saved lowering is stale: run npm run build`).toBeDefined();
      expect(comparable(loaded!)).toEqual(comparable(await readFresh(entry)));
    }
  });

  it('a user suite is cached on first read, the cache is used, and an edit makes it stale', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'litmus-cache-'));
    process.env.LITMUS_CACHE_DIR = cache;
    const dir = mkdtempSync(join(tmpdir(), 'litmus-nfs-'));
    cpSync(NFS_DIR, join(dir, 'nfs'), { recursive: true });
    cpSync(join(ROOT, 'litmus', 'kernel.d.ts'), join(dir, 'kernel.d.ts'));
    const entry = join(dir, 'nfs', 'suite.ts');
    expect(loadLowered(entry)).toBeUndefined();
    const first = await readSuite(entry);
    const cached = loadLowered(entry);
    expect(cached).toBeDefined();
    expect(comparable(cached!)).toEqual(comparable(first));
    // Editing any module the suite reads (here a version's) makes the entry stale.
    const v1 = join(dir, 'nfs', 'v1.ts');
    writeFileSync(v1, readFileSync(v1, 'utf8').replace('smp_rmb(); // pairs', 'smp_mb(); // pairs'));
    expect(loadLowered(entry)).toBeUndefined();
    const edited = await readSuite(entry);
    const printed = JSON.stringify(edited.tests.find((t) => t.version === 'v1')!.test);
    expect(printed).toContain('"smp_mb"');
    expect(comparable(loadLowered(entry)!)).toEqual(comparable(edited));
  });

  it('LITMUS_CACHE_DIR=off keeps nothing; an unwritable cache folder is no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-nfs-'));
    cpSync(NFS_DIR, join(dir, 'nfs'), { recursive: true });
    const entry = join(dir, 'nfs', 'suite.ts');
    process.env.LITMUS_CACHE_DIR = 'off';
    await readSuite(entry);
    expect(loadLowered(entry)).toBeUndefined();
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    process.env.LITMUS_CACHE_DIR = join(file, 'below-a-file');
    const s = await readSuite(entry);
    expect(s.tests.length).toBe(28);
    expect(loadLowered(entry)).toBeUndefined();
  });
});
