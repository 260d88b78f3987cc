// A small relation algebra over the events of one execution, with bitsets.
// Events are numbered 0..n-1; a set is a row of 32-bit words, a relation is
// n such rows. The vocabulary follows herd's cat language, so that a model
// written with it reads like its formal definition:
//   r.or(s) = r | s, r.and(s) = r & s, r.minus(s) = r \ s, r.seq(s) = r ; s,
//   r.inv() = r^-1, r.plus() = r+, r.star() = r*, r.opt() = r?,
//   EventSet.id() = [S], r.restrict(S, T) = [S] ; r ; [T].

/**
 * Scratch memory for the relations of one model check. Relations are many,
 * small and short-lived; carving them out of one buffer avoids an
 * ArrayBuffer per relation (allocation and garbage collection dominated the
 * profile). Only code inside scratch() uses it; anything kept afterwards
 * (caches, witnesses) must be built outside.
 */
class Arena {
  buf = new Uint32Array(1 << 16);
  off = 0;
  alloc(len: number): Uint32Array {
    if (this.off + len > this.buf.length) {
      this.buf = new Uint32Array(Math.max(this.buf.length * 2, len * 4));
      this.off = 0;
    }
    const v = this.buf.subarray(this.off, this.off + len);
    this.off += len;
    v.fill(0);
    return v;
  }
}

const ARENA = new Arena();

/**
 * Memory for relations that outlive a check (cached structures, witnesses):
 * carved from large chunks that are never reused, so nothing is ever
 * overwritten; a chunk is freed when no relation in it is referenced. This
 * keeps the number of ArrayBuffers (and the garbage collector's work) small.
 */
class Chunks {
  buf = new Uint32Array(1 << 16);
  off = 0;
  alloc(len: number): Uint32Array {
    if (this.off + len > this.buf.length) {
      this.buf = new Uint32Array(Math.max(1 << 16, len));
      this.off = 0;
    }
    const v = this.buf.subarray(this.off, this.off + len);
    this.off += len;
    return v;
  }
}

const CHUNKS = new Chunks();
let arenaActive = false;

function words(len: number): Uint32Array {
  return arenaActive ? ARENA.alloc(len) : CHUNKS.alloc(len);
}

/** Runs f with relations allocated from scratch memory, released on return. */
export function scratch<T>(f: () => T): T {
  if (arenaActive) return f();
  arenaActive = true;
  const off = ARENA.off;
  try {
    return f();
  } finally {
    arenaActive = false;
    ARENA.off = off;
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
  readonly bits: Uint32Array;
  constructor(
    readonly n: number,
    bits?: Uint32Array,
  ) {
    this.bits = bits ?? words((n + 31) >>> 5);
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
    this.bits[e >>> 5] |= 1 << (e & 31);
  }

  has(e: number): boolean {
    return (this.bits[e >>> 5] & (1 << (e & 31))) !== 0;
  }

  or(...others: EventSet[]): EventSet {
    const r = new EventSet(this.n);
    r.bits.set(this.bits);
    for (const o of others) for (let i = 0; i < r.bits.length; i++) r.bits[i] |= o.bits[i];
    return r;
  }

  and(o: EventSet): EventSet {
    const r = new EventSet(this.n);
    for (let i = 0; i < r.bits.length; i++) r.bits[i] = this.bits[i] & o.bits[i];
    return r;
  }

  minus(o: EventSet): EventSet {
    const r = new EventSet(this.n);
    for (let i = 0; i < r.bits.length; i++) r.bits[i] = this.bits[i] & ~o.bits[i];
    return r;
  }

  complement(): EventSet {
    const r = new EventSet(this.n);
    for (let e = 0; e < this.n; e++) if (!this.has(e)) r.add(e);
    return r;
  }

  isEmpty(): boolean {
    for (let i = 0; i < this.bits.length; i++) if (this.bits[i] !== 0) return false;
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
      r.rows.set(t.bits, e * w);
    }
    return r;
  }
}

export class Relation {
  readonly w: number;
  readonly rows: Uint32Array;

  constructor(
    readonly n: number,
    rows?: Uint32Array,
  ) {
    this.w = (n + 31) >>> 5;
    this.rows = rows ?? words(n * this.w);
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
    this.rows[a * this.w + (b >>> 5)] |= 1 << (b & 31);
  }

  has(a: number, b: number): boolean {
    return (this.rows[a * this.w + (b >>> 5)] & (1 << (b & 31))) !== 0;
  }

  clone(): Relation {
    const r = new Relation(this.n);
    r.rows.set(this.rows);
    return r;
  }

