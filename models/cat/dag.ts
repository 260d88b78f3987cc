// The staged form of a cat model for one event structure: what the model
// computes per candidate, as a graph of operations on sets and relations
// whose leaves are the candidate's rf, co and final writes and the
// structure's own (static) values. models/cat/stage.ts builds it by
// evaluating the model once per structure with those three left symbolic
// (every operation on a symbolic value lands here, models/cat/operators.ts),
// and models/cat/generate.ts turns it into JavaScript.
//
// Nodes are made through one door, `make`, which
//   - computes an operation whose operands are all static now (a constant),
//   - applies what an empty operand makes of it (r ; 0 = 0, r | 0 = r, ...:
//     the terms of a model whose events a test lacks vanish here),
//   - and gives an operation already made its node (each shared
//     subexpression is computed once per candidate).
// Node ids are a topological order: a node's operands are made before it.
//
// A `let rec` whose values depend on the candidate is a loop (beginLoop /
// endLoop): its bindings' values in a round are nodes inside the loop;
// what they read that does not change from round to round stays outside,
// computed once per candidate. A `with X from S` is a `choose` node: the
// element of S that the candidate's own rf and co contain.

import { EventSet, Relation } from '../../src/relation/relation.js';
import type { BinaryOp, CatPos, UnaryOp } from './ast.js';
import { ModelError } from './lexer.js';
import { binary as concreteBinary, unary as concreteUnary } from './operators.js';
import { EMPTY, relValue, setValue, typeName, Unsupported, type Choices, type SymbolicOps, type SymbolicValue, type Value } from './values.js';

export type NodeType = 'set' | 'rel';

/** The candidate's own inputs: all of rf (lock reads too), all of co (lists of the explorer), the final writes. */
export type InputName = 'rf' | 'co' | 'FW';

export type Op =
  | 'const'
  | 'input'
  | 'or'
  | 'and'
  | 'minus'
  /** r ; s */
  | 'seq'
  /** [S] ; r: args [r, S] */
  | 'rows'
  /** r ; [S]: args [r, S] */
  | 'cols'
  | 'inv'
  | 'plus'
  | 'star'
  | 'opt'
  | 'comp'
  /** [S] */
  | 'id'
  /** S * T */
  | 'cross'
  | 'domain'
  | 'range'
  /** different-values(r) */
  | 'diffValues'
  /** A binding's value at the start of a round of its loop. */
  | 'var'
  /** A loop, run to its fixpoint: args are the bindings' values at the end of a round. */
  | 'loop'
  /** A binding's value once its loop is solved: args [loop]. */
  | 'out'
  /** with X from S: args are the symbolic parts' orders, then truth (rf | co). */
  | 'choose';

/** One part of a `with`'s choice (see ChooseData). */
export type ChoicePart =
  /**
   * A strict total order of `over` that contains `order` (a node, or -1 for
   * none). `total`: rf | co is one on `over` in every candidate (its
   * events are writes of one location, which the explorer's coherence order
   * of that location orders): only the order's inclusion is checked.
   */
  | { kind: 'linear'; over: EventSet; order: number; total: boolean }
  /** Exactly one of these relations, contained in rf | co. */
  | { kind: 'pick'; candidates: Relation[]; pos: CatPos };

export interface ChooseData {
  parts: ChoicePart[];
  name: string;
}

export interface DagNode {
  op: Op;
  type: NodeType;
  args: number[];
  /** The value of a const. */
  konst?: EventSet | Relation;
  /** A const with no element. */
  empty?: boolean;
  input?: InputName;
  /** The loop a node is computed in (its value changes from round to round), or -1. */
  loop: number;
  /** var and out: which binding of the loop. */
  binding?: number;
  /** loop: its vars, by binding. */
  vars?: number[];
  /** loop: the number its rounds' nodes have as `loop`. */
  inner?: number;
  choose?: ChooseData;
}

/** How deep a loop may sit in another loop's rounds (one level: the kernel's rcu-order). */
const MAX_LOOP_DEPTH = 1;

