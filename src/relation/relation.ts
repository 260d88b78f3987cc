// A small relation algebra over the events of one execution, with bitsets.
// Events are numbered 0..n-1; a set is a row of 32-bit words, a relation is
// n such rows. The vocabulary follows herd's cat language, so that a model
// written with it reads like its formal definition:
//   r.or(s) = r | s, r.and(s) = r & s, r.minus(s) = r \ s, r.seq(s) = r ; s,
//   r.inv() = r^-1, r.plus() = r+, r.star() = r*, r.opt() = r?,
//   EventSet.id() = [S], r.restrict(S, T) = [S] ; r ; [T].

/**
 * Scratch memory for the relations of one model check. Relations are many,
 * small and short-lived; they are carved out of one buffer and address it by
 * offset, so that a relation is a plain object (no ArrayBuffer, no typed-array
 * view of its own: allocation and garbage collection dominated the profile).
 * Only code inside scratch() uses it; anything kept afterwards (caches,
 * witnesses) is built outside, from chunks that are never reused.
 */
class Pool {
  buf: Uint32Array;
  off = 0;
  constructor(
    private readonly chunk: number,
    private readonly reuse: boolean,
  ) {
    this.buf = new Uint32Array(chunk);
  }
  /** Reserves len zeroed words; returns the buffer and the offset. */
  alloc(len: number): number {
    if (this.off + len > this.buf.length) {
      this.buf = new Uint32Array(Math.max(this.reuse ? this.buf.length * 2 : this.chunk, len * 4));
      this.off = 0;
    } else if (this.reuse) {
      // A loop is cheaper than fill's call for the few words of most relations.
      if (len > 64) this.buf.fill(0, this.off, this.off + len);
      else for (let i = this.off, end = this.off + len; i < end; i++) this.buf[i] = 0;
    }
    const o = this.off;
    this.off += len;
    return o;
  }
}

const SCRATCH = new Pool(1 << 16, true);
const LASTING = new Pool(1 << 16, false);
let arenaActive = false;

/** Reserves words for a new set or relation; returns the offset in wordsBuf. */
let wordsBuf: Uint32Array = SCRATCH.buf;
function words(len: number): number {
  const pool = arenaActive ? SCRATCH : LASTING;
  const off = pool.alloc(len);
  wordsBuf = pool.buf;
  return off;
}

/** Runs f with relations allocated from scratch memory, released on return. */
export function scratch<T>(f: () => T): T {
  if (arenaActive) return f();
  arenaActive = true;
  const off = SCRATCH.off;
  const buf = SCRATCH.buf;
  try {
    return f();
  } finally {
    arenaActive = false;
    if (SCRATCH.buf === buf) SCRATCH.off = off;
    else SCRATCH.off = 0;
  }
}

/** Runs f with lasting allocation, even inside scratch(). */
export function lasting<T>(f: () => T): T {
  if (!arenaActive) return f();
  arenaActive = false;
  try {
    return f();
  } finally {
    arenaActive = true;
  }
}

export class EventSet {
  readonly buf: Uint32Array;
  readonly off: number;
  readonly w: number;
  constructor(readonly n: number) {
    this.w = (n + 31) >>> 5;
    this.off = words(this.w);
    this.buf = wordsBuf;
  }

  static of(n: number, members: Iterable<number>): EventSet {
    const s = new EventSet(n);
    for (const e of members) s.add(e);
    return s;
  }

  static where(n: number, pred: (e: number) => boolean): EventSet {
    const s = new EventSet(n);
    for (let e = 0; e < n; e++) if (pred(e)) s.add(e);
    return s;
  }

  add(e: number): void {
    this.buf[this.off + (e >>> 5)] |= 1 << (e & 31);
  }

  has(e: number): boolean {
    return (this.buf[this.off + (e >>> 5)] & (1 << (e & 31))) !== 0;
  }

