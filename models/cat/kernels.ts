// The operations of a staged model (models/cat/dag.ts) on one Int32Array,
// each on places given by offsets: a set is w = ceil(n / 32) words, a
// relation n rows of w words. models/cat/execute.ts runs a structure's
// graph with them; the code models/cat/generate.ts writes calls the
// bigger ones (closures, acyclicity, a with's choice). They allocate
// nothing (a few scratch words of B where they need some), and each
// returns whether its result is non-empty where the caller wants to know.

import type { CatPos } from './ast.js';
import { ModelError } from './lexer.js';

/** Whether the len words at o are not all zero (1 or 0). */
function nonEmpty(B: Int32Array, o: number, len: number): number {
  for (let q = 0; q < len; q++) if (B[o + q] !== 0) return 1;
  return 0;
}

function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The valid bits of word k of a row of n events. */
function maskOf(n: number, W: number, k: number): number {
  return k === W - 1 && n % 32 !== 0 ? (1 << (n % 32)) - 1 : -1;
}

/**
 * Kahn's algorithm on the relation at o: whether it is acyclic, with a
 * topological order of its events at S + n .. S + 2n - 1 when it is (S ..
 * S + n - 1: in-degrees, then used up).
 */
function topologicalOrder(B: Int32Array, o: number, n: number, W: number, S: number): boolean {
  for (let i = 0; i < n; i++) B[S + i] = 0;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < W; k++) {
      let x = B[o + i * W + k];
      while (x !== 0) {
        const t = x & -x;
        x ^= t;
        B[S + (k << 5) + 31 - Math.clz32(t)]++;
      }
    }
  }
  // The order doubles as the queue: events are appended when their in-degree reaches 0.
  let tail = 0;
  for (let i = 0; i < n; i++) if (B[S + i] === 0) B[S + n + tail++] = i;
  for (let head = 0; head < tail; head++) {
    const i = B[S + n + head];
    for (let k = 0; k < W; k++) {
      let x = B[o + i * W + k];
      while (x !== 0) {
        const t = x & -x;
        x ^= t;
        const j = (k << 5) + 31 - Math.clz32(t);
        if (--B[S + j] === 0) B[S + n + tail++] = j;
      }
    }
  }
  return tail === n;
}

/** One part of a with's choice, by places in B: a linearisation of the set at `over` (>= 0) containing the order at `order` (or -1), or a pick among `candidates`. */
export interface ChoicePlaces {
  over: number;
  order: number;
  /** rf | co is a strict total order of the set at `over` by construction (dag.ts ChoicePart). */
  total: boolean;
  candidates: readonly number[];
  pos?: CatPos;
}

const has = (B: Int32Array, s: number, i: number) => (B[s + (i >>> 5)] & (1 << (i & 31))) !== 0;

/** Thrown (not an Error: no stack is taken) when a with whose step is skipped finds nothing (execute.ts, generate.ts). */
export const NOT_FOUND = { notFound: true };

