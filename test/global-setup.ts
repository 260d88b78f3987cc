// Builds dist/ once before the suite (npm run build: tsc, then the bundled
// suites' saved lowerings): the CLI tests spawn the compiled CLI.
import { execSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  execSync('npm run build --silent', { cwd: root, stdio: 'inherit' });
}
