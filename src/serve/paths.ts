// Which files the page may read or write: only those under the folder it
// was started on. A request names a file by a relative path with plain
// segments; an absolute path, a ".." or "." segment, a backslash or NUL, or
// a path whose real location (symlinks followed) is outside the folder is
// refused, and the server answers 404 as if it did not exist.

import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** Whether `rel` is a plain relative path (a/b/c.litmus). */
export function plainRelative(rel: string): boolean {
  if (rel === '' || rel.startsWith('/') || /[\\\0]/.test(rel)) return false;
  return rel.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

function within(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (!r.startsWith('..') && !r.startsWith(sep) && r.split(sep)[0] !== '..');
}

/** The real path of an existing file under `root` (itself a real path), or undefined. */
export function readablePath(root: string, rel: string): string | undefined {
  if (!plainRelative(rel)) return undefined;
  const p = join(root, rel);
  if (!existsSync(p)) return undefined;
  const real = realpathSync(p);
  if (!within(root, real) || !statSync(real).isFile()) return undefined;
  return real;
}

/**
 * Where a save of `rel` may write: a .litmus file whose folder exists under
 * `root` and which, if it exists, is a regular file under `root` too.
 */
export function writablePath(root: string, rel: string): string | undefined {
  if (!plainRelative(rel) || !rel.endsWith('.litmus')) return undefined;
  const p = join(root, rel);
  const dir = dirname(p);
  if (!existsSync(dir) || !within(root, realpathSync(dir)) || !statSync(dir).isDirectory()) return undefined;
  // A name that is there (even a dangling symlink) must be a file under root.
  const present = (() => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  })();
  return present ? readablePath(root, rel) : p;
}

/**
 * The files under root whose names `keep` accepts, as relative paths, in
 * name order; symlinked folders are not entered, files leading out are left
 * out, at most `max` of them.
 */
export function filesUnder(root: string, max: number, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (out.length >= max) return;
      const p = join(dir, name);
      if (lstatSync(p).isDirectory()) walk(p);
      else if (keep(name)) {
        const rel = relative(root, p).split(sep).join('/');
        if (readablePath(root, rel)) out.push(rel);
      }
    }
  };
  walk(root);
  return out;
}
