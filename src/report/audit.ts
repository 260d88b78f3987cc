// `litmus audit`: which ordering devices of a test are load-bearing. For a
// test whose condition is Never, each device is weakened alone (a fence,
// the smp_mb__*() family included, dropped; smp_mb() to smp_wmb()/smp_rmb();
// a grace period dropped or made smp_mb(); smp_store_mb() to WRITE_ONCE();
// an acquire or release to its ONCE form, a fully ordered RMW to its relaxed
// form; an RCU, SRCU or spinlock critical section removed; a control
// dependency cut: the same code with the model given no dependency from that
// branch; an address or data dependency cut: the same code, values and
// paths, the model given no such dependency from that read to that access;
// the forms come from the primitive table) and the test is checked again
// under the same model and limits. A device is load-bearing when some weakening of it makes the
// condition reachable. A test with waits whose every wait terminates is
// weighed by liveness too: a device is load-bearing when some weakening of it
// lets a thread wait forever (src/explore/liveness.ts). For a suite (tests
// with Version:/Scenario: headers), the devices each scenario needs, side by
// side.

import { effectOf, fenceOrders } from '../events/primitives.js';
import { explore } from '../explore/explorer.js';
import type { Model } from '../model/model.js';
import { LimitError } from '../parse/errors.js';
import { applyEdits, type Edit } from '../program/edit.js';
import type { Instr, PrimInstr, Program, PureExpr } from '../program/program.js';
import type { Pos } from '../parse/ast.js';
import type { Limits } from './fixes.js';

export interface Device {
  thread: number;
  pc: number;
  /** The primitive as written (e.g. smp_load_acquire, test_bit_acquire, smp_rmb), or `ctrl`, `addr`, `data` for a dependency (pc: its branch, or its access). */
  name: string;
  line?: number;
  /** Where it is, as traces name places (`cur.ts:8` in a suite); the line number when not given. */
  place?: string;
  /** The source line, whitespace collapsed (identifies the device across a suite's tests). */
  source: string;
  /**
   * The device it needs beside it, as written (smp_mb__after_atomic() the
   * RMW before it, smp_mb__after_spinlock() the lock before it,
   * smp_mb__before_atomic() the RMW after it), with its place.
   */
  with?: string;
}

/** How an audit names the places of a test's code: a suite's file:line and the text of that line. */
export interface SourceNamer {
  /** The place of a position (`cur.ts:8`); undefined: its line number. */
  where?(pos: Pos): string | undefined;
  /** The source line at a position. */
  text(pos: Pos): string | undefined;
}

/** Names places by the lines of the test's own text (a .litmus file). */
export const linesNamer = (lines: readonly string[]): SourceNamer => ({ text: (pos) => lines[pos.line - 1] });

export interface Weakening {
  device: Device;
  /** What it becomes: "(removed)", "smp_wmb", "READ_ONCE", ... */
  to: string;
  edits: Edit[];
}

export type Verdict = 'Always' | 'Sometimes' | 'Never' | 'limit';

/** Whether a test's waits all terminate, some thread can wait forever, or a limit stopped the check. */
export type Waits = 'terminates' | 'hang' | 'limit';

export interface AuditRow {
  device: Device;
  to: string;
  verdict: Verdict;
  /** For a test whose waits all terminate: whether they still do once weakened. */
  waits?: Waits;
  /** Whether the weakening makes the condition reachable, or a thread wait forever (undefined: a limit stopped the check). */
  loadBearing?: boolean;
  /** The limit that stopped the check, if one did. */
  limit?: string;
}

export interface AuditResult {
  name: string;
  verdict: Verdict;
  /** For a test with waits: whether every wait terminates as it is (the rows weigh the devices by it only then). */
  waits?: Waits;
  rows: AuditRow[];
  /** Why nothing was weakened, if nothing was. */
  note?: string;
  /** The limit that stopped checking the test itself, if one did. */
  limit?: string;
}

