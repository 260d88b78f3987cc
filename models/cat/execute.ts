// A structure's staged model (models/cat/stage.ts) run as it is: each node
// of its graph computed by the kernel of its operation (models/cat/kernels.ts)
// into its own place of one Int32Array, once per candidate, when first
// needed, an operand that makes the result empty first. This is how the
// first candidates of a structure are judged: the code generated for a
// structure (models/cat/generate.ts) is faster per candidate, but costs its
// writing and V8's compiling, which a structure with few candidates (a
// prefix, a small test) does not repay.

import type { Execution } from '../../src/model/execution.js';
import type { DagNode } from './dag.js';
import type { StagedJudge } from './generate.js';
import { KERNELS as K, NOT_FOUND, type ChoicePlaces } from './kernels.js';
import type { StagedModel } from './stage.js';

export class DagExecutor implements StagedJudge {
  private readonly nodes: DagNode[];
  private readonly n: number;
  private readonly W: number;
  private readonly B: Int32Array;
  private readonly NE: Uint8Array;
  private readonly OK: Uint8Array;
  private readonly ST: Int32Array;
  private readonly off: Int32Array;
  private readonly scratch: number;
  /** Per loop node: the nodes of its rounds, in order. */
  private readonly rounds = new Map<number, number[]>();
  /** Per choose node, per part: the places of its constants. */
  private readonly choices = new Map<number, ChoicePlaces[]>();
  private readonly safeStep: boolean[];
  private g = 0;
  private x: Execution | null = null;
  /** The loop whose round is being computed (its nodes are computed in order, not on demand), or -1. */
  private inRound = -1;

  constructor(
    private readonly staged: StagedModel,
    safe: (instr: number) => boolean,
    private readonly observed: readonly number[],
  ) {
    const nodes = (this.nodes = staged.dag.nodes);
    const n = (this.n = staged.dag.n);
    const W = (this.W = (n + 31) >>> 5);
    // A with is always made (a prefix it finds nothing in is judged no further, as StructureRun.check does).
    this.safeStep = staged.steps.map((s) => s.kind === 'with' || safe(s.instr));
    staged.steps.forEach((s, k) => {
      if (s.kind === 'with') this.withStep.set(s.node, k);
    });
    // Every node a step or a flag reads, down to the leaves.
    const reachable = new Array<boolean>(nodes.length).fill(false);
    for (const s of staged.steps) if (s.kind === 'check' || s.kind === 'with') reachable[s.node] = true;
    for (const f of staged.flags) reachable[f.node] = true;
    for (let id = nodes.length - 1; id >= 0; id--) {
      if (!reachable[id]) continue;
      for (const a of nodes[id].args) reachable[a] = true;
      if (nodes[id].op === 'loop') for (const v of nodes[id].vars!) reachable[v] = true;
    }
    const off = (this.off = new Int32Array(nodes.length).fill(-1));
    let size = 0;
    const constants: [number, { buf: Uint32Array; off: number }, number][] = [];
    const place = (set: boolean) => {
      const at = size;
      size += set ? W : n * W;
      return at;
    };
    nodes.forEach((nd, id) => {
      if (!reachable[id] || nd.op === 'loop' || nd.op === 'out') return;
      off[id] = place(nd.type === 'set');
      if (nd.op === 'const') constants.push([off[id], nd.konst!, nd.type === 'set' ? W : n * W]);
    });
    const loops = new Map<number, number[]>();
    nodes.forEach((nd, id) => {
      if (!reachable[id]) return;
      if (nd.loop >= 0 && nd.op !== 'var') {
        const inner = loops.get(nd.loop);
        if (inner) inner.push(id);
        else loops.set(nd.loop, [id]);
      }
    });
    nodes.forEach((nd, id) => {
      if (!reachable[id]) return;
      if (nd.op === 'out') off[id] = off[nodes[nd.args[0]].vars![nd.binding!]];
      if (nd.op === 'loop') this.rounds.set(id, loops.get(nd.inner!) ?? []);
      if (nd.op === 'choose') {
        this.choices.set(id, nd.choose!.parts.map((p): ChoicePlaces => {
          const constant = (k: { buf: Uint32Array; off: number }, set: boolean) => {
            const at = place(set);
            constants.push([at, k, set ? W : n * W]);
            return at;
          };
          return p.kind === 'linear'
            ? { over: constant(p.over, true), order: p.order >= 0 ? off[p.order] : -1, total: p.total, candidates: [] }
            : { over: -1, order: -1, total: false, candidates: p.candidates.map((c) => constant(c, false)), pos: p.pos };
        }));
      }
    });
    this.scratch = size;
    size += 2 * n + 2 * W + 2;
    this.B = new Int32Array(size);
    this.NE = new Uint8Array(nodes.length);
    this.OK = new Uint8Array(nodes.length);
    this.ST = new Int32Array(nodes.length).fill(-1);
    for (const [at, k, len] of constants) for (let q = 0; q < len; q++) this.B[at + q] = k.buf[k.off + q];
    nodes.forEach((nd, id) => {
      if (nd.op === 'const' && reachable[id]) this.NE[id] = K.nonEmpty(this.B, off[id], nd.type === 'set' ? W : n * W);
    });
  }