  /** Word i of the bitset. */
  word(i: number): number {
    return this.buf[this.off + i];
  }

  or(...others: EventSet[]): EventSet {
    const r = new EventSet(this.n);
    for (let i = 0; i < this.w; i++) {
      let v = this.buf[this.off + i];
      for (const o of others) v |= o.buf[o.off + i];
      r.buf[r.off + i] = v;
    }
    return r;
  }

  and(o: EventSet): EventSet {
    const r = new EventSet(this.n);
    for (let i = 0; i < this.w; i++) r.buf[r.off + i] = this.buf[this.off + i] & o.buf[o.off + i];
    return r;
  }

  minus(o: EventSet): EventSet {
    const r = new EventSet(this.n);
    for (let i = 0; i < this.w; i++) r.buf[r.off + i] = this.buf[this.off + i] & ~o.buf[o.off + i];
    return r;
  }

  complement(): EventSet {
    const r = new EventSet(this.n);
    for (let e = 0; e < this.n; e++) if (!this.has(e)) r.add(e);
    return r;
  }

  isEmpty(): boolean {
    for (let i = 0; i < this.w; i++) if (this.buf[this.off + i] !== 0) return false;
    return true;
  }

  members(): number[] {
    const out: number[] = [];
    for (let e = 0; e < this.n; e++) if (this.has(e)) out.push(e);
    return out;
  }

  /** [S]: the identity relation on this set. */
  id(): Relation {
    const r = new Relation(this.n);
    for (let e = 0; e < this.n; e++) if (this.has(e)) r.add(e, e);
    return r;
  }

  /** S * T: every pair. */
  cross(t: EventSet): Relation {
    const r = new Relation(this.n);
    const w = r.w;
    for (let e = 0; e < this.n; e++) {
      if (!this.has(e)) continue;
      for (let k = 0; k < w; k++) r.buf[r.off + e * w + k] = t.buf[t.off + k];
    }
    return r;
  }
}

export class Relation {
  readonly w: number;
  readonly buf: Uint32Array;
  readonly off: number;

  constructor(readonly n: number) {
    this.w = (n + 31) >>> 5;
    this.off = words(n * this.w);
    this.buf = wordsBuf;
  }

  static empty(n: number): Relation {
    return new Relation(n);
  }

  static fromPairs(n: number, pairs: Iterable<[number, number]>): Relation {
    const r = new Relation(n);
    for (const [a, b] of pairs) r.add(a, b);
    return r;
  }

