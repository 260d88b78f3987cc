// What `litmus audit` does, once the arguments are parsed: audit each test
// (src/report/audit.ts); for a folder of a suite, only the tests of one
// version, and then the table of which devices each scenario needs.

import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { getModel, unknownModelMessage } from '../../models/index.js';
import { parseLitmus } from '../parse/parser.js';
import type { Model } from '../model/model.js';
import type { Pos } from '../parse/ast.js';
import { buildProgram } from '../program/program.js';
import { LimitError, LitmusError } from '../parse/errors.js';
import { auditProgram, auditTable, suiteAuditTable, type AuditResult, type SourceNamer, type SuiteAudit } from '../report/audit.js';
import { suiteConfig, suiteMeta, type SuiteMeta } from '../report/suite.js';
import { resolveInputs } from './inputs.js';
import { readInputFile } from '../limits.js';
import { primitivesFor } from './run-one.js';
import type { PrimitiveTable } from '../events/primitives.js';
import { ModelError } from '../../models/cat/lexer.js';
import { jsonFailure } from './json-failure.js';
import type { JsonError } from './run-one.js';
import { say } from './say.js';

interface AuditFlags {
  model: string;
  json?: boolean;
  suiteVersion?: string;
  unroll: number;
  maxExecutions: number;
  timeout: number;
}

export async function runAudit(inputs: string[], o: AuditFlags): Promise<number> {
  const model = getModel(o.model);
  if (!model) {
    say(unknownModelMessage(o.model));
    if (o.json) console.log(jsonFailure('audit', [{ file: '', message: unknownModelMessage(o.model) }]));
    return 2;
  }
  const macros = primitivesFor(o, model);
  if (macros.error) {
    say(macros.error.format());
    if (o.json) console.log(jsonFailure('audit', [macros.error, ...(macros.error.others ?? [])].map((x) => ({ file: x.file, line: x.pos.line, col: x.pos.col, message: x.message }))));
    return 2;
  }
  const primitives = macros.primitives;
  // Every error goes to stderr as a line and, with --json, into the document's errors.
  const errors: JsonError[] = [];
  const report = (file: string, line: string) => {
    say(line);
    errors.push({ file, message: line.startsWith(`${file}:`) ? line.slice(file.length + 1).trim() : line });
  };
  const { files, folders, missing, suites: tsSuites, unreadable } = resolveInputs(inputs);
  let status = 0;
  for (const m of missing) {
    report(m, `${m}: no such file, folder or bundled test`);
    status = 2;
  }
  for (const u of unreadable) {
    report(u.path, `${u.path}: ${u.message}`);
    status = 2;
  }
  const limits = { maxExecutions: o.maxExecutions, timeoutMs: o.timeout };
  // In a suite folder, only the tests of one version: --suite-version, or the one under review.
  const suiteOf = new Map<string, string>();
  for (const folder of folders) {
    const version = o.suiteVersion ?? suiteConfig(resolve(folder)).underReview;
    if (version) suiteOf.set(resolve(folder), version);
  }
  const versionFor = (file: string) => [...suiteOf.entries()].find(([f]) => resolve(dirname(file)).startsWith(f))?.[1];
  const done: { file: string; meta?: SuiteMeta; audit: AuditResult }[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readInputFile(file);
    } catch (e) {
      report(file, e instanceof LimitError ? e.format(file) : `${file}: cannot read: ${(e as Error).message}`);
      status = 2;
      continue;
    }
    const meta = suiteMeta(text);
    const version = versionFor(file);
    if (version && meta?.version !== undefined && meta.version !== version) continue;
    try {
      const prog = buildProgram(parseLitmus(text), { unroll: o.unroll, primitives });
      const audit = auditProgram(prog, model, limits, text.split('\n'));
      // A limit is exit status 2, as for check: on the test itself (nothing audited) or on a weakened copy.
      const limit = audit.limit ?? audit.rows.find((r) => r.limit)?.limit;
      if (limit) {
        report(file, `${file}: ${limit}${audit.limit ? '' : ' (auditing a weakened copy)'}`);
        status = 2;
        if (audit.limit) continue;
      }
      done.push({ file, meta, audit });
      if (!o.json) console.log(`${auditTable(audit, model)}\n`);
    } catch (e) {
      if (e instanceof LitmusError) report(file, e.format(file));
      else if (e instanceof LimitError) report(file, e.format(file));
      else if (e instanceof ModelError) report(file, e.format());
      else report(file, `${file}: internal error: ${e instanceof Error ? e.message : String(e)} (please report it)`);
      status = 2;
    }
  }
  const suites: SuiteAudit[] = [];
  // Folder tables are for .litmus files; a TypeScript suite prints its own.
  const litmusDone = [...done];
  const tsFolders = new Set(tsSuites.map((e) => resolve(dirname(e))));
  for (const entry of tsSuites) {
    const r = await auditTsSuite(entry, o, model, limits, primitives, report);
    if (r.status) status = 2;
    done.push(...r.done);
    if (r.suite) {
      suites.push(r.suite);
      if (!o.json) console.log(suiteAuditTable(r.suite));
    }
  }
  for (const [folder, version] of suiteOf) {
    if (tsFolders.has(folder)) continue;
    const mine = litmusDone.filter((d) => d.meta?.scenario && resolve(dirname(d.file)).startsWith(folder));
    if (mine.length === 0) {
      if (!o.json) console.log(`No test of version "${version}" in ${folder}.`);
      continue;
    }
    const s: SuiteAudit = { version, scenarios: mine.map((d) => ({ scenario: d.meta!.scenario!, audit: d.audit })) };
    suites.push(s);
    if (!o.json) console.log(suiteAuditTable(s));
  }
  if (o.json) {
    const tests = done.map((d) => ({ file: d.file, model: model.name, ...d.audit, meta: d.meta }));
    console.log(JSON.stringify({ tests, suites: suites.map(suiteJson), ...(errors.length ? { errors } : {}) }, null, 2));
  }
  return status;
}

