// The kernel's LKMM files, compiled from a copy with linux-kernel.cat edited: what the
// shortcut tests compare a derivation under (the files as the kernel ships them, or edited).
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HAVE_LKMM, LKMM_DIR } from './util.js';
import { compileModelFiles, type CatModel } from '../models/cat/model.js';

/** The kernel's files with linux-kernel.cat edited (undefined where ../shared/lkmm is absent); an edit that changes nothing throws. */
export function kernelModel(edit?: (cat: string) => string): CatModel | undefined {
  if (!HAVE_LKMM) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'litmus-kernel-model-'));
  for (const f of ['linux-kernel.cat', 'linux-kernel.bell', 'lock.cat', 'linux-kernel.def']) copyFileSync(join(LKMM_DIR, f), join(dir, f));
  const cat = join(dir, 'linux-kernel.cat');
  const text = readFileSync(cat, 'utf8');
  const edited = edit ? edit(text) : text;
  if (edit && edited === text) throw new Error('the edit changed nothing');
  writeFileSync(cat, edited);
  return compileModelFiles({ cat, bell: join(dir, 'linux-kernel.bell'), variants: ['lkmmv2'], searchDirs: [dir], skipChecks: [], besideIncluder: true }, { ruleAfter: 0 });
}
