// Does herd7 agree with litmus on what `litmus export` writes? Exports every
// shipped suite (litmus/*/suite.ts: one test per version, scenario and
// interrupt point), every `litmus new` shape (C and TypeScript) and
// generated programs with arrays, structs, for/do loops and helper
// functions (scripts/generated-programs.ts), runs herd7 + LKMM on each
// exported file and compares its Observation line (verdict, positive and
// negative counts) with litmus's answer on the original.
//
//   node dist/scripts/export-vs-herd7.js [--generated N] [--seed S] [--timeout S]
//        [--only generated,new,suites] [--herd PATH] [--keep DIR]
//
// Needs herd7 (default /root/herd/bin/lkmm-herd, or $LITMUS_HERD); never
// run by the tests. A test herd7 does not finish within --timeout seconds
// (its -timeout) is counted apart, as unanswered. Exits 1 when an exported
// test gets another answer from herd7, or a test cannot be exported.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSource, type CheckResult } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import { exportLitmus, exportTest } from '../src/export/export.js';
import { runSuite } from '../src/suite/run.js';
import { newTest, shapes } from '../src/cli/new.js';
import { LitmusError } from '../src/parse/errors.js';
import { renderMixed, samplePrograms } from './generated-programs.js';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

interface Case {
  /** Where it comes from: a suite's test, a shape, a generated program. */
  origin: string;
  name: string;
  /** litmus's answer on the original: "Verdict P N". */
  litmus: string;
  exported: string;
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const answer = (r: CheckResult) => `${r.observation} ${r.positive} ${r.negative}`;

async function suiteCases(): Promise<{ cases: Case[]; errors: string[] }> {
  const cases: Case[] = [];
  const errors: string[] = [];
  const dir = join(ROOT, 'litmus');
  for (const entry of readdirSync(dir).sort()) {
    const file = join(dir, entry, 'suite.ts');
    if (!existsSync(file)) continue;
    const run = await runSuite(file, { model: 'lkmm', explain: false, keepTests: true });
    errors.push(...run.errors);
    for (const t of run.suite?.tests ?? []) {
      const r = run.results.get(t.test.name);
      if (!r) continue;
      try {
        cases.push({ origin: `litmus/${entry}`, name: t.test.name, litmus: answer(r), exported: exportTest({ ...t.test, result: undefined }) });
      } catch (e) {
        errors.push(`litmus/${entry}#${t.test.name}: not exported: ${e instanceof LitmusError ? e.message : String(e)}`);
      }
    }
  }
  return { cases, errors };
}

async function shapeCases(): Promise<{ cases: Case[]; errors: string[] }> {
  const cases: Case[] = [];
  const errors: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'litmus-shapes-'));
  try {
    for (const shape of shapes()) {
      const name = `new-${shape}`.replace(/[^A-Za-z0-9_+-]/g, '_');
      cases.push(textCase('litmus new', name, newTest(name, shape, false), errors));
      // The TypeScript form, read as a suite of one test.
      const ts = join(dir, `${name}.ts`);
      writeFileSync(ts, newTest(name, shape, true, join(ROOT, 'litmus', 'kernel.js')));
      const run = await runSuite(ts, { model: 'lkmm', explain: false, keepTests: true, quiet: true });
      errors.push(...run.errors);
      for (const t of run.suite?.tests ?? []) {
        const r = run.results.get(t.test.name);
        if (r) cases.push({ origin: 'litmus new --ts', name: `${name}-ts`, litmus: answer(r), exported: exportTest({ ...t.test, name: `${name}-ts`, result: undefined }) });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { cases: cases.filter((c) => c.exported), errors };
}

function textCase(origin: string, name: string, text: string, errors: string[]): Case {
  try {
    // herd7 is the reference here: loops read as herd7 reads them (unrolled).
    return { origin, name, litmus: answer(checkSource(text, { model: lkmm, waits: 'unrolled' })), exported: exportLitmus(text) };
  } catch (e) {
    errors.push(`${origin} ${name}: ${e instanceof LitmusError ? e.format(name) : String(e)}`);
    return { origin, name, litmus: '', exported: '' };
  }
}

/** herd7's Observation line for a file: "Verdict P N", or what it said instead. */
function herd(herd7: string, file: string, timeout: number): Promise<{ answer?: string; none?: string }> {
  return new Promise((done) => {
    execFile(herd7, ['-timeout', String(timeout), file], { maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const m = /^Observation \S+ (\w+) (\d+) (\d+)/m.exec(stdout);
      if (m) done({ answer: `${m[1]} ${m[2]} ${m[3]}` });
      else done({ none: (stderr || stdout).trim().split('\n')[0] || (err ? String(err) : `nothing printed: stopped by its -timeout ${timeout}`) });
    });
  });
}

async function main(): Promise<number> {
  const herd7 = option('--herd', process.env.LITMUS_HERD ?? '/root/herd/bin/lkmm-herd');
  if (!existsSync(herd7)) {
    console.log(`export-vs-herd7: skipped (no herd7 at ${herd7}; --herd PATH or LITMUS_HERD)`);
    return 0;
  }
  const n = Number(option('--generated', '200'));
  const seed = Number(option('--seed', '20'));
  const keep = option('--keep', '');
  const timeout = Number(option('--timeout', '20'));
  const only = new Set(option('--only', 'generated,new,suites').split(','));
  const out = keep || mkdtempSync(join(tmpdir(), 'litmus-export-herd7-'));
  mkdirSync(out, { recursive: true });
  const errors: string[] = [];
  const none = { cases: [] as Case[], errors: [] as string[] };
  const suites = only.has('suites') ? await suiteCases() : none;
  const news = only.has('new') ? await shapeCases() : none;
  const generated = only.has('generated')
    ? samplePrograms(n, seed).map((p, i) => textCase('generated', `gen${String(i).padStart(3, '0')}`, renderMixed(p, `gen${String(i).padStart(3, '0')}`), errors))
    : [];
  errors.push(...suites.errors, ...news.errors);
  const cases = [...generated.filter((c) => c.exported), ...news.cases, ...suites.cases];
  const byOrigin = new Map<string, { same: number; total: number; unanswered: number }>();
  const differ: string[] = [];
  const unanswered: string[] = [];
  // Two herd7 processes at a time.
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++];
      const file = join(out, `${c.name}.litmus`);
      writeFileSync(file, c.exported);
      const h = await herd(herd7, file, timeout);
      const o = byOrigin.get(c.origin) ?? { same: 0, total: 0, unanswered: 0 };
      o.total++;
      if (h.answer === c.litmus) o.same++;
      else if (h.answer) differ.push(`${c.origin} ${c.name}: litmus on the original ${c.litmus}, herd7 on the export ${h.answer} (${file})`);
      else {
        o.unanswered++;
        unanswered.push(`${c.origin} ${c.name}: herd7 gave no answer (${h.none}); litmus: ${c.litmus}`);
      }
      byOrigin.set(c.origin, o);
    }
  };
  await Promise.all([worker(), worker()]);
  for (const e of errors) console.log(`ERROR ${e}`);
  for (const d of differ) console.log(`DIFFER ${d}`);
  for (const u of unanswered) console.log(`UNANSWERED ${u}`);
  for (const [origin, o] of byOrigin) console.log(`${origin}: ${o.same}/${o.total - o.unanswered} the same${o.unanswered ? ` (${o.unanswered} more that herd7 did not finish within ${timeout} s)` : ''}`);
  const same = [...byOrigin.values()].reduce((a, o) => a + o.same, 0);
  console.log(
    `export-vs-herd7: ${same}/${cases.length - unanswered.length} exported tests herd7 answers get the answer litmus gives the original (verdict and counts); ` +
      `${unanswered.length} unanswered by herd7 within ${timeout} s; ${errors.length} not exported or not checked`,
  );
  if (!keep) rmSync(out, { recursive: true, force: true });
  return differ.length || errors.length ? 1 : 0;
}

process.exit(await main());