  run(x: Execution, prefix: boolean, skip: Uint8Array | null = null): number {
    this.x = x;
    this.g = (this.g + 1) | 0;
    this.skip = skip;
    try {
      return this.steps(prefix, skip);
    } catch (e) {
      // A skipped with read by another step found nothing (see choose).
      if (e === NOT_FOUND) return this.notFound;
      throw e;
    }
  }

  /** The steps skipped in this run (steps, then flags: see StagedJudge.run), and the with step that found nothing. */
  private skip: Uint8Array | null = null;
  private notFound = -1;

  private steps(prefix: boolean, skip: Uint8Array | null): number {
    const steps = this.staged.steps;
    for (let k = 0; k < steps.length; k++) {
      const s = steps[k];
      if ((prefix && !this.safeStep[k]) || (skip !== null && skip[k] !== 0)) continue;
      switch (s.kind) {
        case 'fail':
          return k;
        case 'error':
          throw s.error;
        case 'with':
          this.ensure(s.node);
          if (this.OK[s.node] === 0) return k;
          break;
        case 'check':
          if (this.test(s.test, s.node) === s.negated) return k;
          break;
      }
    }
    return -1;
  }

  flags(): number[] {
    const out: number[] = [];
    const skip = this.skip;
    const first = this.staged.steps.length;
    this.staged.flags.forEach((f, k) => {
      if (skip !== null && skip[first + k] !== 0) return;
      if ((this.test(f.test, f.node) !== f.negated) === f.raisedWhen) out.push(k);
    });
    return out;
  }

  private test(test: string, id: number): boolean {
    const { B, NE, n, W } = this;
    const nd = this.nodes[id];
    if (test === 'empty') {
      this.ensure(id);
      return NE[id] === 0;
    }
    if (test === 'acyclic') {
      this.ensure(id);
      return NE[id] === 0 || K.acyclic(B, this.off[id], n, W, this.scratch);
    }
    if (nd.op === 'seq' && this.ST[id] !== this.g) {
      // irreflexive r ; s, without composing it.
      const [a, b] = nd.args;
      this.ensure(a);
      if (NE[a] === 0) return true;
      this.ensure(b);
      return NE[b] === 0 || K.irreflexiveSeq(B, this.off[a], this.off[b], n, W);
    }
    this.ensure(id);
    return NE[id] === 0 || K.irreflexive(B, this.off[id], n, W);
  }

  private ensure(id: number): void {
    const nd = this.nodes[id];
    if (nd.op === 'const' || (nd.loop >= 0 && nd.loop === this.inRound) || this.ST[id] === this.g) return;
    this.ST[id] = this.g;
    this.compute(id, nd);
  }

  /** Whether operand a is empty once computed (then the node is: zeroed). */
  private emptyOperand(id: number, a: number): boolean {
    this.ensure(a);
    if (this.NE[a] !== 0) return false;
    this.zero(id);
    return true;
  }

  private zero(id: number): void {
    const o = this.off[id];
    this.B.fill(0, o, o + (this.nodes[id].type === 'set' ? this.W : this.n * this.W));
    this.NE[id] = 0;
  }

