// Differential fuzz against herd7: mutants of the corpus tests
// (scripts/fuzz-mutate.ts) and generated programs of the shapes where
// litmus once differed (scripts/fuzz-shapes.ts: load-buffering rings
// through acquires, locks and RMWs, a lock held forever, arrays in the
// initial state, loop keywords as names, empty blocks, out-of-thin-air
// copies), each run by herd7
// + LKMM and by `litmus herd7` (in this process, through the same checkOne
// the command runs) in each mode: `conf` (-conf linux-kernel.cfg, the
// kernel's files compiled), `builtin` (no -conf: litmus's built-in LKMM),
// `speedcheck` (-speedcheck true on both sides, the Observation line
// compared). Compared on what each refuses and, where both answer, on the
// whole block but the Time line: states, Ok/No, Positive/Negative, flags,
// condition, Observation, Hash.
//
//   npm run fuzz:herd7 -- [--seed S] [--count N] [--shapes N] [--collection N] [-j N] [--timeout S] [--out DIR] [--herd CMD]
//                         [--kinds a,b] [--modes conf,builtin,speedcheck]
//
// Deterministic: a seed and the counts give the same programs. Needs herd7
// (--herd, $LITMUS_HERD, or /root/herd/bin/lkmm-herd); never run by CI.
// Writes DIR/mutants/*.litmus, DIR/results.tsv (one row per program and
// mode) and DIR/summary.json, and prints the figures and each disagreement.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { checkOne } from '../src/cli/herd7-test.js';
import { parseHerdArgs, type HerdOptions } from '../src/cli/herd7-args.js';
import { corpusDir, readRows } from './corpus.js';
import { mutate, Rng } from './fuzz-mutate.js';
import { shapeProgram, SHAPE_KINDS } from './fuzz-shapes.js';

const MODES = ['conf', 'builtin', 'speedcheck'] as const;
type Mode = (typeof MODES)[number];

interface Args {
  seed: number;
  count: number;
  shapes: number;
  modes: Mode[];
  collection: number;
  jobs: number;
  timeoutS: number;
  out: string;
  herd: string;
  kinds?: string[];
}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    seed: 1, count: 300, shapes: 100, modes: [...MODES], collection: 150, jobs: 2, timeoutS: 20, out: '', herd: process.env.LITMUS_HERD ?? '/root/herd/bin/lkmm-herd',
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[++i];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--seed') a.seed = Number(v);
    else if (k === '--count') a.count = Number(v);
    else if (k === '--shapes') a.shapes = Number(v);
    else if (k === '--modes') {
      a.modes = v.split(',') as Mode[];
      if (!a.modes.every((m) => (MODES as readonly string[]).includes(m))) throw new Error(`--modes takes ${MODES.join(',')}`);
    }
    else if (k === '--collection') a.collection = Number(v);
    else if (k === '-j') a.jobs = Number(v);
    else if (k === '--timeout') a.timeoutS = Number(v);
    else if (k === '--out') a.out = v;
    else if (k === '--herd') a.herd = v;
    else if (k === '--kinds') a.kinds = v.split(',');
    else throw new Error(`unknown option ${k}`);
  }
  if (!a.out) a.out = `/tmp/litmus-fuzz-${a.seed}`;
  return a;
}

/** What one tool said about a test: refused (with why), stopped by its timeout, or its block. */
type Answer =
  | { kind: 'refused'; why: string }
  | { kind: 'timeout' }
  | { kind: 'answered'; block: string[]; hash: string }
  | { kind: 'crash'; why: string };

/** herd7's block without its Time line (which differs by nature) and Hash (compared apart). */
function answerOf(stdout: string, stderr: string): Answer {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  if (!lines.some((l) => l.startsWith('Observation '))) {
    if (/timeout|Timeout|time out/.test(stderr + stdout)) return { kind: 'timeout' };
    return { kind: 'refused', why: (stderr.trim().split('\n')[0] ?? '').replace(/^Warning: /, '') };
  }
  const hash = lines.find((l) => l.startsWith('Hash=')) ?? '';
  return { kind: 'answered', block: lines.filter((l) => !l.startsWith('Time ') && !l.startsWith('Hash=')), hash };
}

/** The block with out-of-thin-air values' names (S27) made one: a difference in those names alone is told apart. */
function withoutSymbolNames(block: string[]): string[] {
  return block.map((l) => l.replace(/\bS\d+\b/g, 'S'));
}

/** States are compared as a set (herd7 sorts them; so does litmus, but the comparison need not rely on it). */
function normalised(block: string[]): string {
  const i = block.findIndex((l) => l.startsWith('States '));
  const j = block.findIndex((l) => l === 'Ok' || l === 'No');
  if (i < 0 || j < 0) return block.join('\n');
  return [...block.slice(0, i + 1), ...block.slice(i + 1, j).sort(), ...block.slice(j)].join('\n');
}