/**
 * Every ordering device of the program and the weaker forms it has: fences
 * (the smp_mb__*() family too) dropped, smp_mb() to smp_wmb()/smp_rmb(),
 * grace periods dropped or made smp_mb(), smp_store_mb() to its
 * WRITE_ONCE(), acquire/release/fully ordered accesses and RMWs to their
 * relaxed forms, and each RCU or SRCU read-side critical section and each
 * spinlock critical section removed (its lock and its unlock).
 */
export function weakenings(prog: Program, names: SourceNamer = linesNamer([])): Weakening[] {
  const out: Weakening[] = [];
  const sourceOf = (ins: PrimInstr) => withoutComment(((ins.pos && names.text(ins.pos)) || ins.name).trim().replace(/\s+/g, ' '));
  const placeOf = (ins: PrimInstr) => (ins.pos && names.where?.(ins.pos)) ?? (ins.pos ? `line ${ins.pos.line}` : '');
  for (const th of prog.threads) {
    const deviceAt = (pc: number): Device => {
      const ins = th.code[pc] as PrimInstr;
      const line = ins.pos?.line;
      const place = ins.pos && names.where?.(ins.pos);
      const partner = needs(th.code, pc);
      return { thread: th.index, pc, name: ins.name, line, ...(place ? { place } : {}), source: sourceOf(ins), ...(partner !== undefined ? { with: `${sourceOf(th.code[partner] as PrimInstr)} (${placeOf(th.code[partner] as PrimInstr)})` } : {}) };
    };
    const remove = (pc: number): Edit => ({ op: 'remove', thread: th.index, pc });
    // Replacements only by names the program's table gives these meanings (a .def may lack or redefine them).
    const T = prog.primitives;
    const smpMb = T.fencesOfKind('MB').includes('smp_mb');
    const wo = T.lookup('WRITE_ONCE');
    const writeOnce = wo !== undefined && 'prim' in wo && wo.prim.kind === 'store' && wo.prim.annot === 'ONCE' && !wo.prim.thenFence && !wo.args;
    th.code.forEach((ins, pc) => {
      if (ins.op !== 'prim') return;
      const device = deviceAt(pc);
      const e = effectOf(ins.prim);
      if (e.shape === 'fence' && e.fence) {
        const orders = fenceOrders(e.fence);
        if (orders === 'compiler' || e.fence === 'rcu-lock' || e.fence === 'rcu-unlock') return;
        out.push({ device, to: '(removed)', edits: [remove(pc)] });
        if (e.fence === 'sync-rcu' && smpMb) out.push({ device, to: 'smp_mb', edits: [{ op: 'replace', thread: th.index, pc, name: 'smp_mb' }] });
        for (const weaker of T.weakerFences(e.fence)) out.push({ device, to: weaker, edits: [{ op: 'replace', thread: th.index, pc, name: weaker }] });
        return;
      }
      if (e.srcu === 'sync-srcu') {
        out.push({ device, to: '(removed)', edits: [remove(pc)] });
        if (smpMb) out.push({ device, to: 'smp_mb', edits: [{ op: 'replace', thread: th.index, pc, name: 'smp_mb' }] });
        return;
      }
      if (e.fence === 'MB' && e.shape === 'access' && e.writes && !e.rmw && writeOnce) {
        out.push({ device, to: 'WRITE_ONCE', edits: [{ op: 'replace', thread: th.index, pc, name: 'WRITE_ONCE' }] });
        return;
      }
      if (!['ACQUIRE', 'RELEASE', 'MB'].includes(e.annot)) return;
      const def = prog.primitives.defNameOf(ins.name, ins.prim);
      const relaxed = def && prog.primitives.withOrdering(def, 'ONCE');
      if (!relaxed) return;
      out.push({ device, to: def === ins.name ? relaxed : `${relaxed} semantics`, edits: [{ op: 'replace', thread: th.index, pc, name: relaxed }] });
    });
    // A dependency from a read to an access: the two calls, or their line where it holds both.
    const between = (read: PrimInstr, on: PrimInstr) =>
      read.pos && on.pos && read.pos.line === on.pos.line && names.text(read.pos) === names.text(on.pos) ? sourceOf(on) : `${callOf(sourceOf(read))} → ${callOf(sourceOf(on))}`;
    // Control dependencies: a branch on a value read, cut (the same values and paths, no dependency for the model).
    for (const dep of controlDependencies(th.code)) {
      const read = th.code[dep.read] as PrimInstr;
      const on = th.code[dep.access] as PrimInstr;
      const place = on.pos && names.where?.(on.pos);
      out.push({
        device: { thread: th.index, pc: dep.branch, name: 'ctrl', line: on.pos?.line, ...(place ? { place } : {}), source: `control dependency: ${between(read, on)}` },
        to: '(dependency cut)',
        edits: [{ op: 'cut-ctrl', thread: th.index, pc: dep.branch }],
      });
    }
    // Address and data dependencies: cut for the model alone (the explorer's values and paths stay as they are).
    for (const dep of accessDependencies(th.code)) {
      const read = th.code[dep.read] as PrimInstr;
      const on = th.code[dep.access] as PrimInstr;
      const place = on.pos && names.where?.(on.pos);
      const what = dep.kind === 'addr' ? 'address' : 'data';
      out.push({
        device: { thread: th.index, pc: dep.access, name: dep.kind, line: on.pos?.line, ...(place ? { place } : {}), source: `${what} dependency: ${between(read, on)}` },
        to: '(dependency cut)',
        edits: [{ op: 'cut-dep', thread: th.index, kind: dep.kind, read: dep.read, access: dep.access }],
      });
    }
    for (const [lock, unlock] of sections(th.code)) {
      const device = deviceAt(lock);
      const u = deviceAt(unlock);
      const span = { ...device, name: `${device.name} … ${u.name}`, source: `${device.source} … ${u.source}` };
      out.push({ device: span, to: '(section removed)', edits: [remove(lock), remove(unlock)] });
    }
  }
  return out;
}

