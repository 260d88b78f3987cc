// Model inclusion: every state SC allows is x86-TSO's, and every state
// x86-TSO allows is the LKMM's, on every .litmus file below the given
// folders (default: the corpus and its paulmckrcu-litmus/manual). Files
// that do not parse, or that hit a limit, are counted and skipped.
// Prints `inclusion: A/T hold (skipped: ...)` and each counterexample; exits 1
// if inclusion fails anywhere.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkSource, type CheckResult } from '../src/check.js';
import { LitmusError } from '../src/parse/errors.js';
import { lkmm } from '../models/lkmm.js';
import { sc } from '../models/sc.js';
import { x86tso } from '../models/x86tso.js';
import type { Model } from '../src/model/model.js';
import { corpusDir } from './corpus.js';

/** The litmus files below a folder (or the file itself), sorted. */
export function litmusFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((d) => (d.isDirectory() ? litmusFiles(join(path, d.name)) : d.name.endsWith('.litmus') ? [join(path, d.name)] : []));
}

const states = (r: CheckResult) => new Set(r.states.map((s) => s.bindings.map(([k, v]) => `${k}=${v}`).join(' ')));

/**
 * The states the weaker model misses, for one test; or why the test could
 * not be checked ('unparsed', or 'limit' for a limit or anything else).
 */
export function inclusionGaps(text: string, limits = { maxExecutions: 200_000, timeoutMs: 10_000 }): string[] | 'unparsed' | 'limit' {
  const all: Set<string>[] = [];
  for (const model of [sc, x86tso, lkmm] as Model[]) {
    try {
      all.push(states(checkSource(text, { model, ...limits })));
    } catch (e) {
      return e instanceof LitmusError ? 'unparsed' : 'limit';
    }
  }
  const [s, t, l] = all;
  const gaps: string[] = [];
  for (const st of s) if (!t.has(st)) gaps.push(`SC state not x86-TSO's: ${st}`);
  for (const st of t) if (!l.has(st)) gaps.push(`x86-TSO state not the LKMM's: ${st}`);
  return gaps;
}

function main(args: string[]): number {
  const corpus = corpusDir();
  const roots = args.length > 0 ? args : corpus ? [corpus, join(corpus, 'paulmckrcu-litmus', 'manual')] : [];
  if (roots.length === 0) {
    console.log('inclusion: skipped (no corpus at ../shared/corpus; set LITMUS_CORPUS or name folders)');
    return 0;
  }
  // The corpus root's own tests only (not all of paulmckrcu-litmus below it).
  const files = [...new Set(roots.flatMap((r) => (corpus && r === corpus ? litmusFiles(join(r, 'herd-linux')).concat(litmusFiles(join(r, 'kernel'))) : litmusFiles(r))))];
  let held = 0;
  let unparsed = 0;
  let limited = 0;
  let failed = 0;
  for (const f of files) {
    const gaps = inclusionGaps(readFileSync(f, 'utf8'));
    if (gaps === 'unparsed') unparsed++;
    else if (gaps === 'limit') limited++;
    else if (gaps.length === 0) held++;
    else {
      failed++;
      console.log(`FAILS ${f}: ${gaps.join('; ')}`);
    }
  }
  console.log(`inclusion: ${held}/${held + failed} hold (skipped: ${unparsed} not parsed, ${limited} over the limits)`);
  return failed === 0 ? 0 : 1;
}

if (process.argv[1]?.endsWith('inclusion.js')) process.exit(main(process.argv.slice(2)));
