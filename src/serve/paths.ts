// Which files the page may read or write: only tests (`.litmus` files) and
// TypeScript suites' entries (`suite.ts`) under the folder it was started
// on, never any other file. A request names a file by a relative path with
// plain segments; an absolute path, a ".." or "." segment, a backslash or
// NUL, a path whose real location (symlinks followed) is outside the folder
// or is not a test, something that is not a regular file (a FIFO, a
// device), or a file with more than one name (a hard link: its other names
// may be anywhere) is refused. A save never writes through a symlink, never
// to a hard-linked file, only to a `.litmus` name in a folder under root.
// Nothing here puts an absolute path in a message.

import { lstatSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { LIMITS, readInputFile } from '../limits.js';
import { LimitError } from '../parse/errors.js';
import { basename, dirname, join, relative, sep } from 'node:path';
import { writeFileAtomic, WriteError } from '../write-file.cjs';
import { suiteMeta, type SuiteMeta } from '../report/suite.js';

/** The largest test read: what check reads (a test larger than this is not one a page can edit). */
export const MAX_READ_BYTES = LIMITS.fileBytes;

/** The longest file name a save accepts, per segment and in all (bytes): beyond, file systems refuse it. */
const MAX_SEGMENT_BYTES = 255;
const MAX_PATH_BYTES = 1024;

/** Whether `rel` is a plain relative path (a/b/c.litmus). */
export function plainRelative(rel: string): boolean {
  if (rel === '' || rel.startsWith('/') || /[\\\0]/.test(rel)) return false;
  return rel.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** Whether a name is longer than a file system takes. */
export function nameTooLong(rel: string): boolean {
  return Buffer.byteLength(rel) > MAX_PATH_BYTES || rel.split('/').some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES);
}

function within(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (!r.startsWith('..') && !r.startsWith(sep) && r.split(sep)[0] !== '..');
}

/** What may be read: a test, or a TypeScript suite's entry. */
export type Readable = 'test' | 'suite';

function kindOf(name: string): Readable | undefined {
  if (name.endsWith('.litmus')) return 'test';
  if (name === 'suite.ts') return 'suite';
  return undefined;
}

/** The real path of a test or suite entry (of the kind `want`) under `root` (itself a real path) that `rel` names, or undefined. */
export function readablePath(root: string, rel: string, want: Readable): string | undefined {
  if (!plainRelative(rel) || nameTooLong(rel)) return undefined;
  const kind = kindOf(basename(rel));
  if (kind !== want) return undefined;
  let real: string;
  try {
    real = realpathSync(join(root, rel));
  } catch {
    return undefined;
  }
  // A symlink may lead to another test under root, never out of it or to another kind of file.
  if (!within(root, real) || kindOf(basename(real)) !== kind) return undefined;
  const st = statSync(real, { throwIfNoEntry: false });
  if (!st?.isFile() || st.nlink !== 1) return undefined;
  return real;
}

/**
 * A test's text (see readablePath), or undefined; `tooBig` when it is over
 * the bound `check` reads (LIMITS.fileBytes). Read by check's own reader
 * (readInputFile: no FIFO, device or socket, without blocking), here also
 * refusing a symlink put in the resolved path's place since and a file with
 * more than one name.
 */
export function readTest(root: string, rel: string): { text: string } | { tooBig: true } | undefined {
  const real = readablePath(root, rel, 'test');
  if (!real) return undefined;
  try {
    return { text: readInputFile(real, { noFollow: true, singleName: true }) };
  } catch (e) {
    return e instanceof LimitError ? { tooBig: true } : undefined;
  }
}

export type SaveRefusal = { status: 400 | 403 | 404 | 507; message: string };

/**
 * Writes `text` to the `.litmus` file `rel` names under `root`: a new file
 * in a folder under root, or an existing regular file there with one name.
 * Refusals say why with `rel` only, never an absolute path.
 */
export function saveTest(root: string, rel: string, text: string): SaveRefusal | undefined {
  if (nameTooLong(rel)) return { status: 400, message: `${rel.slice(0, 60)}...: name too long (at most ${MAX_SEGMENT_BYTES} bytes a segment, ${MAX_PATH_BYTES} in all)` };
  if (!plainRelative(rel) || !rel.endsWith('.litmus')) return { status: 404, message: `${rel}: only a .litmus file under the folder served can be saved` };
  let dir: string;
  try {
    dir = realpathSync(dirname(join(root, rel)));
  } catch {
    return { status: 404, message: `${rel}: no such folder` };
  }
  if (!within(root, dir) || !statSync(dir).isDirectory()) return { status: 404, message: `${rel}: only a .litmus file under the folder served can be saved` };
  const target = join(dir, basename(rel));
  const present = lstatSync(target, { throwIfNoEntry: false });
  if (present?.isSymbolicLink()) return { status: 403, message: `${rel}: a symbolic link; not written through` };
  if (present && !present.isFile()) return { status: 403, message: `${rel}: not a regular file` };
  if (present && present.nlink !== 1) return { status: 403, message: `${rel}: a hard link (the file has other names); not written` };
  try {
    // Whole or not at all, through a new file renamed into place: a link put in the name's place since is refused, never followed.
    writeFileAtomic(target, text, { refuseLink: true });
    return undefined;
  } catch (e) {
    const code = e instanceof WriteError ? e.code : undefined;
    return { status: code === 'ENOSPC' || code === 'EDQUOT' || code === 'EIO' ? 507 : 403, message: `${rel}: cannot be written (${e instanceof WriteError ? e.reason : code ?? 'error'})` };
  }
}

/** How far a listing of the folder served goes: tests and suite entries found, entries looked at, time. */
export const WALK_BOUNDS = { files: 20_000, entries: 200_000, ms: 5_000 };

/** The tests and suite entries under a folder, and why the listing stopped early, if it did. */
export interface Walk {
  tests: string[];
  suites: string[];
  /** Why not everything is listed (a bound reached), in words for the page. */
  truncated?: string;
}

/**
 * The tests and TypeScript suite entries under root that may be read
 * (readablePath), as relative paths, in name order; symlinked folders are
 * not entered. Bounded (WALK_BOUNDS): at most `files` of them, `entries`
 * folder entries looked at, `ms` of time; past a bound the walk stops and
 * says so (the page shows it), never lists part of a folder silently.
 */
export function walkFolder(root: string, bounds = WALK_BOUNDS, visit?: (rel: string, kind: Readable) => void): Walk {
  const tests: string[] = [];
  const suites: string[] = [];
  const until = Date.now() + bounds.ms;
  let seen = 0;
  // Depth first in name order, with a stack of folders' remaining entries (no recursion: a deep tree cannot exhaust the stack).
  const stack: { dir: string; names: Dirent[]; at: number }[] = [];
  const enter = (dir: string) => {
    try {
      stack.push({ dir, names: readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0)), at: 0 });
    } catch {
      // an unreadable folder is passed over
    }
  };
  enter(root);
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.at >= top.names.length) {
      stack.pop();
      continue;
    }
    const d = top.names[top.at++];
    if (++seen > bounds.entries) return { tests, suites, truncated: `the listing stopped after ${bounds.entries} entries of the folder (files and folders): the tests after them are not listed` };
    if (seen % 1024 === 0 && Date.now() > until) return { tests, suites, truncated: `the listing stopped after ${bounds.ms / 1000} s (${seen} entries of the folder looked at): the tests after them are not listed` };
    const p = join(top.dir, d.name);
    if (d.isDirectory()) {
      enter(p);
      continue;
    }
    const kind = kindOf(d.name);
    if (!kind) continue;
    const rel = relative(root, p).split(sep).join('/');
    if (!readablePath(root, rel, kind)) continue;
    if (tests.length + suites.length >= bounds.files) return { tests, suites, truncated: `only the first ${bounds.files} tests and suites are listed` };
    (kind === 'test' ? tests : suites).push(rel);
    visit?.(rel, kind);
  }
  return { tests, suites };
}

