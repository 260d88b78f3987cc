// `litmus herd7` / `litmus-herd7`: herd7's command line and output, the
// Hash= line computed as herd7 computes it, and the kernel's checklitmus.sh
// flow (run into FILE.litmus.out, judge against Result:, compare hashes and
// reruns) re-enacted step by step.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { herd7Main } from '../src/cli/herd7.js';
import { herdHash } from '../src/report/hash.js';
import { CLI, copyLkmm, HAVE_LKMM, LKMM_DIR, ROOT, runNode } from './util.js';
import { MP_REL_ACQ, SB_PROCS } from './shapes.js';

const HERD7 = join(ROOT, 'dist', 'src', 'cli', 'herd7.js');
const corpus = process.env.LITMUS_CORPUS ?? join(ROOT, '..', 'shared', 'corpus');
const herdLinux = join(corpus, 'herd-linux');
const haveCorpus = existsSync(herdLinux);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-herd7-'));
  // The kernel's tools/memory-model as the scripts run in it: the LKMM's files beside the tests.
  if (HAVE_LKMM) copyLkmm(dir);
  // Tests that several cases read, written whether or not the cases that use the kernel's files run.
  writeFileSync(join(dir, 'MP.litmus'), MP);
  writeFileSync(join(dir, 'MPrel.litmus'), MP_REL_ACQ);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (cmd: string[], cwd = dir) => runNode(cmd, cwd);