export class Dag implements SymbolicOps {
  readonly nodes: DagNode[] = [];
  private readonly known = new Map<string, number>();
  private readonly consts = new Map<object, number>();
  private emptySet = -1;
  private emptyRel = -1;
  /** Loops being built, innermost last. */
  private readonly open: number[] = [];
  /** Loops whose rounds are built: their inner nodes may not be read any more. */
  private readonly closed = new Set<number>();
  private loopCount = 0;
  /** Where each loop's let rec is (for its error when it finds no fixpoint). */
  readonly loopPos: CatPos[] = [];
  private identity: Relation | undefined;

  /** n: the structure's number of events; `lasting`: runs what allocates constants so that they outlive a candidate. */
  constructor(
    readonly n: number,
    private readonly lasting: <T>(f: () => T) => T,
  ) {}

  // ---- values and nodes

  /** The value of a node: the constant itself where it is one (static reasoning goes on), else a symbolic value. */
  value(id: number): Value {
    const nd = this.nodes[id];
    if (nd.op === 'const') return nd.type === 'set' ? setValue(nd.konst as EventSet) : relValue(nd.konst as Relation);
    return { kind: 'node', id, type: nd.type, ops: this };
  }

  /** The node of an input of the candidate. */
  input(name: InputName): Value {
    return this.value(this.make('input', name === 'FW' ? 'set' : 'rel', [], { input: name }));
  }

  /** The node of a value of the type wanted, or undefined if it is not one. */
  private nodeOf(v: Value, type: NodeType): number | undefined {
    switch (v.kind) {
      case 'node':
        return v.type === type ? this.checkReadable(v.id) : undefined;
      case 'empty':
        return type === 'set' ? this.emptySetNode() : this.emptyRelNode();
      case 'set':
        return type === 'set' ? this.constNode(v.set, 'set') : undefined;
      case 'rel':
        return type === 'rel' ? this.constNode(v.rel, 'rel') : undefined;
      case 'universe':
        return type === 'set' ? this.constNode(this.lasting(() => EventSet.where(this.n, () => true)), 'set') : undefined;
      default:
        return undefined;
    }
  }

  /** A node of a closed loop read from outside it: the staged form does not follow that (a function kept from inside a let rec). */
  private checkReadable(id: number): number {
    const l = this.nodes[id].loop;
    if (l >= 0 && this.closed.has(l)) throw new Unsupported('a value of a let rec round read after the let rec');
    return id;
  }

  private constNode(k: EventSet | Relation, type: NodeType): number {
    let id = this.consts.get(k);
    if (id === undefined) {
      id = this.push({ op: 'const', type, args: [], konst: k, empty: k.isEmpty(), loop: -1 });
      this.consts.set(k, id);
    }
    return id;
  }

  private emptySetNode(): number {
    if (this.emptySet < 0) this.emptySet = this.constNode(this.lasting(() => new EventSet(this.n)), 'set');
    return this.emptySet;
  }

  private emptyRelNode(): number {
    if (this.emptyRel < 0) this.emptyRel = this.constNode(this.lasting(() => new Relation(this.n)), 'rel');
    return this.emptyRel;
  }

  private idNode(): number {
    this.identity ??= this.lasting(() => Relation.where(this.n, (a, b) => a === b));
    return this.constNode(this.identity, 'rel');
  }

  private push(nd: DagNode): number {
    this.nodes.push(nd);
    return this.nodes.length - 1;
  }

  isEmptyConst(id: number): boolean {
    return this.nodes[id].op === 'const' && this.nodes[id].empty === true;
  }

  private isConst(id: number): boolean {
    return this.nodes[id].op === 'const';
  }

  /** A constant set with every event. */
  private isFullSet(id: number): boolean {
    const nd = this.nodes[id];
    if (nd.op !== 'const' || nd.type !== 'set') return false;
    const s = nd.konst as EventSet;
    for (let e = 0; e < this.n; e++) if (!s.has(e)) return false;
    return true;
  }

