// How the tool writes a file, every file it writes (histories, exported
// tests, .litmus.out files, pictures, the page's saves, caches): in one
// place, so that none is lost or written through a link.
//
// - The text goes to a new temporary file beside the target (`.NAME.XXXX.tmp`,
//   created with O_EXCL | O_NOFOLLOW: a link or a file planted at that name
//   makes the open fail, and another name is tried), is flushed to the disk
//   (fsync), and only then renamed onto the target. A reader sees the old
//   file whole or the new one whole, never a part; a failed write (a full
//   disk, a quota, an error in the text's making) removes the temporary file
//   and leaves the old file as it was; a `kill -9` mid-write leaves at most a
//   `.tmp` file beside it, never a cut target. The folder is not synced after
//   the rename (that costs a journal commit per file, ~8 ms here, on outputs
//   of thousands of files): a power loss may undo a rename, leaving the old
//   file whole, never a cut one.
// - The rename replaces whatever name is in the target's place: a symbolic
//   link planted there with the output's name is replaced by the file, its
//   target is never opened, let alone overwritten (`refuseLink` refuses it
//   instead). A folder, a FIFO or a device in the target's place is refused,
//   and so is a link to one or into /dev or /proc (`--out /dev/stdout`:
//   replaced, the link would be lost; run as root, the system's own).
// - A file replaced keeps its permission bits; a new one gets 0666 less the
//   umask, as any file the user creates.
// - `exclusive` (a new file, as `litmus new` writes) never replaces anything:
//   the temporary file is linked to the target's name, which fails if the
//   name exists.
//
// Folders an output needs are made by outputFolder, which refuses to go
// through a symbolic link below the folder the user named (a link planted in
// a shared output folder must not send a write elsewhere).
//
// This file is CommonJS (like v8-flags.cts) so that the `litmus` command's
// CommonJS entry (start.cts) can use it as well as the ES modules.

