// How every file the tool writes is written (src/write-file.cts): whole or
// not at all, never through a link planted in its place, never leaving a
// part of itself behind; the old file kept whole when a write fails (a full
// disk on a small tmpfs where one can be mounted, and a failure injected
// into the text's making everywhere).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outputFolder, writeFileAtomic, WriteError } from '../src/write-file.cjs';
import { fill, smallDisk } from './util.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-write-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh folder for one test. */
function folder(name: string): string {
  const d = join(dir, name);
  mkdirSync(d);
  return d;
}

/** What is in a folder, temporary files included (they start with a dot). */
const entries = (d: string) => readdirSync(d).sort();

describe('writeFileAtomic', () => {
  it('writes a new file, and replaces an old one whole, keeping its permissions', () => {
    const d = folder('plain');
    const f = join(d, 'a.litmus');
    writeFileAtomic(f, 'first\n');
    expect(readFileSync(f, 'utf8')).toBe('first\n');
    chmodSync(f, 0o640);
    writeFileAtomic(f, ['sec', Buffer.from('ond\n')]);
    expect(readFileSync(f, 'utf8')).toBe('second\n');
    expect(statSync(f).mode & 0o777).toBe(0o640);
    expect(entries(d)).toEqual(['a.litmus']);
  });

  it('replaces a symbolic link planted with the output\'s name; its target is not touched', () => {
    const d = folder('link');
    const victim = join(dir, 'victim-link');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(d, 'out.svg'));
    writeFileAtomic(join(d, 'out.svg'), '<svg/>\n');
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(join(d, 'out.svg'), 'utf8')).toBe('<svg/>\n');
    // A dangling link: no file is created at its target.
    symlinkSync(join(dir, 'nowhere'), join(d, 'dangling.svg'));
    writeFileAtomic(join(d, 'dangling.svg'), 'x');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('refuses a link in the target\'s place when asked (refuseLink), and anything that is not a regular file', () => {
    const d = folder('refuse');
    const victim = join(dir, 'victim-refuse');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(d, 'saved.litmus'));
    expect(() => writeFileAtomic(join(d, 'saved.litmus'), 'C pwned\n', { refuseLink: true })).toThrow(/symbolic link is in its place/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    mkdirSync(join(d, 'folder.litmus'));
    expect(() => writeFileAtomic(join(d, 'folder.litmus'), 'x')).toThrow(/a folder is in its place/);
    execFileSync('mkfifo', [join(d, 'fifo.litmus')]);
    // Refused at once: a FIFO is never opened (it would block).
    expect(() => writeFileAtomic(join(d, 'fifo.litmus'), 'x')).toThrow(/not a regular file/);
    expect(entries(d)).toEqual(['fifo.litmus', 'folder.litmus', 'saved.litmus']);
  });

  it('refuses a link to a device, a FIFO, a socket or a folder, or into /proc (--out /dev/stdout): neither written through nor replaced', () => {
    const d = folder('link-special');
    symlinkSync('/proc/self/fd/1', join(d, 'stdout'));
    symlinkSync('/dev/null', join(d, 'null'));
    symlinkSync(dir, join(d, 'dir'));
    execFileSync('mkfifo', [join(d, 'fifo')]);
    symlinkSync(join(d, 'fifo'), join(d, 'to-fifo'));
    symlinkSync(join(d, 'stdout'), join(d, 'to-stdout'));
    for (const name of ['stdout', 'null', 'dir', 'to-fifo', 'to-stdout']) {
      expect(() => writeFileAtomic(join(d, name), 'x'), name).toThrow(/a symbolic link to a device, a FIFO, a socket or a folder is in its place/);
      expect(lstatSync(join(d, name)).isSymbolicLink(), name).toBe(true);
    }
    expect(entries(d)).toEqual(['dir', 'fifo', 'null', 'stdout', 'to-fifo', 'to-stdout']);
  });

  it('exclusive: never replaces anything, not even a dangling link', () => {
    const d = folder('exclusive');
    writeFileSync(join(d, 'old.litmus'), 'old\n');
    expect(() => writeFileAtomic(join(d, 'old.litmus'), 'new\n', { exclusive: true })).toThrow(/already exists/);
    expect(readFileSync(join(d, 'old.litmus'), 'utf8')).toBe('old\n');
    symlinkSync(join(dir, 'made-through-link'), join(d, 'link.litmus'));
    expect(() => writeFileAtomic(join(d, 'link.litmus'), 'new\n', { exclusive: true })).toThrow(/already exists/);
    expect(existsSync(join(dir, 'made-through-link'))).toBe(false);
    writeFileAtomic(join(d, 'fresh.litmus'), 'new\n', { exclusive: true });
    expect(entries(d)).toEqual(['fresh.litmus', 'link.litmus', 'old.litmus']);
  });

  it('a write that fails while its text is being made leaves the old file whole and no partial file', () => {
    const d = folder('fails');
    const f = join(d, 'history');
    writeFileSync(f, 'the old history, whole\n');
    function* pieces(): Generator<string> {
      yield 'the new history, ';
      yield 'x'.repeat(1 << 20);
      throw new Error('injected: the run stopped');
    }
    expect(() => writeFileAtomic(f, pieces())).toThrow('injected: the run stopped');
    expect(readFileSync(f, 'utf8')).toBe('the old history, whole\n');
    expect(entries(d)).toEqual(['history']);
  });

  it('a full disk: WriteError saying so, the old file whole, no partial file (on a small tmpfs, where one can be mounted)', (ctx) => {
    const disk = smallDisk(64);
    if (!disk) return ctx.skip();
    try {
      const f = join(disk.path, 'H');
      writeFileSync(f, 'the old history, whole\n');
      fill(disk.path);
      let err: unknown;
      try {
        writeFileAtomic(f, ['a new history ', 'y'.repeat(256 * 1024)]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(WriteError);
      expect((err as WriteError).code).toBe('ENOSPC');
      expect((err as Error).message).toMatch(/no space left on the device \(ENOSPC\); the file there is unchanged/);
      expect(readFileSync(f, 'utf8')).toBe('the old history, whole\n');
      expect(entries(disk.path).filter((n) => !n.startsWith('.fill'))).toEqual(['H']);
    } finally {
      disk.unmount();
    }
  });
});

describe('outputFolder', () => {
  it('makes the missing levels, and refuses a symbolic link below the folder named', () => {
    const out = folder('out');
    outputFolder(join(out, 'a', 'b'), out);
    expect(statSync(join(out, 'a', 'b')).isDirectory()).toBe(true);
    const elsewhere = folder('elsewhere');
    symlinkSync(elsewhere, join(out, 'planted'));
    expect(() => outputFolder(join(out, 'planted', 'c'), out)).toThrow(/a symbolic link inside the output folder/);
    expect(entries(elsewhere)).toEqual([]);
    // The folder named may itself be a link the user made.
    symlinkSync(out, join(dir, 'out-link'));
    outputFolder(join(dir, 'out-link', 'a', 'd'), join(dir, 'out-link'));
    expect(statSync(join(out, 'a', 'd')).isDirectory()).toBe(true);
    writeFileSync(join(out, 'file'), '');
    expect(() => outputFolder(join(out, 'file'))).toThrow(/not a folder/);
  });
});
