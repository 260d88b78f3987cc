// Why a thread can wait forever (src/explore/liveness.ts): the stuck
// execution, as numbered steps per CPU; what each stuck thread's final pass
// keeps reading (the last writes of their locations); what would release it
// and why that never happens (the write is never made: its thread went past
// it, and the reads that took it there missed another CPU's write, or it
// waits forever itself; or it is made and overwritten); and checked fixes:
// the changes of the fix search (src/report/fixes.ts), each applied and the
// test explored again until no thread can wait forever.

import { formatValue, type CheckResult } from '../check.js';
import type { Event } from '../events/event.js';
import { effectOf } from '../events/primitives.js';
import { explore } from '../explore/explorer.js';
import type { StuckThread } from '../explore/liveness.js';
import type { Execution } from '../model/execution.js';
import type { Model } from '../model/model.js';
import type { Pos } from '../parse/ast.js';
import { LimitError } from '../parse/errors.js';
import { addressOf, evalPure, pureRegs, type PrimInstr, type Program } from '../program/program.js';
import { sc } from '../../models/sc.js';
import { candidateChanges, findFixes, MAX_CHANGES, type Limits, type Namer } from './fixes.js';
import { stepNumbers } from './steps.js';
import { executionSteps, traceJson, type TraceJson, type TraceOptions } from './trace.js';

export interface WaitsTraceOptions {
  tryFixes?: boolean;
  limits?: Limits;
  /** Names the source place of a position (a TypeScript suite: file:line); default "line N". */
  where?: (pos: Pos) => string | undefined;
}

/** The trace of a hang, and the fix search's findings (as TraceJson's). */
export interface WaitsTrace {
  text: string;
  fixes?: TraceJson['fixes'];
}

/** Whether some thread of the program can wait forever under the model; undefined when a limit stopped the check. */
export function canHang(prog: Program, model: Model, limits: Limits): boolean | undefined {
  try {
    return (explore(prog, model, { ...limits, stopAtHang: true, livenessOnly: true }).liveness?.hangs ?? 0) > 0;
  } catch (e) {
    if (e instanceof LimitError) return undefined;
    throw e;
  }
}

/** The trace of the hang a check found, or undefined where it found none. */
export function waitsTrace(r: CheckResult, model: Model, opts: WaitsTraceOptions = {}): WaitsTrace | undefined {
  const hang = r.liveness?.witness;
  if (!hang) return undefined;
  const prog = r.program;
  const x = hang.exec;
  const where = (pos: Pos) => opts.where?.(pos) ?? `line ${pos.line}`;
  const steps = stepNumbers(x);
  const out: string[] = [];
  const first = hang.threads.find((t) => t.kind !== 'grace-period') ?? hang.threads[0];
  const others = hang.threads.filter((t) => t !== first).map((t) => `P${t.thread}`);
  out.push(`P${first.thread} can wait forever: an execution ${model.name} allows in which ${others.length ? `${others.join(', ')} wait${others.length === 1 ? 's' : ''} forever too and ` : ''}every other thread has finished:`);
  out.push(...executionSteps(prog, x, opts.where));
  for (const st of hang.threads) out.push(...whyStuck(prog, x, st, hang.threads, steps, where));
  if (opts.tryFixes) {
    const found = fixLines(prog, model, x, opts.limits ?? {}, where);
    out.push('', ...found.lines);
    return { text: out.join('\n'), fixes: found.fixes };
  }
  return { text: out.join('\n') };
}

