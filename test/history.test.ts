// `litmus history`: the kernel's initlitmushist.sh / checklitmushist.sh /
// cmplitmushist.sh workflow. The categories as cmplitmushist.sh sorts a
// re-run, the history file and the scripts' .litmus.out layout both ways,
// the --procs filter as the scripts count processes, and the commands end to
// end (record, a model change, compare, --json, exit status).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { categorize, formatHistory, parseDuration, parseHistory, passesProcs, statesOf, TIMED_OUT_LINE, writeHistory } from '../src/history/history.js';
import { FAMILIES } from '../bench/families.js';
import { CLI, runNode } from './util.js';

const block = (name: string, verdict: string, p: number, n: number, time = '0.01', states = ['0:r0=0;']) =>
  [`Test ${name} Allowed`, `States ${states.length}`, ...states, p ? 'Ok' : 'No', 'Witnesses', `Positive: ${p} Negative: ${n}`,
    'Condition exists (0:r0=1)', `Observation ${name} ${verdict} ${p} ${n}`, `Time ${name} ${time}`, 'Hash=0123', '', ''].join('\n');

describe('cmplitmushist.sh categories', () => {
  it('exact: the same output but for Time and /usr/bin/time lines', () => {
    const timeLines = '0.01user 0.00system 0:00.02elapsed 95%CPU (0avgtext+0avgdata 9000maxresident)k\n0inputs+8outputs (0major+1200minor)pagefaults 0swaps\n';
    expect(categorize(block('T', 'Sometimes', 1, 3), block('T', 'Sometimes', 1, 3, '0.93') + timeLines)).toBe('exact');
  });
  it('same Observation line, other output: same counts', () => {
    expect(categorize(block('T', 'Sometimes', 1, 3), `Warning: something\n${block('T', 'Sometimes', 1, 3)}`)).toBe('sameCounts');
  });
  it('both without an Observation (timed out, refused): missing', () => {
    expect(categorize(`${TIMED_OUT_LINE}\n`, `${TIMED_OUT_LINE}\n`)).toBe('noObservation');
    expect(categorize('Warning: File "x": Unknown macro foo (User error)\n', `${TIMED_OUT_LINE}\n`)).toBe('noObservation');
  });
  it('same verdict, other counts', () => {
    expect(categorize(block('T', 'Sometimes', 1, 3), block('T', 'Sometimes', 2, 3))).toBe('sameVerdict');
  });
  it('another verdict, or an Observation on one side only: changed', () => {
    expect(categorize(block('T', 'Sometimes', 1, 3), block('T', 'Never', 0, 3))).toBe('changed');
    expect(categorize(block('T', 'Sometimes', 1, 3), `${TIMED_OUT_LINE}\n`)).toBe('changed');
    expect(categorize(`${TIMED_OUT_LINE}\n`, block('T', 'Sometimes', 1, 3))).toBe('changed');
  });
});

