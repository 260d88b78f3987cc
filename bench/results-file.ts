// bench/RESULTS.md as the bench writes it: a head saying what it is, then
// one part per section between its markers, each written whole by a run.

import { SECTIONS, type Section } from './sections.js';

export const begin = (name: string) => `<!-- bench:${name} -->`;
export const end = (name: string) => `<!-- /bench:${name} -->`;

/** One section's part of the file, markers included. */
export function block(s: Section, body: string, provenance: string): string {
  return [begin(s.name), `## ${s.title}`, '', `_${provenance}_`, '', body.trim(), end(s.name)].join('\n');
}

/** The file's head: what it is and how it is written. */
export function head(): string {
  return [
    '# litmus benchmark',
    '',
    'Written by the bench (`npm run bench`, bench/run.ts), every section from one bench script (bench/sections.ts),',
    'each with the date, commit, machine and load average of its run: nothing here is written by hand, and',
    'earlier figures are in this file\'s git history. A section of bench/sections.ts missing here has not been measured',
    'since the file was last written whole (`npm run bench -- --only NAME` measures it and puts it in its place).',
    'What is measured and how: docs/performance.md.',
  ].join('\n');
}

/** The file with these sections' parts replaced (the others kept as they are; one missing is put in its place in SECTIONS' order). */
export function replaced(text: string, parts: Map<string, string>, order: readonly { name: string }[] = SECTIONS): string {
  const have = (name: string) => text.indexOf(begin(name)) >= 0 && text.indexOf(end(name)) > text.indexOf(begin(name));
  let out = text;
  for (const [name, part] of parts) {
    if (have(name)) {
      const a = out.indexOf(begin(name));
      const b = out.indexOf(end(name)) + end(name).length;
      out = out.slice(0, a) + part + out.slice(b);
    }
  }
  // Sections the file lacks: after the last section that comes before them, else after the head.
  for (const [name, part] of parts) {
    if (have(name)) continue;
    const i = order.findIndex((s) => s.name === name);
    const before = order.slice(0, i).reverse().find((s) => out.indexOf(end(s.name)) >= 0);
    const first = Math.min(...order.map((s) => out.indexOf(begin(s.name))).filter((k) => k >= 0));
    const at = before ? out.indexOf(end(before.name)) + end(before.name).length : Number.isFinite(first) ? first : out.length;
    out = `${out.slice(0, at).trimEnd()}\n\n${part}\n${out.slice(at).trimStart() ? `\n${out.slice(at).trimStart()}` : ''}`;
  }
  return out.endsWith('\n') ? out : `${out}\n`;
}

