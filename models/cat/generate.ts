// JavaScript generated from a structure's staged model (models/cat/stage.ts,
// models/cat/dag.ts): the code that judges each candidate of the structure.
//
// Every set and relation lives at a fixed place of one Int32Array (a set is
// w = ceil(n / 32) words, a relation n rows of w words), constants copied in
// once; a candidate allocates nothing. A node whose operation works word by
// word (|, &, \, [S] ; r, r ; [S], ~, [S], r?, S * T) and that is read once
// is not stored: its expression is written into the loop of the node that
// reads it (so `[Marked] ; (ppo | rfe | ...) ; [Marked]` is one loop).
// Every stored node has a function that computes it once per candidate,
// when first needed, and records whether it is empty; an operand that
// makes a result empty when it is (the left of & or ;, ...) is computed
// first, and the rest is not computed when it is empty. The steps run in
// the model's order; the first check that fails ends the candidate.
// `irreflexive r ; s` is tested without composing r ; s, `acyclic` by
// peeling events with no successor.
//
// The text depends only on the graph's shape and n (constants are copied
// in, not written into the code), so structures of one shape share the
// function V8 compiled (JudgeCompiler's cache).

import type { Execution } from '../../src/model/execution.js';
import { EventSet as EventSetClass, type EventSet, type Relation } from '../../src/relation/relation.js';
import type { Dag, DagNode } from './dag.js';
import { KERNELS, type ChoicePlaces } from './kernels.js';
import type { StagedModel } from './stage.js';

/** A structure's generated judgement. */
export interface StagedJudge {
  /**
   * Judges a candidate: -1 when every step passes, else the failing step.
   * A prefix skips the steps of instructions not safe on prefixes; `skip`,
   * when given, the steps (then the flags, after the steps) it marks (1),
   * whatever the candidate: a skipped with another step reads that finds
   * nothing ends the run at the with's step.
   */
  run(x: Execution, prefix: boolean, skip?: Uint8Array | null): number;
  /** The flags (indexes into the staged model's flags) the candidate last run raises, but those its skip marks. */
  flags(): number[];
}

/** What a structure's judge keeps: its words, which nodes are non-empty, chosen, computed for the candidate (g). */
interface JudgeState {
  B: Int32Array;
  NE: Uint8Array;
  OK: Uint8Array;
  ST: Int32Array;
  ERR: Error[];
  DATA: unknown[];
  g: number;
  n: number;
  W: number;
  /** The last run's skipped steps and flags (see StagedJudge.run). */
  skip: Uint8Array | null;
}

/** The functions of one text: made once, for every structure whose graph has that text (V8 optimizes them once). */
interface Compiled {
  run(S: JudgeState, x: Execution, prefix: boolean, skip: Uint8Array | null): number;
  flags(S: JudgeState): number[];
}

/** Generates judges, sharing the compiled functions of each text (one per model). */
export class JudgeCompiler {
  private readonly compiled = new Map<string, Compiled>();

  /**
   * The judge of a staged structure. `safe(instr)`: whether the steps of a
   * top-level instruction judge prefixes; `observed`: the locations whose
   * final writes FW holds.
   */
  judge(staged: StagedModel, safe: (instr: number) => boolean, observed: readonly number[]): StagedJudge {
    const g = new Generator(staged, safe);
    const text = g.text();
    let c = this.compiled.get(text);
    if (!c) {
      c = (new Function('H', text) as (h: typeof KERNELS) => Compiled)(KERNELS);
      this.compiled.set(text, c);
    }
    const S = g.state(staged, observed);
    const compiled = c;
    return { run: (x, prefix, skip = null) => compiled.run(S, x, prefix, skip), flags: () => compiled.flags(S) };
  }
}

function copyWords(B: Int32Array, at: number, k: EventSet | Relation): void {
  const len = k instanceof EventSetClass ? k.w : k.n * k.w;
  for (let i = 0; i < len; i++) B[at + i] = k.buf[k.off + i];
}

/** The run's values, as each generated function reads them (w a constant where the text is written for it). */
const locals = (w: number) =>
  `const x = $x, g = $g, B = $B, NE = $NE, OK = $OK, ST = $ST, ERR = $ERR, DATA = $DATA, n = $n, W = ${w || '$W'}, NW = $NW, SR = $SR, SC = $SC, LM = $LM;`;

