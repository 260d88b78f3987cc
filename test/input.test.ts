// Input that herd7 reads and that `litmus` must read too: diy7 header lines,
// typed registers in the initial state, a ";" after the final condition, a
// test without a final condition, deep nesting.

import { describe, expect, it } from 'vitest';
import { MAX_NESTING, parseLitmus } from '../src/parse/parser.js';
import { printLitmus } from '../src/parse/printer.js';
import { asLimit, LimitError, LitmusError } from '../src/parse/errors.js';
import { checkSource } from '../src/check.js';
import { builtinModel } from '../models/index.js';

/** The built-in LKMM, explained from its definitions (models/text/lkmm.cat, models/cat/explain.ts). */
const lkmm = builtinModel('lkmm')!;
import { herdBlock } from '../src/report/herd.js';
import { traceReport } from '../src/report/trace.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, stripPos } from './util.js';

function errorOf(text: string): LitmusError {
  try {
    checkSource(text, { model: lkmm });
  } catch (e) {
    if (e instanceof LitmusError) return e;
    throw e;
  }
  throw new Error('no error');
}

const DIY = `C C-Z6.4+pooncerelease+fencembonceonce
"PodWWOnceRelease WseReleaseOnce FenceMbdWROnceOnce"
Cycle=FreAcquireOnce PodWWOnceRelease WseReleaseOnce
Relax=FreAcquireOnce
Safe=FenceMbdWROnceOnce PodWWOnceRelease
Prefetch=0:x=F,0:y=W,1:y=F,1:z=T
Com=Ws Fr
Orig=PodWWOnceRelease WseReleaseOnce
Generator=diyone7 (version 7.56)
(* Result: Sometimes *)
{
}

P0(int *x, int *y)
{
	WRITE_ONCE(*x, 1);
	smp_store_release(y, 1);
}

P1(int *y, int *x)
{
	WRITE_ONCE(*y, 2);
	smp_mb();
	r0 = READ_ONCE(*x);
}

exists
(y=2 /\\ 1:r0=0)
`;

describe('diy7 header lines', () => {
  it('are kept in order, with their values', () => {
    const t = parseLitmus(DIY);
    expect(t.name).toBe('C-Z6.4+pooncerelease+fencembonceonce');
    expect(t.info.map((i) => i.key)).toEqual(['Cycle', 'Relax', 'Safe', 'Prefetch', 'Com', 'Orig', 'Generator']);
    expect(t.info[3]).toEqual({ key: 'Prefetch', value: '0:x=F,0:y=W,1:y=F,1:z=T' });
    expect(t.info[6]).toEqual({ key: 'Generator', value: 'diyone7 (version 7.56)' });
    expect(t.result).toBe('Sometimes');
  });

  it('do not disturb positions after them', () => {
    const t = parseLitmus(DIY);
    expect(t.processes[0].pos.line).toBe(15);
    expect(t.conditionPos).toEqual({ line: 27, col: 1 });
  });

  it('any key, spaces around "=", and a test without them has none', () => {
    const t = parseLitmus('C t\nFoo.bar-2 = some value  \n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n');
    expect(t.info).toEqual([{ key: 'Foo.bar-2', value: 'some value' }]);
    expect(parseLitmus('C t\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n').info).toEqual([]);
  });

  it('other text before "{" is skipped, as herd7 skips it; a TeX name after the test name too', () => {
    const t = parseLitmus('C t (tex) ;\nsome words here\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n');
    expect(t.name).toBe('t');
    expect(t.info).toEqual([]);
  });

  it('survive the printer round trip', () => {
    const t = parseLitmus(DIY);
    expect(stripPos(parseLitmus(printLitmus(t)))).toEqual(stripPos(t));
  });

  it('are judged like any test', () => {
    const r = checkSource(DIY, { model: lkmm });
    expect(r.observation).toBe('Sometimes');
    expect(r.matches).toBe(true);
  });

  it('a missing "{" is still reported where the processes start', () => {
    const e = errorOf('C t\nCycle=Rfe\nP0(int *x)\n{\n}\nexists (x=1)\n');
    expect(e.message).toBe('expected "{" opening the initial state, found "P0"');
    expect(e.pos).toEqual({ line: 3, col: 1 });
  });
});

