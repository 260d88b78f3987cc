import type { Event } from '../events/event.js';
import type { PrimInstr, Program, Thread } from '../program/program.js';
import type { Execution } from './execution.js';
import type { Pos } from '../parse/ast.js';

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
   * Pruning the model declares for the explorer (each answer must hold of
   * every execution the model allows). Every unfinished thread waits at a
   * read whose write is still to come, so a completion needs a
   * load-buffering cycle through these reads: each read, then a later write
   * of its thread that another waiting read reads. Whether the model may
   * allow such a cycle; false drops the branch, true has it explored (values
   * guessed) and judged. `p`: the program explored (what the model may
   * know of it: which locations its locks use).
   */
  mayCycleThrough(reads: readonly WaitingRead[], p?: Program): boolean;
  /**
   * Mutual exclusion, as pruning the model declares: access a's critical
   * section comes before access b's in the order of a lock both are inside.
   * Whether every allowed execution then orders a before b (b does not read
   * from a write that a's section overwrote, a does not read from b, and a
   * write b is coherence-after a write a); false has every order explored.
   * `p`: the program explored.
   */
  lockOrders(a: Event, b: Event, p?: Program): boolean;
  /**
   * Whether a read that is its thread's last event and reads the last write
   * of its location's coherence order keeps a consistent prefix
   * consistent: true when every relation the axioms constrain leaves an
   * event only along po, rf, co or fr out of it (or rf^-1 ; co), for such
   * a read has none of them (it gains only edges into itself). The
   * explorer then makes no prefix check for that choice (a check skipped
   * only prunes less, it never changes an answer). A function answers for
   * one program (the sets its code never produces are empty).
   */
  latestReadKeepsConsistency?: boolean | ((p: Program) => boolean);
  /**
   * Sources the model forbids a read at the read itself, as pruning it
   * declares: given the program, a test of one source of a read against
   * the execution built so far, or undefined when the model says nothing
   * (every source is tried, as for SC, x86-TSO and models read from files).
   * The test's true must mean: no execution the model allows contains the
   * events built so far with their rf and co, read r (its thread's last
   * event) reading from w, and r's thread run to its end. The explorer then
   * does not build that choice, only where dropping a branch early changes
   * no count (no loop bound, no array index check) and where it makes
   * prefix checks; false says nothing.
   */
  forbiddenSources?(prog: Program): ForbiddenSource | undefined;
  /**
   * The explorer keeps only coherent, atomic candidates (po-loc | com
   * acyclic, RMWs atomic) unless the model says it judges that itself for
   * the program at hand: a model read from files may allow what those
   * axioms forbid. A set: the locations (indexes) where the model judges
   * them itself; the explorer's filter drops candidates incoherent at the
   * others.
   */
  judgesCoherence?(p: Program): boolean | ReadonlySet<number>;
  /**
   * Why the model cannot judge this program at all, where it says so (a
   * model read from files without the variant lkmmv2, for which herd7
   * builds other events than litmus for the program's RMWs): the check
   * is refused at that position.
   */
  refuses?(p: Program): { message: string; pos: Pos } | undefined;
  /**
   * `prefix`: the execution is a part of a larger one, being built; the
   * model may check only its cheaper axioms (an answer of consistent is
   * then only a "maybe"). `anyAxiom`: an inconsistent execution's verdict
   * may name any axiom it breaks, not the first in the model's order (the
   * caller counts it, it explains nothing with it). `axiomsOnly`: judge
   * by the model's axioms alone, every one computed, with no shortcut of
   * its own (an interleaving accepted without its axioms, a cheap proof of
   * a violation): for differential runs (withoutShortcuts).
   */
  check(x: Execution, opts?: { prefix?: boolean; anyAxiom?: boolean; axiomsOnly?: boolean }): Verdict;
  /**
   * Why an inconsistent execution is forbidden: a cycle of the relation the
   * violated axiom requires acyclic (or irreflexive), with its name.
   */
  explain?(x: Execution, axiom: string): Highlight | undefined;
  /**
   * What the flag `flag` (one of check's flags for x) finds on x: the pairs
   * of its relation (an event twice for a set), each named by the model's
   * definition that holds it and what that definition subtracts.
   */
  flagged?(x: Execution, flag: string): FlagFinding | undefined;
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

/** See Model.forbiddenSources: whether read r may not take write w, given x. */
export type ForbiddenSource = (x: PartialExecution, r: Event, w: Event) => boolean;

/** The execution the explorer has built so far: its events (ids are indexes, reads' rf set or -1) and each location's coherence order so far (event ids). */
export interface PartialExecution {
  readonly events: readonly Event[];
  readonly co: readonly (readonly number[])[];
}

/** A read waiting for a write still to come (see Model.mayCycleThrough). */
export interface WaitingRead {
  read: Event;
  thread: Thread;
  /** Where the read's instruction is in thread.code. */
  pc: number;
  ins: PrimInstr;
  /** The address of the read's location. */
  address: number;
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
  /** For a model read from files: where each definition named is defined (`acq-po linux-kernel.cat:27`). */
  definedAt?: string[];
}

/** What a flag raised on an execution finds (Model.flagged). */
export interface FlagFinding {
  name: string;
  /**
   * Each pair the flag's relation holds: the definition that holds it
   * (wr-race), and what that definition subtracts, which the pair is not in
   * (wr-vis, rw-xbstar^-1: the model's reasons two accesses do not race).
   */
  pairs: { from: number; to: number; label: string; unless: string[] }[];
  /** For a model read from files: where each definition named is defined. */
  definedAt?: string[];
}

/** A cycle to show, as event-id pairs in order, and the relation it is of. */
export interface Highlight {
  name: string;
  edges: [number, number][];
  /** Per edge, the part of the relation it belongs to (e.g. ppo, rfe, prop for hb). */
  labels?: string[];
  /** The edges are a path (the pair an `empty` check finds, taken apart), not a cycle. */
  path?: boolean;
  /** For a model read from files: where each definition named is defined (`acq-po linux-kernel.cat:27`). */
  definedAt?: string[];
}

/**
 * The model with none of its shortcuts (`--no-shortcuts`, for differential
 * runs): every load-buffering guess, every lock order and every source is
 * explored, incoherent candidates too, no partial execution is judged,
 * and every candidate is judged by all of the model's axioms (check's
 * `axiomsOnly`). Its answers must be the model's: only the time differs.
 */
export function withoutShortcuts(m: Model): Model {
  return {
    ...m,
    mayCycleThrough: () => true,
    lockOrders: () => false,
    latestReadKeepsConsistency: false,
    forbiddenSources: undefined,
    judgesCoherence: () => true,
    check: (x, o) => (o?.prefix ? { consistent: true, flags: [] } : m.check(x, { axiomsOnly: true })),
  };
}