/**
 * A TypeScript suite: the tests of one version (--suite-version, or the one
 * under review), each audited as its traces are checked (devices named by
 * the suite's own files and lines, `cur.ts:8`, as its traces name them).
 */
async function auditTsSuite(entry: string, o: AuditFlags, model: Model, limits: { maxExecutions: number; timeoutMs: number }, primitives: PrimitiveTable | undefined, report: (file: string, line: string) => void) {
  const out: { status: number; done: { file: string; meta?: SuiteMeta; audit: AuditResult }[]; suite?: SuiteAudit } = { status: 0, done: [] };
  const { readSuite } = await import('../suite/read.js');
  const { SuiteError } = await import('../suite/modules.js');
  let suite;
  try {
    suite = await readSuite(entry);
  } catch (e) {
    if (!(e instanceof SuiteError)) throw e;
    report(entry, e.format());
    out.status = 2;
    return out;
  }
  const version = o.suiteVersion ?? suite.underReview ?? suite.versions[0];
  if (!suite.versions.includes(version)) {
    report(entry, `${entry}: no version "${version}" (${suite.versions.join(', ')})`);
    out.status = 2;
    return out;
  }
  const scenarios: SuiteAudit['scenarios'] = [];
  // Places named as the suite's traces name them: file:line of the suite's own files, and that line's text.
  const fileLines = new Map<string, string[]>();
  const linesOf = (f: string) => {
    let l = fileLines.get(f);
    if (!l) fileLines.set(f, (l = readFileSync(f, 'utf8').split('\n')));
    return l;
  };
  for (const t of suite.tests.filter((x) => x.version === version)) {
    const at = (p: Pos) => {
      const f = t.files.get(p);
      return f ? `${relative(dirname(suite.file), f)}:${p.line}` : undefined;
    };
    const names: SourceNamer = {
      // Code inlined from a helper is named with the call it came through, as traces name it.
      where: (p) => {
        const here = at(p);
        const call = p.inlined && at(p.inlined.at);
        return here && call ? `${here} (called at ${call})` : here;
      },
      // The call at the position, not the whole line (a TypeScript line may hold several).
      text: (p) => {
        const f = t.files.get(p);
        return f ? callAt(linesOf(f)[p.line - 1] ?? '', p.col) : undefined;
      },
    };
    try {
      const audit = auditProgram(buildProgram(t.test, { unroll: o.unroll, primitives }), model, limits, names);
      const meta = { version, scenario: t.variant ? `${t.scenario} (${t.variant})` : t.scenario };
      out.done.push({ file: `${entry}#${t.test.name}`, meta, audit });
      scenarios.push({ scenario: meta.scenario, audit });
      if (!o.json) console.log(`${auditTable(audit, model)}\n`);
    } catch (e) {
      if (e instanceof LitmusError) report(entry, `${entry}: ${t.test.name}: ${e.message}`);
      else if (e instanceof LimitError) report(entry, `${entry}: ${t.test.name}: ${e.message}`);
      else throw e;
      out.status = 2;
    }
  }
  out.suite = { version, scenarios };
  return out;
}

/** A suite's answer as data: per scenario, the devices (source lines) whose weakening is load-bearing. */
function suiteJson(s: SuiteAudit) {
  return {
    version: s.version,
    scenarios: s.scenarios.map(({ scenario, audit }) => ({
      scenario,
      verdict: audit.verdict,
      note: audit.note,
      needs: [...new Set(audit.rows.filter((r) => r.loadBearing).map((r) => `${r.device.source} -> ${r.to}`))],
    })),
  };
}

/**
 * The call that starts at column col (1-based) of a line: up to its closing
 * parenthesis, with a `;` that follows; the rest of the line from col if the
 * parentheses do not close on it.
 */
export function callAt(line: string, col: number): string {
  const from = Math.max(0, col - 1);
  let depth = 0;
  for (let i = from; i < line.length; i++) {
    if (line[i] === '(') depth++;
    else if (line[i] === ')' && --depth === 0) return line.slice(from, i + 1) + (line[i + 1] === ';' ? ';' : '');
  }
  return line.slice(from);
}