/** Operations computed word by word, which can be written into the loop of the node that reads them. */
const ELEMENTWISE = new Set(['or', 'and', 'minus', 'rows', 'cols', 'comp', 'id', 'opt', 'cross']);

/**
 * A place in B: the k-th set (w words each, first) or the k-th relation
 * (n w words each, after the sets); the text names it through n and w,
 * which are the run's (so the text is the same for every n). A with's
 * constants (`extra`: sets and relations of their own, after the scratch
 * words) are named only by data, never by the text: their number grows
 * with the test's locations.
 */
interface Place {
  set: boolean;
  k: number;
  extra?: boolean;
}

class Generator {
  private readonly nodes: DagNode[];
  /** w = 1: every relation's row is one word (n <= 32), the text says so; else w is the run's. */
  private readonly one: boolean;
  /** 2 to 4: the text is written for that many words a row (its word loops unrolled); 0: any (w is the run's). */
  private readonly wl: number;
  private readonly place: (Place | undefined)[];
  private readonly stored: boolean[];
  /** seq nodes tested only by `irreflexive`: never composed. */
  private readonly virtual: boolean[];
  private readonly uses: number[];
  private readonly reachable: boolean[];
  private sets = 0;
  private rels = 0;
  /** Constants (and a with's sets and candidates) to copy into their places. */
  private readonly constants: [EventSet | Relation, Place][] = [];
  /** DATA's entries: per index, how to make it for a structure. */
  private readonly data: ((c: { observed: readonly number[]; at: (p: Place) => number }) => unknown)[] = [];

  constructor(
    private readonly staged: StagedModel,
    private readonly safe: (instr: number) => boolean,
  ) {
    const dag: Dag = staged.dag;
    this.nodes = dag.nodes;
    this.one = dag.n <= 32;
    const W = (dag.n + 31) >>> 5;
    this.wl = W >= 2 && W <= 4 ? W : 0;
    const N = this.nodes.length;
    this.place = new Array(N).fill(undefined);
    this.stored = new Array(N).fill(false);
    this.virtual = new Array(N).fill(false);
    this.uses = new Array(N).fill(0);
    this.reachable = new Array(N).fill(false);
    this.plan();
  }

  /** A structure's state for the text: its places filled with its constants. */
  state(staged: StagedModel, observed: readonly number[]): JudgeState {
    const n = staged.dag.n;
    const W = (n + 31) >>> 5;
    const scratch = this.sets * W + this.rels * n * W;
    const extra = scratch + 2 * n + 2 * W + 2;
    const at = (p: Place) => (p.extra ? extra + (p.set ? p.k * W : this.extraSets * W + p.k * n * W) : p.set ? p.k * W : this.sets * W + p.k * n * W);
    const B = new Int32Array(extra + this.extraSets * W + this.extraRels * n * W);
    const NE = new Uint8Array(this.nodes.length);
    for (const [k, p] of this.constants) copyWords(B, at(p), k);
    this.nodes.forEach((nd, id) => {
      if (nd.op === 'const' && this.place[id]) NE[id] = nd.konst!.isEmpty() ? 0 : 1;
    });
    return {
      B,
      NE,
      OK: new Uint8Array(this.nodes.length),
      ST: new Int32Array(this.nodes.length).fill(-1),
      ERR: staged.steps.map((s) => (s.kind === 'error' ? s.error : new Error('internal'))),
      DATA: this.data.map((d) => d({ observed, at })),
      g: 0,
      n,
      W,
      skip: null,
    };
  }

