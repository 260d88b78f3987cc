// Mutants of C litmus tests for the differential fuzz against herd7
// (scripts/fuzz-herd7.ts): small edits of a test's text, each of one kind,
// chosen by a seeded generator so that a seed and a count always give the
// same mutants. The edits are textual (what herd7 reads is the text), made
// only inside the parts of the test they belong to: the initial state, the
// processes' headers and bodies, the final condition.

/** A deterministic generator (mulberry32): the same seed, the same numbers. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** A number in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

/** Where the parts of a test are in its text: [start, end) offsets. */
export interface Layout {
  init?: [number, number];
  /** Each process: its parameter list (inside the parentheses) and its body (inside the braces). */
  procs: { params: [number, number]; body: [number, number] }[];
  /** The final condition: from the first process-free line after the last process to the end. */
  cond: [number, number];
}

function matching(text: string, open: number, l: string, r: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === l) depth++;
    else if (text[i] === r && --depth === 0) return i;
  }
  return -1;
}

/** The parts of a test (undefined when its braces do not match). */
export function layoutOf(text: string): Layout | undefined {
  const firstBrace = text.indexOf('{');
  if (firstBrace < 0) return undefined;
  const initEnd = matching(text, firstBrace, '{', '}');
  if (initEnd < 0) return undefined;
  const procs: Layout['procs'] = [];
  const re = /\bP\d+\s*\(/g;
  re.lastIndex = initEnd;
  let last = initEnd + 1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const po = m.index + m[0].length - 1;
    const pc = matching(text, po, '(', ')');
    if (pc < 0) return undefined;
    const bo = text.indexOf('{', pc);
    if (bo < 0) return undefined;
    const bc = matching(text, bo, '{', '}');
    if (bc < 0) return undefined;
    procs.push({ params: [po + 1, pc], body: [bo + 1, bc] });
    last = bc + 1;
    re.lastIndex = bc;
  }
  if (procs.length === 0) return undefined;
  return { init: [firstBrace + 1, initEnd], procs, cond: [last, text.length] };
}

/** One mutant: its text, the kind of edit and what was edited. */
export interface Mutant {
  text: string;
  kinds: string[];
  details: string[];
}

type Edit = { text: string; detail: string } | undefined;
export type Mutation = (text: string, lay: Layout, rng: Rng) => Edit;

/** Every match of `re` inside the ranges, as [start, end, match]. */
function matchesIn(text: string, ranges: [number, number][], re: RegExp): { start: number; end: number; m: RegExpExecArray }[] {
  const out: { start: number; end: number; m: RegExpExecArray }[] = [];
  for (const [a, b] of ranges) {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    const part = text.slice(a, b);
    for (let m = g.exec(part); m; m = g.exec(part)) {
      out.push({ start: a + m.index, end: a + m.index + m[0].length, m });
      if (m[0].length === 0) g.lastIndex++;
    }
  }
  return out;
}

function replaceAt(text: string, start: number, end: number, by: string): string {
  return text.slice(0, start) + by + text.slice(end);
}

/** Values at and around the edges of herd7's 32-bit integers, and small ones. */
const VALUES = ['0', '1', '2', '3', '5', '-1', '-2', '2147483647', '-2147483648', '2147483646', '2147483648', '4294967295', '4294967296', '65536', '-65536'];
const SMALL = ['0', '1', '2', '3', '-1'];

function bodies(lay: Layout): [number, number][] {
  return lay.procs.map((p) => p.body);
}