/** litmus-herd7 in this process (files relative to the test folder). */
async function herd7(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  // herd7 looks for files the options name in the current folder, then the -I ones: the test folder is one.
  const abs = ['-I', dir, ...args.map((a) => (/\.(litmus|cfg)$/.test(a) || a === 'pics' ? join(dir, a) : a))];
  const status = await herd7Main(abs, { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

/** herd's output for one test is a block ending with a blank line; Time values vary. */
function blocks(out: string): string[] {
  return out
    .split(/\n\n/)
    .filter((b) => b.trim())
    .map((b) => `${b.replace(/^Time \S+ \d+\.\d\d\n/m, '')}\n\n`);
}

const MP = `C MP+poonceonces

(*
 * Result: Sometimes
 *)

{}

P0(int *buf, int *flag)
{
\tWRITE_ONCE(*buf, 1);
\tWRITE_ONCE(*flag, 1);
}

P1(int *buf, int *flag)
{
\tint r0;
\tint r1;

\tr0 = READ_ONCE(*flag);
\tr1 = READ_ONCE(*buf);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

describe('herd7 hash', () => {
  it.skipIf(!haveCorpus)('equals herd7\'s Hash= on every .expected file of herd-linux', async () => {
    const files = readdirSync(herdLinux).filter((f) => f.endsWith('.litmus') && existsSync(join(herdLinux, `${f}.expected`)));
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) {
      const want = /^Hash=(\S+)$/m.exec(readFileSync(join(herdLinux, `${f}.expected`), 'utf8'))?.[1];
      expect(herdHash(readFileSync(join(herdLinux, f))), f).toBe(want);
    }
  });

  it('depends on the process bodies as written, not on the header or spacing between sections', async () => {
    const base = herdHash(MP);
    expect(base).toMatch(/^[0-9a-f]{32}$/);
    expect(herdHash(MP.replace('(*\n * Result: Sometimes\n *)', '(* another comment *)'))).toBe(base);
    expect(herdHash(MP.replace('\n\nexists', '\n\n\n\nexists'))).toBe(base);
    expect(herdHash(MP.replace('C MP+poonceonces', 'C MP-renamed'))).toBe(base);
    expect(herdHash(MP.replace('\tint r0;', '\tint r0; /* a comment */'))).not.toBe(base);
    expect(herdHash(MP.replace('{}', '{ buf=1; }'))).not.toBe(base);
    expect(herdHash(MP.replace('1:r1=0)', '1:r1=0 /\\ buf=1)'))).not.toBe(base);
  });

  it('keeps a Hash= line the test already carries', async () => {
    expect(herdHash(MP.replace('C MP+poonceonces\n', 'C MP+poonceonces\nHash=0123456789abcdef0123456789abcdef\n'))).toBe(
      '0123456789abcdef0123456789abcdef',
    );
  });
});

describe('litmus herd7: output', () => {
  it.skipIf(!haveCorpus || !HAVE_LKMM)('equals herd7\'s .expected file, Time aside, for every test of herd-linux', async () => {
    const files = readdirSync(herdLinux).filter((f) => f.endsWith('.litmus') && existsSync(join(herdLinux, `${f}.expected`)));
    const r = await run([CLI, 'herd7', '-I', LKMM_DIR, '-conf', 'linux-kernel.cfg', ...files], herdLinux);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const got = blocks(r.stdout);
    expect(got.length).toBe(files.length);
    files.forEach((f, i) => expect(got[i], f).toBe(readFileSync(join(herdLinux, `${f}.expected`), 'utf8')));
  });

  it.skipIf(!HAVE_LKMM)('prints Time NAME S after the Observation line, then Hash=, then a blank line', async () => {
    writeFileSync(join(dir, 'MP.litmus'), MP);
    const r = await herd7('-conf', 'linux-kernel.cfg', 'MP.litmus');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    const obs = lines.findIndex((l) => l.startsWith('Observation '));
    expect(lines[obs]).toBe('Observation MP+poonceonces Sometimes 1 3');
    expect(lines[obs + 1]).toMatch(/^Time MP\+poonceonces \d+\.\d\d$/);
    expect(lines[obs + 2]).toBe(`Hash=${herdHash(MP)}`);
    expect(lines.slice(obs + 3)).toEqual(['', '']);
  });

  it('counts the witnesses of a ~exists as herd7 7.58 does (the executions that do not satisfy it)', async () => {
    writeFileSync(join(dir, 'ne.litmus'), MP.replace('C MP+poonceonces', 'C ne').replace('exists (', '~exists ('));
    const out = (await herd7('ne.litmus')).stdout;
    expect(out).toContain('Test ne Forbidden\n');
    expect(out).toContain('No\nWitnesses\nPositive: 3 Negative: 1\nCondition ~exists (1:r0=1 /\\ 1:r1=0)\nObservation ne Sometimes 1 3\n');
  });

  it('-speedcheck true keeps the states the condition looks for; fast stops at the first (as herd7 7.58 prints them)', async () => {
    const t = (await herd7('-speedcheck', 'true', 'MP.litmus')).stdout;
    expect(t).toContain('States 1\n1:r0=1; 1:r1=0;\nOk\nWitnesses\nPositive: 1 Negative: 0\n');
    expect(t).toContain('Observation MP+poonceonces Always 1 0\n');
    writeFileSync(join(dir, 'MPrel.litmus'), MP_REL_ACQ);
    const never = (await herd7('-speedcheck', 'fast', 'MPrel.litmus')).stdout;
    expect(never).toContain('States 0\nNo\nWitnesses\nPositive: 0 Negative: 0\n');
    expect(never).toMatch(/Observation \S+ Never 0 0\n/);
  });

  it('-model: herd\'s library models sc.cat and x86tso.cat are built in; another model file must be found, as herd7 finds it', async () => {
    writeFileSync(join(dir, 'SB.litmus'), MP.replace('C MP+poonceonces', 'C SB').replace(/P0[\s\S]*exists.*\n/, SB_PROCS));
    // A model named without a macros file leaves herd7's C without the kernel's primitives: herd7 warns and gives no block.
    const bare = await herd7('-model', '/some/where/sc.cat', 'SB.litmus');
    expect(bare.stdout).toBe('');
    expect(bare.status).toBe(0);
    expect(bare.stderr).toMatch(/^Warning: File "[^"]*SB\.litmus": Procedure call WRITE_ONCE in CSem/m);
    writeFileSync(join(dir, 'once.def'), 'READ_ONCE(X) __load{ONCE}(X)\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }\n');
    expect((await herd7('-model', '/some/where/sc.cat', '-macros', 'once.def', 'SB.litmus')).stdout).toContain('Observation SB Never 0 3');
    // A value is a "Macro call" to herd7, a statement a "Procedure call".
    writeFileSync(join(dir, 'R.litmus'), 'C R\n{}\nP0(int *x) { int r0 = READ_ONCE(*x); }\nexists (0:r0=0)\n');
    expect((await herd7('-model', 'sc.cat', 'R.litmus')).stderr).toMatch(/^Warning: File "[^"]*R\.litmus": Macro call READ_ONCE in CSem/m);
    const bad = await herd7('-model', 'aarch64.cat', 'SB.litmus');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Cannot find file aarch64.cat');
    // A built-in name that is no file: litmus's own model, with a note (herd7 would look for the file).
    const own = await herd7('-model', 'lkmm', 'SB.litmus');
    expect(own.stdout).toContain('Observation SB Sometimes 1 3');
    expect(own.stderr).toContain("-model lkmm: litmus's built-in model");
  });

  it.skipIf(!HAVE_LKMM)('-model linux-kernel.cat reads the kernel\'s model file from the current folder', async () => {
    expect((await herd7('-model', 'linux-kernel.cat', '-bell', 'linux-kernel.bell', '-macros', 'linux-kernel.def', '-variant', 'lkmmv2', 'SB.litmus')).stdout).toContain('Observation SB Sometimes 1 3');
  });

  it('-conf reads a configuration file (model line); a missing one is herd7\'s "Cannot find file"', async () => {
    writeFileSync(join(dir, 'once.def'), 'READ_ONCE(X) __load{ONCE}(X)\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }\n');
    writeFileSync(join(dir, 'sc.cfg'), '# SC, for comparison\nmodel sc.cat\nmacros once.def\ngraph columns\nsquished true\n');
    expect((await herd7('-conf', 'sc.cfg', 'SB.litmus')).stdout).toContain('Observation SB Never 0 3');
    const missing = await herd7('-conf', 'nowhere.cfg', 'SB.litmus');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/Cannot find file .*nowhere\.cfg/);
    // Not found in an -I folder either (herd7 never falls back to a model of its own).
    const other = mkdtempSync(join(tmpdir(), 'litmus-herd7-empty-'));
    const r = await run([CLI, 'herd7', '-I', '/nonexistent', '-conf', 'linux-kernel.cfg', join(dir, 'SB.litmus')], other);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Cannot find file linux-kernel.cfg');
    expect(r.stdout).toBe('');
    rmSync(other, { recursive: true, force: true });
  });

  it.skipIf(!HAVE_LKMM)('-conf linux-kernel.cfg reads the kernel\'s files from the current folder', async () => {
    expect((await herd7('-conf', 'linux-kernel.cfg', 'SB.litmus')).stdout).toContain('Observation SB Sometimes 1 3');
  });

  it.skipIf(!HAVE_LKMM)('-set-libdir names herd\'s own library: its cross.cat (herd writes cross in cat) is litmus\'s own, other files are found there last', async () => {
    // herd's library, as lkmm-herd passes it: a cross.cat litmus could not run (here: not even cat) and a .cfg.
    const lib = mkdtempSync(join(tmpdir(), 'litmus-herd7-lib-'));
    writeFileSync(join(lib, 'cross.cat'), 'Cross\n(* herd\'s own, written with its cat-level recursion *)\nlet cross = (\n');
    writeFileSync(join(lib, 'sc-only.cfg'), 'model sc.cat\nmacros linux-kernel.def\n');
    const other = mkdtempSync(join(tmpdir(), 'litmus-herd7-cwd-'));
    const r = await run([CLI, 'herd7', '-set-libdir', lib, '-I', LKMM_DIR, '-conf', 'linux-kernel.cfg', join(dir, 'MP.litmus')], other);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Observation MP+poonceonces Sometimes 1 3');
    // A .cfg only the library holds is found there.
    expect((await run([CLI, 'herd7', '-set-libdir', lib, '-I', LKMM_DIR, '-conf', 'sc-only.cfg', join(dir, 'MP.litmus')], other)).stdout).toContain('Observation MP+poonceonces Never 0 3');
    rmSync(lib, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });

  it('-o DIR writes NAME.dot: empty by default (herd\'s -show none), one satisfying execution with -show prop', async () => {
    expect((await herd7('-o', 'pics', 'MP.litmus')).status).toBe(0);
    expect(readFileSync(join(dir, 'pics', 'MP.dot'), 'utf8')).toBe('');
    expect((await herd7('-o', 'pics', '-show', 'prop', 'MP.litmus', 'MPrel.litmus')).status).toBe(0);
    expect(readFileSync(join(dir, 'pics', 'MP.dot'), 'utf8')).toMatch(/^digraph /);
    expect(readFileSync(join(dir, 'pics', 'MPrel.dot'), 'utf8')).toBe('');
  });

  it('options that change nothing here are accepted; those it cannot honour are refused with exit 2', async () => {
    writeFileSync(join(dir, 'MP.litmus'), MP);
    const ok = await herd7('-model', 'lkmm', '-unroll', '2', '-through', 'none', '-squished', 'true', '-gv', 'MP.litmus');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('Observation MP+poonceonces Sometimes 1 3');
    expect(ok.stderr).toContain('-gv: litmus starts no viewer');
    for (const args of [['-through', 'all'], ['-show', 'all'], ['-frobnicate'], ['-unroll'], ['-speedcheck', 'maybe']]) {
      const r = await herd7(...args, 'MP.litmus');
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toMatch(/^litmus-herd7: /);
    }
  });

  it('runs as a link named herd7', async () => {
    const link = join(dir, 'herd7');
    symlinkSync(HERD7, link);
    const r = await run([link, '-model', 'lkmm', 'MP.litmus']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Observation MP+poonceonces Sometimes 1 3');
  });
});


// --- The kernel's checklitmus.sh flow, re-enacted -----------------------------
// runlitmus.sh: `herd7 $herdoptions $litmus > $litmus.out 2>&1` (after a
// "Herd options:" line); judgelitmus.sh: the Result: word of the test must
// appear in the Observation line (DEADLOCK: "Never 0 0"), an "Unknown macro"
// message means the model does not know a primitive, no Observation at all
// is a verification error.

/** runlitmus.sh; through the real command when `viaCommand`, else in this process (faster, same code). */
async function runlitmus(test: string, viaCommand = false): Promise<string> {
  const r = viaCommand ? await run([HERD7, '-conf', 'linux-kernel.cfg', test]) : await herd7('-conf', 'linux-kernel.cfg', test);
  const out = `Herd options: -conf linux-kernel.cfg\n${r.stdout}${r.stderr}`;
  writeFileSync(join(dir, `${test}.out`), out);
  return out;
}

function judgelitmus(test: string): { ret: number; message: string } {
  const src = readFileSync(join(dir, test), 'utf8');
  const out = readFileSync(join(dir, `${test}.out`), 'utf8');
  const outcome = /^ \* Result: (\S+)/m.exec(src)?.[1] ?? 'specified';
  const obs = out.split('\n').filter((l) => l.startsWith('Observation'));
  if (obs.length === 0) {
    const unknown = /: Unknown macro (.*?) \(User error\)/.exec(out);
    if (unknown) return { ret: 254, message: `Current LKMM version does not know "${unknown[1]}" ${test}` };
    return { ret: 255, message: `Verification error ${test}` };
  }
  if (outcome === 'DEADLOCK') return obs.some((l) => / Never 0 0$/.test(l)) ? { ret: 0, message: '' } : { ret: 1, message: `Unexpected non-${outcome} verification ${test}` };
  if (obs.some((l) => l.includes(outcome)) || outcome === 'Maybe') return { ret: 0, message: '' };
  return { ret: 1, message: `Unexpected non-${outcome} verification ${test}` };
}

describe('the kernel checklitmus.sh flow with litmus-herd7', () => {
  it.skipIf(!HAVE_LKMM)('test → .litmus.out → judged against Result: → hash and rerun compared', async () => {
    writeFileSync(join(dir, 'C-MP.litmus'), MP);
    writeFileSync(join(dir, 'C-MP-wrong.litmus'), MP.replace('C MP+poonceonces', 'C MP-wrong').replace('Result: Sometimes', 'Result: Never'));
    writeFileSync(join(dir, 'C-self-deadlock.litmus'), DEADLOCK);
    writeFileSync(join(dir, 'C-typo.litmus'), MP.replace('C MP+poonceonces', 'C typo').replace('READ_ONCE(*flag)', 'READ_ONCEE(*flag)'));

    const out = await runlitmus('C-MP.litmus', true);
    expect(judgelitmus('C-MP.litmus')).toEqual({ ret: 0, message: '' });
    // judgelitmus.sh then shows the second-last line: the Hash= line.
    const tail = out.trimEnd().split('\n');
    expect(tail[tail.length - 1]).toBe(`Hash=${herdHash(MP)}`);

    await runlitmus('C-MP-wrong.litmus');
    expect(judgelitmus('C-MP-wrong.litmus').ret).toBe(1);

    await runlitmus('C-self-deadlock.litmus');
    expect(judgelitmus('C-self-deadlock.litmus')).toEqual({ ret: 0, message: '' });

    await runlitmus('C-typo.litmus', true);
    expect(judgelitmus('C-typo.litmus')).toEqual({ ret: 254, message: 'Current LKMM version does not know "READ_ONCEE" C-typo.litmus' });

    // Same test under another name: same hash (herd's duplicate detection); a rerun matches exactly (cmplitmushist.sh, ^Time aside).
    writeFileSync(join(dir, 'C-MP-copy.litmus'), MP.replace('C MP+poonceonces', 'C MP-copy'));
    const hashOf = (o: string) => /^Hash=(\S+)$/m.exec(o)?.[1];
    expect(hashOf(await runlitmus('C-MP-copy.litmus'))).toBe(hashOf(out));
    const noTime = (o: string) => o.split('\n').filter((l) => !l.startsWith('Time')).join('\n');
    expect(noTime(await runlitmus('C-MP.litmus'))).toBe(noTime(out));
  });

  it('an unknown primitive used twice is one "Unknown macro" line (judgelitmus.sh names it once)', async () => {
    const twice = MP.replace('C MP+poonceonces', 'C twice').replace('WRITE_ONCE(*flag, 1);', 'smp_mb_new();\n\tWRITE_ONCE(*flag, 1);\n\tsmp_mb_new();\n\tsmp_mb_other();');
    writeFileSync(join(dir, 'C-twice.litmus'), twice);
    const r = await herd7('C-twice.litmus');
    expect(r.status).toBe(0);
    expect(r.stderr.match(/Unknown macro \S+/g)).toEqual(['Unknown macro smp_mb_new', 'Unknown macro smp_mb_other']);
  });

  it('-nshow N with -show prop stops a test once N executions satisfying the condition are found, as herd7 does', async () => {
    // Every execution satisfies this condition: 4 of them, exhaustively.
    writeFileSync(join(dir, 'C-all.litmus'), MP.replace('C MP+poonceonces', 'C all').replace('exists (1:r0=1 /\\ 1:r1=0)', 'exists (1:r0=0 \\/ 1:r0=1)'));
    const all = await herd7('C-all.litmus');
    expect(all.stdout).toMatch(/^Positive: 4 Negative: 0$/m);
    const one = await herd7('-show', 'prop', '-nshow', '1', 'C-all.litmus');
    expect(one.stdout).toMatch(/^Positive: 1 Negative: 0$/m);
    expect((await herd7('-show', 'prop', '-showone', 'true', 'C-all.litmus')).stdout).toMatch(/^Positive: 1 Negative: 0$/m);
    // herd's default -show none shows nothing, so nothing stops the test.
    expect((await herd7('-nshow', '1', 'C-all.litmus')).stdout).toMatch(/^Positive: 4 Negative: 0$/m);
  });

  it('a test named twice in one run is checked once, as herd7 does', async () => {
    writeFileSync(join(dir, 'C-MP.litmus'), MP);
    const r = await herd7('C-MP.litmus', 'C-MP.litmus');
    expect(r.stdout.match(/^Observation /gm)).toHaveLength(1);
  });
});

const DEADLOCK = `C self-deadlock

(*
 * Result: DEADLOCK
 *)

{}

P0(spinlock_t *l, int *x)
{
\tint r0;

\tspin_lock(l);
\tspin_lock(l);
\tr0 = READ_ONCE(*x);
}

exists (0:r0=0)
`;

describe('litmus herd7: -timeout lifts the candidate cap, as herd7 has none', () => {
  it('with -timeout the time is the only limit; without it, check\'s cap applies', async () => {
    const { herdLimits } = await import('../src/cli/herd7-test.js');
    const { parseHerdArgs } = await import('../src/cli/herd7-args.js');
    const timed = herdLimits(parseHerdArgs(['-timeout', '10', 'T.litmus']).opts);
    expect(timed).toEqual({ timeoutMs: 10_000, maxExecutions: Infinity });
    expect(herdLimits(parseHerdArgs(['T.litmus']).opts)).toEqual({ timeoutMs: undefined, maxExecutions: undefined });
    // The limits are those the check obeys: a cap below a test's candidates stops it, none does not.
    const { checkSource } = await import('../src/check.js');
    const { lkmm } = await import('../models/lkmm.js');
    const sb = `C SB\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); int r0 = READ_ONCE(*y); }\nP1(int *x, int *y) { WRITE_ONCE(*y, 1); int r1 = READ_ONCE(*x); }\nexists (0:r0=0 /\\ 1:r1=0)\n`;
    expect(() => checkSource(sb, { model: lkmm, maxExecutions: 1 })).toThrow(/candidate/);
    expect(checkSource(sb, { model: lkmm, ...timed }).observation).toBe('Sometimes');
  });
});