  /** Which nodes are needed, which are stored, and where. */
  private plan(): void {
    const nodes = this.nodes;
    const roots: number[] = [];
    const needStored = new Set<number>();
    const irreflexiveOnly = new Map<number, number>();
    const root = (node: number, test: string) => {
      roots.push(node);
      if (test === 'acyclic') needStored.add(node);
      if (test === 'irreflexive') irreflexiveOnly.set(node, (irreflexiveOnly.get(node) ?? 0) + 1);
    };
    for (const s of this.staged.steps) {
      if (s.kind === 'check') root(s.node, s.test);
      else if (s.kind === 'with') root(s.node, 'with');
    }
    for (const f of this.staged.flags) root(f.node, f.test);
    for (const r of roots) this.uses[r]++;
    // Reachable nodes, from the roots down (ids are a topological order).
    for (const r of roots) this.reachable[r] = true;
    for (let id = nodes.length - 1; id >= 0; id--) {
      if (!this.reachable[id]) continue;
      const nd = nodes[id];
      for (const a of nd.args) {
        this.reachable[a] = true;
        this.uses[a]++;
      }
      if (nd.op === 'loop') for (const v of nd.vars!) this.reachable[v] = true;
    }
    for (let id = 0; id < nodes.length; id++) {
      if (!this.reachable[id]) continue;
      const nd = nodes[id];
      if (nd.op === 'seq') needStored.add(nd.args[1]);
      if (nd.op === 'loop' || nd.op === 'choose' || nd.op === 'diffValues') for (const a of nd.args) needStored.add(a);
      // An operand computed outside a loop, read in its rounds: stored, not recomputed each round.
      for (const a of nd.args) if (nodes[a].loop !== nd.loop && nd.op !== 'out') needStored.add(a);
    }
    for (let id = 0; id < nodes.length; id++) {
      if (!this.reachable[id]) continue;
      const nd = nodes[id];
      if (nd.op === 'seq' && this.uses[id] === 1 && irreflexiveOnly.get(id) === 1 && !needStored.has(id)) {
        this.virtual[id] = true;
        continue;
      }
      this.stored[id] = !ELEMENTWISE.has(nd.op) || this.uses[id] !== 1 || needStored.has(id);
    }
    // Places; outs share their var's place, loops have none.
    for (let id = 0; id < nodes.length; id++) {
      const nd = nodes[id];
      if (!this.stored[id] || nd.op === 'out' || nd.op === 'loop') continue;
      this.place[id] = this.newPlace(nd.type === 'set');
      if (nd.op === 'const') this.constants.push([nd.konst!, this.place[id]!]);
    }
    for (let id = 0; id < nodes.length; id++) {
      const nd = nodes[id];
      if (this.stored[id] && nd.op === 'out') this.place[id] = this.place[nodes[nd.args[0]].vars![nd.binding!]];
    }
    // A with's sets and candidate relations, placed before any text names a place (which counts them).
    for (let id = 0; id < nodes.length; id++) {
      const nd = nodes[id];
      if (!this.reachable[id] || nd.op !== 'choose') continue;
      this.choicePlaces.set(id, nd.choose!.parts.map((p) => (p.kind === 'linear' ? [this.placeConstant(p.over)] : p.candidates.map((c) => this.placeConstant(c)))));
    }
  }

  /** Per choose node, per part, the places of its constants (see plan). */
  private readonly choicePlaces = new Map<number, Place[][]>();

  private newPlace(set: boolean): Place {
    return set ? { set, k: this.sets++ } : { set, k: this.rels++ };
  }

  /** A constant of a with (its sets, its candidates) given a place of its own (see Place). */
  private placeConstant(k: EventSet | Relation): Place {
    const set = k instanceof EventSetClass;
    const p: Place = { set, k: set ? this.extraSets++ : this.extraRels++, extra: true };
    this.constants.push([k, p]);
    return p;
  }

  private extraSets = 0;
  private extraRels = 0;

  // ---- expressions (word k of row i of a relation; word k of a set)

  /** Where a place starts in B, as an expression of the run's n and w (see Place). */
  private offOf(p: Place): string {
    if (this.one) return p.set ? String(p.k) : `(${this.sets} + ${p.k} * n)`;
    return p.set ? `${p.k} * W` : `(SR + ${p.k} * NW)`;
  }

  private off(id: number): string {
    return this.offOf(this.place[id]!);
  }

  private at(off: string, idx: string): string {
    return idx === '0' ? `B[${off}]` : `B[${off} + ${idx}]`;
  }

  /** The run's mask of word k's valid bits. */
  private mask(k: string): string {
    if (this.one) return 'LM';
    if (this.wl && /^[0-9]+$/.test(k)) return Number(k) === this.wl - 1 ? 'LM' : '-1';
    return `(${k} === W - 1 ? LM : -1)`;
  }