/**
 * Where a fence of the smp_mb__*() family needs another device beside it:
 * the RMW before smp_mb__after_atomic(), the lock before
 * smp_mb__after_spinlock() and smp_mb__after_unlock_lock(), the RMW after
 * smp_mb__before_atomic() (the primitive next to it in the code).
 */
function needs(code: readonly Instr[], pc: number): number | undefined {
  const ins = code[pc];
  if (ins.op !== 'prim') return undefined;
  const f = effectOf(ins.prim).fence;
  const step = f === 'before-atomic' ? 1 : f === 'after-atomic' || f === 'after-spinlock' || f === 'after-unlock-lock' ? -1 : 0;
  if (step === 0) return undefined;
  for (let k = pc + step; k >= 0 && k < code.length; k += step) {
    const other = code[k];
    if (other.op === 'prim') return k;
  }
  return undefined;
}

/** A control dependency of the code: a branch on a value read at `read`, and the first access its taken path makes. */
interface ControlDependency {
  branch: number;
  read: number;
  access: number;
}

/**
 * The thread's control dependencies: each branch whose condition uses a
 * register holding a value read (through any computation), with the first
 * memory access after it in the code; a branch inside one call's own
 * expansion (a cmpxchg loop, smp_cond_load_acquire()) is that call's, not a
 * device of the code.
 */
function controlDependencies(code: readonly Instr[]): ControlDependency[] {
  const from = readsInto(code);
  const out: ControlDependency[] = [];
  code.forEach((ins, pc) => {
    if (ins.op !== 'branch') return;
    const reads = readsOf(from, ins.cond);
    if (reads.length === 0) return;
    const access = code.findIndex((i, k) => k > pc && i.op === 'prim' && effectOf(i.prim).object === 'memory');
    if (access < 0) return;
    const at = (code[access] as PrimInstr).pos;
    const read = reads.find((r) => !samePos((code[r] as PrimInstr).pos, at));
    if (read === undefined) return;
    out.push({ branch: pc, read, access });
  });
  return out;
}