export const KERNELS = {
  nonEmpty,
  NOT_FOUND,

  or(B: Int32Array, o: number, a: number, b: number, len: number): number {
    let ne = 0;
    for (let q = 0; q < len; q++) ne |= B[o + q] = B[a + q] | B[b + q];
    return ne !== 0 ? 1 : 0;
  },

  and(B: Int32Array, o: number, a: number, b: number, len: number): number {
    let ne = 0;
    for (let q = 0; q < len; q++) ne |= B[o + q] = B[a + q] & B[b + q];
    return ne !== 0 ? 1 : 0;
  },

  minus(B: Int32Array, o: number, a: number, b: number, len: number): number {
    let ne = 0;
    for (let q = 0; q < len; q++) ne |= B[o + q] = B[a + q] & ~B[b + q];
    return ne !== 0 ? 1 : 0;
  },

  /** [S] ; r */
  rows(B: Int32Array, o: number, r: number, s: number, n: number, W: number): number {
    let ne = 0;
    for (let i = 0; i < n; i++) {
      const keep = has(B, s, i);
      for (let k = 0; k < W; k++) ne |= B[o + i * W + k] = keep ? B[r + i * W + k] : 0;
    }
    return ne !== 0 ? 1 : 0;
  },

  /** r ; [S] */
  cols(B: Int32Array, o: number, r: number, s: number, n: number, W: number): number {
    let ne = 0;
    for (let i = 0; i < n; i++) for (let k = 0; k < W; k++) ne |= B[o + i * W + k] = B[r + i * W + k] & B[s + k];
    return ne !== 0 ? 1 : 0;
  },

  /** ~a, of a set (rows = 1) or a relation (rows = n). */
  comp(B: Int32Array, o: number, a: number, rows: number, n: number, W: number): number {
    let ne = 0;
    for (let i = 0; i < rows; i++) for (let k = 0; k < W; k++) ne |= B[o + i * W + k] = ~B[a + i * W + k] & maskOf(n, W, k);
    return ne !== 0 ? 1 : 0;
  },

  /** [S] */
  id(B: Int32Array, o: number, s: number, n: number, W: number): number {
    B.fill(0, o, o + n * W);
    let ne = 0;
    for (let i = 0; i < n; i++) {
      if (!has(B, s, i)) continue;
      B[o + i * W + (i >>> 5)] = 1 << (i & 31);
      ne = 1;
    }
    return ne;
  },

  /** r? */
  opt(B: Int32Array, o: number, a: number, n: number, W: number): number {
    for (let q = 0; q < n * W; q++) B[o + q] = B[a + q];
    for (let i = 0; i < n; i++) B[o + i * W + (i >>> 5)] |= 1 << (i & 31);
    return n > 0 ? 1 : 0;
  },

  /** S * T */
  cross(B: Int32Array, o: number, s: number, t: number, n: number, W: number): number {
    let ne = 0;
    for (let i = 0; i < n; i++) {
      const keep = has(B, s, i);
      for (let k = 0; k < W; k++) ne |= B[o + i * W + k] = keep ? B[t + k] : 0;
    }
    return ne !== 0 ? 1 : 0;
  },

  /** r ; s */
  seq(B: Int32Array, o: number, a: number, b: number, n: number, W: number): number {
    let ne = 0;
    if (W === 1) {
      for (let i = 0; i < n; i++) {
        let x = B[a + i];
        let r = 0;
        while (x !== 0) {
          const t = x & -x;
          x ^= t;
          r |= B[b + 31 - Math.clz32(t)];
        }
        ne |= B[o + i] = r;
      }
      return ne !== 0 ? 1 : 0;
    }
    for (let i = 0; i < n; i++) {
      const ro = o + i * W;
      for (let m = 0; m < W; m++) B[ro + m] = 0;
      for (let k = 0; k < W; k++) {
        let x = B[a + i * W + k];
        while (x !== 0) {
          const t = x & -x;
          x ^= t;
          const jo = b + ((k << 5) + 31 - Math.clz32(t)) * W;
          for (let m = 0; m < W; m++) B[ro + m] |= B[jo + m];
        }
      }
      for (let m = 0; m < W; m++) ne |= B[ro + m];
    }
    return ne !== 0 ? 1 : 0;
  },

  /** Whether r ; s is irreflexive, without composing it. */
  irreflexiveSeq(B: Int32Array, a: number, b: number, n: number, W: number): boolean {
    for (let i = 0; i < n; i++) {
      const iw = i >>> 5;
      const ib = 1 << (i & 31);
      for (let k = 0; k < W; k++) {
        let x = B[a + i * W + k];
        while (x !== 0) {
          const t = x & -x;
          x ^= t;
          if ((B[b + ((k << 5) + 31 - Math.clz32(t)) * W + iw] & ib) !== 0) return false;
        }
      }
    }
    return true;
  },

  irreflexive(B: Int32Array, a: number, n: number, W: number): boolean {
    for (let i = 0; i < n; i++) if ((B[a + i * W + (i >>> 5)] & (1 << (i & 31))) !== 0) return false;
    return true;
  },

  /** r^-1 */
  inv(B: Int32Array, o: number, a: number, n: number, W: number): number {
    B.fill(0, o, o + n * W);
    let ne = 0;
    for (let i = 0; i < n; i++) {
      const iw = i >>> 5;
      const ib = 1 << (i & 31);
      for (let k = 0; k < W; k++) {
        let x = B[a + i * W + k];
        ne |= x;
        while (x !== 0) {
          const t = x & -x;
          x ^= t;
          B[o + ((k << 5) + 31 - Math.clz32(t)) * W + iw] |= ib;
        }
      }
    }
    return ne !== 0 ? 1 : 0;
  },

  /**
   * r+ in place. Most relations closed in a model are acyclic (hb, cumul-fence,
   * rf ; rmw): their events are put in a topological order (Kahn's
   * algorithm, S: 2n scratch words) and each row gathers its successors'
   * closed rows, last event first, in time linear in the pairs; a relation
   * with a cycle is closed by Warshall's algorithm over bit rows.
   */
  close(B: Int32Array, o: number, n: number, W: number, S: number): void {
    if (topologicalOrder(B, o, n, W, S)) {
      // S + n .. S + 2n - 1: the order; gather from the last.
      for (let q = n - 1; q >= 0; q--) {
        const i = B[S + n + q];
        const io = o + i * W;
        for (let k = 0; k < W; k++) {
          let x = B[io + k];
          while (x !== 0) {
            const t = x & -x;
            x ^= t;
            const jo = o + ((k << 5) + 31 - Math.clz32(t)) * W;
            for (let m = 0; m < W; m++) B[io + m] |= B[jo + m];
          }
        }
      }
      return;
    }
    if (W === 1) {
      for (let k = 0; k < n; k++) {
        const rk = B[o + k];
        if (rk === 0) continue;
        const kb = 1 << k;
        for (let i = 0; i < n; i++) if ((B[o + i] & kb) !== 0) B[o + i] |= rk;
      }
      return;
    }
    for (let k = 0; k < n; k++) {
      const ko = o + k * W;
      let any = 0;
      for (let m = 0; m < W; m++) any |= B[ko + m];
      if (any === 0) continue;
      const kw = k >>> 5;
      const kb = 1 << (k & 31);
      for (let i = 0; i < n; i++) {
        const io = o + i * W;
        if ((B[io + kw] & kb) !== 0) for (let m = 0; m < W; m++) B[io + m] |= B[ko + m];
      }
    }
  },

  /** r+ (star: r*) of the relation at a, into o (S: 2n scratch words). */
  closure(B: Int32Array, o: number, a: number, n: number, W: number, star: boolean, S: number): number {
    let ne = 0;
    for (let q = 0; q < n * W; q++) ne |= B[o + q] = B[a + q];
    if (ne !== 0) KERNELS.close(B, o, n, W, S);
    if (!star) return ne !== 0 ? 1 : 0;
    for (let i = 0; i < n; i++) B[o + i * W + (i >>> 5)] |= 1 << (i & 31);
    return n > 0 ? 1 : 0;
  },

  domain(B: Int32Array, o: number, a: number, n: number, W: number): number {
    for (let k = 0; k < W; k++) B[o + k] = 0;
    let ne = 0;
    for (let i = 0; i < n; i++) {
      let any = 0;
      for (let k = 0; k < W; k++) any |= B[a + i * W + k];
      if (any !== 0) {
        B[o + (i >>> 5)] |= 1 << (i & 31);
        ne = 1;
      }
    }
    return ne;
  },

  range(B: Int32Array, o: number, a: number, n: number, W: number): number {
    for (let k = 0; k < W; k++) B[o + k] = 0;
    for (let i = 0; i < n; i++) for (let k = 0; k < W; k++) B[o + k] |= B[a + i * W + k];
    return nonEmpty(B, o, W);
  },

  /** The candidate's rf, all of it: from its reads' sources. */
  readsFrom(B: Int32Array, o: number, src: readonly number[], n: number, W: number): number {
    B.fill(0, o, o + n * W);
    let ne = 0;
    for (let r = 0; r < n; r++) {
      const s = src[r];
      if (s >= 0) {
        B[o + s * W + (r >>> 5)] |= 1 << (r & 31);
        ne = 1;
      }
    }
    return ne;
  },

  /** The candidate's co, all of it: each write before every later write of its list (S: w scratch words). */
  coherence(B: Int32Array, o: number, lists: readonly (readonly number[])[], n: number, W: number, S: number): number {
    B.fill(0, o, o + n * W);
    let ne = 0;
    for (const L of lists) {
      for (let m = 0; m < W; m++) B[S + m] = 0;
      for (let j = L.length - 1; j >= 0; j--) {
        const e = L[j];
        for (let m = 0; m < W; m++) B[o + e * W + m] = B[S + m];
        B[S + (e >>> 5)] |= 1 << (e & 31);
      }
      if (L.length > 1) ne = 1;
    }
    return ne;
  },

  /** The final writes of the observed locations. */
  finalWrites(B: Int32Array, o: number, lists: readonly (readonly number[])[], observed: readonly number[], W: number): number {
    for (let k = 0; k < W; k++) B[o + k] = 0;
    let ne = 0;
    for (const loc of observed) {
      const L = lists[loc];
      if (L !== undefined && L.length > 0) {
        const e = L[L.length - 1];
        B[o + (e >>> 5)] |= 1 << (e & 31);
        ne = 1;
      }
    }
    return ne;
  },

  /** Whether the relation at o is acyclic (Kahn's algorithm; S: 2n scratch words). */
  acyclic(B: Int32Array, o: number, n: number, W: number, S: number): boolean {
    return topologicalOrder(B, o, n, W, S);
  },

  /** Whether the relation at a, within S x S, is inside the relation at t. */
  included(B: Int32Array, a: number, t: number, s: number, n: number, W: number): boolean {
    for (let i = 0; i < n; i++) {
      if (!has(B, s, i)) continue;
      for (let m = 0; m < W; m++) if ((B[a + i * W + m] & ~B[t + i * W + m] & B[s + m]) !== 0) return false;
    }
    return true;
  },

  /**
   * Whether the relation at t, within S x S, is a strict total order of S:
   * irreflexive, with the distinct out-degrees 0 .. m-1, relating every two
   * members (Relation.isStrictTotalOrderOn).
   */
  totalOn(B: Int32Array, t: number, s: number, n: number, W: number): boolean {
    let m = 0;
    for (let i = 0; i < n; i++) if (has(B, s, i)) m++;
    // The degrees seen, as bits (m is at most n).
    let seenLow = 0;
    let seenMore: Uint8Array | null = m > 31 ? new Uint8Array(m) : null;
    for (let i = 0; i < n; i++) {
      if (!has(B, s, i)) continue;
      if ((B[t + i * W + (i >>> 5)] & (1 << (i & 31))) !== 0) return false;
      let d = 0;
      for (let q = 0; q < W; q++) d += popcount(B[t + i * W + q] & B[s + q]);
      if (d >= m) return false;
      if (seenMore) {
        if (seenMore[d]) return false;
        seenMore[d] = 1;
      } else {
        if ((seenLow & (1 << d)) !== 0) return false;
        seenLow |= 1 << d;
      }
    }
    seenMore = null;
    // Every two members related one way or the other.
    for (let i = 0; i < n; i++) {
      if (!has(B, s, i)) continue;
      for (let j = i + 1; j < n; j++) {
        if (has(B, s, j) && (B[t + i * W + (j >>> 5)] & (1 << (j & 31))) === 0 && (B[t + j * W + (i >>> 5)] & (1 << (i & 31))) === 0) return false;
      }
    }
    return true;
  },

  /** out |= (t within S x S). */
  orRestricted(B: Int32Array, o: number, t: number, s: number, n: number, W: number): void {
    for (let i = 0; i < n; i++) {
      if (!has(B, s, i)) continue;
      for (let m = 0; m < W; m++) B[o + i * W + m] |= B[t + i * W + m] & B[s + m];
    }
  },

  /** The one candidate (by its place) inside the relation at t: -1 none, -2 more than one. */
  pick(B: Int32Array, offs: readonly number[], t: number, len: number): number {
    let found = -1;
    for (const c of offs) {
      let inside = true;
      for (let q = 0; q < len && inside; q++) if ((B[c + q] & ~B[t + q]) !== 0) inside = false;
      if (!inside) continue;
      if (found >= 0) return -2;
      found = c;
    }
    return found;
  },

  /**
   * with X from S, its parts in order (see ChoicePlaces): the element of
   * each that the candidate's rf | co (at t) contains, their union into o;
   * false when a part has none (a linearisation: a strict total order of its
   * set containing its order; a pick: exactly one of its relations, two
   * are refused).
   */
  choose(B: Int32Array, o: number, t: number, parts: readonly ChoicePlaces[], n: number, W: number): boolean {
    B.fill(0, o, o + n * W);
    for (const p of parts) {
      if (p.over >= 0) {
        if ((p.order >= 0 && !KERNELS.included(B, p.order, t, p.over, n, W)) || (!p.total && !KERNELS.totalOn(B, t, p.over, n, W))) return false;
        KERNELS.orRestricted(B, o, t, p.over, n, W);
      } else {
        const c = KERNELS.pick(B, p.candidates, t, n * W);
        if (c === -2) throw KERNELS.ambiguous(p.pos!);
        if (c < 0) return false;
        KERNELS.orInto(B, o, c, n * W);
      }
    }
    return true;
  },

  orInto(B: Int32Array, o: number, src: number, len: number): void {
    for (let q = 0; q < len; q++) B[o + q] |= B[src + q];
  },

  /** different-values(r): the pairs of r whose events carry different values. */
  diffValues(B: Int32Array, o: number, a: number, n: number, W: number, events: readonly { value: unknown }[]): number {
    let ne = 0;
    B.fill(0, o, o + n * W);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < W; k++) {
        let x = B[a + i * W + k];
        while (x !== 0) {
          const t = x & -x;
          x ^= t;
          const j = (k << 5) + 31 - Math.clz32(t);
          if (events[i].value !== events[j].value) {
            B[o + i * W + k] |= t;
            ne = 1;
          }
        }
      }
    }
    return ne;
  },

  ambiguous(pos: CatPos): Error {
    return new ModelError('with ... from: more than one candidate matches the execution litmus built; litmus cannot enumerate this set', pos);
  },

  noFixpoint(pos: CatPos): Error {
    return new ModelError('let rec: no fixpoint reached', pos);
  },
};