  /** Word k of row i (loop variables i, ib = 1 << (i & 31), and for w > 1: iw = i >>> 5, ri = i * w). */
  private rel(id: number, k: string): string {
    if (this.stored[id]) return this.at(this.off(id), this.one ? 'i' : `ri + ${k}`);
    const nd = this.nodes[id];
    const [a, b] = nd.args;
    const iw = this.one ? '0' : 'iw';
    switch (nd.op) {
      case 'or':
        return `(${this.rel(a, k)} | ${this.rel(b, k)})`;
      case 'and':
        return `(${this.rel(a, k)} & ${this.rel(b, k)})`;
      case 'minus':
        return `(${this.rel(a, k)} & ~${this.rel(b, k)})`;
      case 'rows':
        return `((${this.set(b, iw)} & ib) !== 0 ? ${this.rel(a, k)} : 0)`;
      case 'cols':
        return `(${this.rel(a, k)} & ${this.set(b, k)})`;
      case 'comp':
        return `(~${this.rel(a, k)} & ${this.mask(k)})`;
      case 'id':
        return this.one ? `(${this.set(a, '0')} & ib)` : `(${k} === iw ? ${this.set(a, 'iw')} & ib : 0)`;
      case 'opt':
        return this.one ? `(${this.rel(a, k)} | ib)` : `(${this.rel(a, k)} | (${k} === iw ? ib : 0))`;
      case 'cross':
        return `((${this.set(a, iw)} & ib) !== 0 ? ${this.set(b, k)} : 0)`;
      default:
        throw new Error(`internal: ${nd.op} is not an expression`);
    }
  }

  private set(id: number, k: string): string {
    if (this.stored[id]) return this.at(this.off(id), k);
    const nd = this.nodes[id];
    const [a, b] = nd.args;
    switch (nd.op) {
      case 'or':
        return `(${this.set(a, k)} | ${this.set(b, k)})`;
      case 'and':
        return `(${this.set(a, k)} & ${this.set(b, k)})`;
      case 'minus':
        return `(${this.set(a, k)} & ~${this.set(b, k)})`;
      case 'comp':
        return `(~${this.set(a, k)} & ${this.mask(k)})`;
      default:
        throw new Error(`internal: set ${nd.op} is not an expression`);
    }
  }

  /** The stored nodes an expression reads. */
  private leaves(id: number, out: Set<number> = new Set()): Set<number> {
    if (this.stored[id]) out.add(id);
    else for (const a of this.nodes[id].args) this.leaves(a, out);
    return out;
  }

  /** Stored nodes whose emptiness makes the expression empty. */
  private annihilators(id: number): Set<number> {
    if (this.stored[id]) return new Set([id]);
    const nd = this.nodes[id];
    const [a, b] = nd.args;
    switch (nd.op) {
      case 'or': {
        const x = this.annihilators(a);
        const y = this.annihilators(b);
        return new Set([...x].filter((v) => y.has(v)));
      }
      case 'and':
      case 'rows':
      case 'cols':
      case 'cross':
      case 'seq':
        return new Set([...this.annihilators(a), ...this.annihilators(b)]);
      case 'minus':
      case 'id':
        return this.annihilators(a);
      default:
        return new Set();
    }
  }

  // ---- code

  /** The loop whose rounds are being written (its nodes inline, in order; outer operands computed before the rounds), or -1. */
  private context = -1;

  private ensure(id: number): string {
    if (this.nodes[id].op === 'const' || this.context >= 0) return '';
    return `e${id}();`;
  }

  /**
   * Computing the operands of an expression: those that make it empty first
   * (`onEmpty` runs when one is), then the others.
   */
  private operands(exprs: number[], onEmpty: string, alsoAnnihilating: number[] = []): string {
    const ann = new Set<number>(alsoAnnihilating);
    for (const e of exprs) for (const a of this.annihilators(e)) ann.add(a);
    const all = new Set<number>();
    for (const e of exprs) this.leaves(e, all);
    const out: string[] = [];
    for (const a of [...ann].sort((x, y) => x - y)) out.push(`${this.ensure(a)} if (NE[${a}] === 0) { ${onEmpty} }`);
    for (const a of [...all].sort((x, y) => x - y)) if (!ann.has(a) && this.ensure(a)) out.push(this.ensure(a));
    return out.join('\n');
  }

  private size(id: number): string {
    return this.nodes[id].type === 'set' ? (this.one ? '1' : 'W') : this.one ? 'n' : 'NW';
  }

  private zero(id: number): string {
    const o = this.off(id);
    return `B.fill(0, ${o}, ${o} + ${this.size(id)});`;
  }

  private rowLoop(body: string): string {
    const pre = this.one ? 'const ib = 1 << i;' : 'const ib = 1 << (i & 31), iw = i >>> 5, ri = i * W;';
    return `for (let i = 0; i < n; i++) { ${pre}\n${body}\n}`;
  }