/** An address or data dependency of the code: the access at `access` computes its address, or the value it writes, from the read at `read`. */
interface AccessDependency {
  kind: 'addr' | 'data';
  read: number;
  access: number;
}

/**
 * The thread's address and data dependencies: each memory access whose
 * address, or whose written value (an argument the primitive writes,
 * Effect.dataArgs), uses a register holding a value read (through any
 * computation), with each read it may come from; a read of the access's
 * own call (a lowered primitive's expansion) is the call's, not a device.
 */
function accessDependencies(code: readonly Instr[]): AccessDependency[] {
  const from = readsInto(code);
  const out: AccessDependency[] = [];
  code.forEach((ins, pc) => {
    if (ins.op !== 'prim') return;
    const e = effectOf(ins.prim);
    if (e.object !== 'memory') return;
    const own = (r: number) => r === pc || samePos((code[r] as PrimInstr).pos, ins.pos);
    for (const read of readsOf(from, ins.addr)) if (!own(read)) out.push({ kind: 'addr', read, access: pc });
    if (!e.writes) return;
    const data = [...new Set(e.dataArgs.flatMap((i) => readsOf(from, ins.args[i])))].sort((a, b) => a - b);
    for (const read of data) if (!own(read)) out.push({ kind: 'data', read, access: pc });
  });
  return out;
}

const regsOf = (e: PureExpr): number[] => (e.k === 'reg' ? [e.r] : e.k === 'un' ? regsOf(e.a) : e.k === 'bin' ? [...regsOf(e.a), ...regsOf(e.b)] : []);

/** The reads (instructions) an expression's value may come from, in code order. */
const readsOf = (from: ReadonlyMap<number, ReadonlySet<number>>, e: PureExpr): number[] =>
  [...new Set(regsOf(e).flatMap((r) => [...(from.get(r) ?? [])]))].sort((a, b) => a - b);

/** Which reads (instructions) each register's value may come from, on any path, through any computation. */
function readsInto(code: readonly Instr[]): Map<number, Set<number>> {
  const from = new Map<number, Set<number>>();
  for (let changed = true; changed; ) {
    changed = false;
    const add = (r: number, pcs: Iterable<number>) => {
      let set = from.get(r);
      if (!set) from.set(r, (set = new Set()));
      for (const pc of pcs) if (!set.has(pc)) {
        set.add(pc);
        changed = true;
      }
    };
    code.forEach((ins, pc) => {
      if (ins.op === 'prim' && ins.dst >= 0 && effectOf(ins.prim).reads) add(ins.dst, [pc]);
      else if (ins.op === 'set') for (const r of regsOf(ins.e)) add(ins.dst, from.get(r) ?? []);
    });
  }
  return from;
}

/** A line of code as a call: `r0 = READ_ONCE(*x);` and `int r0 = READ_ONCE(*x);` are READ_ONCE(*x). */
const callOf = (line: string) => line.replace(/;$/, '').replace(/^(?:[A-Za-z_]\w* = |(?:[A-Za-z_]\w* +)+\**[A-Za-z_]\w* = )/, '');

/** A line of code without the comment that ends it (`// ...`, `/* ... *\/`) after a statement or condition (`;`, `{`, `}`, `)`). */
const withoutComment = (line: string) => line.replace(/^(.*?[;{})])\s*(?:\/\/.*|\/\*(?:(?!\*\/).)*\*\/)$/, '$1');

const samePos = (a: Pos | undefined, b: Pos | undefined) => !!a && !!b && a.line === b.line && a.col === b.col && JSON.stringify(a.inlined) === JSON.stringify(b.inlined);

