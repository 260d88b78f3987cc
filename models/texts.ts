// The project's own statements of its models as cat text (models/text/):
// the Linux-kernel memory model (lkmm.cfg: lkmm.bell, lkmm.cat), sequential
// consistency (sc.cfg) and x86-TSO (x86tso.cfg), with the files they share
// (kernel-events.bell, lock-events.cat, grace-periods.cat). They ship in
// the package; each gives the same answers as the built-in model of its
// name (test/model-text.test.ts), and any of them can be picked, or
// copied and edited, as a model given as files (--conf FILE.cfg).

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesOfConf, type ModelFiles } from './cat/files.js';

/** The built-in models stated as text, by name, with the .cfg that names their files. */
export const MODEL_TEXTS: Readonly<Record<string, string>> = {
  lkmm: 'lkmm.cfg',
  sc: 'sc.cfg',
  'x86-tso': 'x86tso.cfg',
};

/** The folder of the texts: models/text of the package (found from here, in src/ or in dist/). */
export function modelTextDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const cand = join(dir, 'models', 'text');
    if (existsSync(join(dir, 'package.json')) && existsSync(cand)) return cand;
    dir = dirname(dir);
  }
  throw new Error(`litmus: the model texts (models/text) are not installed beside ${fileURLToPath(import.meta.url)}`);
}

/** The .cfg of the built-in model `name` stated as text. */
export function modelTextConf(name: string): string {
  const cfg = MODEL_TEXTS[name];
  if (!cfg) throw new Error(`internal: no text for the model "${name}"`);
  return join(modelTextDir(), cfg);
}

/** The files of the built-in model `name` stated as text, as a model given as files. */
export function modelTextFiles(name: string): ModelFiles {
  return filesOfConf(modelTextConf(name));
}
