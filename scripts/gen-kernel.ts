// Rewrites litmus/kernel.d.ts from the primitive table (npm run gen:kernel).
// test/suite-ts.test.ts fails when the committed file is out of date.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kernelDeclarations } from '../src/suite/kernel-decl.js';
import { bundledDir } from '../src/cli/inputs.js';

const out = join(bundledDir(), 'kernel.d.ts');
writeFileSync(out, kernelDeclarations());
console.log(`wrote ${out}`);