  private compute(id: number, nd: DagNode): void {
    const { B, NE, n, W, off } = this;
    const o = off[id];
    const [a, b] = nd.args;
    const len = nd.type === 'set' ? W : n * W;
    switch (nd.op) {
      case 'or':
        this.ensure(a);
        this.ensure(b);
        NE[id] = K.or(B, o, off[a], off[b], len);
        return;
      case 'and':
        if (this.emptyOperand(id, a) || this.emptyOperand(id, b)) return;
        NE[id] = K.and(B, o, off[a], off[b], len);
        return;
      case 'minus':
        if (this.emptyOperand(id, a)) return;
        this.ensure(b);
        NE[id] = K.minus(B, o, off[a], off[b], len);
        return;
      case 'rows':
        if (this.emptyOperand(id, a) || this.emptyOperand(id, b)) return;
        NE[id] = K.rows(B, o, off[a], off[b], n, W);
        return;
      case 'cols':
        if (this.emptyOperand(id, a) || this.emptyOperand(id, b)) return;
        NE[id] = K.cols(B, o, off[a], off[b], n, W);
        return;
      case 'cross':
        if (this.emptyOperand(id, a) || this.emptyOperand(id, b)) return;
        NE[id] = K.cross(B, o, off[a], off[b], n, W);
        return;
      case 'seq':
        if (this.emptyOperand(id, a) || this.emptyOperand(id, b)) return;
        NE[id] = K.seq(B, o, off[a], off[b], n, W);
        return;
      case 'comp':
        this.ensure(a);
        NE[id] = K.comp(B, o, off[a], nd.type === 'set' ? 1 : n, n, W);
        return;
      case 'id':
        if (this.emptyOperand(id, a)) return;
        NE[id] = K.id(B, o, off[a], n, W);
        return;
      case 'opt':
        this.ensure(a);
        NE[id] = K.opt(B, o, off[a], n, W);
        return;
      case 'inv':
        if (this.emptyOperand(id, a)) return;
        NE[id] = K.inv(B, o, off[a], n, W);
        return;
      case 'plus':
        if (this.emptyOperand(id, a)) return;
        NE[id] = K.closure(B, o, off[a], n, W, false, this.scratch);
        return;
      case 'star':
        this.ensure(a);
        NE[id] = K.closure(B, o, off[a], n, W, true, this.scratch);
        return;
      case 'domain':
        if (this.emptyOperand(id, a)) return;
        NE[id] = K.domain(B, o, off[a], n, W);
        return;
      case 'range':
        if (this.emptyOperand(id, a)) return;
        NE[id] = K.range(B, o, off[a], n, W);
        return;
      case 'diffValues':
        if (this.emptyOperand(id, a)) return;
        NE[id] = K.diffValues(B, o, off[a], n, W, this.x!.events);
        return;
      case 'input':
        if (nd.input === 'rf') NE[id] = K.readsFrom(B, o, this.x!.rfSource, n, W);
        else if (nd.input === 'co') NE[id] = K.coherence(B, o, this.x!.co, n, W, this.scratch);
        else NE[id] = K.finalWrites(B, o, this.x!.co, this.observed, W);
        return;
      case 'choose':
        this.choose(id, nd);
        return;
      case 'loop':
        this.loop(id, nd);
        return;
      case 'out':
        this.ensure(a);
        NE[id] = NE[this.nodes[a].vars![nd.binding!]];
        return;
      default:
        throw new Error(`internal: no kernel for ${nd.op}`);
    }
  }

  /**
   * with X from S: each part's element, in order (OK[id] = 0 when a part
   * has none). When the with's own step is skipped, another step reads it:
   * finding nothing then ends the run at the with's step (as
   * StructureRun.check does).
   */
  private choose(id: number, nd: DagNode): void {
    for (const a of nd.args) this.ensure(a);
    const o = this.off[id];
    const ok = K.choose(this.B, o, this.off[nd.args[nd.args.length - 1]], this.choices.get(id)!, this.n, this.W);
    this.OK[id] = ok ? 1 : 0;
    this.NE[id] = ok ? K.nonEmpty(this.B, o, this.n * this.W) : 0;
    const step = this.withStep.get(id) ?? -1;
    if (!ok && this.skip !== null && step >= 0 && this.skip[step] !== 0) {
      this.notFound = step;
      throw NOT_FOUND;
    }
  }

  /** Per choose node, its with's step. */
  private readonly withStep = new Map<number, number>();

  /** A let rec per candidate: rounds of its nodes, in order, until no binding changes. */
  private loop(id: number, nd: DagNode): void {
    const { B, NE, off } = this;
    const vars = nd.vars!;
    const size = (v: number) => (this.nodes[v].type === 'set' ? this.W : this.n * this.W);
    for (const v of vars) this.zero(v);
    // What the rounds read from outside, computed once.
    const inner = this.rounds.get(id)!;
    for (const k of inner) for (const a of this.nodes[k].args) if (this.nodes[a].loop !== nd.inner) this.ensure(a);
    for (const b of nd.args) if (this.nodes[b].loop !== nd.inner) this.ensure(b);
    const outer = this.inRound;
    this.inRound = nd.inner!;
    try {
      for (let round = 0; ; round++) {
        if (round > 10_000) throw K.noFixpoint(this.staged.dag.loopPos[nd.inner!]);
        for (const k of inner) this.compute(k, this.nodes[k]);
        let changed = false;
        nd.args.forEach((b, k) => {
          const v = vars[k];
          const ob = off[b];
          const ov = off[v];
          for (let q = 0; q < size(v); q++) {
            if (B[ob + q] !== B[ov + q]) {
              changed = true;
              B[ov + q] = B[ob + q];
            }
          }
          NE[v] = NE[b];
        });
        if (!changed) break;
      }
    } finally {
      this.inRound = outer;
    }
  }
}
