// A model is checked before the first test: a type error in anything
// herd7 evaluates (every check and flag and what they read) refuses the
// model, and so every test, with one `file:line:col: ...` (exit 2), as
// herd7 refuses it; what herd7 never evaluates (a definition nothing
// reads, a function never applied, a try's failing body) refuses nothing.
// A configuration file's bad line is an error at that line. Where herd7 is
// installed, it is asked too and refuses each broken model at the same
// line.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileModelFiles } from '../models/cat/model.js';
import { ModelError } from '../models/cat/lexer.js';
import { filesOfConf } from '../models/cat/files.js';
import { modelTextDir } from '../models/texts.js';
import { CLI, runNode } from './util.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'litmus-model-check-'));
  writeFileSync(join(dir, 'MP.litmus'), MP);
  writeFileSync(join(dir, 'LB.litmus'), LB);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Message passing with release and acquire: no smp_wmb(), no lock, no RCU.
const MP = `C MP+pooncerelease+poacquireonce
{}
P0(int *x, int *y) { WRITE_ONCE(*x, 1); smp_store_release(y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = smp_load_acquire(y); r1 = READ_ONCE(*x); }
exists (1:r0=1 /\\ 1:r1=0)
`;
const LB = `C LB
{}
P0(int *x, int *y) { int r0; r0 = READ_ONCE(*x); WRITE_ONCE(*y, 1); }
P1(int *x, int *y) { int r0; r0 = READ_ONCE(*y); WRITE_ONCE(*x, 1); }
exists (0:r0=1 /\\ 1:r0=1)
`;

/** A copy of the LKMM's text with one line of lkmm.cat replaced; returns its folder and the (1-based) line edited. */
function edited(name: string, from: RegExp, to: string): { at: string; line: number; text: string } {
  const at = join(dir, name);
  cpSync(modelTextDir(), at, { recursive: true });
  const path = join(at, 'lkmm.cat');
  const lines = readFileSync(path, 'utf8').split('\n');
  const line = lines.findIndex((l) => from.test(l));
  expect(line, `${from} is a line of lkmm.cat`).toBeGreaterThanOrEqual(0);
  lines[line] = lines[line].replace(from, to);
  writeFileSync(path, lines.join('\n'));
  return { at, line: line + 1, text: lines[line] };
}

/** The error compiling the copy gives, as `lkmm.cat:line:col: message`, or 'accepted'. */
function compileError(at: string): string {
  try {
    compileModelFiles(filesOfConf(join(at, 'lkmm.cfg')));
    return 'accepted';
  } catch (e) {
    if (!(e instanceof ModelError)) throw e;
    return `${e.pos.file.replace(`${at}/`, '')}:${e.pos.line}:${e.pos.col}: ${e.message}`;
  }
}

/** The 1-based column of `s` in the edited line. */
const col = (e: { text: string }, s: string) => e.text.indexOf(s) + 1;

/** The (1-based) line and column of `s` in the LKMM's text. */
function lineOf(s: string): [number, number] {
  const lines = readFileSync(join(modelTextDir(), 'lkmm.cat'), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(s));
  return [i + 1, lines[i].indexOf(s) + 1];
}