  or(...others: Relation[]): Relation {
    const r = this.clone();
    for (const o of others) for (let i = 0; i < r.rows.length; i++) r.rows[i] |= o.rows[i];
    return r;
  }

  and(o: Relation): Relation {
    const r = new Relation(this.n);
    for (let i = 0; i < r.rows.length; i++) r.rows[i] = this.rows[i] & o.rows[i];
    return r;
  }

  minus(o: Relation): Relation {
    const r = new Relation(this.n);
    for (let i = 0; i < r.rows.length; i++) r.rows[i] = this.rows[i] & ~o.rows[i];
    return r;
  }

  /** r ; s */
  seq(s: Relation): Relation {
    const n = this.n;
    const w = this.w;
    const out = new Relation(n);
    const a = this.rows;
    const b = s.rows;
    const o = out.rows;
    for (let i = 0; i < n; i++) {
      const base = i * w;
      for (let k = 0; k < w; k++) {
        let word = a[base + k];
        while (word !== 0) {
          const bit = word & -word;
          const j = (k << 5) + (31 - Math.clz32(bit));
          word ^= bit;
          const jb = j * w;
          for (let m = 0; m < w; m++) o[base + m] |= b[jb + m];
        }
      }
    }
    return out;
  }

  /** r^-1 */
  inv(): Relation {
    const r = new Relation(this.n);
    this.forEach((a, b) => r.add(b, a));
    return r;
  }

  /** r+ (transitive closure, Warshall over bit rows). */
  plus(): Relation {
    const n = this.n;
    const w = this.w;
    const r = this.clone();
    const x = r.rows;
    for (let k = 0; k < n; k++) {
      const kb = k * w;
      const kw = k >>> 5;
      const kbit = 1 << (k & 31);
      for (let i = 0; i < n; i++) {
        if ((x[i * w + kw] & kbit) === 0) continue;
        const ib = i * w;
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
      for (let m = 0; m < w; m++) {
        r.rows[i * w + m] = this.rows[i * w + m] & (t ? t.bits[m] : 0xffffffff);
      }
    }
    return r;
  }

  domain(): EventSet {
    const s = new EventSet(this.n);
    for (let i = 0; i < this.n; i++) {
      for (let m = 0; m < this.w; m++) {
        if (this.rows[i * this.w + m] !== 0) {
          s.add(i);
          break;
        }
      }
    }
    return s;
  }

  range(): EventSet {
    const s = new EventSet(this.n);
    for (let i = 0; i < this.n; i++) for (let m = 0; m < this.w; m++) s.bits[m] |= this.rows[i * this.w + m];
    return s;
  }

  isEmpty(): boolean {
    for (let i = 0; i < this.rows.length; i++) if (this.rows[i] !== 0) return false;
    return true;
  }

  irreflexive(): boolean {
    for (let i = 0; i < this.n; i++) if (this.has(i, i)) return false;
    return true;
  }

  acyclic(): boolean {
    // Kahn's algorithm on the bit rows: cheaper than a closure.
    const n = this.n;
    const w = this.w;
    const indeg = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < w; k++) {
        let word = this.rows[i * w + k];
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
        let word = this.rows[i * w + k];
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
        let word = this.rows[i * w + k];
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

  /** One cycle of the relation, as a list of events, or null if acyclic. */
  findCycle(): number[] | null {
    const n = this.n;
    const color = new Uint8Array(n);
    const parent = new Int32Array(n).fill(-1);
    const succ = (i: number): number[] => {
      const out: number[] = [];
      for (let k = 0; k < this.w; k++) {
        let word = this.rows[i * this.w + k];
        while (word !== 0) {
          const bit = word & -word;
          out.push((k << 5) + (31 - Math.clz32(bit)));
          word ^= bit;
        }
      }
      return out;
    };
    for (let s = 0; s < n; s++) {
      if (color[s] !== 0) continue;
      const stack: [number, number[], number][] = [[s, succ(s), 0]];
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
          parent[j] = top[0];
          stack.push([j, succ(j), 0]);
        }
      }
    }
    return null;
  }
}

/** The least fixpoint of f, starting from the empty relation (cat's `let rec`). */
export function fixpoint(n: number, f: (r: Relation) => Relation): Relation {
  let cur = Relation.empty(n);
  for (;;) {
    const next = f(cur);
    let same = true;
    for (let i = 0; i < next.rows.length; i++) {
      if (next.rows[i] !== cur.rows[i]) {
        same = false;
        break;
      }
    }
    if (same) return cur;
    cur = next;
  }
}
