// Lowers every bundled TypeScript suite (litmus/*/suite.ts) to C syntax
// trees, into dist/lowered/, with the suite reader itself (ts-morph), so that
// `litmus check SUITE` need not load TypeScript. Run by `npm run build` and
// `prepare`; a saved lowering is used only while its stamp matches the
// sources (src/suite/lowered.ts), so a stale one is never served.

import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { bundledDir } from '../src/cli/inputs.js';
import { readFresh, suiteEntry } from '../src/suite/read.js';
import { saveBundled } from '../src/suite/lowered.js';
import { SuiteError } from '../src/suite/modules.js';

function entries(dir: string, out: string[]): string[] {
  const e = suiteEntry(dir);
  if (e) out.push(e);
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) entries(p, out);
  }
  return out;
}

const root = bundledDir();
const written: string[] = [];
for (const entry of entries(root, [])) {
  try {
    const suite = await readFresh(entry);
    if (saveBundled(suite)) written.push(relative(root, entry));
    else console.error(`lower-suites: could not write the lowering of ${entry} (checks will read it with ts-morph)`);
  } catch (e) {
    // A suite with an error is left to be reported when it is checked.
    if (e instanceof SuiteError) console.error(`lower-suites: ${e.format()}`);
    else throw e;
  }
}
console.log(`lowered ${written.length} suite${written.length === 1 ? '' : 's'} into dist/lowered/`);

