// TypeScript suites on the page: the suite.ts entries under the folder
// served, each read as `litmus check` reads it (its saved lowering, else
// ts-morph), and its tests listed, gridded and shown as the C they are
// inlined into. A test of a suite is named "dir/suite.ts#test-name".

import { relative, sep } from 'node:path';
import { printLitmus } from '../parse/printer.js';
import type { SuiteConfig, SuiteMeta } from '../report/suite.js';
import type { Suite, SuiteTest } from '../suite/read.js';
import { readablePath } from './paths.js';

export interface ServedSuite {
  /** The entry, relative to the folder served (dir/suite.ts). */
  dir: string;
  title: string;
  tests: { path: string; name: string; meta: SuiteMeta }[];
  config: SuiteConfig;
  /** Why it could not be read (file:line:col: what is wrong). */
  error?: string;
}

/** "dir/suite.ts#name" split into the entry and the test's name. */
export function suiteTestPath(path: string): { entry: string; name: string } | undefined {
  const m = /^(.*(?:^|\/)suite\.ts)#([^#/]+)$/.exec(path);
  return m ? { entry: m[1], name: m[2] } : undefined;
}

/** Reads a suite under root; undefined if `entry` names none there. */
export async function readServed(root: string, entry: string): Promise<{ suite?: Suite; error?: string } | undefined> {
  const file = entry.endsWith('suite.ts') ? readablePath(root, entry) : undefined;
  if (!file) return undefined;
  const { readSuite } = await import('../suite/read.js');
  const { SuiteError } = await import('../suite/modules.js');
  try {
    return { suite: await readSuite(file) };
  } catch (e) {
    if (e instanceof SuiteError) return { error: `${relative(root, e.file).split(sep).join('/')}:${e.pos.line}:${e.pos.col}: ${e.message}` };
    throw e;
  }
}

/** What the listing shows of a suite. */
export function servedSuite(entry: string, read: { suite?: Suite; error?: string }): ServedSuite {
  const s = read.suite;
  if (!s) return { dir: entry, title: entry, tests: [], config: {}, error: read.error };
  return {
    dir: entry,
    title: s.title,
    tests: s.tests.map((t) => ({ path: `${entry}#${t.test.name}`, name: t.test.name, meta: metaOf(t) })),
    config: { underReview: s.underReview, baseline: s.baseline, badOutcome: s.badOutcome },
    error: s.unread.length ? s.unread.map((u) => u.error).join('\n') : undefined,
  };
}

function metaOf(t: SuiteTest): SuiteMeta {
  return { version: t.version, scenario: t.variant ? `${t.scenario} (${t.variant})` : t.scenario };
}

/** A suite's test as the page shows and checks it: the C it is inlined into, with its version and scenario. */
export function suiteTestText(t: SuiteTest): string {
  const m = metaOf(t);
  const header = ['(*', ` * Version: ${m.version}`, ` * Scenario: ${m.scenario}: ${t.says}`, ' *)'].join('\n');
  return printLitmus({ ...t.test, result: undefined }, header);
}
