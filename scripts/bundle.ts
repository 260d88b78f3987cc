// The last build step (npm run build, prepare): bundles the compiled command
// line (dist/src/cli/main.js and everything it imports) into one CommonJS file,
// dist/litmus.cjs, and writes V8's code cache for it, taken after a warm-up
// run, which src/cli/start.cts (the `litmus` command) loads with it.
//
// Why: a check of a few small tests is mostly start-up, and of that most is
// Node resolving, reading and compiling ~80 ES modules one by one, then V8
// compiling each function the first time it runs. Node 20 caches compiled code
// only for a script it is handed whole (vm.Script's cachedData), hence one
// file; esbuild (a dev dependency) makes it.
//
// Each module keeps its own import.meta.url (its file in dist/, which is still
// there): the walks up to the package's folder and the worker threads'
// `new URL('./worker.js', import.meta.url)` find what they found before.
//
// The warm-up checks small generated tests of bench/families.ts (message
// passing, RCU, spinlocks, IRIW, ...), never a corpus: only the code those
// runs compile is in the cache; anything else compiles when first called, as
// it would without a cache.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILIES } from '../bench/families.js';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundleFile = join(dist, 'litmus.cjs');

/** Removes the bundle and every code cache (a stale one must not outlive its bundle). */
function removeOld(): void {
  for (const name of readdirSync(dist)) {
    if (name === 'litmus.cjs' || /^litmus\.[\w.-]+\.cache$/.test(name)) rmSync(join(dist, name), { force: true });
  }
}

/** The bundle's text, or undefined when esbuild is not installed (then `litmus` runs the modules as they are). */
async function bundleText(): Promise<string | undefined> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const result = await esbuild.build({
    entryPoints: [join(dist, 'src', 'cli', 'main.js')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Loaded only for TypeScript inputs (and a CommonJS package): required from node_modules when needed.
    external: ['ts-morph'],
    // import() of ts-morph becomes require(): vm.Script has no loader for import() without an experimental flag.
    supported: { 'dynamic-import': false },
    banner: { js: 'var __litmusUrl = (f) => require("node:url").pathToFileURL(require("node:path").join(__dirname, f)).href;' },
    plugins: [
      {
        // commander requires node:child_process up front (~8 ms of start-up: it
        // brings net, dgram and streams) for executable subcommands, which
        // litmus has none of: its require gets the module when first used.
        name: 'lazy-child-process-for-commander',
        setup(build) {
          build.onResolve({ filter: /^node:child_process$/ }, (args) => {
            if (args.namespace === 'lazy') return { path: args.path, external: true };
            if (!args.importer.includes(`${sep}node_modules${sep}commander${sep}`)) return undefined;
            return { path: args.path, namespace: 'lazy' };
          });
          build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
            contents: `let m; module.exports = new Proxy({}, { get: (_, key) => (m ??= require(${JSON.stringify(args.path)}))[key] });`,
            loader: 'js',
          }));
        },
      },
      {
        name: 'own-import-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.js$/ }, async (args) => {
            if (!args.path.startsWith(dist + sep) || args.path.includes(`${sep}node_modules${sep}`)) return undefined;
            const { readFile } = await import('node:fs/promises');
            const src = await readFile(args.path, 'utf8');
            const rel = JSON.stringify(relative(dist, args.path));
            return { contents: src.replaceAll('import.meta.url', `__litmusUrl(${rel})`), loader: 'js', resolveDir: dirname(args.path) };
          });
        },
      },
    ],
    // Whitespace and syntax minified, names kept (stack traces still name
    // functions): Node reads and V8 hashes the whole text at every start,
    // ~570 KB -> ~370 KB, ~7 ms less per start.
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0].text.replace(/^#!.*\n/, '');
}

/**
 * Runs `litmus check`, then `litmus herd7` (the kernel's scripts' command,
 * which has its own cache), on the warm-up tests with
 * LITMUS_CODE_CACHE=write; true when both checked them.
 */
function warmUp(): boolean {
  const dir = mkdtempSync(join(os.tmpdir(), 'litmus-warm-up-'));
  try {
    const files: string[] = [];
    for (const f of FAMILIES) {
      for (const n of [f.minN, f.minN + 1]) {
        files.push(join(dir, `${f.name}-${n}.litmus`));
        writeFileSync(files[files.length - 1], f.make(n));
      }
    }
    // herd7 without -conf: its built-in LKMM (the kernel's files are not part of the package).
    for (const args of [['check', '-j', '1', dir], ['herd7', ...files]]) {
      const run = spawnSync(process.execPath, [join(dist, 'src', 'cli', 'start.cjs'), ...args], {
        env: { ...process.env, LITMUS_CODE_CACHE: 'write' },
        encoding: 'utf8',
      });
      if (run.status !== 0) {
        console.error(`bundle: the warm-up run of ${args[0]} exited ${run.status}: ${run.stderr.trim().split('\n')[0]}`);
        return false;
      }
    }
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  removeOld();
  const text = await bundleText();
  if (text === undefined) {
    console.error('bundle: esbuild is not installed; `litmus` will load the modules one by one');
    return 0;
  }
  // One character outside ASCII, and Node reads the whole bundle as UTF-16
  // at every start (~10 ms more CPU for ~560 KB): write such characters
  // escaped in the sources (test/start.test.ts checks).
  const outside = /[^\x00-\x7f]/.exec(text);
  if (outside) console.error(`bundle: the bundle is not ASCII ("${outside[0]}"); each start reads it as UTF-16`);
  const cacheName = `litmus.${createHash('sha256').update(text).digest('hex').slice(0, 16)}.cache`;
  writeFileSync(bundleFile, `${text}//# litmus-code-cache=${cacheName}\n`);
  if (!warmUp()) {
    removeOld();
    return 1;
  }
  if (!readdirSync(dist).includes(cacheName)) console.error(`bundle: the warm-up wrote no ${cacheName}; \`litmus\` will compile the bundle each run`);
  return 0;
}

process.exitCode = await main();