import { randomBytes } from 'node:crypto';
import {
  closeSync, constants, fchmodSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, statSync, unlinkSync, writeSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** What a write takes: text, bytes, or pieces of either in order (a text larger than one string may hold). */
export type Content = string | Uint8Array | Iterable<string | Uint8Array>;

export interface WriteOptions {
  /** Refuse (WriteError) when the target is a symbolic link, instead of replacing the link. */
  refuseLink?: boolean;
  /** Refuse when the target exists at all: a new file, never a replacement. */
  exclusive?: boolean;
  /** Permission bits of a new file (default 0o666, less the umask); a replaced file keeps its own. */
  mode?: number;
  /** Skip the fsyncs (a cache that may be lost with the machine, never cut: the rename still makes it whole or absent). */
  noSync?: boolean;
}

/** A file that could not be written; the message says which and why, and that the old one is kept. */
export class WriteError extends Error {
  constructor(
    /** What was being done: "cannot write", "cannot create the folder". */
    verb: string,
    readonly path: string,
    /** Why, in a few words (the message is `VERB PATH: REASON`). */
    readonly reason: string,
    readonly code?: string,
  ) {
    super(`${verb} ${shown(path)}: ${reason}`);
    this.name = 'WriteError';
  }
}

/** A path as a message shows it: relative to the current folder when it is below it. */
function shown(p: string): string {
  if (!isAbsolute(p)) return p;
  const r = relative(process.cwd(), p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? r : p;
}

/** Plain words for the errors a write meets. */
const WHY: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'a read-only file system',
  ENOENT: 'no such folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'a folder is in its place',
  ENAMETOOLONG: 'the name is too long',
  EIO: 'an input/output error',
  EMLINK: 'too many links',
  EFBIG: 'the file is too large for the file system',
  ELOOP: 'a symbolic link loop',
};

function why(e: unknown): { text: string; code?: string } {
  const code = (e as NodeJS.ErrnoException).code;
  if (code && WHY[code]) return { text: `${WHY[code]} (${code})`, code };
  return { text: e instanceof Error ? e.message : String(e), code };
}

/** The temporary file's name: hidden, beside the target, naming it (cut short so that the name stays legal). */
function temporaryName(target: string): string {
  let name = basename(target);
  while (Buffer.byteLength(name) > 180) name = name.slice(0, -1);
  return join(dirname(target), `.${name}.${randomBytes(6).toString('hex')}.tmp`);
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A new temporary file beside `target`, opened for writing; a name taken (by anything) is passed over. */
function openTemporary(target: string, mode: number): { fd: number; tmp: string } {
  for (let attempt = 0; ; attempt++) {
    const tmp = temporaryName(target);
    try {
      return { fd: openSync(tmp, CREATE, mode), tmp };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 16) throw e;
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let put = 0; put < bytes.length; ) put += writeSync(fd, bytes, put, bytes.length - put);
}

function pieces(content: Content): Iterable<string | Uint8Array> {
  return typeof content === 'string' || content instanceof Uint8Array ? [content] : content;
}

/**
 * Writes `content` to `target` whole or not at all (see the top of this
 * file). Throws WriteError, saying why, when the file cannot be written;
 * an error thrown while the content's pieces are being made is thrown as it
 * is, the target left as it was in both cases.
 */
export function writeFileAtomic(target: string, content: Content, opts: WriteOptions = {}): void {
  const present = lstatSync(target, { throwIfNoEntry: false });
  const unchanged = present ? '; the file there is unchanged' : '';
  if (present) {
    if (opts.exclusive) throw new WriteError('cannot write', target, 'it already exists (not replaced)', 'EEXIST');
    if (present.isDirectory()) throw new WriteError('cannot write', target, 'a folder is in its place', 'EISDIR');
    if (present.isSymbolicLink() && opts.refuseLink) throw new WriteError('cannot write', target, 'a symbolic link is in its place (not written through)', 'ELINK');
    if (!present.isFile() && !present.isSymbolicLink()) throw new WriteError('cannot write', target, 'something that is not a regular file (a FIFO, a device or a socket) is in its place', 'ENOTREG');
    if (present.isSymbolicLink() && linkToSpecial(target)) {
      throw new WriteError('cannot write', target, 'a symbolic link to a device, a FIFO, a socket or a folder is in its place (neither written through nor replaced: name a file)', 'ENOTREG');
    }
  }
  let opened: { fd: number; tmp: string };
  try {
    opened = openTemporary(target, opts.mode ?? 0o666);
  } catch (e) {
    const w = why(e);
    throw new WriteError('cannot write', target, `${w.text}${unchanged}`, w.code);
  }
  const { fd, tmp } = opened;
  let stage = 'write';
  try {
    // A file replaced keeps its permissions (not a link's: the link itself is what is replaced).
    if (present?.isFile()) fchmodSync(fd, present.mode & 0o7777);
    for (const piece of pieces(content)) writeAll(fd, typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
    if (!opts.noSync) fsyncSync(fd);
    closeSync(fd);
    stage = 'rename';
    if (opts.exclusive) {
      linkSync(tmp, target);
      unlinkSync(tmp);
    } else renameSync(tmp, target);
  } catch (e) {
    if (stage === 'write') {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    removeQuietly(tmp);
    if (!(e as NodeJS.ErrnoException).code && !(e instanceof WriteError)) throw e;
    const w = why(e);
    if (opts.exclusive && w.code === 'EEXIST') throw new WriteError('cannot write', target, 'it already exists (not replaced)', 'EEXIST');
    throw new WriteError('cannot write', target, `${w.text}${unchanged}`, w.code);
  }
}

/**
 * Whether the link at `link` leads to a device, a FIFO, a socket or a folder, or passes through /dev or /proc
 * (`--out /dev/stdout`, a link to /proc/self/fd/1 even when standard output is a file): replacing such a link
 * would destroy what it is for (run as root, the system's own /dev/stdout), and writing through it is refused.
 */
function linkToSpecial(link: string): boolean {
  const special = (p: string) => /^\/(dev|proc)(\/|$)/.test(p);
  let p = resolve(link);
  for (let hop = 0; hop < 40; hop++) {
    if (special(p)) return true;
    let next: string;
    try {
      next = readlinkSync(p);
    } catch {
      break;
    }
    p = resolve(dirname(p), next);
  }
  const reached = statSync(link, { throwIfNoEntry: false });
  return reached !== undefined && !reached.isFile();
}

function removeQuietly(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // gone already, or the folder went away
  }
}

/**
 * Makes `dir` and its missing parents, one level at a time (Node's recursive
 * mkdir can spin under /proc), and checks it is a folder. With `root`, the
 * folder the user named: every level of `dir` below it must be a real
 * folder, not a symbolic link (a link planted in an output folder must not
 * send the writes elsewhere); `root` itself may be a link the user made.
 * Throws WriteError.
 */
export function outputFolder(dir: string, root?: string): void {
  try {
    makeOutputFolder(dir, root);
  } catch (e) {
    if (e instanceof WriteError) throw e;
    const w = why(e);
    throw new WriteError('cannot use the folder', dir, w.text, w.code);
  }
}

function makeOutputFolder(dir: string, root: string | undefined): void {
  const abs = resolve(dir);
  const base = root === undefined ? undefined : resolve(root);
  if (base === undefined || !isBelow(base, abs)) return void levelsOf(abs).forEach((d) => oneLevel(d, undefined));
  levelsOf(base).forEach((d) => oneLevel(d, undefined));
  const below: string[] = [];
  for (let d = abs; d !== base; d = dirname(d)) below.unshift(d);
  for (const d of below) oneLevel(d, root);
}

/** A path's folders from the file system's root down to it. */
function levelsOf(abs: string): string[] {
  const out: string[] = [];
  for (let d = abs; ; d = dirname(d)) {
    out.unshift(d);
    if (d === dirname(d)) return out;
  }
}

/** One level of an output folder: made if missing; a link is followed only above the output folder (`root` unset). */
function oneLevel(d: string, root: string | undefined): void {
  let st = lstatSync(d, { throwIfNoEntry: false });
  if (!st) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        const w = why(e);
        throw new WriteError('cannot create the folder', d, w.text, w.code);
      }
    }
    st = lstatSync(d);
  }
  if (st.isDirectory()) return;
  if (st.isSymbolicLink() && root !== undefined) throw new WriteError('cannot write under', d, `a symbolic link inside the output folder ${shown(root)} (not followed)`, 'ELINK');
  if (st.isSymbolicLink() && statSync(d, { throwIfNoEntry: false })?.isDirectory()) return;
  throw new WriteError('cannot use', d, 'not a folder', 'ENOTDIR');
}

function isBelow(base: string, p: string): boolean {
  const r = relative(base, p);
  return r !== '' && !r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r);
}