/**
 * The critical sections of a thread's code, as [lock, unlock] instruction
 * pairs: RCU's rcu_read_lock()/rcu_read_unlock() nest; an SRCU section is
 * srcu_read_lock() to the srcu_read_unlock() of the same srcu_struct (the
 * first after it); a spinlock's, spin_lock() to the next spin_unlock() of
 * the same lock (written the same way).
 */
function sections(code: readonly Instr[]): [number, number][] {
  const out: [number, number][] = [];
  const rcu: number[] = [];
  const same = (a: PrimInstr, b: PrimInstr) => JSON.stringify(a.addr) === JSON.stringify(b.addr);
  code.forEach((ins, pc) => {
    if (ins.op !== 'prim') return;
    const e = effectOf(ins.prim);
    if (e.fence === 'rcu-lock') rcu.push(pc);
    else if (e.fence === 'rcu-unlock' && rcu.length) out.push([rcu.pop()!, pc]);
    else if (e.srcu === 'srcu-lock' || e.shape === 'lock') {
      const closes = e.srcu === 'srcu-lock' ? 'srcu-unlock' : 'unlock';
      const end = code.findIndex((j, k) => k > pc && j.op === 'prim' && same(ins, j) &&
        (closes === 'srcu-unlock' ? effectOf(j.prim).srcu === 'srcu-unlock' : effectOf(j.prim).shape === 'unlock'));
      if (end > pc) out.push([pc, end]);
    }
  });
  return out.sort((a, b) => a[0] - b[0]);
}

/** The verdict of the program's condition under the model, and for a program with waits whether one can go on forever; or 'limit'. */
function verdictOf(prog: Program, model: Model, limits: Limits): { verdict: Verdict; waits?: Waits; limit?: string } {
  try {
    const r = explore(prog, model, limits);
    const waits: Waits | undefined = r.liveness ? (r.liveness.hangs > 0 ? 'hang' : 'terminates') : undefined;
    return { verdict: r.positive === 0 ? 'Never' : r.negative === 0 ? 'Always' : 'Sometimes', waits };
  } catch (e) {
    if (e instanceof LimitError) return { verdict: 'limit', waits: 'limit', limit: e.message };
    throw e;
  }
}

export function auditProgram(prog: Program, model: Model, limits: Limits, names: SourceNamer | readonly string[] = []): AuditResult {
  const base = verdictOf(prog, model, limits);
  // What the devices are weighed by: the condition where it is Never, the waits where every one terminates.
  const byCondition = base.verdict === 'Never';
  const byWaits = base.waits === 'terminates';
  if (!byCondition && !byWaits) {
    const why = base.verdict === 'limit' ? `checking it reached a limit: ${base.limit}`
      : `its condition is reachable (${base.verdict}) as it is${base.waits === 'hang' ? ', and a thread can wait forever' : ''}`;
    return { name: prog.name, verdict: base.verdict, waits: base.waits, rows: [], note: `nothing to audit: ${why}`, limit: base.limit };
  }
  const ws = weakenings(prog, Array.isArray(names) ? linesNamer(names) : (names as SourceNamer));
  const rows = ws.map((w): AuditRow => {
    const v = verdictOf(applyEdits(prog, w.edits), model, limits);
    const limited = v.verdict === 'limit';
    const bearing = (byCondition && v.verdict !== 'Never') || (byWaits && v.waits === 'hang');
    return { device: w.device, to: w.to, verdict: v.verdict, waits: byWaits ? v.waits : undefined, loadBearing: limited ? undefined : bearing, limit: v.limit };
  });
  const weighed = byCondition && byWaits ? undefined : byWaits ? `the condition is reachable (${base.verdict}) as it is: weighed by the waits alone` : undefined;
  return { name: prog.name, verdict: base.verdict, waits: base.waits, rows, note: rows.length === 0 ? 'no ordering device to weaken' : weighed };
}