  /** For each word k of the row (w > 1), or the one word. */
  private words(body: (k: string) => string): string {
    if (this.one) return body('0');
    if (this.wl) return Array.from({ length: this.wl }, (_, k) => `{ ${body(String(k))} }`).join('\n');
    return `for (let k = 0; k < W; k++) { ${body('k')} }`;
  }

  /** For each word m of a row (w > 1): unrolled where the text is written for a number of words. */
  private each(body: (m: string) => string): string {
    if (this.wl) return Array.from({ length: this.wl }, (_, m) => body(String(m))).join(' ');
    return `for (let m = 0; m < W; m++) { ${body('m')} }`;
  }

  private rowWord(o: string, k: string): string {
    return this.at(o, this.one ? 'i' : `ri + ${k}`);
  }

  /** The code that computes stored node id into its place (a block, left by `break L<id>` when empty). */
  private compute(id: number): string {
    const nd = this.nodes[id];
    const o = this.off(id);
    const empty = `${this.zero(id)} NE[${id}] = 0; break L${id};`;
    const done = `NE[${id}] = ne !== 0 ? 1 : 0;`;
    const [a, b] = nd.args;
    let code: string;
    if (ELEMENTWISE.has(nd.op)) {
      // The expression of the node itself, as if it were not stored.
      this.stored[id] = false;
      const pre = this.operands([id], empty);
      const body =
        nd.type === 'set'
          ? this.words((k) => `const v = ${this.set(id, k)}; ${this.at(o, k)} = v; ne |= v;`)
          : this.rowLoop(this.words((k) => `const v = ${this.rel(id, k)}; ${this.rowWord(o, k)} = v; ne |= v;`));
      this.stored[id] = true;
      code = `${pre}\nlet ne = 0;\n${body}\n${done}`;
    } else {
      switch (nd.op) {
        case 'seq':
          code = `${this.operands([a], empty)}\nlet ne = 0, rb = 0;\n${this.seqLoop(id, a, b, empty)}\n${done}`;
          break;
        case 'inv': {
          const target = (k: string) => (this.one ? `${o} + 31 - Math.clz32(t)` : `${o} + ((${k} << 5) + 31 - Math.clz32(t)) * W + iw`);
          code = `${this.operands([a], empty)}\n${this.zero(id)}\nlet ne = 0;\n` +
            this.rowLoop(this.words((k) => `let x = ${this.rel(a, k)}; ne |= x; while (x !== 0) { const t = x & -x; x ^= t; B[${target(k)}] |= ib; }`)) + `\n${done}`;
          break;
        }
        case 'plus':
        case 'star': {
          const diagonal = `for (let i = 0; i < n; i++) B[${o} + i * ${this.one ? '1' : 'W'} + (i >>> 5)] |= 1 << (i & 31);`;
          const star = `${diagonal} NE[${id}] = n > 0 ? 1 : 0;`;
          code = `${this.operands([a], nd.op === 'star' ? `${this.zero(id)} ${star} break L${id};` : empty)}\nlet ne = 0;\n` +
            this.rowLoop(this.words((k) => `const v = ${this.rel(a, k)}; ${this.rowWord(o, k)} = v; ne |= v;`)) +
            `\nif (ne !== 0) H.close(B, ${o}, n, ${this.one ? '1' : 'W'}, SC);\n` + (nd.op === 'star' ? star : done);
          break;
        }
        case 'domain':
          code = `${this.operands([a], empty)}\n${this.zero(id)}\nlet ne = 0;\n` +
            this.rowLoop(`let any = 0; ${this.words((k) => `any |= ${this.rel(a, k)};`)} if (any !== 0) { B[${o} + ${this.one ? '0' : 'iw'}] |= ib; ne = 1; }`) + `\n${done}`;
          break;
        case 'range':
          code = `${this.operands([a], empty)}\n${this.zero(id)}\nlet ne = 0;\n` +
            this.rowLoop(this.words((k) => `const v = ${this.rel(a, k)}; B[${o} + ${k}] |= v; ne |= v;`)) + `\n${done}`;
          break;
        case 'diffValues':
          code = `${this.operands([a], empty)}\nconst ne = H.diffValues(B, ${o}, ${this.off(a)}, n, ${this.one ? '1' : 'W'}, x.events);\n${done}`;
          break;
        case 'input':
          code = this.input(id, nd) + `\n${done}`;
          break;
        case 'choose':
          code = this.choose(id, nd);
          break;
        default:
          throw new Error(`internal: no code for ${nd.op}`);
      }
    }
    return `L${id}: {\n${code}\n}`;
  }

