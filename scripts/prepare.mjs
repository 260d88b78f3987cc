// The "prepare" script (npm ci, npm install in a clone, and npx in a clone,
// which installs the clone into npm's npx cache and runs this again):
// compile with tsc, save the bundled suites' lowering, bundle the command line
// with its code cache (scripts/bundle.ts), make the commands executable.
// Plain JavaScript, since it runs before anything is compiled.
//
// The build is skipped when dist/ was built from exactly these sources: a
// hash of every file tsc and the suite lowering read is kept in
// dist/.build-stamp. So the first `npx litmus ...` after `npm ci` does not
// spend ~7 s rebuilding what npm ci has just built.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = join(root, 'dist', '.build-stamp');

/** Every file below dir (sorted), skipping nothing: sources, suites, kernel.d.ts. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

function sourceHash() {
  const h = createHash('sha256');
  const inputs = [
    ...['package.json', 'package-lock.json', 'tsconfig.json'].map((f) => join(root, f)),
    ...['src', 'models', 'scripts', 'bench', 'litmus'].flatMap((d) => filesUnder(join(root, d))),
  ];
  for (const f of inputs) {
    if (!existsSync(f)) continue;
    h.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  h.update(process.version);
  return h.digest('hex');
}

const run = (file, args) => execFileSync(process.execPath, [file, ...args], { cwd: root, stdio: 'inherit' });
const hash = sourceHash();
const built = existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash && existsSync(join(root, 'dist', 'src', 'cli', 'start.cjs'));
if (!built) {
  run(join(root, 'node_modules', 'typescript', 'bin', 'tsc'), ['-p', 'tsconfig.json']);
  run(join(root, 'dist', 'scripts', 'lower-suites.js'), []);
  run(join(root, 'dist', 'scripts', 'bundle.js'), []);
  writeFileSync(stampFile, hash);
}
// The commands' files are executable, as npm's bin links need them to be.
for (const file of ['start.cjs', 'herd7-start.cjs', 'litmus-herd7', 'mselect7-start.cjs', 'main.js', 'herd7.js']) chmodSync(join(root, 'dist', 'src', 'cli', file), 0o755);