  static where(n: number, pred: (a: number, b: number) => boolean): Relation {
    const r = new Relation(n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (pred(a, b)) r.add(a, b);
    return r;
  }

  add(a: number, b: number): void {
    this.buf[this.off + a * this.w + (b >>> 5)] |= 1 << (b & 31);
  }

  has(a: number, b: number): boolean {
    return (this.buf[this.off + a * this.w + (b >>> 5)] & (1 << (b & 31))) !== 0;
  }

  clone(): Relation {
    const r = new Relation(this.n);
    const len = this.n * this.w;
    if (r.buf === this.buf) r.buf.copyWithin(r.off, this.off, this.off + len);
    else for (let i = 0; i < len; i++) r.buf[r.off + i] = this.buf[this.off + i];
    return r;
  }

  or(...others: Relation[]): Relation {
    const r = new Relation(this.n);
    const len = this.n * this.w;
    const a = this.buf;
    const ao = this.off;
    const o = r.buf;
    const oo = r.off;
    for (let i = 0; i < len; i++) o[oo + i] = a[ao + i];
    for (const x of others) {
      const b = x.buf;
      const bo = x.off;
      for (let i = 0; i < len; i++) o[oo + i] |= b[bo + i];
    }
    return r;
  }

  and(x: Relation): Relation {
    const r = new Relation(this.n);
    const len = this.n * this.w;
    for (let i = 0; i < len; i++) r.buf[r.off + i] = this.buf[this.off + i] & x.buf[x.off + i];
    return r;
  }

  minus(x: Relation): Relation {
    const r = new Relation(this.n);
    const len = this.n * this.w;
    for (let i = 0; i < len; i++) r.buf[r.off + i] = this.buf[this.off + i] & ~x.buf[x.off + i];
    return r;
  }

  /** r ; s */
  seq(s: Relation): Relation {
    const n = this.n;
    const w = this.w;
    const out = new Relation(n);
    const a = this.buf;
    const ao = this.off;
    const b = s.buf;
    const bo = s.off;
    const o = out.buf;
    const oo = out.off;
    if (w === 1) {
      // Up to 32 events (most tests): a row is one word, gathered in a register.
      for (let i = 0; i < n; i++) {
        let word = a[ao + i];
        let row = 0;
        while (word !== 0) {
          const bit = word & -word;
          word ^= bit;
          row |= b[bo + 31 - Math.clz32(bit)];
        }
        o[oo + i] = row;
      }
      return out;
    }
    for (let i = 0; i < n; i++) {
      const base = i * w;
      for (let k = 0; k < w; k++) {
        let word = a[ao + base + k];
        while (word !== 0) {
          const bit = word & -word;
          const j = (k << 5) + (31 - Math.clz32(bit));
          word ^= bit;
          const jb = bo + j * w;
          for (let m = 0; m < w; m++) o[oo + base + m] |= b[jb + m];
        }
      }
    }
    return out;
  }

  /** r^-1 */
  inv(): Relation {
    const r = new Relation(this.n);
    const w = this.w;
    for (let i = 0; i < this.n; i++) {
      const iw = i >>> 5;
      const ibit = 1 << (i & 31);
      for (let k = 0; k < w; k++) {
        let word = this.buf[this.off + i * w + k];
        while (word !== 0) {
          const bit = word & -word;
          const j = (k << 5) + (31 - Math.clz32(bit));
          word ^= bit;
          r.buf[r.off + j * w + iw] |= ibit;
        }
      }
    }
    return r;
  }

  /** r+ (transitive closure, Warshall over bit rows). */
  plus(): Relation {
    const n = this.n;
    const w = this.w;
    const r = this.clone();
    const x = r.buf;
    const xo = r.off;
    for (let k = 0; k < n; k++) {
      const kb = xo + k * w;
      // Nothing to pass on through k when it has no successor (most events, in most relations).
      let any = 0;
      for (let m = 0; m < w; m++) any |= x[kb + m];
      if (any === 0) continue;
      const kw = k >>> 5;
      const kbit = 1 << (k & 31);
      for (let i = 0; i < n; i++) {
        const ib = xo + i * w;
        if ((x[ib + kw] & kbit) === 0) continue;
        for (let m = 0; m < w; m++) x[ib + m] |= x[kb + m];
      }
    }
    return r;
  }

  /** r* */
  star(): Relation {
    const r = this.plus();
    for (let i = 0; i < this.n; i++) r.add(i, i);
    return r;
  }

  /** r? */
  opt(): Relation {
    const r = this.clone();
    for (let i = 0; i < this.n; i++) r.add(i, i);
    return r;
  }

  /** [S] ; r ; [T] (either may be omitted). */
  restrict(s?: EventSet, t?: EventSet): Relation {
    const r = new Relation(this.n);
    const w = this.w;
    for (let i = 0; i < this.n; i++) {
      if (s && !s.has(i)) continue;
      const src = this.off + i * w;
      const dst = r.off + i * w;
      for (let m = 0; m < w; m++) r.buf[dst + m] = this.buf[src + m] & (t ? t.buf[t.off + m] : 0xffffffff);
    }
    return r;
  }

  domain(): EventSet {
    const s = new EventSet(this.n);
    for (let i = 0; i < this.n; i++) {
      for (let m = 0; m < this.w; m++) {
        if (this.buf[this.off + i * this.w + m] !== 0) {
          s.add(i);
          break;
        }
      }
    }
    return s;
  }

  range(): EventSet {
    const s = new EventSet(this.n);
    for (let i = 0; i < this.n; i++) for (let m = 0; m < this.w; m++) s.buf[s.off + m] |= this.buf[this.off + i * this.w + m];
    return s;
  }

  isEmpty(): boolean {
    const len = this.n * this.w;
    for (let i = 0; i < len; i++) if (this.buf[this.off + i] !== 0) return false;
    return true;
  }

  irreflexive(): boolean {
    for (let i = 0; i < this.n; i++) if (this.has(i, i)) return false;
    return true;
  }

  /** Whether two relations hold the same pairs. */
  equals(x: Relation): boolean {
    const len = this.n * this.w;
    for (let i = 0; i < len; i++) if (this.buf[this.off + i] !== x.buf[x.off + i]) return false;
    return true;
  }

  /** Whether r ⊆ x (within s × s when s is given), without building r \ x. */
  includedIn(x: Relation, s?: EventSet): boolean {
    const w = this.w;
    for (let i = 0; i < this.n; i++) {
      if (s && !s.has(i)) continue;
      const a = this.off + i * w;
      const b = x.off + i * w;
      for (let m = 0; m < w; m++) if ((this.buf[a + m] & ~x.buf[b + m] & (s ? s.buf[s.off + m] : 0xffffffff)) !== 0) return false;
    }
    return true;
  }

  /**
   * Whether the relation, within s × s, is a strict total order of s. An
   * irreflexive relation on m events that relates every two of them one
   * way or the other is one exactly when its events have the m distinct
   * out-degrees 0 .. m-1 (a transitive tournament): no composition needed.
   */
  isStrictTotalOrderOn(s: EventSet): boolean {
    const members = s.members();
    const m = members.length;
    const degrees = new Uint8Array(m);
    const w = this.w;
    for (const a of members) {
      if (this.has(a, a)) return false;
      let d = 0;
      for (let k = 0; k < w; k++) d += popcount(this.buf[this.off + a * w + k] & s.buf[s.off + k]);
      if (d >= m || degrees[d]) return false;
      degrees[d] = 1;
    }
    for (let i = 0; i < m; i++) {
      for (let j = i + 1; j < m; j++) if (!this.has(members[i], members[j]) && !this.has(members[j], members[i])) return false;
    }
    return true;
  }

  /** Adds every pair of x (this |= x). */
  addAll(x: Relation): void {
    const len = this.n * this.w;
    for (let i = 0; i < len; i++) this.buf[this.off + i] |= x.buf[x.off + i];
  }

  acyclic(): boolean {
    // Kahn's algorithm on the bit rows: cheaper than a closure.
    const n = this.n;
    const w = this.w;
    const indeg = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < w; k++) {
        let word = this.buf[this.off + i * w + k];
        while (word !== 0) {
          const bit = word & -word;
          indeg[(k << 5) + (31 - Math.clz32(bit))]++;
          word ^= bit;
        }
      }
    }
    const stack: number[] = [];
    for (let i = 0; i < n; i++) if (indeg[i] === 0) stack.push(i);
    let seen = 0;
    while (stack.length > 0) {
      const i = stack.pop()!;
      seen++;
      for (let k = 0; k < w; k++) {
        let word = this.buf[this.off + i * w + k];
        while (word !== 0) {
          const bit = word & -word;
          const j = (k << 5) + (31 - Math.clz32(bit));
          word ^= bit;
          if (--indeg[j] === 0) stack.push(j);
        }
      }
    }
    return seen === n;
  }

  forEach(f: (a: number, b: number) => void): void {
    const w = this.w;
    for (let i = 0; i < this.n; i++) {
      for (let k = 0; k < w; k++) {
        let word = this.buf[this.off + i * w + k];
        while (word !== 0) {
          const bit = word & -word;
          f(i, (k << 5) + (31 - Math.clz32(bit)));
          word ^= bit;
        }
      }
    }
  }

  pairs(): [number, number][] {
    const out: [number, number][] = [];
    this.forEach((a, b) => out.push([a, b]));
    return out;
  }

  /** Adds (i, b) for every b in the set: row i |= s. */
  addRow(i: number, s: EventSet): void {
    const base = this.off + i * this.w;
    for (let m = 0; m < this.w; m++) this.buf[base + m] |= s.buf[s.off + m];
  }

  /** Some cycle (a self-loop counts), as its edges in order; undefined if acyclic. */
  cycle(): [number, number][] | undefined {
    const n = this.n;
    const color = new Uint8Array(n);
    const parent = new Int32Array(n).fill(-1);
    for (let s = 0; s < n; s++) {
      if (color[s] !== 0) continue;
      const stack: [number, number[]][] = [[s, this.successors(s)]];
      color[s] = 1;
      while (stack.length > 0) {
        const [v, out] = stack[stack.length - 1];
        const u = out.pop();
        if (u === undefined) {
          color[v] = 2;
          stack.pop();
          continue;
        }
        if (color[u] === 1) {
          // Back edge v -> u: the cycle is u ... v -> u along the stack.
          const edges: [number, number][] = [[v, u]];
          for (let k = v; k !== u; k = parent[k]) edges.unshift([parent[k], k]);
          return edges;
        }
        if (color[u] === 0) {
          color[u] = 1;
          parent[u] = v;
          stack.push([u, this.successors(u)]);
        }
      }
    }
    return undefined;
  }

  /** A shortest path from a to b along the relation, as its events (just [a] when a = b). */
  path(a: number, b: number): number[] | undefined {
    if (a === b) return [a];
    const prev = new Int32Array(this.n).fill(-1);
    prev[a] = a;
    const queue = [a];
    for (let q = 0; q < queue.length; q++) {
      for (const v of this.successors(queue[q])) {
        if (prev[v] >= 0) continue;
        prev[v] = queue[q];
        if (v === b) {
          const out = [b];
          for (let k = b; k !== a; k = prev[k]) out.unshift(prev[k]);
          return out;
        }
        queue.push(v);
      }
    }
    return undefined;
  }

  /** Successors of event i. */
  successors(i: number): number[] {
    const out: number[] = [];
    for (let k = 0; k < this.w; k++) {
      let word = this.buf[this.off + i * this.w + k];
      while (word !== 0) {
        const bit = word & -word;
        out.push((k << 5) + (31 - Math.clz32(bit)));
        word ^= bit;
      }
    }
    return out;
  }

  /** One cycle of the relation, as a list of events, or null if acyclic. */
  findCycle(): number[] | null {
    const n = this.n;
    const color = new Uint8Array(n);
    for (let s = 0; s < n; s++) {
      if (color[s] !== 0) continue;
      const stack: [number, number[], number][] = [[s, this.successors(s), 0]];
      color[s] = 1;
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        if (top[2] >= top[1].length) {
          color[top[0]] = 2;
          stack.pop();
          continue;
        }
        const j = top[1][top[2]++];
        if (color[j] === 1) {
          const cycle = [j];
          for (let k = stack.length - 1; k >= 0 && stack[k][0] !== j; k--) cycle.push(stack[k][0]);
          return cycle.reverse();
        }
        if (color[j] === 0) {
          color[j] = 1;
          stack.push([j, this.successors(j), 0]);
        }
      }
    }
    return null;
  }
}

function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The least fixpoint of f, starting from the empty relation (cat's `let rec`). */
export function fixpoint(n: number, f: (r: Relation) => Relation): Relation {
  let cur = Relation.empty(n);
  for (;;) {
    const next = f(cur);
    if (next.equals(cur)) return cur;
    cur = next;
  }
}