  /** r ; s: each row of r (an expression) gathers the rows of s (stored) its pairs lead to; s is computed at the first pair. */
  private seqLoop(id: number, a: number, b: number, empty: string): string {
    const o = this.off(id);
    const ob = this.off(b);
    const firstPair = `if (rb === 0) { ${this.ensure(b)} rb = 1; if (NE[${b}] === 0) { ${empty} } }`;
    if (this.one) {
      return this.rowLoop(`let x = ${this.rel(a, '0')}; let r = 0;
if (x !== 0) { ${firstPair}
  do { const t = x & -x; x ^= t; r |= B[${ob} + 31 - Math.clz32(t)]; } while (x !== 0); }
B[${o} + i] = r; ne |= r;`);
    }
    const each = (body: (m: string) => string) => this.each(body);
    const gather = this.wl
      ? (k: string) => `let x = ${this.rel(a, k)}; if (x !== 0) { ${firstPair}
  do { const t = x & -x; x ^= t; const jo = ${ob} + (${k === '0' ? '' : `${Number(k) * 32} + `}31 - Math.clz32(t)) * W; ${each((m) => `B[ro + ${m}] |= B[jo + ${m}];`)} } while (x !== 0); }`
      : (k: string) => `let x = ${this.rel(a, k)}; if (x === 0) continue; ${firstPair}
  do { const t = x & -x; x ^= t; const jo = ${ob} + ((${k} << 5) + 31 - Math.clz32(t)) * W; ${each((m) => `B[ro + ${m}] |= B[jo + ${m}];`)} } while (x !== 0);`;
    return this.rowLoop(`const ro = ${o} + ri; ${each((m) => `B[ro + ${m}] = 0;`)}
${this.words(gather)}
${each((m) => `ne |= B[ro + ${m}];`)}`);
  }

  private input(id: number, nd: DagNode): string {
    const o = this.off(id);
    switch (nd.input) {
      case 'rf':
        return `${this.zero(id)} let ne = 0; const src = x.rfSource;
for (let r = 0; r < n; r++) { const s = src[r]; if (s >= 0) { B[${o} + s * ${this.one ? '1' : 'W'} + (r >>> 5)] |= 1 << (r & 31); ne = 1; } }`;
      case 'co':
        if (this.one) {
          return `${this.zero(id)} let ne = 0; const lists = x.co;
for (let l = 0; l < lists.length; l++) { const L = lists[l]; let after = 0; for (let j = L.length - 1; j >= 0; j--) { const e = L[j]; B[${o} + e] = after; after |= 1 << e; } if (L.length > 1) ne = 1; }`;
        }
        return `${this.zero(id)} let ne = 0; const lists = x.co;
for (let l = 0; l < lists.length; l++) { const L = lists[l]; ${this.each((m) => `B[SC + ${m}] = 0;`)}
  for (let j = L.length - 1; j >= 0; j--) { const e = L[j]; const eo = ${o} + e * W; ${this.each((m) => `B[eo + ${m}] = B[SC + ${m}];`)} B[SC + (e >>> 5)] |= 1 << (e & 31); }
  if (L.length > 1) ne = 1; }`;
      case 'FW': {
        const d = this.data.length;
        this.data.push((c) => c.observed);
        return `${this.zero(id)} let ne = 0; const lists = x.co; const obs = DATA[${d}];
for (let q = 0; q < obs.length; q++) { const L = lists[obs[q]]; if (L !== undefined && L.length > 0) { const e = L[L.length - 1]; B[${o} + (e >>> 5)] |= 1 << (e & 31); ne = 1; } }`;
      }
      default:
        throw new Error('internal: unknown input');
    }
  }