/** Why one stuck thread waits forever. */
function whyStuck(prog: Program, x: Execution, st: StuckThread, all: readonly StuckThread[], steps: Map<number, string>, where: (pos: Pos) => string): string[] {
  const th = prog.threads[st.thread];
  const name = (e: Event) => (e.thread < 0 ? 'the initial value' : `${steps.get(e.id)}${e.pos ? `, ${where(e.pos)}` : ''}`);
  if (st.kind === 'loop') {
    const at = where(th.loops[st.loop].pos);
    const reads = x.events.filter((e) => e.thread === st.thread && e.poIndex >= st.from && e.kind === 'R');
    if (reads.length === 0) return [`  P${st.thread}'s loop at ${at} reads nothing: it goes round forever whatever the other CPUs do.`];
    const seen = reads.map((r) => `${prog.locations[r.loc]}=${formatValue(prog, r.value)} (${name(x.events[x.rfSource[r.id]])})`);
    const lines = [`  P${st.thread}'s last pass of the loop at ${at} (${[...new Set(reads.map((r) => steps.get(r.id)))].join(', ')}) reads ${seen.join(', ')}, the last write${reads.length > 1 ? 's' : ''} to ${reads.length > 1 ? 'those locations' : prog.locations[reads[0].loc]}, and goes round again: it will forever.`];
    for (const loc of [...new Set(reads.map((r) => r.loc))]) lines.push(...releasers(prog, x, st.thread, loc, reads.find((r) => r.loc === loc)!.value, all, steps, where));
    return lines;
  }
  const ins = th.code[st.pc] as PrimInstr;
  if (st.kind === 'lock') {
    const co = x.co[st.loc];
    const holder = co.length ? x.events[co[co.length - 1]] : undefined;
    const lock = prog.locations[st.loc];
    if (!holder || holder.lock !== 'LKW') return [`  P${st.thread} waits at ${ins.name}(${lock}) (${where(ins.pos)}).`];
    const by = holder.thread === st.thread ? 'its own' : `P${holder.thread}'s`;
    const stuckHolder = all.find((t) => t.thread === holder.thread && t !== st);
    const never = stuckHolder ? `P${holder.thread} waits forever itself (${stuckWhere(prog, stuckHolder, where)})` : holder.thread === st.thread ? 'the lock is taken again inside its own critical section' : `P${holder.thread} finished without unlocking it`;
    return [`  P${st.thread} waits at ${ins.name}(${lock}) (${where(ins.pos)}): the last write to ${lock} is ${by} ${holder.text ?? 'spin_lock'}() (${name(holder)}), never unlocked: ${never}.`];
  }
  // A grace period, blocked by a thread that waits forever inside a read-side critical section.
  const blockers = all.filter((o) => o !== st && o.kind !== 'grace-period').map((o) => `P${o.thread} waits forever inside its critical section (${stuckWhere(prog, o, where)})`);
  return [`  P${st.thread} waits at ${ins.name}() (${where(ins.pos)}): its grace period waits for the read-side critical sections begun before it, and ${blockers.length ? blockers.join('; ') : 'one of them never ends'}.`];
}

/** Where a stuck thread waits: "the loop at line 12", "spin_lock(l) at line 9". */
function stuckWhere(prog: Program, st: StuckThread, where: (pos: Pos) => string): string {
  const th = prog.threads[st.thread];
  if (st.kind === 'loop') return `the loop at ${where(th.loops[st.loop].pos)}`;
  const ins = th.code[st.pc] as PrimInstr;
  return `${ins.name}() at ${where(ins.pos)}`;
}

/**
 * The writes of other threads to loc that would end the wait (a value other
 * than the one it keeps reading), and why none does: never made (its thread
 * went past it, or waits forever before it), or made and overwritten.
 */
function releasers(prog: Program, x: Execution, waiter: number, loc: number, kept: number, all: readonly StuckThread[], steps: Map<number, string>, where: (pos: Pos) => string): string[] {
  const lines: string[] = [];
  const made = (t: number, pc: number) => x.events.filter((e) => e.thread === t && e.pc === pc && e.kind === 'W');
  for (const { thread, pc, ins } of writersOf(prog, loc)) {
    if (thread === waiter) continue;
    const what = `P${thread}'s ${ins.name}() (${where(ins.pos)})`;
    const writes = made(thread, pc);
    if (writes.length) {
      const other = writes.filter((w) => w.value !== kept);
      if (other.length === 0) continue;
      const co = x.co[loc].map((id) => x.events[id]);
      const last = co[co.length - 1];
      lines.push(`  ${what} wrote ${prog.locations[loc]}=${formatValue(prog, other[0].value)}, but ${last.thread < 0 ? 'the initial value' : `${steps.get(last.id)} (${last.pos ? where(last.pos) : ''})`} came after it in coherence order: ${co.map((e) => (e.thread < 0 ? 'init' : steps.get(e.id))).join(' -> ')}.`);
      continue;
    }
    const stuck = all.find((t) => t.thread === thread);
    if (stuck) {
      lines.push(`  ${what} would end the wait; it is never made: P${thread} waits forever itself (${stuckWhere(prog, stuck, where)}).`);
      continue;
    }
    const missed = staleReads(x, thread);
    const why = missed.length
      ? `P${thread} went past it: ${missed.map((r) => missedWords(prog, x, r, steps, where)).join('; ')}`
      : `P${thread}'s reads took it down another path, each reading the last write to its location`;
    lines.push(`  ${what} would end the wait; it is never made: ${why}.`);
  }
  if (lines.length === 0) lines.push(`  No other thread writes ${prog.locations[loc]} in a way that could end the wait.`);
  return lines;
}

/** Thread t's reads that read a value another thread's write (in the execution) overwrote: it missed that write (fre). */
function staleReads(x: Execution, t: number): Event[] {
  return x.events.filter((r) => {
    if (r.thread !== t || r.kind !== 'R' || r.lock) return false;
    const src = x.rfSource[r.id];
    const co = x.co[r.loc];
    const i = co.indexOf(src);
    return i >= 0 && co.slice(i + 1).some((id) => x.events[id].thread >= 0 && x.events[id].thread !== t);
  });
}