describe('--json', () => {
  it('shows the header lines as "info"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-input-'));
    try {
      writeFileSync(join(dir, 'diy.litmus'), DIY);
      const r = spawnSync(process.execPath, [CLI, 'check', '--json', 'diy.litmus'], { cwd: dir, encoding: 'utf8' });
      expect(r.status).toBe(0);
      const [res] = (JSON.parse(r.stdout) as { results: { info: Record<string, string> }[] }).results;
      expect(res.info.Cycle).toBe('FreAcquireOnce PodWWOnceRelease WseReleaseOnce');
      expect(Object.keys(res.info)).toEqual(['Cycle', 'Relax', 'Safe', 'Prefetch', 'Com', 'Orig', 'Generator']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A two-process test whose initial state is `init`. */
function withInit(init: string, cond = 'exists (1:r1=x /\\ 1:r2=0)'): string {
  return `C t\n{\n${init}\n}\n\nP0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, x);\n}\n\nP1(int *x, int *y)\n{\n\tr1 = smp_load_acquire(y);\n\tr2 = READ_ONCE(*x);\n}\n\n${cond}\n`;
}

describe('typed registers in the initial state', () => {
  it('"int 0:r1;", "int * 1:r1;", with or without a value', () => {
    const t = parseLitmus(withInit('int 0:r1;\nint * 1:r1;\nint 1:r2 = 3;\nint *P1:r3 = &x;'));
    expect(stripPos(t.init)).toEqual([
      { thread: 0, name: 'r1', type: 'int' },
      { thread: 1, name: 'r1', type: 'int *' },
      { thread: 1, name: 'r2', type: 'int', value: { kind: 'num', value: 3 } },
      { thread: 1, name: 'r3', type: 'int *', value: { kind: 'loc', name: 'x' } },
    ]);
  });

  it('declares the register: the test is judged as without the declarations', () => {
    const plain = checkSource(withInit(''), { model: lkmm });
    const typed = checkSource(withInit('int * 1:r1;\nint 1:r2;'), { model: lkmm });
    expect(plain.observation).toBe('Never');
    expect([typed.observation, typed.positive, typed.negative]).toEqual([plain.observation, plain.positive, plain.negative]);
    expect(typed.states.map((s) => s.bindings)).toEqual(plain.states.map((s) => s.bindings));
  });

  it('a value given to a typed register is its initial value', () => {
    const r = checkSource(`C t\n{\nint 0:r1 = 5;\n}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, r1);\n}\nexists (x=5)\n`, { model: lkmm });
    expect(r.observation).toBe('Always');
  });

  it('other forms of herd7\'s state grammar: [x]=1, any type name, _Atomic, no ";" after the last item', () => {
    const t = parseLitmus(withInit('[y]=2; u32 z=1; _Atomic int w; foo_t *p = &x; x=1'));
    expect(stripPos(t.init)).toEqual([
      { thread: null, name: 'y', value: { kind: 'num', value: 2 } },
      { thread: null, name: 'z', type: 'u32', value: { kind: 'num', value: 1 } },
      { thread: null, name: 'w', type: '_Atomic int' },
      { thread: null, name: 'p', type: 'foo_t *', value: { kind: 'loc', name: 'x' } },
      { thread: null, name: 'x', value: { kind: 'num', value: 1 } },
    ]);
  });

  it('survive the printer round trip', () => {
    const t = parseLitmus(withInit('int 0:r1;\nint * 1:r1;\nint 1:r2 = 3;\nint **q;'));
    expect(stripPos(parseLitmus(printLitmus(t)))).toEqual(stripPos(t));
  });
});

describe('the final condition', () => {
  it('may be followed by ";"', () => {
    const t = parseLitmus(withInit('', 'exists (1:r1=x /\\ 1:r2=0);'));
    expect(t.quantifier).toBe('exists');
    expect(checkSource(withInit('', 'exists (1:r1=x /\\ 1:r2=0);'), { model: lkmm }).observation).toBe('Never');
  });

  it('but not by anything else', () => {
    const e = errorOf(withInit('', 'exists (1:r1=x /\\ 1:r2=0); junk'));
    expect(e.message).toBe('expected end of test after the final condition, found "junk"');
  });

  it('locations may carry a type, as herd7 allows', () => {
    const t = parseLitmus(withInit('', 'locations [x int; 1:r1 int*; y]\nexists (1:r2=0)'));
    expect(t.locations.map((l) => l.name)).toEqual(['x', 'r1', 'y']);
  });
});

describe('a test without a final condition', () => {
  const SELF_DEADLOCK = 'C self-deadlock\n(* Result: DEADLOCK *)\n{\n}\n\nP0(spinlock_t *sl)\n{\n\tspin_lock(sl);\n\tspin_lock(sl);\n\tspin_unlock(sl);\n\tspin_unlock(sl);\n}\n';
  const NO_COND = 'C nocond\n{\n}\n\nP0(int *x)\n{\n\tint r0;\n\tWRITE_ONCE(*x, 1);\n\tr0 = READ_ONCE(*x);\n}\n\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 2);\n}\n';

  it('is judged as "forall (true)": herd7 prints Never 0 0 for a self-deadlock', () => {
    const r = checkSource(SELF_DEADLOCK, { model: lkmm });
    expect(herdBlock(r)).toBe(
      'Test self-deadlock Required\nStates 0\nOk\nWitnesses\nPositive: 0 Negative: 0\nCondition forall (true)\nObservation self-deadlock Never 0 0',
    );
    expect(r.matches).toBe(true);
  });

  it('and Always, with one empty state, when executions complete (herd7 7.58\'s output)', () => {
    const r = checkSource(NO_COND, { model: lkmm });
    expect(herdBlock(r)).toBe(
      'Test nocond Required\nStates 1\n\nOk\nWitnesses\nPositive: 3 Negative: 0\nCondition forall (true)\nObservation nocond Always 3 0',
    );
  });

  it('locations [...] alone still lists the states (herd7 7.58\'s output)', () => {
    const r = checkSource(NO_COND + 'locations [0:r0]\n', { model: lkmm });
    expect(herdBlock(r)).toBe(
      'Test nocond Required\nStates 2\n0:r0=1;\n0:r0=2;\nOk\nWitnesses\nPositive: 3 Negative: 0\nCondition forall (true)\nObservation nocond Always 3 0',
    );
  });

  it('"final" is herd7\'s other word for "exists"', () => {
    const r = checkSource(NO_COND + 'final (0:r0=2)\n', { model: lkmm });
    expect(r.quantifier).toBe('exists');
    expect(r.observation).toBe('Sometimes');
  });
});

describe('condition precedence, as herd7\'s grammar sets it', () => {
  const cond = (c: string) => stripPos(parseLitmus(withInit('', `exists (${c})`)).condition);
  const a = { kind: 'eq', lhs: { kind: 'reg', thread: 1, name: 'r1' }, rhs: { kind: 'num', value: 1 }, negated: false };
  const b = { ...a, lhs: { kind: 'reg', thread: 1, name: 'r2' } };
  const c = { ...a, rhs: { kind: 'num', value: 2 } };

  it('"=>" binds tighter than "/\\" and "\\/"', () => {
    expect(cond('1:r1=1 /\\ 1:r2=1 => 1:r1=2')).toEqual({ kind: 'and', left: a, right: { kind: 'implies', left: b, right: c } });
    expect(cond('1:r1=1 => 1:r2=1 \\/ 1:r1=2')).toEqual({ kind: 'or', left: { kind: 'implies', left: a, right: b }, right: c });
  });

  it('"=>" is right-associative; "~" binds tightest', () => {
    expect(cond('1:r1=1 => 1:r2=1 => 1:r1=2')).toEqual({ kind: 'implies', left: a, right: { kind: 'implies', left: b, right: c } });
    expect(cond('~1:r1=1 /\\ 1:r2=1')).toEqual({ kind: 'and', left: { kind: 'not', arg: a }, right: b });
  });
});

describe('deep nesting: a result or a positioned message, never a stack overflow', () => {
  /** A one-process test: `r0 = <expr>;` and the given final condition. */
  const deep = (expr: string, cond = 'exists (0:r0=1)', body?: string) =>
    `C deep\n{\n}\n\nP0(int *x)\n{\n\tint r0;\n${body ?? `\tr0 = ${expr};`}\n}\n\n${cond}\n`;
  const tooDeep = `nested too deeply: more than ${MAX_NESTING} levels of parentheses, operators, statements or conditions`;

  it('5,000 nested parentheses in an expression', () => {
    const e = errorOf(deep(`${'('.repeat(5000)}1${')'.repeat(5000)}`));
    expect(e.message).toBe(tooDeep);
    expect(e.pos).toEqual({ line: 8, col: 6 + MAX_NESTING });
  });

  it('long chains of operators, in expressions and in conditions', () => {
    expect(errorOf(deep(Array(5000).fill('1').join(' + '))).message).toBe(tooDeep);
    const conj = Array(5000).fill('0:r0=1').join(' /\\ ');
    expect(errorOf(deep('1', `exists (${conj})`)).message).toBe(tooDeep);
    expect(errorOf(deep('1', `exists (${Array(5000).fill('0:r0=1').join(' => ')})`)).message).toBe(tooDeep);
    expect(errorOf(deep('1', `exists (${'~'.repeat(5000)}0:r0=1)`)).message).toBe(tooDeep);
    expect(errorOf(deep('1', `exists ${'('.repeat(5000)}0:r0=1${')'.repeat(5000)}`)).message).toBe(tooDeep);
  });

  it('deeply nested blocks and ifs', () => {
    expect(errorOf(deep('', undefined, `${'{'.repeat(5000)}r0 = 1;${'}'.repeat(5000)}`)).message).toBe(tooDeep);
    const ifs = `\tr0 = READ_ONCE(*x);\n${'\tif (r0 == 0) {\n'.repeat(5000)}WRITE_ONCE(*x, 1);\n${'}\n'.repeat(5000)}`;
    expect(errorOf(deep('', 'exists (x=1)', ifs)).message).toBe(tooDeep);
  });

  it('just below the limit, every stage (parse, lowering, exploration, condition, herd block, trace) answers', () => {
    const n = MAX_NESTING - 10;
    const parens = checkSource(deep(`${'('.repeat(n)}1${')'.repeat(n)}`), { model: lkmm, keepWitnesses: true });
    expect(parens.observation).toBe('Always');
    const sum = checkSource(deep(Array(n).fill('1').join(' + '), `exists (0:r0=${n})`), { model: lkmm });
    expect(sum.observation).toBe('Always');
    const conj = checkSource(deep('1', `exists (${Array(n).fill('0:r0=1').join(' /\\ ')})`), { model: lkmm, keepWitnesses: true });
    expect(conj.observation).toBe('Always');
    expect(herdBlock(conj)).toContain(`Observation deep Always 1 0`);
    expect(traceReport(conj, lkmm)).toContain('Witness');
    const ifs = `\tr0 = READ_ONCE(*x);\n${'\tif (r0 == 0) {\n'.repeat(n / 2 - 5)}WRITE_ONCE(*x, 1);\n${'}\n'.repeat(n / 2 - 5)}`;
    expect(checkSource(deep('', 'exists (x=1)', ifs), { model: lkmm }).observation).toBe('Always');
  });

  it('a stack overflow (an execution too long for the explorer\'s recursion, ~500 events) is a limit, not an internal error', () => {
    // End to end this takes seconds of CPU; the conversion that runOne applies:
    const limit = asLimit(new RangeError('Maximum call stack size exceeded'));
    expect(limit).toBeInstanceOf(LimitError);
    expect(limit?.message).toBe('limit: the search ran out of stack (an execution of about five hundred events or more)');
    expect(asLimit(new RangeError('Invalid array length'))).toBeUndefined();
    expect(asLimit(new Error('x'))).toBeUndefined();
  });
});

describe('more of herd7\'s grammar', () => {
  const RHS = (c: string) => `C rhsderef\n{\nx=3;\n}\n\nvoid P0(int *x)\n{\n\tint r1;\n\tr1 = READ_ONCE(*x);\n}\n\nexists (${c})\n`;

  it('"void P0(...)"', () => {
    expect(parseLitmus(RHS('0:r1=3')).processes).toHaveLength(1);
  });

  it('"[x]" or "*x" on the right of "=" is the value of x, a bare name its address (herd7 7.58\'s output)', () => {
    for (const c of ['0:r1=[x]', '0:r1=*x']) {
      expect(herdBlock(checkSource(RHS(c), { model: lkmm }))).toBe(
        'Test rhsderef Allowed\nStates 1\n0:r1=3; [x]=3;\nOk\nWitnesses\nPositive: 1 Negative: 0\nCondition exists (0:r1=[x])\nObservation rhsderef Always 1 0',
      );
    }
    expect(checkSource(RHS('0:r1=x'), { model: lkmm }).observation).toBe('Never');
    const t = parseLitmus(RHS('0:r1=[x]'));
    expect(stripPos(parseLitmus(printLitmus(t)))).toEqual(stripPos(t));
  });
});