  /** with X from S: each part's element, in order (kernels.ts choose); OK[id] = 0 when a part has none. */
  private choose(id: number, nd: DagNode): string {
    const o = this.off(id);
    const truth = nd.args[nd.args.length - 1];
    const placed = this.choicePlaces.get(id)!;
    const parts = nd.choose!.parts;
    const d = this.data.length;
    // The parts are data, not text: a model's text is the same whatever the number of locations.
    this.data.push((c): ChoicePlaces[] => parts.map((p, q) => (p.kind === 'linear'
      ? { over: c.at(placed[q][0]), order: p.order >= 0 ? c.at(this.place[p.order]!) : -1, total: p.total, candidates: [] }
      : { over: -1, order: -1, total: false, candidates: placed[q].map(c.at), pos: p.pos })));
    const step = this.staged.steps.findIndex((s) => s.kind === 'with' && s.node === id);
    // Its step skipped, another step reads it: finding nothing ends the run at the with's step.
    const unseen = step >= 0 ? ` if ($skip !== null && $skip[${step}] !== 0) { $nf = ${step}; throw H.NOT_FOUND; }` : '';
    return [
      `OK[${id}] = 0;`,
      ...nd.args.map((a) => this.ensure(a)),
      `if (!H.choose(B, ${o}, ${this.off(truth)}, DATA[${d}], n, ${this.one ? '1' : 'W'})) { NE[${id}] = 0;${unseen} break L${id}; }`,
      `OK[${id}] = 1; NE[${id}] = H.nonEmpty(B, ${o}, ${this.one ? 'n' : 'NW'});`,
    ].join('\n');
  }

  /** A loop's function: outer operands first, then rounds until no binding changes. */
  private loop(id: number, nd: DagNode): string {
    const L = nd.inner!;
    const inner: number[] = [];
    const outer = new Set<number>();
    for (let k = 0; k < this.nodes.length; k++) {
      const x = this.nodes[k];
      if (x.loop !== L || !this.reachable[k] || x.op === 'var') continue;
      if (this.stored[k]) inner.push(k);
      for (const a of x.args) if (this.nodes[a].loop !== L) outer.add(a);
    }
    for (const b of nd.args) if (this.nodes[b].loop !== L) outer.add(b);
    const lines: string[] = [`if (ST[${id}] === g) return; ST[${id}] = g;`];
    for (const a of [...outer].sort((p, q) => p - q)) lines.push(this.ensure(a));
    for (const v of nd.vars!) lines.push(`${this.zero(v)} NE[${v}] = 0;`);
    this.context = L;
    const blocks = inner.map((k) => this.compute(k)).join('\n');
    this.context = -1;
    const compare = nd.args.map((b, k) => {
      const v = nd.vars![k];
      return `{ const ob = ${this.off(b)}, ov = ${this.off(v)}; for (let q = 0; q < ${this.size(v)}; q++) { const w = B[ob + q]; if (w !== B[ov + q]) { changed = 1; B[ov + q] = w; } } NE[${v}] = NE[${b}]; }`;
    });
    const pos = this.data.length;
    this.data.push(() => this.staged.dag.loopPos[L]);
    lines.push(`for (let round = 0; ; round++) { if (round > 10000) throw H.noFixpoint(DATA[${pos}]);\n${blocks}\nlet changed = 0;\n${compare.join('\n')}\nif (changed === 0) break; }`);
    nd.vars!.forEach((v, k) => {
      for (let o = 0; o < this.nodes.length; o++) {
        const x = this.nodes[o];
        if (x.op === 'out' && x.args[0] === id && x.binding === k) lines.push(`NE[${o}] = NE[${v}];`);
      }
    });
    return `function e${id}() {\n${lines.join('\n')}\n}`;
  }

  // ---- tests

  /** A function returning whether node id passes `test` (before negation). */
  private test(fn: string, test: string, id: number): string {
    const nd = this.nodes[id];
    const w = this.one ? '1' : 'W';
    const yes = 'return true;';
    let body: string;
    if (test === 'acyclic') {
      body = `${this.ensure(id)} return NE[${id}] === 0 || H.acyclic(B, ${this.off(id)}, n, ${w}, SC);`;
    } else if (this.stored[id]) {
      body = `${this.ensure(id)} if (NE[${id}] === 0) return true;` +
        (test === 'empty' ? ' return false;' : `\n${this.rowLoop(`if ((${this.at(this.off(id), this.one ? 'i' : 'ri + iw')} & ib) !== 0) return false;`)}\nreturn true;`);
    } else if (this.virtual[id]) {
      // irreflexive r ; s: no pair (i, j) of r with (j, i) in s.
      const [a, b] = nd.args;
      const ob = this.off(b);
      body = `${this.operands([a], yes, [b])}\n` +
        this.rowLoop(this.words((k) => `let x = ${this.rel(a, k)}; while (x !== 0) { const t = x & -x; x ^= t; ` +
          `if ((B[${ob} + (${k === '0' ? '' : `(${k} << 5) + `}31 - Math.clz32(t)) * ${w} + ${this.one ? '0' : 'iw'}] & ib) !== 0) return false; }`)) + '\nreturn true;';
    } else if (test === 'empty') {
      const scan = nd.type === 'set'
        ? this.words((k) => `if (${this.set(id, k)} !== 0) return false;`)
        : this.rowLoop(this.words((k) => `if (${this.rel(id, k)} !== 0) return false;`));
      body = `${this.operands([id], yes)}\n${scan}\nreturn true;`;
    } else {
      body = `${this.operands([id], yes)}\n${this.rowLoop(`if ((${this.rel(id, this.one ? '0' : 'iw')} & ib) !== 0) return false;`)}\nreturn true;`;
    }
    return `function ${fn}() {\n${body}\n}`;
  }