/** A number in the initial state or a process body (not part of a name, not a thread number before ':'). */
const constant: Mutation = (text, lay, rng) => {
  const ranges = [...(lay.init ? [lay.init] : []), ...bodies(lay)];
  const sites = matchesIn(text, ranges, /(?<![\w:])\d+(?![\w:])/).filter((s) => !/\[\s*$/.test(text.slice(Math.max(0, s.start - 3), s.start)));
  if (!sites.length) return undefined;
  const s = rng.pick(sites);
  const v = rng.pick(VALUES.filter((x) => x !== s.m[0]));
  return { text: replaceAt(text, s.start, s.end, v), detail: `${s.m[0]} -> ${v}` };
};

/** A number of the final condition. */
const conditionValue: Mutation = (text, lay, rng) => {
  const sites = matchesIn(text, [lay.cond], /(?<=[=<>]\s*)-?\d+\b/);
  if (!sites.length) return undefined;
  const s = rng.pick(sites);
  const v = rng.pick([...SMALL, '2147483647', '-2147483648'].filter((x) => x !== s.m[0]));
  return { text: replaceAt(text, s.start, s.end, v), detail: `cond ${s.m[0]} -> ${v}` };
};

/** The condition's quantifier, a connective or an equality. */
const conditionShape: Mutation = (text, lay, rng) => {
  const c = text.slice(lay.cond[0], lay.cond[1]);
  const options: (() => Edit)[] = [];
  const q = /(~\s*exists|exists|forall)/.exec(c);
  if (q) {
    for (const to of ['exists', '~exists', 'forall'].filter((x) => x.replace(/\s/g, '') !== q[1].replace(/\s/g, ''))) {
      options.push(() => ({ text: replaceAt(text, lay.cond[0] + q.index, lay.cond[0] + q.index + q[1].length, to), detail: `${q[1]} -> ${to}` }));
    }
  }
  for (const s of matchesIn(text, [lay.cond], /\/\\|\\\//)) {
    const to = s.m[0] === '/\\' ? '\\/' : '/\\';
    options.push(() => ({ text: replaceAt(text, s.start, s.end, to), detail: `${s.m[0]} -> ${to}` }));
  }
  for (const s of matchesIn(text, [lay.cond], /(?<![!<>=])=(?!=)/)) {
    const to = rng.pick(['!=', '==', '<>']);
    options.push(() => ({ text: replaceAt(text, s.start, s.end, to), detail: `= -> ${to}` }));
  }
  const atoms = matchesIn(text, [lay.cond], /[\w:[\]]+\s*=\s*-?\d+/);
  for (const s of atoms) options.push(() => ({ text: replaceAt(text, s.start, s.end, `~(${s.m[0]})`), detail: `negated ${s.m[0]}` }));
  if (!options.length) return undefined;
  return rng.pick(options)();
};

/** Primitives of the same shape, each group's members interchangeable in a call. */
const SAME_SHAPE: { re: RegExp; make: (m: RegExpExecArray, rng: Rng) => string }[] = [
  // A load: READ_ONCE(*x) and smp_load_acquire(x), rcu_dereference(x).
  { re: /READ_ONCE\(\s*\*\s*(\w+)\s*\)/, make: (m, rng) => rng.pick([`smp_load_acquire(${m[1]})`, `rcu_dereference(*${m[1]})`]) },
  { re: /smp_load_acquire\(\s*(\w+)\s*\)/, make: (m) => `READ_ONCE(*${m[1]})` },
  { re: /rcu_dereference\(\s*\*\s*(\w+)\s*\)/, make: (m, rng) => rng.pick([`READ_ONCE(*${m[1]})`, `smp_load_acquire(${m[1]})`]) },
  // A store.
  { re: /WRITE_ONCE\(\s*\*\s*(\w+)\s*,/, make: (m, rng) => rng.pick([`smp_store_release(${m[1]},`, `rcu_assign_pointer(*${m[1]},`]) },
  { re: /smp_store_release\(\s*(\w+)\s*,/, make: (m) => `WRITE_ONCE(*${m[1]},` },
  { re: /rcu_assign_pointer\(\s*\*\s*(\w+)\s*,/, make: (m) => `WRITE_ONCE(*${m[1]},` },
  // Value-returning RMWs and their ordering variants.
  { re: /\b(atomic_(?:add|sub|inc|dec)_return|atomic_fetch_(?:add|sub|inc|dec|and|or|xor)|xchg|cmpxchg|atomic_xchg|atomic_cmpxchg)(_relaxed|_acquire|_release)?\(/, make: (m, rng) => `${m[1]}${rng.pick(['', '_relaxed', '_acquire', '_release'].filter((s) => s !== (m[2] ?? '')))}(` },
  // Void RMWs of one shape.
  { re: /\batomic_(add|sub)\(/, make: (m) => `atomic_${m[1] === 'add' ? 'sub' : 'add'}(` },
  { re: /\batomic_(inc|dec)\(/, make: (m) => `atomic_${m[1] === 'inc' ? 'dec' : 'inc'}(` },
  // Fences.
  { re: /\b(smp_mb|smp_rmb|smp_wmb|smp_mb__before_atomic|smp_mb__after_atomic|smp_mb__after_spinlock|synchronize_rcu|barrier)\(\s*\)/, make: (m, rng) => `${rng.pick(FENCES.filter((f) => f !== m[1]))}()` },
];

const FENCES = ['smp_mb', 'smp_rmb', 'smp_wmb', 'smp_mb__before_atomic', 'smp_mb__after_atomic', 'smp_mb__after_spinlock', 'synchronize_rcu', 'barrier'];

const swapPrimitive: Mutation = (text, lay, rng) => {
  const sites = SAME_SHAPE.flatMap((g) => matchesIn(text, bodies(lay), g.re).map((s) => ({ ...s, g })));
  if (!sites.length) return undefined;
  const s = rng.pick(sites);
  const by = s.g.make(s.m, rng);
  if (by === s.m[0]) return undefined;
  return { text: replaceAt(text, s.start, s.end, by), detail: `${s.m[0]} -> ${by}` };
};

const dropFence: Mutation = (text, lay, rng) => {
  const sites = matchesIn(text, bodies(lay), new RegExp(`\\b(?:${FENCES.join('|')})\\(\\s*\\)\\s*;`));
  if (!sites.length) return undefined;
  const s = rng.pick(sites);
  return { text: replaceAt(text, s.start, s.end, ''), detail: `dropped ${s.m[0]}` };
};

/** A fence after a statement (after a ';' or at the start of a body). */
const insertFence: Mutation = (text, lay, rng) => {
  const sites = [...matchesIn(text, bodies(lay), /;/).map((s) => s.end), ...bodies(lay).map(([a]) => a)];
  const at = rng.pick(sites);
  const f = `${rng.pick(FENCES)}();`;
  return { text: replaceAt(text, at, at, ` ${f}`), detail: `inserted ${f}` };
};

/** One parameter of one process renamed, its body unchanged (the scoping case of issue 18). */
const renameParam: Mutation = (text, lay, rng) => {
  const sites = lay.procs.flatMap((p) => matchesIn(text, [p.params], /(?<=\*\s*)\w+/));
  if (!sites.length) return undefined;
  const s = rng.pick(sites);
  const used = new Set(text.match(/\w+/g) ?? []);
  const others = [...new Set(matchesIn(text, lay.procs.map((p) => p.params), /(?<=\*\s*)\w+/).map((o) => o.m[0]))].filter((n) => n !== s.m[0]);
  const fresh = ['m', 'q', 'v', 'w', 'zz', 'p1'].filter((n) => !used.has(n));
  const to = rng.next() < 0.3 && others.length ? rng.pick(others) : fresh.length ? rng.pick(fresh) : `${s.m[0]}_renamed`;
  return { text: replaceAt(text, s.start, s.end, to), detail: `param ${s.m[0]} -> ${to}` };
};

/** Arithmetic in an expression: a number as a sum, product, ... (32-bit edges included), or a register used with an operation. */
const arithmetic: Mutation = (text, lay, rng) => {
  const nums = matchesIn(text, bodies(lay), /(?<![\w:])\d+(?![\w:])/).filter((s) => !/\[\s*$/.test(text.slice(Math.max(0, s.start - 3), s.start)));
  const regs = matchesIn(text, bodies(lay), /(?<=,\s*)r\d+(?=\s*\))/);
  const options: (() => Edit)[] = [];
  for (const s of nums) {
    const e = rng.pick([
      `${s.m[0]} + 2147483647`, `2147483647 + ${s.m[0]}`, `${s.m[0]} - 2147483647 - 2`, `${s.m[0]} * 65536 * 65536`,
      `${s.m[0]} * -1`, `${s.m[0]} / 2`, `-7 / 2 + ${s.m[0]}`, `(${s.m[0]} + 1) * 2`, `${s.m[0]} - 1`,
    ]);
    options.push(() => ({ text: replaceAt(text, s.start, s.end, e), detail: `${s.m[0]} -> ${e}` }));
  }
  for (const s of regs) {
    const e = rng.pick([`${s.m[0]} + 1`, `${s.m[0]} * 2`, `${s.m[0]} - ${s.m[0]}`, `${s.m[0]} + 2147483647`, `${s.m[0]} / 2`]);
    options.push(() => ({ text: replaceAt(text, s.start, s.end, e), detail: `${s.m[0]} -> ${e}` }));
  }
  if (!options.length) return undefined;
  return rng.pick(options)();
};

/** Two neighbouring simple statements of a body swapped. */
const swapStatements: Mutation = (text, lay, rng) => {
  const sites = matchesIn(text, bodies(lay), /([^;{}\n]+;)(\s*)([^;{}\n]+;)/).filter((s) => !/\b(if|else|while|for)\b/.test(s.m[0]));
  if (!sites.length) return undefined;
  const s = rng.pick(sites);
  return { text: replaceAt(text, s.start, s.end, `${s.m[3].trim()}${s.m[2]}${s.m[1].trim()}`), detail: `swapped "${s.m[1].trim()}" and "${s.m[3].trim()}"` };
};

export const MUTATIONS: Readonly<Record<string, Mutation>> = {
  constant, conditionValue, conditionShape, swapPrimitive, dropFence, insertFence, renameParam, arithmetic, swapStatements,
};

/** How often each kind is drawn (the scoping case more often: issue 18 asks for its split). */
const WEIGHTS: [string, number][] = [
  ['constant', 3], ['conditionValue', 2], ['conditionShape', 2], ['swapPrimitive', 3], ['dropFence', 1],
  ['insertFence', 2], ['renameParam', 3], ['arithmetic', 3], ['swapStatements', 1],
];

function drawKind(rng: Rng): string {
  const total = WEIGHTS.reduce((a, [, w]) => a + w, 0);
  let x = rng.next() * total;
  for (const [k, w] of WEIGHTS) if ((x -= w) < 0) return k;
  return WEIGHTS[0][0];
}

/**
 * A mutant of `text`: one edit (a parameter renamed is always alone, so
 * that its split is the scoping case's), sometimes two; undefined when no
 * drawn edit applies.
 */
export function mutate(text: string, rng: Rng): Mutant | undefined {
  const kinds: string[] = [];
  const details: string[] = [];
  let cur = text;
  const edits = rng.next() < 0.3 ? 2 : 1;
  for (let i = 0, tries = 0; i < edits && tries < 20; tries++) {
    const kind = drawKind(rng);
    if (kind === 'renameParam' && (edits > 1 || i > 0)) continue;
    const lay = layoutOf(cur);
    if (!lay) return undefined;
    const e = MUTATIONS[kind](cur, lay, rng);
    if (!e || e.text === cur) continue;
    cur = e.text;
    kinds.push(kind);
    details.push(e.detail);
    i++;
  }
  return kinds.length ? { text: cur, kinds, details } : undefined;
}
