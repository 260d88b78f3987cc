import type { Execution } from './execution.js';

export interface Verdict {
  consistent: boolean;
  /** The first axiom the execution breaks, when inconsistent. */
  violated?: string;
  /** Flags raised by a consistent execution (e.g. data-race). */
  flags: string[];
}

/** A memory model: decides whether a candidate execution may happen. */
export interface Model {
  name: string;
  /** One line on what the model is. */
  description: string;
  /**
   * Load buffering (a cycle of reads each reading a write that is later in
   * program order than another read): 'never' if the model keeps every read
   * before every later write; 'unordered' if it allows the cycle only when
   * some read-to-write pair is out of its preserved program order (as the
   * LKMM, with rf between marked accesses in happens-before); 'any' to
   * have every such cycle explored and judged (no assumption at all).
   */
  loadBuffering: 'never' | 'unordered' | 'any';
  /**
   * Whether marked accesses in critical sections of one lock are ordered by
   * the lock: a read sees the writes of earlier critical sections (or later
   * ones in coherence order), and a write is coherence-after them. True of
   * SC, x86-TSO and the LKMM (lock.cat's rf from unlock to lock, with
   * release/acquire cumulativity, gives an hb cycle otherwise).
   */
  mutualExclusion: boolean;
  /**
   * `prefix`: the execution is a part of a larger one, being built; the
   * model may check only its cheaper axioms (an answer of consistent is
   * then only a "maybe").
   */
  check(x: Execution, opts?: { prefix?: boolean }): Verdict;
  /**
   * Why an inconsistent execution is forbidden: a cycle of the relation the
   * violated axiom requires acyclic (or irreflexive), with its name.
   */
  explain?(x: Execution, axiom: string): Highlight | undefined;
  /**
   * For explanations of an allowed outcome: how the model keeps the
   * program-order pair a -> b (distinct events of one thread) in order in
   * this consistent execution, or undefined when it does not order them.
   */
  orderOf?(x: Execution, a: number, b: number): Ordering | undefined;
  /**
   * The pairs of program order the model keeps in order on their CPU (its
   * preserved program order, ppo), for pictures.
   */
  preserved?(x: Execution): [number, number][];
}

/** Why a model keeps two events of one thread in order. */
export interface Ordering {
  /** In words, e.g. "smp_wmb()", "a control dependency", "acquire (smp_load_acquire)". */
  how: string;
  /** The model's name for it (ppo, wmb, rmb, po-rel, acq-po, strong-fence, ctrl, ...). */
  relation: string;
  /**
   * Whether the order also holds for other CPUs' writes this CPU saw first
   * (A-cumulative: release, smp_mb(), grace periods; not dependencies,
   * acquire or smp_rmb()).
   */
  cumulative: boolean;
}

/** A cycle to show, as event-id pairs in order, and the relation it is of. */
export interface Highlight {
  name: string;
  edges: [number, number][];
  /** Per edge, the part of the relation it belongs to (e.g. ppo, rfe, prop for hb). */
  labels?: string[];
}
