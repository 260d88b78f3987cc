// TypeScript suites on the page: the suite.ts entries under the folder
// served, each read as `litmus check` reads it (its saved lowering, else
// ts-morph), and its tests listed, gridded and shown as the C they are
// inlined into. A test of a suite is named "dir/suite.ts#test-name".
// The reading (lowerSuite) runs in a checking thread (check-worker.ts):
// inlining can grow without bound, and it is stopped as a check is.

import { relative, sep } from 'node:path';
import { printLitmus } from '../parse/printer.js';
import type { SuiteConfig, SuiteMeta } from '../report/suite.js';
import type { Suite, SuiteTest } from '../suite/read.js';
import { scrubPaths } from './paths.js';

export interface ServedTest {
  path: string;
  name: string;
  meta: SuiteMeta;
}

export interface ServedSuite {
  /** The entry, relative to the folder served (dir/suite.ts). */
  dir: string;
  title: string;
  tests: ServedTest[];
  config: SuiteConfig;
  /** Why it (or some of its tests) could not be read (file:line:col: what is wrong), or that reading it was stopped. */
  error?: string;
}

/** A suite as a checking thread hands it back: what the listing shows, and each test's C (in the order of `tests`). */
export interface LoweredSuite extends ServedSuite {
  texts: string[];
}

/** "dir/suite.ts#name" split into the entry and the test's name. */
export function suiteTestPath(path: string): { entry: string; name: string } | undefined {
  const m = /^(.*(?:^|\/)suite\.ts)#([^#/]+)$/.exec(path);
  return m ? { entry: m[1], name: m[2] } : undefined;
}

/** A suite that could not be read, or whose reading was stopped. */
export function unreadSuite(entry: string, error: string): LoweredSuite {
  return { dir: entry, title: entry, tests: [], texts: [], config: {}, error };
}

/**
 * Reads the suite whose entry is `file` (its real path; `entry` is it
 * relative to `root`): in a checking thread, never on the server's.
 */
export async function lowerSuite(root: string, file: string, entry: string): Promise<LoweredSuite> {
  const { readSuite } = await import('../suite/read.js');
  const { SuiteError } = await import('../suite/modules.js');
  let s: Suite;
  try {
    s = await readSuite(file);
  } catch (e) {
    if (e instanceof SuiteError) return unreadSuite(entry, scrubPaths(`${relative(root, e.file).split(sep).join('/')}:${e.pos.line}:${e.pos.col}: ${e.message}`));
    throw e;
  }
  return {
    dir: entry,
    title: s.title,
    tests: s.tests.map((t) => ({ path: `${entry}#${t.test.name}`, name: t.test.name, meta: metaOf(t) })),
    texts: s.tests.map(suiteTestText),
    config: { underReview: s.underReview, baseline: s.baseline, badOutcome: s.badOutcome },
    // Each says file:line:col with the file relative to the folder served (a file outside it by its name only).
    error: s.unread.length ? s.unread.map((u) => scrubPaths(u.error.split(root + sep).join(''))).join('\n') : undefined,
  };
}

/** What the listing shows of a suite (its tests' texts left out). */
export function listed(s: LoweredSuite): ServedSuite {
  const { texts: _texts, ...shown } = s;
  return shown;
}

function metaOf(t: SuiteTest): SuiteMeta {
  return { version: t.version, scenario: t.variant ? `${t.scenario} (${t.variant})` : t.scenario };
}

/** A suite's test as the page shows and checks it: the C it is inlined into, with its version and scenario. */
function suiteTestText(t: SuiteTest): string {
  const m = metaOf(t);
  const header = ['(*', ` * Version: ${m.version}`, ` * Scenario: ${m.scenario}: ${t.says}`, ' *)'].join('\n');
  return printLitmus({ ...t.test, result: undefined }, header);
}