/** "its read of queued (P0.2, line 32) read 0 (the initial value), not the 1 P1.1 (line 41) wrote: that write had not reached P0 (fre)". */
function missedWords(prog: Program, x: Execution, r: Event, steps: Map<number, string>, where: (pos: Pos) => string): string {
  const src = x.events[x.rfSource[r.id]];
  const co = x.co[r.loc];
  const later = x.events[co[co.indexOf(src.id) + 1]];
  const from = src.thread < 0 ? 'the initial value' : `from ${steps.get(src.id)}`;
  const at = (e: Event) => `${steps.get(e.id)}${e.pos ? `, ${where(e.pos)}` : ''}`;
  return `its read of ${prog.locations[r.loc]} (${at(r)}) read ${formatValue(prog, r.value)} (${from}), not the ${formatValue(prog, later.value)} P${later.thread} wrote (${at(later)}): that write had not reached P${r.thread} (fre)`;
}

/** The write instructions to loc in the program (their address fixed by the code: a parameter or a constant). */
function writersOf(prog: Program, loc: number): { thread: number; pc: number; ins: PrimInstr }[] {
  const out: { thread: number; pc: number; ins: PrimInstr }[] = [];
  for (const th of prog.threads) {
    const params = new Set(th.paramRegs);
    th.code.forEach((ins, pc) => {
      if (ins.op !== 'prim') return;
      const e = effectOf(ins.prim);
      if (e.object !== 'memory' || !e.writes) return;
      if (!pureRegs(ins.addr).every((r) => params.has(r))) return;
      if (evalPure(ins.addr, th.initRegs) === addressOf(prog, loc)) out.push({ thread: th.index, pc, ins });
    });
  }
  return out;
}

/** The fix search for waits: changes after which no thread can wait forever, each checked by exploring again. */
function fixLines(prog: Program, model: Model, x: Execution, limits: Limits, where: (pos: Pos) => string): { lines: string[]; fixes?: TraceJson['fixes'] } {
  const underSc = canHang(prog, sc, limits);
  if (underSc) {
    return {
      lines: ['A thread can wait forever even under sequential consistency: no barrier or ordering annotation can make', 'every wait terminate; the algorithm itself can hang.'],
      fixes: { found: [], candidates: [], sets: 0, checks: 0, sequentiallyConsistent: true },
    };
  }
  if (underSc === undefined) return { lines: ['(No fixes looked for: checking under sequential consistency reached the limits.)'] };
  const steps = stepNumbers(x);
  const namer: Namer = {
    step: (t, pc) => {
      const e = x.events.filter((ev) => ev.thread === t && ev.pc === pc).sort((a, b) => a.poIndex - b.poIndex)[0];
      return e && steps.get(e.id);
    },
    where,
  };
  const search = findFixes(prog, model, candidateChanges(prog, namer), limits, canHang);
  const json: TraceJson['fixes'] = {
    found: search.fixes.map((set) => ({ changes: set.map((c) => c.text), cost: set.reduce((n, c) => n + c.cost, 0) })),
    candidates: search.candidates.map((c) => c.text),
    sets: search.sets,
    checks: search.checks,
    stopped: search.stopped,
  };
  const lines: string[] = [];
  if (search.fixes.length === 0) {
    if (search.noneAtAll) lines.push(`No change of the ${search.changes} candidate changes makes every wait terminate under ${model.name}, not even all of them at once.`);
    else if (search.stopped) lines.push(`No fix found under ${model.name}: the search of the ${search.sets} sets of up to ${MAX_CHANGES} changes stopped ${search.stopped}.`);
    else lines.push(`No set of up to ${MAX_CHANGES} of the ${search.changes} candidate changes makes every wait terminate under ${model.name}.`);
    return { lines, fixes: json };
  }
  lines.push(`Fixes, each checked under ${model.name} (every wait then terminates), minimal, cheapest first:`);
  search.fixes.forEach((f, i) => lines.push(`  ${i + 1}. ${f.map((c) => c.text).join('; and ')}`));
  if (search.stopped) lines.push(`  (search stopped ${search.stopped}; cheaper fixes than these were all tried)`);
  return { lines, fixes: json };
}

/**
 * `--trace`: the trace of the outcome (trace.ts), then, where a thread can
 * wait forever, the trace of that (its fixes under `waits` in the JSON).
 */
export function traceWithWaits(r: CheckResult, model: Model, opts: TraceOptions = {}): TraceJson & { waits?: TraceJson['fixes'] } {
  const t = traceJson(r, model, opts);
  const w = waitsTrace(r, model, opts);
  return w ? { text: `${t.text}\n\n${w.text}`, fixes: t.fixes, waits: w.fixes } : t;
}