const BROKEN: { name: string; from: RegExp; to: string; error: (e: { line: number; text: string }) => string }[] = [
  {
    // A set where a relation is needed, in a definition only tests with smp_wmb() make non-empty.
    name: 'wmb-set', from: /^let wmb = \[W\] ; fencerel\(Wmb\) ; \[W\]$/, to: 'let wmb = [W] ; fencerel(Wmb) ; W',
    error: (e) => `lkmm.cat:${e.line}:${e.text.lastIndexOf('W') + 1}: ; takes relations, not a set of events`,
  },
  {
    name: 'union-mixed', from: /^let dep = addr \| data$/, to: 'let dep = addr | W',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'W')}: | needs two sets or two relations, not a relation and a set of events`,
  },
  {
    name: 'domain-of-set', from: /^let R4rmb = R \\ Noreturn$/, to: 'let R4rmb = R \\ domain(Noreturn)',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'domain')}: domain takes a relation, not a set of events`,
  },
  {
    name: 'toid-of-relation', from: /^let ppo = to-r /, to: 'let ppo = [to-r] ',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'to-r')}: [...] takes a set of events, not a relation`,
  },
  {
    name: 'product-of-relation', from: /\(Plain \* M\)/, to: '(Plain * po)',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'po)')}: * takes two sets of events, not a relation`,
  },
  {
    name: 'acyclic-set', from: /^acyclic hb as happens-before$/, to: 'acyclic Marked as happens-before',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'Marked')}: acyclic takes a relation, not a set of events`,
  },
  {
    name: 'apply-relation', from: /^let dep = addr \| data$/, to: 'let dep = addr(data)',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'addr')}: a relation cannot be applied`,
  },
  {
    // Too many arguments: the library's fencerel gets a tuple; said where the model applies it.
    name: 'arity-more', from: /fencerel\(Rmb\) ; \[R4rmb\]$/, to: 'fencerel(Rmb, Wmb) ; [R4rmb]',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'fencerel')}: [...] takes a set of events, not a tuple of 2 (in fencerel, stdlib.cat:17:25)`,
  },
  {
    name: 'arity-less', from: /^let A-cumul\(r\) = /, to: 'let A-cumul(r, s) = ',
    // Said where it is applied to one argument (in cumul-fence).
    error: () => `lkmm.cat:${lineOf('A-cumul(strong-fence').join(':')}: expected a tuple of 2, found a relation`,
  },
  {
    name: 'unknown-name', from: /^let dep = addr \| data$/, to: 'let dep = addr | dta',
    error: (e) => `lkmm.cat:${e.line}:${col(e, 'dta')}: unknown name "dta"`,
  },
  {
    // A flag is evaluated as a check is.
    name: 'flag', from: /^let dep = addr \| data$/, to: 'let dep = addr | data\nlet odd = po ; W\nflag ~empty odd as odd',
    error: (e) => `lkmm.cat:${e.line + 1}:16: ; takes relations, not a set of events`,
  },
];

/** Broken only where herd7 never looks: each is accepted, as herd7 accepts it. */
const UNEVALUATED: { name: string; from: RegExp; to: string }[] = [
  { name: 'unread-definition', from: /^let dep = addr \| data$/, to: 'let dep = addr | data\nlet odd = po ; W' },
  { name: 'unapplied-function', from: /^let dep = addr \| data$/, to: 'let dep = addr | data\nlet odd(x) = x ; W' },
  { name: 'try-falls-back', from: /^let dep = addr \| data$/, to: 'let dep = addr | data\nlet odd = try po ; W with po\nacyclic odd as odd' },
  { name: 'universe-as-relation', from: /^let dep = addr \| data$/, to: 'let dep = addr | data\nlet odd = _^-1 ; po\nflag ~empty odd as odd' },
];

describe('a model is checked before the first test', () => {
  it.each(BROKEN)('$name: one positioned error', ({ name, from, to, error }) => {
    const e = edited(name, from, to);
    expect(compileError(e.at)).toBe(error(e));
  });

  it.each(UNEVALUATED)('$name: accepted, as herd7 accepts it', ({ name, from, to }) => {
    expect(compileError(edited(name, from, to).at)).toBe('accepted');
  });

  it("the project's texts and the kernel's files are accepted", () => {
    for (const cfg of ['lkmm.cfg', 'sc.cfg', 'x86tso.cfg']) expect(() => compileModelFiles(filesOfConf(join(modelTextDir(), cfg)))).not.toThrow();
  });

  it('a broken model refuses every test, with one message, exit 2: also the tests that never use what is broken', async () => {
    const e = edited('cli-wmb', BROKEN[0].from, BROKEN[0].to);
    for (const args of [['check', '--conf', join(e.at, 'lkmm.cfg'), dir], ['herd7', '-I', e.at, '-conf', 'lkmm.cfg', join(dir, 'MP.litmus'), join(dir, 'LB.litmus')]]) {
      const r = await runNode([CLI, ...args], e.at);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([`${join(e.at, 'lkmm.cat')}:${BROKEN[0].error(e).replace(/^lkmm\.cat:/, '')}`]);
    }
  });
});

describe("a configuration file's bad line is an error at that line", () => {
  const cases: [string, string][] = [
    ['modle lkmm.cat', 'unknown key "modle" in a configuration file'],
    ['variant', '"variant" without a value (a configuration line is "key value")'],
    ['bell', '"bell" without a value (a configuration line is "key value")'],
    ['speedcheck maybe', '-speedcheck takes false, true or fast, not "maybe"'],
    ['unroll x', 'unroll x: integer parameter expected (herd7 stops there)'],
    ['macros nosuch.def', 'Cannot find file nosuch.def'],
  ];
  it.each(cases)('%s', async (line, message) => {
    const at = join(dir, `cfg-${line.replace(/\W+/g, '-')}`);
    cpSync(modelTextDir(), at, { recursive: true });
    writeFileSync(join(at, 'lkmm.cfg'), `# a comment\nmodel lkmm.cat\nbell lkmm.bell\n${line}\nvariant lkmmv2\n`);
    const want = `${join(at, 'lkmm.cfg')}:4:1: ${message}`;
    for (const args of [['check', '--conf', join(at, 'lkmm.cfg'), join(dir, 'MP.litmus')], ['herd7', '-conf', 'lkmm.cfg', join(dir, 'MP.litmus')]]) {
      const r = await runNode([CLI, ...args], at);
      expect(r.status, `${args[0]}: ${r.stdout}`).toBe(2);
      expect(r.stderr.trim()).toBe(want);
    }
  });
});

const HERD7 = '/root/herd/bin/herd7';
const HERD_LIB = '/root/herd/src/herd/libdir';
const KERNEL_DEF = '/root/herd/lkmm/linux-kernel.def';

describe.skipIf(!existsSync(HERD7) || !existsSync(KERNEL_DEF))('herd7 7.58 on the same models', () => {
  /** herd7's answer on MP under the copy: the line of its error, or 'accepted'. */
  const herd = (at: string) => {
    const r = spawnSync(HERD7, ['-set-libdir', HERD_LIB, '-I', at, '-macros', KERNEL_DEF, '-bell', 'lkmm.bell', '-model', 'lkmm.cat', '-variant', 'lkmmv2', join(dir, 'MP.litmus')], { cwd: at, encoding: 'utf8' });
    const out = `${r.stdout}${r.stderr}`;
    const m = /File "[^"]*?([^/"]+)", line (\d+)/.exec(out);
    return m ? `${m[1]}:${m[2]}` : /^Observation/m.test(out) ? 'accepted' : `other: ${out}`;
  };

  it('refuses each broken model at the line litmus names (or, in a library function, in that function)', () => {
    for (const b of BROKEN) {
      const e = edited(`herd-${b.name}`, b.from, b.to);
      const ours = compileError(e.at);
      const theirs = herd(e.at);
      if (b.name === 'arity-more') expect(theirs).toBe('stdlib.cat:29');
      else expect(`${theirs}:`, b.name).toBe(ours.slice(0, ours.indexOf(':', 'lkmm.cat:'.length) + 1));
    }
  });

  it('accepts each model broken only where it never looks', () => {
    for (const u of UNEVALUATED) expect(herd(edited(`herd-${u.name}`, u.from, u.to).at), u.name).toBe('accepted');
  });
});