/** The table for one test. */
export function auditTable(a: AuditResult, model: Model): string {
  const waitsWord = a.waits === 'terminates' ? ', every wait terminates' : a.waits === 'hang' ? ', a thread can wait forever' : '';
  const lines = [`${a.name}: ${a.verdict} under ${model.name}${waitsWord}`];
  if (a.note && a.rows.length === 0) return `${lines[0]}; ${a.note}`;
  lines[0] += a.note ? `; ${a.note}; each ordering device weakened alone:` : `; each ordering device weakened alone:`;
  const withWaits = a.rows.some((r) => r.waits !== undefined);
  const head = ['device', a.rows.some((r) => r.device.place) ? 'where' : 'line', 'weakened to', 'verdict', ...(withWaits ? ['waits'] : []), 'load-bearing'];
  const body = a.rows.map((r) => [
    `P${r.device.thread}: ${clip(r.device.source)}${r.device.with ? ` (with ${clip(r.device.with, 48)})` : ''}`,
    r.device.place ?? String(r.device.line ?? ''),
    r.to,
    r.verdict,
    ...(withWaits ? [r.waits === 'hang' ? 'can hang' : r.waits ?? ''] : []),
    r.loadBearing === undefined ? '?' : r.loadBearing ? 'yes' : 'no',
  ]);
  lines.push(...table(head, body));
  const limited = a.rows.filter((r) => r.limit);
  if (limited.length) lines.push(`  (?: ${limited[0].limit})`);
  return lines.join('\n');
}

export interface SuiteAudit {
  version: string;
  /** Per scenario (in order), its test's audit. */
  scenarios: { scenario: string; audit: AuditResult }[];
}

/**
 * Which devices each scenario needs: one row per device (by its place in
 * a suite's files, or else its source line, so that the same line in
 * several tests or threads is one device)
 * and weakening, one column per scenario: yes (load-bearing in that
 * scenario, on some thread), no, or blank where the scenario lacks it.
 */
export function suiteAuditTable(s: SuiteAudit): string {
  const short = (sc: string) => sc.split(':')[0].trim();
  const keys: string[] = [];
  const cells = new Map<string, Map<string, string>>();
  // The device each needs beside it (its text only: the scenarios' places differ).
  const withOf = new Map<string, string>();
  s.scenarios.forEach(({ scenario, audit }) => {
    for (const r of audit.rows) {
      const key = `${r.device.place ?? ''}\u0000${r.device.source}\u0000${r.to}`;
      if (r.device.with && !withOf.has(key)) withOf.set(key, r.device.with.replace(/ \([^()]*\)$/, ''));
      if (!cells.has(key)) {
        keys.push(key);
        cells.set(key, new Map());
      }
      const row = cells.get(key)!;
      const prev = row.get(scenario);
      const mark = r.loadBearing === undefined ? '?' : r.loadBearing ? 'yes' : 'no';
      row.set(scenario, prev === 'yes' || mark === 'yes' ? 'yes' : prev === '?' ? '?' : mark);
    }
  });
  // Where a suite's files name the places (file:line), a device is one place of them, shown.
  const placed = keys.some((k) => k.split('\u0000')[0] !== '');
  const head = ['device', ...(placed ? ['where'] : []), 'weakened to', ...s.scenarios.map((x) => short(x.scenario))];
  const body = keys.map((k) => {
    const [place, source, to] = k.split('\u0000');
    return [clip(source) + (withOf.get(k) ? ` (with ${clip(withOf.get(k)!, 48)})` : ''), ...(placed ? [place] : []), to, ...s.scenarios.map((x) => cells.get(k)!.get(x.scenario) ?? '')];
  });
  const lines = [`Version "${s.version}": which ordering devices each scenario needs (yes: weakening it alone makes the bad outcome reachable, or a thread wait forever)`];
  lines.push(...table(head, body));
  const skipped = s.scenarios.filter((x) => x.audit.note);
  for (const x of skipped) lines.push(`  ${short(x.scenario)}: ${x.audit.note}`);
  return lines.join('\n');
}

function clip(s: string, n = 64): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

function table(head: string[], body: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i])).join('  ')}`.trimEnd();
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt)];
}