  /**
   * The one door (see the header): an operation on nodes, folded where its
   * operands are constants or empty, shared where it exists already.
   */
  private make(op: Op, type: NodeType, args: number[], extra?: Partial<DagNode>): number {
    const simpler = this.simplify(op, type, args);
    if (simpler !== undefined) return simpler;
    if (args.length > 0 && args.every((a) => this.isConst(a)) && op !== 'diffValues') return this.fold(op, type, args);
    const key = extra?.input !== undefined ? `input:${extra.input}` : extra ? undefined : `${op}:${args.join(',')}`;
    if (key !== undefined) {
      const id = this.known.get(key);
      if (id !== undefined) return id;
    }
    let loop = -1;
    for (const a of args) loop = Math.max(loop, this.nodes[a].loop);
    const id = this.push({ op, type, args, loop, ...extra });
    if (key !== undefined) this.known.set(key, id);
    return id;
  }

  /** What an empty (or full, or repeated) operand makes of an operation; undefined when nothing. */
  private simplify(op: Op, type: NodeType, args: number[]): number | undefined {
    const empty = (i: number) => this.isEmptyConst(args[i]);
    const none = () => (type === 'set' ? this.emptySetNode() : this.emptyRelNode());
    switch (op) {
      case 'or':
        if (empty(0) || args[0] === args[1]) return args[1];
        if (empty(1)) return args[0];
        return undefined;
      case 'and':
        if (empty(0) || empty(1)) return none();
        if (args[0] === args[1]) return args[0];
        return undefined;
      case 'minus':
        if (empty(0) || args[0] === args[1]) return none();
        if (empty(1)) return args[0];
        return undefined;
      case 'seq':
      case 'cross':
        return empty(0) || empty(1) ? none() : undefined;
      case 'rows':
      case 'cols':
        if (empty(0) || empty(1)) return none();
        if (this.isFullSet(args[1])) return args[0];
        return undefined;
      case 'inv': {
        if (empty(0)) return none();
        const a = this.nodes[args[0]];
        return a.op === 'inv' ? a.args[0] : undefined;
      }
      case 'plus':
      case 'id':
      case 'diffValues':
        return empty(0) ? none() : undefined;
      case 'domain':
      case 'range':
        return empty(0) ? this.emptySetNode() : undefined;
      case 'star':
      case 'opt':
        return empty(0) ? this.idNode() : undefined;
      default:
        return undefined;
    }
  }

  /** An operation on constants, computed now. */
  private fold(op: Op, type: NodeType, args: number[]): number {
    const k = args.map((a) => this.value(a));
    const n = this.n;
    const pos = { file: '', line: 0, col: 0 };
    const v = this.lasting((): Value => {
      switch (op) {
        case 'or':
          return concreteBinary('union', k[0], k[1], n, pos);
        case 'and':
          return concreteBinary('inter', k[0], k[1], n, pos);
        case 'minus':
          return concreteBinary('diff', k[0], k[1], n, pos);
        case 'seq':
          return concreteBinary('seq', k[0], k[1], n, pos);
        case 'cross':
          return concreteBinary('cartesian', k[0], k[1], n, pos);
        case 'rows':
          return relValue((this.nodes[args[0]].konst as Relation).restrict(this.nodes[args[1]].konst as EventSet));
        case 'cols':
          return relValue((this.nodes[args[0]].konst as Relation).restrict(undefined, this.nodes[args[1]].konst as EventSet));
        case 'inv':
        case 'plus':
        case 'star':
        case 'opt':
        case 'comp':
        case 'id':
          return concreteUnary(op === 'id' ? 'toid' : op, k[0], n, pos);
        case 'domain':
          return setValue((this.nodes[args[0]].konst as Relation).domain());
        case 'range':
          return setValue((this.nodes[args[0]].konst as Relation).range());
        default:
          throw new Error(`internal: ${op} is not folded`);
      }
    });
    const out = this.nodeOf(v, type);
    if (out === undefined) throw new Error(`internal: ${op} folded to ${typeName(v)}`);
    return out;
  }

  // ---- cat's operators on symbolic values (SymbolicOps)

