// A bench's section of a Markdown file (bench/RESULTS.md): the text between
// `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, replaced by each run of
// that bench (appended when the file has none yet). Everything else in the
// file is left as it is.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function replaceSection(file: string, name: string, section: string): void {
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const block = `${begin}\n${section.trim()}\n${end}`;
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  const updated = a >= 0 && b > a ? text.slice(0, a) + block + text.slice(b + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, updated);
}

/** The commit the checker was built from, and whether the tree had local changes. */
export function gitDescribe(): string {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', 'src', 'models').length > 0;
    return `git ${head}${dirty ? ' + uncommitted changes in src/ or models/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** The machine's load average, as the figures' context. */
export function loadText(): string {
  return os.loadavg().map((x) => x.toFixed(1)).join(', ');
}

/** The line that opens a section: which command wrote it, when, from what, under which load. */
export function writtenBy(command: string, loadAtStart: string): string {
  return `_Written by \`${command}\` on ${new Date().toISOString().slice(0, 16)} UTC, ${gitDescribe()}, ${os.cpus().length} cores, Node ${process.version}; load average (1, 5, 15 min) ${loadAtStart} at the start, ${loadText()} at the end._`;
}