  text(): string {
    const out: string[] = ['"use strict";', 'let $x = null, $g = 0, $B = null, $NE = null, $OK = null, $ST = null, $ERR = null, $DATA = null, $n = 0, $W = 0, $NW = 0, $SR = 0, $SC = 0, $LM = 0, $skip = null, $nf = -1;'];
    for (let id = 0; id < this.nodes.length; id++) {
      const nd = this.nodes[id];
      if (!this.reachable[id] || !this.stored[id] || nd.loop >= 0 || nd.op === 'const' || nd.op === 'var') continue;
      if (nd.op === 'loop') out.push(this.loop(id, nd));
      else if (nd.op === 'out') out.push(`function e${id}() { e${nd.args[0]}(); }`);
      else out.push(`function e${id}() {\nif (ST[${id}] === g) return; ST[${id}] = g;\n${this.compute(id)}\n}`);
    }
    const run: string[] = [];
    this.staged.steps.forEach((s, k) => {
      let code: string;
      switch (s.kind) {
        case 'fail':
          code = `return ${k};`;
          break;
        case 'error':
          code = `throw ERR[${k}];`;
          break;
        case 'with':
          code = `e${s.node}(); if (OK[${s.node}] === 0) return ${k};`;
          break;
        case 'check':
          out.push(this.test(`t${k}`, s.test, s.node));
          code = `if (${s.negated ? '' : '!'}t${k}()) return ${k};`;
          break;
      }
      // A with is always made (a prefix it finds nothing in is judged no further, as StructureRun.check does).
      const when = [...(s.kind === 'with' || this.safe(s.instr) ? [] : ['!prefix']), `(skip === null || skip[${k}] === 0)`];
      run.push(`if (${when.join(' && ')}) { ${code} }`);
    });
    const flags: string[] = [];
    const first = this.staged.steps.length;
    this.staged.flags.forEach((f, k) => {
      out.push(this.test(`f${k}`, f.test, f.node));
      const holds = f.negated ? `!f${k}()` : `f${k}()`;
      flags.push(`if (($skip === null || $skip[${first + k}] === 0) && ${f.raisedWhen ? '' : '!'}(${holds})) out.push(${k});`);
    });
    // The sets first, then the relations, then scratch words (see Place, state()).
    const enter = `$B = S.B; $NE = S.NE; $OK = S.OK; $ST = S.ST; $ERR = S.ERR; $DATA = S.DATA; $n = S.n; $W = S.W; $NW = $n * $W; $SR = ${this.sets} * $W; $SC = $SR + ${this.rels} * $NW; $LM = $n % 32 === 0 ? -1 : (1 << ($n % 32)) - 1;`;
    const LOCALS = locals(this.one ? 1 : this.wl);
    out.push(`function steps(prefix, skip) { ${LOCALS}
${run.join('\n')}
return -1; }`);
    out.push(`return {
run(S, x_, prefix, skip) { $x = x_; ${enter} $g = S.g = (S.g + 1) | 0; $skip = S.skip = skip;
try { return steps(prefix, skip); } catch (e) { if (e === H.NOT_FOUND) return $nf; throw e; } },
flags(S) { ${enter} $g = S.g; $skip = S.skip; ${LOCALS} const out = [];
${flags.join('\n')}
return out; } };`);
    // Each function reads the run's values into locals (V8 keeps them in registers; a closure's variables it reloads).
    return out.join('\n').replace(/^(function [a-z0-9]+\(\) \{)$/gm, (head) => `${head} ${LOCALS}`);
  }
}