function runHerd(herd: string, file: string, timeoutS: number, extra: string[] = []): Promise<Answer> {
  return new Promise((resolve) => {
    const p = spawn(herd, ['-timeout', String(timeoutS), ...extra, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // herd7's own -timeout is the bound; this one only catches a herd7 that ignores it.
    const kill = setTimeout(() => p.kill('SIGKILL'), (timeoutS + 10) * 1000);
    p.on('close', (code, signal) => {
      clearTimeout(kill);
      if (signal) resolve({ kind: 'timeout' });
      else if (code !== 0 && !out.includes('Observation ')) resolve({ kind: 'refused', why: `exit ${code}: ${err.trim().split('\n')[0] ?? ''}` });
      else resolve(answerOf(out, err));
    });
  });
}

function runLitmus(file: string, opts: HerdOptions): Answer {
  try {
    const r = checkOne(file, opts, new Map());
    if (r.stopped === 'timeout') return { kind: 'timeout' };
    if (r.failed || !r.output) return { kind: 'refused', why: r.warnings[0] ?? '' };
    return answerOf(r.output, r.warnings.join('\n'));
  } catch (e) {
    return { kind: 'crash', why: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) };
  }
}

async function pool<T>(n: number, jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.max(1, n) }, async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  }));
  return out;
}

function litmusFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...litmusFilesUnder(p));
    else if (e.isFile() && e.name.endsWith('.litmus')) out.push(p);
  }
  return out.sort();
}

/** The tests mutated: the kernel corpus, and a sample of Paul McKenney's collection (small files only: herd7 must finish them). */
function sources(corpus: string, sample: number, rng: Rng): string[] {
  const own = readRows(corpus).map((r) => join(corpus, r.test));
  const coll = join(corpus, 'paulmckrcu-litmus');
  if (sample <= 0 || !existsSync(coll)) return own;
  const all = litmusFilesUnder(coll).filter((f) => statSync(f).size < 2500);
  const picked = new Set<string>();
  while (picked.size < Math.min(sample, all.length)) picked.add(all[rng.int(all.length)]);
  return [...own, ...[...picked].sort()];
}

type Outcome = 'both-answer-same' | 'both-answer-symbolic' | 'both-answer-hash' | 'both-answer-differ' | 'both-refuse'
  | 'herd-refuses-litmus-answers' | 'litmus-refuses-herd-answers' | 'timeout' | 'litmus-crash';

/** Under -speedcheck, only the Observation line is compared (herd7 and litmus may build different executions first). */
function observationOnly(x: Answer): Answer {
  return x.kind === 'answered' ? { ...x, block: x.block.filter((l) => l.startsWith('Observation ')), hash: '' } : x;
}

function judge(h: Answer, l: Answer): { outcome: Outcome; note: string } {
  if (l.kind === 'crash') return { outcome: 'litmus-crash', note: l.why.split('\n').slice(0, 4).join(' | ') };
  if (h.kind === 'timeout' || l.kind === 'timeout') return { outcome: 'timeout', note: `herd7 ${h.kind}, litmus ${l.kind}` };
  if (h.kind === 'refused' && l.kind === 'refused') return { outcome: 'both-refuse', note: `herd7: ${h.why} || litmus: ${l.why}` };
  if (h.kind === 'refused') return { outcome: 'herd-refuses-litmus-answers', note: `herd7: ${h.why}` };
  if (l.kind === 'refused') return { outcome: 'litmus-refuses-herd-answers', note: `litmus: ${l.why}` };
  if (h.kind !== 'answered' || l.kind !== 'answered') return { outcome: 'timeout', note: '' };
  const hb = normalised(h.block);
  const lb = normalised(l.block);
  if (hb === lb) return h.hash === l.hash ? { outcome: 'both-answer-same', note: '' } : { outcome: 'both-answer-hash', note: `herd7 ${h.hash}, litmus ${l.hash}` };
  if (normalised(withoutSymbolNames(h.block)) === normalised(withoutSymbolNames(l.block))) return { outcome: 'both-answer-symbolic', note: '' };
  const obs = (b: string[]) => b.find((x) => x.startsWith('Observation ')) ?? '';
  return { outcome: 'both-answer-differ', note: `herd7: ${obs(h.block)} || litmus: ${obs(l.block)}` };
}