  unary(op: UnaryOp, v: Value, pos: CatPos): Value {
    const sym = v as SymbolicValue;
    if (op === 'toid') {
      if (sym.type !== 'set') throw new ModelError(`[...] takes a set of events, not ${typeName(v)}`, pos);
      return this.value(this.make('id', 'rel', [sym.id]));
    }
    if (op === 'comp') return this.value(this.make('comp', sym.type, [sym.id]));
    if (sym.type !== 'rel') throw new ModelError(`${op === 'inv' ? '^-1' : op === 'star' ? '*' : op === 'plus' ? '+' : '?'} takes a relation, not ${typeName(v)}`, pos);
    return this.value(this.make(op, 'rel', [sym.id]));
  }

  binary(op: BinaryOp, a: Value, b: Value, pos: CatPos): Value {
    if (op === 'add') throw new Unsupported('++ on a value known only per candidate');
    if (op === 'cartesian') {
      const s = this.nodeOf(a, 'set');
      const t = this.nodeOf(b, 'set');
      if (s === undefined || t === undefined) throw new ModelError(`* takes two sets of events, not ${typeName(s !== undefined ? b : a)}`, pos);
      return this.value(this.make('cross', 'rel', [s, t]));
    }
    if (op === 'seq') return this.sequence([{ toid: false, value: a, pos }, { toid: false, value: b, pos }]);
    if (a.kind === 'values' || b.kind === 'values') throw new Unsupported('a set of values with one known only per candidate');
    const type = (a.kind === 'node' ? a : (b as SymbolicValue)).type;
    const x = this.nodeOf(a, type);
    const y = this.nodeOf(b, type);
    if (x === undefined || y === undefined) {
      const sym = op === 'union' ? '|' : op === 'inter' ? '&' : '\\';
      throw new ModelError(`${sym} needs two sets or two relations, not ${typeName(a)} and ${typeName(b)}`, pos);
    }
    return this.value(this.make(op === 'union' ? 'or' : op === 'inter' ? 'and' : 'minus', type, [x, y]));
  }

  /**
   * r1 ; r2 ; ... with [S] factors as restrictions of their neighbours,
   * composed from the right: the cost of r ; s grows with the pairs of r,
   * and a model's compositions start from their widest relations (prop ;
   * ..., rfe ; ...) and end in narrow ones.
   */
  sequence(factors: readonly { toid: boolean; value: Value; pos: CatPos }[]): Value {
    // Each relation with the sets on its left (rows) and, for the last, on its right (columns).
    const rels: { rel: number; rows: number[] }[] = [];
    let rows: number[] = [];
    for (const f of factors) {
      if (f.toid) {
        const s = this.nodeOf(f.value, 'set');
        if (s === undefined) throw new ModelError(`[...] takes a set of events, not ${typeName(f.value)}`, f.pos);
        rows.push(s);
      } else {
        const r = this.nodeOf(f.value, 'rel');
        if (r === undefined) throw new ModelError(`; takes relations, not ${typeName(f.value)}`, f.pos);
        rels.push({ rel: r, rows });
        rows = [];
      }
    }
    const restrictRows = (r: number, sets: number[]) => sets.reduce((acc, s) => this.make('rows', 'rel', [acc, s]), r);
    if (rels.length === 0) {
      // [S] ; [T]: the identity on S & T.
      const s = rows.reduce((acc, t) => this.make('and', 'set', [acc, t]));
      return this.value(this.make('id', 'rel', [s]));
    }
    // The sets after the last relation restrict its columns.
    let acc = rows.reduce((r, s) => this.make('cols', 'rel', [r, s]), restrictRows(rels[rels.length - 1].rel, rels[rels.length - 1].rows));
    for (let i = rels.length - 2; i >= 0; i--) acc = this.make('seq', 'rel', [restrictRows(rels[i].rel, rels[i].rows), acc]);
    return this.value(acc);
  }

  native(name: string, arg: Value, _pos: CatPos): Value | undefined {
    if (arg.kind !== 'node' || arg.type !== 'rel') return undefined;
    if (name === 'domain' || name === 'range') return this.value(this.make(name, 'set', [arg.id]));
    if (name === 'different-values') return this.value(this.make('diffValues', 'rel', [arg.id]));
    return undefined;
  }

  // ---- let rec

