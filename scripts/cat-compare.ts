// Compares the compiled LKMM (the kernel's .cat/.bell files, read as data)
// with the built-in one on every .litmus file under the given folders:
// verdict, counts, states and flags must be identical. With --text NAME,
// the project's own text of the built-in model NAME (models/text/: lkmm,
// sc, x86-tso) in place of the kernel's files, against that model.
// Usage: node dist/scripts/cat-compare.js [--lkmm DIR | --text NAME] [--timeout MS] DIR...

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtinModel } from '../models/index.js';
import { compileModelFiles } from '../models/cat/model.js';
import { modelTextFiles } from '../models/texts.js';
import { ModelError } from '../models/cat/lexer.js';
import { resolveInputs } from '../src/cli/inputs.js';
import { checkSource, type CheckResult } from '../src/check.js';

const summary = (r: CheckResult) =>
  `${r.observation} ${r.positive} ${r.negative} [${r.flags.join(',')}] ${r.states.map((s) => s.bindings.map((b) => b.join('=')).join(' ')).join(' | ')}`;

const args = process.argv.slice(2);
let lkmmDir = resolve('../shared/lkmm');
let timeoutMs = 10_000;
let text: string | undefined;
const dirs: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--lkmm') lkmmDir = resolve(args[++i]);
  else if (args[i] === '--text') text = args[++i];
  else if (args[i] === '--timeout') timeoutMs = Number(args[++i]);
  else dirs.push(args[i]);
}
const compiled = (() => {
  try {
    if (text !== undefined) return compileModelFiles(modelTextFiles(text));
    return compileModelFiles({ cat: join(lkmmDir, 'linux-kernel.cat'), bell: join(lkmmDir, 'linux-kernel.bell'), variants: ['lkmmv2'], searchDirs: [lkmmDir], skipChecks: [], besideIncluder: true });
  } catch (e) {
    if (e instanceof ModelError) {
      console.error(e.format());
      process.exit(2);
    }
    throw e;
  }
})();
const builtin = builtinModel(text ?? 'lkmm')!;
let same = 0;
let differ = 0;
let skipped = 0;
let tBuiltin = 0;
let tCompiled = 0;
for (const file of resolveInputs(dirs).files) {
  const source = readFileSync(file, 'utf8');
  let a: CheckResult;
  let b: CheckResult;
  try {
    const t0 = performance.now();
    a = checkSource(source, { model: builtin, timeoutMs });
    const t1 = performance.now();
    b = checkSource(source, { model: compiled, timeoutMs });
    tBuiltin += t1 - t0;
    tCompiled += performance.now() - t1;
  } catch (e) {
    skipped++;
    if (process.env.VERBOSE) console.log(`skip ${file}: ${(e as Error).message.split('\n')[0]}`);
    continue;
  }
  if (summary(a) === summary(b)) same++;
  else {
    differ++;
    console.log(`DIFFER ${file}\n  built-in: ${summary(a)}\n  compiled: ${summary(b)}`);
  }
}
console.log(`${same} same, ${differ} differ, ${skipped} not checked; built-in ${(tBuiltin / 1000).toFixed(2)} s, compiled ${(tCompiled / 1000).toFixed(2)} s`);
process.exit(differ > 0 ? 1 : 0);
