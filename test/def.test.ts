// herd's macro files (.def) read into primitive tables (src/events/def.ts):
// the built-in table is the kernel's linux-kernel.def (read from
// ../shared/lkmm when present), a user's macros become primitives, their
// tags reach the events, and a malformed file is refused where it is wrong.

import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KERNEL_DEF_DIGEST, loadMacros, MacroFileError, readMacros, refuseUnknownTags, tagsUnknownToBuiltinModels } from '../src/events/def.js';
import { BUILTIN_PRIMITIVES, effectOf, type PrimitiveInfo, type PrimitiveTable } from '../src/events/primitives.js';
import { checkSource } from '../src/check.js';
import { lkmm } from '../models/lkmm.js';
import type { Model } from '../src/model/model.js';
import { LitmusError } from '../src/parse/errors.js';
import { ROOT, litmus } from './util.js';

const LKMM_DIR = process.env.LITMUS_LKMM ?? resolve(ROOT, '..', 'shared', 'lkmm');
const KERNEL_DEF = join(LKMM_DIR, 'linux-kernel.def');
const haveKernelDef = existsSync(KERNEL_DEF);

/** What an entry means, without where it was read. */
const meaning = (info: PrimitiveInfo) => ({ prim: info.prim, arity: info.arity, addrArg: info.addrArg, returns: info.returns, args: info.args, params: info.params });

function macroError(f: () => unknown): MacroFileError {
  try {
    f();
  } catch (e) {
    if (e instanceof MacroFileError) return e;
    throw e;
  }
  throw new Error('no MacroFileError');
}

const SB = (call: string) => litmus('SB+def', [`WRITE_ONCE(*x, 1);\n${call};\nint r0 = READ_ONCE(*y);`, `WRITE_ONCE(*y, 1);\n${call};\nint r1 = READ_ONCE(*x);`], 'exists (0:r0=0 /\\ 1:r1=0)');

