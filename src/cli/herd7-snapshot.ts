// What the litmus-herd7 start-up snapshot holds (src/cli/snapshot.cts makes
// it): litmus herd7's code, bundled alone (dist/litmus-herd7.cjs, by
// scripts/bundle.ts), every module initialised and the functions a check
// runs compiled by a warm-up, so that a process started from it neither
// loads, compiles nor initialises anything before checking its test.

import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { herd7Main } from './herd7.js';
import { checkOne } from './herd7-test.js';
import { defaultHerdOptions } from './herd7-args.js';
import { filesSpec, getModel } from '../../models/index.js';
import { fingerprintOfFiles, type CatModel } from '../../models/cat/model.js';
import { filesOfConf } from '../../models/cat/files.js';
import { loadCompiled, modelKey } from '../../models/cat/cache.js';

export { herd7Main };

/**
 * Runs litmus herd7 over the warm-up tests (the generated families,
 * dist/warm-up/, written by scripts/bundle.ts) under the built-in LKMM,
 * then under litmus's own LKMM text (`models`: models/text/, read as a
 * user's model files are: the cat compiler, the cache of compiled models
 * and the evaluator). Nothing is printed. The text is read from a copy in
 * a temporary folder, removed after: a model compiled in this process stays
 * in the snapshot's memory under the paths it was read from
 * (models/index.ts keeps one per spec), which no later run may name.
 */
export async function warmUp(tests: string, models: string): Promise<void> {
  const io = { out: () => undefined, err: () => undefined };
  const files = readdirSync(tests).filter((f) => f.endsWith('.litmus')).sort().map((f) => join(tests, f));
  await herd7Main(files, io);
  const copy = mkdtempSync(join(tmpdir(), 'litmus-warm-up-'));
  const cacheDir = process.env.LITMUS_CACHE_DIR;
  // The cache of compiled models, in the temporary folder: written by the run, then read back.
  process.env.LITMUS_CACHE_DIR = join(copy, 'cache');
  try {
    for (const name of readdirSync(models)) if (/\.(cfg|cat|bell)$/.test(name)) copyFileSync(join(models, name), join(copy, name));
    const modelFiles = filesOfConf(join(copy, 'lkmm.cfg'));
    const spec = filesSpec(modelFiles);
    const model = getModel(spec)!;
    // As `litmus history` runs a test under --conf: the built-in primitives (the text has no macros line).
    const opts = { ...defaultHerdOptions(), model: spec };
    for (const f of files) checkOne(f, opts, new Map(), { model });
    // The staged models it shares between structures of one shape would be in the snapshot (megabytes to read at every start).
    if ('forgetShapes' in model) (model as CatModel).forgetShapes();
    const known = fingerprintOfFiles(modelFiles);
    if (known) loadCompiled(modelKey(known.fingerprint, known.files));
  } finally {
    if (cacheDir === undefined) delete process.env.LITMUS_CACHE_DIR;
    else process.env.LITMUS_CACHE_DIR = cacheDir;
    rmSync(copy, { recursive: true, force: true });
  }
}