describe('the history file', () => {
  it('reads back what it writes, lines that look like its own syntax included', () => {
    const entries = [
      { key: 'b/T.litmus', out: block('T', 'Never', 0, 1) },
      { key: 'a/U.litmus', out: '=== not an entry\n\\ a backslash\n# not a header\n' },
      { key: 'c/V.litmus', out: `${TIMED_OUT_LINE}\n` },
    ];
    const text = formatHistory({ header: ['made by a test'], options: { model: 'lkmm' }, entries });
    expect(text.indexOf('=== a/U.litmus')).toBeLessThan(text.indexOf('=== b/T.litmus'));
    const h = parseHistory(text, 'h');
    expect(h.header).toEqual(['made by a test']);
    expect(h.options).toEqual({ model: 'lkmm' });
    for (const e of entries) expect(h.entries.get(e.key)?.out).toBe(e.out);
  });
  it('writes piece by piece and reads bytes: a history larger than one string can be is never made one string', () => {
    const entries = [
      { key: 'e.litmus', out: '' },
      { key: 'n.litmus', out: '\n' },
      { key: 'u.litmus', out: '=== x\n\\y\nno newline at the end' },
      { key: 'b.litmus', out: block('B', 'Sometimes', 1, 3) },
    ];
    const dir = mkdtempSync(join(tmpdir(), 'litmus-hist-bytes-'));
    try {
      const path = join(dir, 'h.hist');
      writeHistory(path, { header: ['by a test'], entries });
      const bytes = readFileSync(path);
      expect(bytes.toString('utf8')).toBe(formatHistory({ header: ['by a test'], entries }));
      const h = parseHistory(bytes, path);
      expect([...h.entries.keys()].sort()).toEqual(entries.map((e) => e.key).sort());
      // Each output as it was written (a last line always ends with a newline in the file).
      for (const e of entries) expect(h.entries.get(e.key)?.out).toBe(e.out === '' || e.out.endsWith('\n') ? e.out : `${e.out}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('refuses a file that is not a history, with its line', () => {
    expect(() => parseHistory('# ok\nTest T Allowed\n', 'h')).toThrow(/^h:2: not a litmus history/);
    expect(() => parseHistory('=== a\n=== a\n', 'h')).toThrow(/^h:2: the test a is in the history twice/);
  });
  it('lists the states of a block', () => {
    expect(statesOf(block('T', 'Never', 0, 2, '0.01', ['0:r0=0;', '0:r0=2;']))).toEqual(['0:r0=0;', '0:r0=2;']);
  });
});

describe('the scripts\' options', () => {
  it('--procs N keeps C tests with no line starting P<N>', () => {
    const two = 'C two\n{}\nP0(int *x)\n{\n}\nP1(int *x)\n{\n}\nexists (x=0)\n';
    expect(passesProcs(two, 2)).toBe(true);
    expect(passesProcs(two, 1)).toBe(false);
    expect(passesProcs(two.replace('C two', 'LISA two'), 3)).toBe(false);
    expect(passesProcs(two.replace('C two', 'LISA two'), undefined)).toBe(true);
  });
  it('--timeout as GNU timeout reads it', () => {
    expect(parseDuration('10s')).toBe(10_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('5')).toBe(5_000);
    expect(() => parseDuration('10 minutes')).toThrow(/10s, 10m/);
  });
});

const MP = `C MP+poonceonces

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

const MP_FENCED = MP.replace('C MP+poonceonces', 'C MP+fencembonceonces').replace('WRITE_ONCE(*buf, 1);', 'WRITE_ONCE(*buf, 1);\n\tsmp_mb();').replace('r0 = READ_ONCE(*flag);', 'r0 = READ_ONCE(*flag);\n\tsmp_mb();');
const UNKNOWN = MP.replace('C MP+poonceonces', 'C unknown-macro').replace('WRITE_ONCE(*flag, 1);', 'smp_mb_new();\n\tWRITE_ONCE(*flag, 1);\n\tsmp_mb_new();');
const THREE = MP.replace('C MP+poonceonces', 'C three').replace('exists', 'P2(int *buf)\n{\n\tWRITE_ONCE(*buf, 2);\n}\n\nexists');

describe('litmus history, end to end', () => {
  let dir: string;
  const litmus = (...args: string[]) => runNode([CLI, ...args], dir);
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'litmus-history-'));
    mkdirSync(join(dir, 'tests', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'tests', 'MP+poonceonces.litmus'), MP);
    writeFileSync(join(dir, 'tests', 'sub', 'MP+fencembonceonces.litmus'), MP_FENCED);
    writeFileSync(join(dir, 'tests', 'sub', 'unknown-macro.litmus'), UNKNOWN);
    writeFileSync(join(dir, 'tests', 'three.litmus'), THREE);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records each test\'s herd7 output into one file, named by its path below the folder', async () => {
    const r = await litmus('history', 'record', '--timeout', '10s', '--out', 'lkmm.hist', 'tests');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^recorded 4 tests into lkmm.hist in .* s: 0 timed out \(10s\), 1 without an Observation/);
    const h = parseHistory(readFileSync(join(dir, 'lkmm.hist'), 'utf8'), 'lkmm.hist');
    expect([...h.entries.keys()]).toEqual(['MP+poonceonces.litmus', 'sub/MP+fencembonceonces.litmus', 'sub/unknown-macro.litmus', 'three.litmus']);
    expect(h.entries.get('MP+poonceonces.litmus')!.out).toMatch(/^Test MP\+poonceonces Allowed\n[^]*\nObservation MP\+poonceonces Sometimes 1 3\nTime MP\+poonceonces \d+\.\d\d\nHash=[0-9a-f]{32}\n\n$/);
    // One "Unknown macro" per name and test, as herd7 prints it (judgelitmus.sh joins them into its message).
    const unknown = h.entries.get('sub/unknown-macro.litmus')!.out;
    expect(unknown.match(/Unknown macro smp_mb_new/g)).toHaveLength(1);
    expect(h.header[0]).toMatch(/^litmus history: 4 tests under tests, by litmus \S+ under the model lkmm$/);
  });

  it('--procs N leaves out the tests the scripts would (a line starting P<N>)', async () => {
    const r = await litmus('history', 'record', '--procs', '2', '--out', 'two.hist', 'tests');
    expect(r.status).toBe(0);
    expect([...parseHistory(readFileSync(join(dir, 'two.hist'), 'utf8'), 'two.hist').entries.keys()]).not.toContain('three.litmus');
  });

  it('compares under the same model: every result the same, exit 0', async () => {
    const r = await litmus('history', 'compare', 'lkmm.hist', 'tests');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Exact output matches: 3\n/);
    expect(r.stdout).toMatch(/Missing Observation line \(e\.g\., herd7 timeout\): 1\n/);
    expect(r.stdout).not.toMatch(/Result changed/);
  });

  it('after a model change, the changed tests with the outcome gained or lost and the cycle behind it, exit 1', async () => {
    const r = await litmus('history', 'compare', 'lkmm.hist', '--model', 'sc', '--before-model', 'lkmm', 'tests');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(' !!! Result changed: MP+poonceonces.litmus');
    expect(r.stdout).toContain('before: Observation MP+poonceonces Sometimes 1 3');
    expect(r.stdout).toContain('after:  Observation MP+poonceonces Never 0 3');
    expect(r.stdout).toContain('allowed in lkmm, not under sc: 1:r0=1; 1:r1=0;');
    // The old model's witness, its reordering as lkmm sees it, and the cycle sc forbids it by.
    expect(r.stdout).toMatch(/an execution that reaches it under lkmm:\n\s+P0:/);
    expect(r.stdout).toContain('program order, which lkmm does not keep here');
    expect(r.stdout).toMatch(/under sc, this execution is forbidden:\n\s+sc forbids it: the "sc" axiom\n\s+the sc cycle: /);
    expect(r.stdout).toMatch(/!!! Result changed: 2\n/);
  });

  it('--json for CI: the counts per category and each changed test', async () => {
    const r = await litmus('history', 'compare', 'lkmm.hist', '--model', 'sc', '--json', 'tests');
    expect(r.status).toBe(1);
    const j = JSON.parse(r.stdout) as { categories: Record<string, number>; changed: { file: string; before: string; after: string }[] };
    expect(j.categories).toEqual({ exact: 1, sameCounts: 0, noObservation: 1, sameVerdict: 0, changed: 2 });
    expect(j.changed).toContainEqual({ file: 'MP+poonceonces.litmus', before: 'Observation MP+poonceonces Sometimes 1 3', after: 'Observation MP+poonceonces Never 0 3' });
  });

  it('writes and reads the scripts\' .litmus.out layout (beside each test with --destdir .), and .litmus.out.new on compare', async () => {
    const rec = await litmus('history', 'record', '--destdir', '.', 'tests');
    expect(rec.status).toBe(0);
    const out = readFileSync(join(dir, 'tests', 'MP+poonceonces.litmus.out'), 'utf8');
    expect(out).toMatch(/^Test MP\+poonceonces Allowed\n/);
    // Compared as the history file was: the same outputs.
    const cmp = await litmus('history', 'compare', '.', '--json', '--destdir', '.', 'tests');
    expect(cmp.status).toBe(0);
    expect((JSON.parse(cmp.stdout) as { categories: { exact: number } }).categories.exact).toBe(3);
    expect(existsSync(join(dir, 'tests', 'sub', 'MP+fencembonceonces.litmus.out.new'))).toBe(true);
    // A herd7-made .litmus.out (with /usr/bin/time's lines) is an exact match for litmus's.
    const herdMade = `${out}0.01user 0.00system 0:00.01elapsed 90%CPU (0avgtext+0avgdata 9000maxresident)k\n0inputs+0outputs (0major+900minor)pagefaults 0swaps\n`;
    writeFileSync(join(dir, 'tests', 'MP+poonceonces.litmus.out'), herdMade.replace(/^Time .*$/m, 'Time MP+poonceonces 0.07'));
    const again = await litmus('history', 'compare', '.', '--json', 'tests');
    expect((JSON.parse(again.stdout) as { categories: { exact: number } }).categories.exact).toBe(3);
  });

  it('a test past its time limit is saved as the scripts save a timeout', async () => {
    const big = FAMILIES.find((f) => f.name === 'spinlock-counter')!;
    mkdirSync(join(dir, 'slow'), { recursive: true });
    writeFileSync(join(dir, 'slow', 'spinlocks.litmus'), big.make(8));
    const r = await litmus('history', 'record', '--timeout', '0.001s', '--out', 'slow.hist', 'slow');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/1 timed out/);
    expect(parseHistory(readFileSync(join(dir, 'slow.hist'), 'utf8'), 'slow.hist').entries.get('spinlocks.litmus')!.out).toBe(`${TIMED_OUT_LINE}\n`);
  });

  it('bad input: one line, exit 2', async () => {
    const r = await litmus('history', 'compare', 'no-such.hist', 'tests');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('litmus history: no-such.hist: no such history file or folder\n');
    const t = await litmus('history', 'record', '--timeout', 'soon', '--out', 'x.hist', 'tests');
    expect(t.status).toBe(2);
    expect(t.stderr).toMatch(/^litmus history: --timeout takes a duration/);
    const n = await litmus('history', 'record', 'tests');
    expect(n.status).toBe(2);
    expect(n.stderr).toMatch(/needs --out FILE/);
  });
});
