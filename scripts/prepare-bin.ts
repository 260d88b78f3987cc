// Run by `npm ci` / `npm install` in a clone (the "prepare" script), after
// tsc: makes the two commands executable and links them into the clone's
// own node_modules/.bin. npx looks there first, so `npx litmus ...` in the
// clone starts the clone's build at once; without the links npm copies the
// whole package into its npx cache on the first run (about 8 s here).

import { chmodSync, existsSync, lstatSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const commands: [string, string][] = [
  ['litmus', join(root, 'dist', 'src', 'cli', 'main.js')],
  ['litmus-herd7', join(root, 'dist', 'src', 'cli', 'herd7.js')],
];
const bin = join(root, 'node_modules', '.bin');
for (const [name, file] of commands) {
  chmodSync(file, 0o755);
  // Only inside a clone with its dependencies installed; never over an existing entry.
  if (!existsSync(bin)) continue;
  const link = join(bin, name);
  const present = (() => {
    try {
      lstatSync(link);
      return true;
    } catch {
      return false;
    }
  })();
  if (!present) symlinkSync(relative(bin, file), link);
}
