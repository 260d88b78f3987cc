// The changes that running register-only instructions (schedule.ts's
// runLocal) makes to thread states, newest last, so that the step that made
// them can undo them when it returns. Thread states are changed in place
// rather than copied at every step: this record is reused from step to
// step, and nothing in it is allocated once it has grown to the deepest
// path's size.

import type { ThreadState } from './state.js';

/** What one entry undoes. */
const enum Change {
  /** A thread's run starts: its pc and control dependencies before it (it was neither done nor stuck). */
  Start,
  /** A register's value and dependencies before an assignment. */
  Register,
  /** A push on the thread's control-dependency stack. */
  Push,
  /** A pop from it, of the value kept. */
  Pop,
}

export class Trail {
  /** Entries below `length` are live; those above are stale (kept for reuse). */
  length = 0;
  private readonly threads: ThreadState[] = [];
  private readonly changes: Change[] = [];
  private readonly slots: number[] = [];
  private readonly numbers: number[] = [];
  private readonly deps: bigint[] = [];

  /** Records ts's pc and control dependencies before it runs (and that it was not done). */
  start(ts: ThreadState): void {
    this.push(ts, Change.Start, -1, ts.pc, ts.ctrl);
  }

  /** Records register r of ts before it is assigned. */
  register(ts: ThreadState, r: number): void {
    this.push(ts, Change.Register, r, ts.regs[r], ts.deps[r]);
  }

  /** Records a push on ts's control-dependency stack. */
  pushed(ts: ThreadState): void {
    this.push(ts, Change.Push, -1, 0, 0n);
  }

  /** Records a pop from ts's control-dependency stack, of `value`. */
  popped(ts: ThreadState, value: bigint): void {
    this.push(ts, Change.Pop, -1, 0, value);
  }

  /** Undoes the changes recorded since the trail had length `mark`, newest first. */
  undoTo(mark: number): void {
    for (let i = this.length - 1; i >= mark; i--) {
      const ts = this.threads[i];
      switch (this.changes[i]) {
        case Change.Start:
          // A run starts with its thread neither done nor stuck (liveness.ts).
          ts.done = false;
          ts.stuck = -1;
          ts.pc = this.numbers[i];
          ts.ctrl = this.deps[i];
          break;
        case Change.Register:
          ts.regs[this.slots[i]] = this.numbers[i];
          ts.deps[this.slots[i]] = this.deps[i];
          break;
        case Change.Push:
          ts.ctrlStack.pop();
          break;
        case Change.Pop:
          ts.ctrlStack.push(this.deps[i]);
          break;
      }
    }
    this.length = mark;
  }

  private push(ts: ThreadState, change: Change, slot: number, n: number, deps: bigint): void {
    const i = this.length++;
    this.threads[i] = ts;
    this.changes[i] = change;
    this.slots[i] = slot;
    this.numbers[i] = n;
    this.deps[i] = deps;
  }
}