  /** Starts a loop (a let rec whose values depend on the candidate): its vars, typed as given. */
  beginLoop(types: NodeType[], pos: CatPos): { loop: number; vars: Value[] } {
    if (this.open.length >= MAX_LOOP_DEPTH) throw new Unsupported('a let rec inside a let rec, both per candidate');
    const loop = this.loopCount++;
    this.loopPos.push(pos);
    this.open.push(loop);
    const vars = types.map((type, k) => this.value(this.push({ op: 'var', type, args: [], loop, binding: k })));
    return { loop, vars };
  }

  /** Ends a loop: `bodies` are the bindings' values after a round; returns each binding's value once solved. */
  endLoop(loop: number, vars: Value[], bodies: Value[]): Value[] {
    this.open.pop();
    const varIds = vars.map((v) => (v as SymbolicValue).id);
    const bodyIds = bodies.map((b, k) => {
      const id = this.nodeOf(b, this.nodes[varIds[k]].type);
      if (id === undefined) throw new Unsupported('a let rec binding whose type changes from round to round');
      return id;
    });
    const l = this.push({ op: 'loop', type: 'rel', args: bodyIds, loop: -1, vars: varIds, inner: loop });
    this.closed.add(loop);
    // Nodes of the rounds belong to the loop (made while it was open, reading a var).
    return varIds.map((_, k) => this.value(this.push({ op: 'out', type: this.nodes[varIds[k]].type, args: [l], loop: -1, binding: k })));
  }

  /** A node a check or a flag may test: not one of a loop's rounds. */
  testable(id: number): number {
    if (this.nodes[id].loop >= 0) throw new Unsupported('a check of a value of a let rec round');
    return id;
  }

  // ---- with

  /**
   * `with X from S`: the element of S the candidate's rf and co (`truth`)
   * contain, checked per candidate (a `choose` node, whose success the
   * `with` step tests). S: a static set of relations, herd's
   * linearisations of a set (by an order known per candidate or not), or a
   * cross of those. `totalByConstruction`: whether every candidate's rf | co
   * is a strict total order of a set (see ChoicePart).
   */
  choose(from: Value, truth: Value, name: string, pos: CatPos, totalByConstruction: (over: EventSet) => boolean = () => false): Value {
    const parts: ChoicePart[] = [];
    const args: number[] = [];
    const add = (v: Value) => {
      if (v.kind === 'choices') return this.addChoices(v.choices, parts, args, add, totalByConstruction);
      if (v.kind === 'values' || v.kind === 'empty' || v.kind === 'rel') {
        const candidates = v.kind === 'values' ? v.elems : v.kind === 'empty' ? [] : [v];
        parts.push({ kind: 'pick', candidates: candidates.map((c) => this.staticRelation(c, pos)), pos });
        return;
      }
      throw new Unsupported(`with ... from ${typeName(v)}`);
    };
    add(from);
    // Nothing to choose: the empty relation, which every candidate has.
    if (parts.length === 0) return this.value(this.emptyRelNode());
    const t = this.nodeOf(truth, 'rel')!;
    return this.value(this.make('choose', 'rel', [...args, t], { choose: { parts, name } }));
  }

  private addChoices(c: Choices, parts: ChoicePart[], args: number[], add: (v: Value) => void, total: (over: EventSet) => boolean): void {
    if (c.kind === 'cross') {
      for (const p of c.parts) add(p);
      return;
    }
    let order = -1;
    if (c.order instanceof Relation) {
      if (!c.order.isEmpty()) order = this.constNode(c.order, 'rel');
    } else {
      order = this.nodeOf(c.order, 'rel')!;
    }
    if (order >= 0 && !args.includes(order)) args.push(order);
    parts.push({ kind: 'linear', over: c.over, order, total: total(c.over) });
  }

  private staticRelation(v: Value, pos: CatPos): Relation {
    if (v.kind === 'rel') return v.rel;
    if (v.kind === 'empty') return this.lasting(() => new Relation(this.n));
    if (v.kind === 'node') throw new Unsupported('with ... from a set of relations known only per candidate');
    throw new ModelError(`with ... from: the candidates must be relations, not ${typeName(v)}`, pos);
  }

  /** The empty value of a type, as a value (for a let rec's start). */
  static empty(): Value {
    return EMPTY;
  }
}