async function main(): Promise<number> {
  const a = parseArgs(process.argv.slice(2));
  const corpus = corpusDir();
  if (!corpus) {
    console.log('fuzz: skipped (no corpus at ../shared/corpus; set LITMUS_CORPUS)');
    return 0;
  }
  if (!existsSync(a.herd)) {
    console.log(`fuzz: skipped (no herd7 at ${a.herd}; give --herd or $LITMUS_HERD)`);
    return 0;
  }
  const rng = new Rng(a.seed);
  const srcs = sources(corpus, a.collection, rng);
  const dir = join(a.out, 'mutants');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const mutants: { file: string; source: string; kinds: string[]; details: string[] }[] = [];
  const seen = new Set<string>();
  for (let tries = 0; mutants.length < a.count && tries < a.count * 20; tries++) {
    const src = srcs[rng.int(srcs.length)];
    const text = readFileSync(src, 'utf8');
    const m = mutate(text, rng);
    if (!m || seen.has(m.text) || (a.kinds && !m.kinds.every((k) => a.kinds!.includes(k)))) continue;
    seen.add(m.text);
    const file = join(dir, `${String(mutants.length).padStart(5, '0')}-${basename(src)}`);
    writeFileSync(file, m.text);
    mutants.push({ file, source: relative(corpus, src), kinds: m.kinds, details: m.details });
  }
  const mutantCount = mutants.length;
  // Generated programs of the shapes that once differed, as many of each kind.
  const shapeRng = new Rng(a.seed ^ 0x5eed);
  for (let i = 0; i < a.shapes; i++) {
    const kind = SHAPE_KINDS[i % SHAPE_KINDS.length];
    if (a.kinds && !a.kinds.includes(kind)) continue;
    const name = `${String(mutants.length).padStart(5, '0')}-${kind}`;
    const text = shapeProgram(kind, shapeRng, name);
    if (seen.has(text)) continue;
    seen.add(text);
    const file = join(dir, `${name}.litmus`);
    writeFileSync(file, text);
    mutants.push({ file, source: `shape:${kind}`, kinds: [kind], details: [] });
  }
  console.log(`fuzz: seed ${a.seed}, ${mutantCount} mutants of ${srcs.length} tests and ${mutants.length - mutantCount} generated programs in ${dir}; modes ${a.modes.join(',')}`);

  const t0 = performance.now();
  const herd = await pool(a.jobs, mutants.map((m) => () => runHerd(a.herd, m.file, a.timeoutS)));
  const herdSpeed = a.modes.includes('speedcheck') ? await pool(a.jobs, mutants.map((m) => () => runHerd(a.herd, m.file, a.timeoutS, ['-speedcheck', 'true']))) : [];
  const herdS = (performance.now() - t0) / 1000;
  // The options litmus-herd7 gets from the same command line (the kernel's linux-kernel.cfg, as lkmm-herd gives herd7).
  const conf = readFileSync(a.herd, 'utf8');
  const dirs = [...conf.matchAll(/(-set-libdir|-I)\s+"?([^"\s]+)"?/g)].flatMap((m) => [m[1], m[2]]);
  const timeout = ['-timeout', String(a.timeoutS)];
  const optsOf: Record<Mode, HerdOptions> = {
    conf: parseHerdArgs([...dirs, '-conf', 'linux-kernel.cfg', ...timeout]).opts,
    builtin: parseHerdArgs(timeout).opts,
    speedcheck: parseHerdArgs([...timeout, '-speedcheck', 'true']).opts,
  };
  const t1 = performance.now();
  const lit = Object.fromEntries(a.modes.map((mode) => [mode, mutants.map((m) => runLitmus(m.file, optsOf[mode]))])) as Record<Mode, Answer[]>;
  const litS = (performance.now() - t1) / 1000;

  const rows: string[] = ['mutant\tsource\tkinds\tdetails\tmode\therd7\tlitmus\toutcome\tnote'];
  const counts: Record<string, number> = {};
  const byKind: Record<string, Record<string, number>> = {};
  const problems: string[] = [];
  mutants.forEach((m, i) => {
    for (const mode of a.modes) {
      const h = mode === 'speedcheck' ? observationOnly(herdSpeed[i]) : herd[i];
      const l = mode === 'speedcheck' ? observationOnly(lit[mode][i]) : lit[mode][i];
      const { outcome, note } = judge(h, l);
      const key = `${mode}:${outcome}`;
      counts[key] = (counts[key] ?? 0) + 1;
      const kindKey = m.kinds.join('+');
      (byKind[kindKey] ??= {})[key] = (byKind[kindKey][key] ?? 0) + 1;
      rows.push([basename(m.file), m.source, kindKey, m.details.join('; '), mode, h.kind, l.kind, outcome, note].join('\t').replace(/\n/g, ' '));
      if (!['both-answer-same', 'both-refuse', 'timeout'].includes(outcome)) {
        problems.push(`${mode} ${outcome} ${basename(m.file)} (${m.source}; ${m.details.join('; ')}): ${note}`);
      }
    }
  });
  const rename = byKind.renameParam ?? {};
  const summary = {
    seed: a.seed, mutants: mutantCount, shapes: mutants.length - mutantCount, modes: a.modes, sources: srcs.length, herd7Seconds: +herdS.toFixed(1), litmusSeconds: +litS.toFixed(1),
    outcomes: counts, byKind, renameParam: rename,
  };
  writeFileSync(join(a.out, 'results.tsv'), `${rows.join('\n')}\n`);
  writeFileSync(join(a.out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  for (const p of problems) console.log(`DISAGREE ${p}`);
  console.log(`herd7 ${herdS.toFixed(1)} s (${a.jobs} at once), litmus ${litS.toFixed(1)} s (one thread)`);
  for (const [k, v] of Object.entries(counts).sort()) console.log(`  ${k}: ${v}`);
  console.log(`  one parameter renamed (body unchanged): ${JSON.stringify(rename)}`);
  console.log(`figures in ${join(a.out, 'summary.json')}, rows in ${join(a.out, 'results.tsv')}`);
  return problems.length ? 1 : 0;
}

main().then((code) => process.exit(code), (e: unknown) => {
  console.error(e);
  process.exit(2);
});