describe('the kernel\'s linux-kernel.def', () => {
  if (!haveKernelDef) {
    console.log(`def.test.ts: no ${KERNEL_DEF} (set LITMUS_LKMM to a folder with linux-kernel.def); skipping the comparison with the built-in table`);
    it.skip('linux-kernel.def absent', () => {});
    return;
  }
  const kernel = readMacros(readFileSync(KERNEL_DEF, 'utf8'), KERNEL_DEF);

  it('gives, for every macro it defines, the built-in table\'s entry', () => {
    const names = [...kernel.macros()].map(([n]) => n);
    expect(names.length).toBeGreaterThan(100);
    for (const [name, info] of kernel.macros()) {
      const builtin = BUILTIN_PRIMITIVES.lookup(name);
      expect(builtin && 'prim' in builtin, `${name} is in the built-in table`).toBe(true);
      expect(meaning(info), name).toEqual(meaning(builtin as PrimitiveInfo));
    }
    expect(names.filter((n) => kernel.unsupportedMacro(n))).toEqual([]);
  });

  it('lacks only what the built-in table adds on purpose: the bit operations, the conditional RMWs of atomic_t.txt and atomic_long_* names', () => {
    const extra = BUILTIN_PRIMITIVES.names().filter((n) => !kernel.lookup(n) || kernel.defName(n) === undefined);
    for (const n of extra) {
      const info = BUILTIN_PRIMITIVES.lookup(n)!;
      expect('lower' in info || BUILTIN_PRIMITIVES.isExtension(n), `${n} is a Lowered operation or an extension with its source`).toBe(true);
      expect(BUILTIN_PRIMITIVES.sourceOf(n), n).toMatch(/^(Documentation|include)\//);
    }
    for (const [name] of BUILTIN_PRIMITIVES.macros()) expect(kernel.defName(name), name).toBe(name);
    expect(kernel.names()).toEqual(BUILTIN_PRIMITIVES.names());
  });

  it('has the digest by which litmus knows it (its macros are then the built-in table, not parsed again)', () => {
    expect(createHash('sha256').update(readFileSync(KERNEL_DEF)).digest('hex')).toBe(KERNEL_DEF_DIGEST);
    expect(loadMacros(KERNEL_DEF)).toBe(BUILTIN_PRIMITIVES);
  });

  it('has only tags the built-in models know', () => {
    expect(tagsUnknownToBuiltinModels(kernel)).toEqual([]);
  });

  it('with smp_mb() made a compiler barrier, SB with smp_mb() is allowed; as shipped it is forbidden', () => {
    const text = readFileSync(KERNEL_DEF, 'utf8').replace(/^smp_mb\(\).*$/m, 'smp_mb() { __fence{barrier}; }');
    const edited = readMacros(text, 'edited.def');
    expect(checkSource(SB('smp_mb()'), { model: lkmm, primitives: kernel }).observation).toBe('Never');
    expect(checkSource(SB('smp_mb()'), { model: lkmm, primitives: edited }).observation).toBe('Sometimes');
  });
});

describe('reading a .def', () => {
  it('makes a primitive of each macro built from herd\'s forms, its arguments in the .def\'s order', () => {
    const t = readMacros([
      'my_mb() { __fence{MB}; }',
      'put_release(V,X) { __store{RELEASE}(*X,V); }',
      'get(X) __load{ACQUIRE}(*X)',
      'dec_is_zero(X) __atomic_op_return{MB}(X,-,1) == 0',
      'set_one(X) { WRITE_ONCE(X,1); }',
      'WRITE_ONCE(X,V) { __store{ONCE}(X,V); }',
    ].join('\n'), 'mine.def');
    const put = t.lookup('put_release') as PrimitiveInfo;
    expect(put.prim).toEqual({ kind: 'store', annot: 'RELEASE', addr: 'pointer' });
    expect([put.arity, put.addrArg, put.args, put.params]).toEqual([2, 1, [{ param: 1 }, { param: 0 }], ['v', 'x']]);
    const one = t.lookup('set_one') as PrimitiveInfo;
    expect([one.prim, one.args]).toEqual([{ kind: 'store', annot: 'ONCE', addr: 'lvalue' }, [{ param: 0 }, { value: 1 }]]);
    expect((t.lookup('dec_is_zero') as PrimitiveInfo).prim).toEqual({ kind: 'atomic', op: '-', annot: 'MB', ret: 'new', test: 'zero', operand: 1 });
    expect(effectOf((t.lookup('my_mb') as PrimitiveInfo).prim).fence).toBe('MB');
    // The table's own names only, and the bit operations every table has.
    expect(t.lookup('smp_mb')).toBeUndefined();
    expect(t.lookup('set_bit')).toBeDefined();
  });

  it('runs a test with them: arguments reach their slots, and SB with my_mb() is forbidden', () => {
    const t = readMacros('my_mb() { __fence{MB}; }\nput(V,X) { __store{ONCE}(*X,V); }\nget(X) __load{ONCE}(*X)\nset_one(X) { __store{ONCE}(*X,1); }\n', 'mine.def');
    const sb = litmus('SB+mine', ['put(1, x);\nmy_mb();\nint r0 = get(y);', 'set_one(y);\nmy_mb();\nint r1 = get(x);'], 'exists (0:r0=0 /\\ 1:r1=0)');
    const r = checkSource(sb, { model: lkmm, primitives: t });
    expect(r.observation).toBe('Never');
    expect(r.states.map((s) => s.bindings.map(([k, v]) => `${k}=${v}`).join(' '))).toEqual(['0:r0=0 1:r1=1', '0:r0=1 1:r1=0', '0:r0=1 1:r1=1']);
    // Without the fences, the same macros allow it.
    const plain = checkSource(sb.replace(/my_mb\(\);/g, ''), { model: lkmm, primitives: t });
    expect(plain.observation).toBe('Sometimes');
  });

  it('says "unknown primitive" for a name the .def lacks, and where a macro it cannot run is', () => {
    const t = readMacros('my_mb() { __fence{MB}; }\ntwo(X) { __fence{MB}; __fence{MB}; }\nREAD_ONCE(X) __load{ONCE}(X)\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }\n', 'mine.def');
    const call = (c: string) => () => checkSource(SB(c), { model: lkmm, primitives: t });
    expect(call('smp_mb()')).toThrow(/unknown primitive "smp_mb"/);
    expect(call('two(x)')).toThrow(/litmus cannot run the macro two of mine\.def:2:1: litmus runs a block only as one operation, or a __store then a __fence/);
  });

  it('refuses a malformed file with file:line:col', () => {
    const e = macroError(() => readMacros('smp_mb() { __fence{MB}; }\nsmp_rmb( { __fence{rmb}; }\n', 'bad.def'));
    expect(e.format()).toBe('bad.def:2:10: expected a parameter name of smp_rmb, found "{"');
    expect(macroError(() => readMacros('x(X) __load{ONCE}(X', 'b.def')).format()).toBe('b.def:1:20: expected ")" to close the arguments of __load, found the end of the file');
    expect(macroError(() => readMacros('f() { __fence{MB} }', 'b.def')).format()).toMatch(/^b\.def:1:19: expected ";" after __fence/);
    expect(macroError(() => readMacros('f(X) __load(X)', 'b.def')).format()).toBe('b.def:1:12: __load needs a tag in braces, as in __load{ONCE}');
    expect(macroError(() => readMacros('/* never closed', 'b.def')).format()).toBe('b.def:1:1: a comment "/*" that never ends');
    expect(macroError(() => readMacros('f(X) { }', 'b.def')).format()).toBe('b.def:1:6: an empty block: herd wants at least one statement');
  });

  it('carries a tag the LKMM does not have to the events and the execution\'s sets, and the built-in models refuse it where it is written', () => {
    const t = readMacros('my_fence() { __fence{my-order}; }\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }\nget(X) __load{Tagged}(X)\n', 'mine.def');
    const problems = tagsUnknownToBuiltinModels(t).map((e) => `${e.file}:${e.pos.line}:${e.pos.col}: ${e.message}`);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^mine\.def:1:22: tag "my-order" of my_fence is not among the built-in LKMM's fence tags \(MB, rmb, wmb, /);
    expect(problems[1]).toMatch(/^mine\.def:3:15: tag "Tagged" of get is not among the built-in LKMM's access annotations \(ONCE, ACQUIRE, RELEASE, MB, NORETURN\)/);
    expect(refuseUnknownTags(t)?.format().split('\n')).toEqual(problems);
    // The tags reach the events: a model sees F[my-order] and the read's tag.
    const seen: { fences: number; tagged: number }[] = [];
    const watching: Model = {
      ...lkmm,
      check(x, o) {
        if (!o?.prefix) seen.push({ fences: x.sets.fence('my-order').members().length, tagged: x.events.filter((e) => e.annot === 'Tagged').length });
        return lkmm.check(x, o);
      },
    };
    checkSource(litmus('tags', ['WRITE_ONCE(*x, 1);\nmy_fence();\nint r0 = get(*x);'], 'exists (0:r0=1)'), { model: watching, primitives: t });
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(s).toEqual({ fences: 1, tagged: 1 });
  });

  it('expands macros as herd does: a value macro called as a statement, or a missing one, is herd\'s "Unknown macro"', () => {
    const t = readMacros('READ_ONCE(X) __load{ONCE}(X)\nbad(X) { READ_ONCE(X); }\nworse(X) missing(X)\nloop(X) loop(X)\n', 'm.def');
    expect(t.unsupportedMacro('bad')?.reason).toMatch(/herd7: "Unknown macro READ_ONCE"/);
    expect(t.unsupportedMacro('worse')?.reason).toMatch(/herd7: "Unknown macro missing"/);
    expect(t.unsupportedMacro('loop')?.reason).toMatch(/without end/);
    // The location argument styles: X called with *x, *X called with x.
    const a = readMacros('atomic_read(X) READ_ONCE(*X)\nREAD_ONCE(X) __load{ONCE}(X)\n', 'm.def');
    expect((a.lookup('atomic_read') as PrimitiveInfo).prim).toEqual({ kind: 'load', annot: 'ONCE', addr: 'pointer' });
    expect((a.lookup('READ_ONCE') as PrimitiveInfo).prim).toEqual({ kind: 'load', annot: 'ONCE', addr: 'lvalue' });
  });
});

describe('loadMacros', () => {
  it('reads a file once per modification, and names a missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'litmus-def-'));
    try {
      const f = join(dir, 'a.def');
      writeFileSync(f, 'my_mb() { __fence{MB}; }\n');
      const first: PrimitiveTable = loadMacros(f);
      expect(loadMacros(f)).toBe(first);
      writeFileSync(f, 'my_mb() { __fence{MB}; }\nmy_rmb() { __fence{rmb}; }\n');
      utimesSync(f, new Date(), new Date(Date.now() + 5000));
      const second = loadMacros(f);
      expect(second).not.toBe(first);
      expect(second.lookup('my_rmb')).toBeDefined();
      expect(macroError(() => loadMacros(join(dir, 'none.def'))).format()).toMatch(/none\.def:1:1: cannot read the macro file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves the test\'s own errors to the test file', () => {
    const t = readMacros('my_mb() { __fence{MB}; }\nREAD_ONCE(X) __load{ONCE}(X)\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }\n', 'm.def');
    expect(() => checkSource(SB('my_mb(1)'), { model: lkmm, primitives: t })).toThrow(LitmusError);
  });
});
