// The last step of the "prepare" script (scripts/prepare.mjs): the two
// commands' files are executable, as npm's bin links need them to be.

import { chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli');
for (const file of ['main.js', 'herd7.js']) chmodSync(join(cli, file), 0o755);
