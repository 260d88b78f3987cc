// The documents: README.md stays a few screens; every relative link and
// anchor of README.md, ARCHITECTURE.md, docs/*.md and the bundled suites'
// READMEs leads somewhere; every command README.md shows is one the CLI
// has (its --help) or a script package.json defines; an output block marked
// with the command that makes it (<!-- litmus ARGS -->) is that command's
// real output; docs/suites.md's minimal suite is what `litmus new --ts`
// writes; no document cites an issue number.

import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { newSuite } from '../src/cli/new.js';
import { begin, end, head, replaced } from '../bench/results-file.js';
import { SECTIONS } from '../bench/sections.js';
import { CLI, ROOT, runNode } from './util.js';

const DOCS = join(ROOT, 'docs');
const SHARED = join(ROOT, '..', 'shared');

/** The documents the tests read, as paths from the root. */
function documents(): string[] {
  const docs = existsSync(DOCS) ? readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`) : [];
  const suites = readdirSync(join(ROOT, 'litmus'))
    .map((d) => `litmus/${d}/README.md`)
    .filter((f) => existsSync(join(ROOT, f)));
  return ['README.md', 'ARCHITECTURE.md', ...docs.sort(), ...suites.sort()];
}

const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** Markdown without its fenced code blocks and inline code (links there are not links). */
function prose(md: string): string {
  return md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a document: [text](target) outside code. */
function links(md: string): string[] {
  return [...prose(md).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/i.test(t));
}

/** The commands the CLI lists in its --help. */
function cliCommands(): Set<string> {
  const help = execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
  const list = help.slice(help.indexOf('Commands:'));
  return new Set([...list.matchAll(/^ {2}([a-z0-9]+)/gm)].map((m) => m[1]));
}

/** Each command line README.md shows: the lines of its sh blocks, and the `$ ` lines of its output blocks. */
function shownCommands(md: string): string[] {
  const lines: string[] = [];
  for (const m of md.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    for (const line of m[2].split('\n')) {
      if (m[1] === 'sh') lines.push(line.replace(/ +#.*$/, '').trim());
      else if (line.startsWith('$ ')) lines.push(line.slice(2).trim());
    }
  }
  return lines.flatMap((l) => l.split(/ && /)).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('cd '));
}

describe('README.md', () => {
  it('is a few screens: under 250 lines', () => {
    expect(text('README.md').split('\n').length).toBeLessThan(250);
  });

  it('starts with the two commands that work on a fresh clone', () => {
    expect(text('README.md')).toMatch(/^# litmus\n\n```sh\nnpm ci && npx litmus check clear_invalid_mapping\nnpm test\n```\n/);
  });

  it('shows only commands the CLI has and scripts package.json defines', () => {
    const commands = cliCommands();
    expect(commands).toContain('check');
    const scripts = Object.keys((JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts);
    const shown = shownCommands(text('README.md'));
    expect(shown.length).toBeGreaterThan(10);
    for (const line of shown) {
      const words = line.split(/\s+/);
      const at = words.findIndex((w) => w === 'litmus' || w === 'litmus-herd7');
      if (at >= 0) {
        if (words[at] === 'litmus') expect(commands, line).toContain(words[at + 1]);
        continue;
      }
      if (words[0] === 'npm') {
        if (words[1] === 'run') expect(scripts, line).toContain(words[2]);
        else if (words[1] === 'test') expect(scripts, line).toContain('test');
        else expect(['ci', 'install', 'pack'], line).toContain(words[1]);
        continue;
      }
      throw new Error(`README.md shows a command that is neither litmus nor npm: ${line}`);
    }
  });
});

describe('the documents', () => {
  it('docs/ holds the reference, one file per topic', () => {
    for (const topic of ['cli', 'herd7', 'models', 'traces', 'audit', 'suites', 'history', 'serve', 'limits', 'exactness', 'performance']) {
      expect(existsSync(join(DOCS, `${topic}.md`)), topic).toBe(true);
    }
  });

  it('every relative link and anchor leads somewhere', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of documents()) {
      for (const target of links(text(file))) {
        checked++;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const to = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
        if (!existsSync(to)) {
          missing.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor === undefined) continue;
        if (statSync(to).isDirectory() || !to.endsWith('.md')) {
          missing.push(`${file}: ${target} (an anchor into what is not a Markdown file)`);
          continue;
        }
        if (!anchors(readFileSync(to, 'utf8')).has(anchor)) missing.push(`${file}: ${target} (no heading #${anchor} in ${relative(ROOT, to)})`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it('cite no issue numbers', () => {
    const cited: string[] = [];
    for (const file of [...documents(), 'bench/RESULTS.md'].filter((f) => existsSync(join(ROOT, f)))) {
      text(file)
        .split('\n')
        .forEach((line, i) => {
          if (/\bissues? #?\d|(^|[\s(])#\d+\b/i.test(line)) cited.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(cited).toEqual([]);
  });

  it('docs/suites.md shows the minimal suite `litmus new mp --ts` writes', () => {
    const md = text('docs/suites.md');
    for (const [name, ts] of Object.entries(newSuite('mp', 'MP'))) expect(md, name).toContain(`\`\`\`ts\n${ts}\`\`\``);
  });
});

/** An output block: the command its marker names, and the lines it shows. */
interface OutputBlock {
  file: string;
  args: string[];
  lines: string[];
}

function outputBlocks(file: string): OutputBlock[] {
  const blocks: OutputBlock[] = [];
  for (const m of text(file).matchAll(/^<!-- litmus (.+?) -->\n```\n([\s\S]*?)^```/gm)) {
    const lines = m[2].replace(/\n$/, '').split('\n');
    if (lines[0]?.startsWith('$ ')) lines.shift();
    blocks.push({ file, args: m[1].trim().split(/\s+/), lines });
  }
  return blocks;
}

/**
 * Whether `shown` is the output: the same lines, where a `...` line first
 * or last stands for any lines before or after.
 */
function showsOutput(shown: string[], output: string[]): boolean {
  const before = shown[0] === '...';
  const after = shown[shown.length - 1] === '...';
  const body = shown.slice(before ? 1 : 0, after ? -1 : undefined);
  for (let start = 0; start + body.length <= output.length; start++) {
    if (!before && start > 0) break;
    if (!after && start + body.length !== output.length) continue;
    if (body.every((l, i) => output[start + i] === l)) return true;
  }
  return false;
}

describe('output shown in the documents', () => {
  const blocks = documents().flatMap(outputBlocks);

  it('README.md marks its output blocks with the command that makes them', () => {
    expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(3);
  });

  for (const b of blocks) {
    it(`${b.file}: litmus ${b.args.join(' ')}`, async (ctx) => {
      if (b.args.some((a) => a.startsWith('../shared/')) && !existsSync(SHARED)) {
        console.warn(`skipped: ${b.file}'s output of litmus ${b.args.join(' ')} needs ../shared (absent)`);
        ctx.skip();
        return;
      }
      const r = await runNode([CLI, ...b.args], ROOT);
      const output = r.stdout.trimEnd().split('\n');
      if (!showsOutput(b.lines, output)) expect(b.lines.join('\n')).toBe(r.stdout.trimEnd());
    });
  }
});

describe('bench/RESULTS.md', () => {
  it('is written by the bench: its head, then parts of sections of bench/sections.ts, each once, in order, nothing else', () => {
    const md = text('bench/RESULTS.md');
    expect(md.startsWith(`${head()}\n`)).toBe(true);
    let rest = md.slice(head().length);
    const names: string[] = [];
    for (;;) {
      rest = rest.replace(/^\s+/, '');
      if (rest === '') break;
      const m = /^<!-- bench:([a-z-]+) -->\n/.exec(rest);
      expect(m, `text outside a section: ${rest.slice(0, 80)}`).not.toBeNull();
      const close = rest.indexOf(end(m![1]));
      expect(close, `${m![1]} is not closed`).toBeGreaterThan(0);
      expect(rest.slice(m![0].length, close)).toMatch(/^## .+\n\n_Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC by bench\/[a-z-]+\.ts at git [0-9a-f]+/);
      names.push(m![1]);
      rest = rest.slice(close + end(m![1]).length);
    }
    // A section added to SECTIONS since the last whole run is missing until a run measures it (--only NAME).
    const order = SECTIONS.map((s) => s.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => !order.includes(n)), 'parts of no section').toEqual([]);
    expect(names, 'each section once, in the order of SECTIONS').toEqual(order.filter((n) => names.includes(n)));
  });

  it('--only replaces a section in place and puts a missing one where SECTIONS has it', () => {
    const part = (name: string, body: string) => `${begin(name)}\n## ${name}\n\n${body}\n${end(name)}`;
    const file = `${head()}\n\n${part('targets', 'old t')}\n\n${part('startup', 'old s')}\n`;
    const once = replaced(file, new Map([['startup', part('startup', 'new s')]]));
    expect(once).toBe(`${head()}\n\n${part('targets', 'old t')}\n\n${part('startup', 'new s')}\n`);
    const twice = replaced(once, new Map([['corpus', part('corpus', 'c')]]));
    expect(twice).toBe(`${head()}\n\n${part('targets', 'old t')}\n\n${part('corpus', 'c')}\n\n${part('startup', 'new s')}\n`);
    const first = replaced(`${head()}\n\n${part('startup', 's')}\n`, new Map([['targets', part('targets', 't')]]));
    expect(first).toBe(`${head()}\n\n${part('targets', 't')}\n\n${part('startup', 's')}\n`);
  });
});