/** The folder's listing as the page gets it: each test with its suite header, the suite entries, and why it stops early. */
export interface FolderListing {
  tests: { path: string; name: string; meta?: SuiteMeta }[];
  suites: string[];
  truncated?: string;
}

/** walkFolder, each test read for its suite header (in a checking thread: a large folder never holds the server's). */
export function listFolder(root: string, bounds = WALK_BOUNDS): FolderListing {
  const tests: FolderListing['tests'] = [];
  // Each test read as it is found, so that the walk's time bound covers the reading too.
  const w = walkFolder(root, bounds, (path, kind) => {
    if (kind !== 'test') return;
    const read = readTest(root, path);
    tests.push({ path, name: basename(path, '.litmus'), meta: read && 'text' in read ? suiteMeta(read.text) : undefined });
  });
  return { tests, suites: w.suites, ...(w.truncated ? { truncated: w.truncated } : {}) };
}

/**
 * A message with every absolute path in it cut to its last name (.../name):
 * for what an internal error says, which may name files anywhere.
 */
export function scrubPaths(message: string): string {
  return message.replace(/(^|[\s'"`(=:,])\/(?:[^\s'"`():,/]+\/)+([^\s'"`():,/]*)/g, (_m, pre: string, last: string) => `${pre}.../${last}`);
}
