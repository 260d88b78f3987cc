// The classic shapes shared by models.test.ts and models-tso.test.ts.

export type Obs = 'Always' | 'Sometimes' | 'Never';

export interface Shape {
  name: string;
  procs: string[];
  cond: string;
  /** LKMM verdict, with herd7's P and N where they are known. */
  lkmm: [Obs, number, number] | Obs;
  sc: Obs;
  tso: Obs;
}

export const W = (loc: string, v: number | string) => `\tWRITE_ONCE(*${loc}, ${v});`;
export const R = (reg: string, loc: string) => `\t${reg} = READ_ONCE(*${loc});`;
export const regs = (...rs: string[]) => rs.map((r) => `\tint ${r};`).join('\n');
export const lines = (...ls: string[]) => ls.join('\n');

// Classic shapes, written as the kernel's litmus-tests/ write them; the P/N
// numbers are herd7's (tools/memory-model, herd7 7.58).
export const SHAPES: Shape[] = [
  // ---------------------------------------------------------------- MP
  {
    name: 'MP+poonceonces',
    procs: [lines(W('x', 1), W('y', 1)), lines(regs('r0', 'r1'), R('r0', 'y'), R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 1:r1=0)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'MP+pooncerelease+poacquireonce',
    procs: [lines(W('x', 1), '\tsmp_store_release(y, 1);'), lines(regs('r0', 'r1'), '\tr0 = smp_load_acquire(y);', R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 1:r1=0)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'MP+fencewmbonceonce+fencermbonceonce',
    procs: [lines(W('x', 1), '\tsmp_wmb();', W('y', 1)), lines(regs('r0', 'r1'), R('r0', 'y'), '\tsmp_rmb();', R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 1:r1=0)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'MP+o-wmb-o+o-o',
    procs: [lines(W('x', 1), '\tsmp_wmb();', W('y', 1)), lines(regs('r0', 'r1'), R('r0', 'y'), R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 1:r1=0)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'MP+o-o+o-rmb-o',
    procs: [lines(W('x', 1), W('y', 1)), lines(regs('r0', 'r1'), R('r0', 'y'), '\tsmp_rmb();', R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 1:r1=0)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  // ---------------------------------------------------------------- SB
  {
    name: 'SB+poonceonces',
    procs: [lines(regs('r0'), W('x', 1), R('r0', 'y')), lines(regs('r0'), W('y', 1), R('r0', 'x'))],
    cond: 'exists (0:r0=0 /\\ 1:r0=0)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Sometimes',
  },
  {
    name: 'SB+mbonceonces',
    procs: [lines(regs('r0'), W('x', 1), '\tsmp_mb();', R('r0', 'y')), lines(regs('r0'), W('y', 1), '\tsmp_mb();', R('r0', 'x'))],
    cond: 'exists (0:r0=0 /\\ 1:r0=0)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'SB+wmb+rmb (not enough)',
    procs: [lines(regs('r0'), W('x', 1), '\tsmp_wmb();', R('r0', 'y')), lines(regs('r0'), W('y', 1), '\tsmp_rmb();', R('r0', 'x'))],
    cond: 'exists (0:r0=0 /\\ 1:r0=0)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Sometimes',
  },
  {
    name: 'SB+xchgs (full-barrier RMWs)',
    procs: [lines(regs('r0', 'r1'), '\tr1 = xchg(x, 1);', R('r0', 'y')), lines(regs('r0', 'r1'), '\tr1 = xchg(y, 1);', R('r0', 'x'))],
    cond: 'exists (0:r0=0 /\\ 1:r0=0)',
    lkmm: 'Never', sc: 'Never', tso: 'Never',
  },
  // ---------------------------------------------------------------- LB
  {
    name: 'LB+poonceonces',
    procs: [lines(regs('r0'), R('r0', 'x'), W('y', 1)), lines(regs('r0'), R('r0', 'y'), W('x', 1))],
    cond: 'exists (0:r0=1 /\\ 1:r0=1)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'LB+ctrlonceonce+mbonceonce',
    procs: [lines(regs('r0'), R('r0', 'x'), '\tif (r0)', `\t${W('y', 1)}`), lines(regs('r0'), R('r0', 'y'), '\tsmp_mb();', W('x', 1))],
    cond: 'exists (0:r0=1 /\\ 1:r0=1)',
    lkmm: ['Never', 0, 2], sc: 'Never', tso: 'Never',
  },
  {
    name: 'LB+poacquireonce+pooncerelease',
    procs: [lines(regs('r0'), '\tr0 = smp_load_acquire(x);', W('y', 1)), lines(regs('r0'), R('r0', 'y'), '\tsmp_store_release(x, 1);')],
    cond: 'exists (0:r0=1 /\\ 1:r0=1)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'LB+datas',
    procs: [lines(regs('r0'), R('r0', 'x'), W('y', 'r0')), lines(regs('r0'), R('r0', 'y'), W('x', 'r0'))],
    cond: 'exists (0:r0=1 /\\ 1:r0=1)',
    lkmm: 'Never', sc: 'Never', tso: 'Never',
  },
  // -------------------------------------------------------------- IRIW
  {
    name: 'IRIW+poonceonces+OnceOnce',
    procs: [W('x', 1), lines(regs('r0', 'r1'), R('r0', 'x'), R('r1', 'y')), W('y', 1), lines(regs('r0', 'r1'), R('r0', 'y'), R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)',
    lkmm: ['Sometimes', 1, 15], sc: 'Never', tso: 'Never',
  },
  {
    name: 'IRIW+mbonceonces+OnceOnce',
    procs: [
      W('x', 1),
      lines(regs('r0', 'r1'), R('r0', 'x'), '\tsmp_mb();', R('r1', 'y')),
      W('y', 1),
      lines(regs('r0', 'r1'), R('r0', 'y'), '\tsmp_mb();', R('r1', 'x')),
    ],
    cond: 'exists (1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)',
    lkmm: ['Never', 0, 15], sc: 'Never', tso: 'Never',
  },
  {
    name: 'IRIW+rmbs (rmb is not enough: not multicopy atomic)',
    procs: [
      W('x', 1),
      lines(regs('r0', 'r1'), R('r0', 'x'), '\tsmp_rmb();', R('r1', 'y')),
      W('y', 1),
      lines(regs('r0', 'r1'), R('r0', 'y'), '\tsmp_rmb();', R('r1', 'x')),
    ],
    cond: 'exists (1:r0=1 /\\ 1:r1=0 /\\ 3:r0=1 /\\ 3:r1=0)',
    lkmm: ['Sometimes', 1, 15], sc: 'Never', tso: 'Never',
  },
  // --------------------------------------------------------------- WRC
  {
    name: 'WRC+poonceonces+Once',
    procs: [W('x', 1), lines(regs('r0'), R('r0', 'x'), W('y', 1)), lines(regs('r0', 'r1'), R('r0', 'y'), R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)',
    lkmm: ['Sometimes', 1, 7], sc: 'Never', tso: 'Never',
  },
  {
    name: 'WRC+pooncerelease+fencermbonceonce+Once',
    procs: [
      W('x', 1),
      lines(regs('r0'), R('r0', 'x'), '\tsmp_store_release(y, 1);'),
      lines(regs('r0', 'r1'), R('r0', 'y'), '\tsmp_rmb();', R('r1', 'x')),
    ],
    cond: 'exists (1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)',
    lkmm: ['Never', 0, 7], sc: 'Never', tso: 'Never',
  },
  // -------------------------------------------------------------- ISA2
  {
    name: 'ISA2+poonceonces',
    procs: [lines(W('x', 1), W('y', 1)), lines(regs('r0'), R('r0', 'y'), W('z', 1)), lines(regs('r0', 'r1'), R('r0', 'z'), R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)',
    lkmm: ['Sometimes', 1, 7], sc: 'Never', tso: 'Never',
  },
  {
    name: 'ISA2+pooncerelease+poacquirerelease+poacquireonce',
    procs: [
      lines(W('x', 1), '\tsmp_store_release(y, 1);'),
      lines(regs('r0'), '\tr0 = smp_load_acquire(y);', '\tsmp_store_release(z, 1);'),
      lines(regs('r0', 'r1'), '\tr0 = smp_load_acquire(z);', R('r1', 'x')),
    ],
    cond: 'exists (1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)',
    lkmm: ['Never', 0, 7], sc: 'Never', tso: 'Never',
  },
  // -------------------------------------------------------------- 2+2W
  {
    name: '2+2W+o-o+o-o',
    procs: [lines(W('x', 1), W('y', 2)), lines(W('y', 1), W('x', 2))],
    cond: 'exists (x=1 /\\ y=1)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  {
    // herd7 (catalogue/linux C-2+2W+o-wmb-o+o-wmb-o): smp_wmb() orders the
    // stores but the LKMM needs a strong fence to forbid this cycle.
    name: '2+2W+o-wmb-o+o-wmb-o',
    procs: [lines(W('x', 1), '\tsmp_wmb();', W('y', 2)), lines(W('y', 1), '\tsmp_wmb();', W('x', 2))],
    cond: 'exists (x=1 /\\ y=1)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: '2+2W+o-mb-o+o-mb-o',
    procs: [lines(W('x', 1), '\tsmp_mb();', W('y', 2)), lines(W('y', 1), '\tsmp_mb();', W('x', 2))],
    cond: 'exists (x=1 /\\ y=1)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  // ----------------------------------------------------------------- R
  {
    name: 'R+poonceonces',
    procs: [lines(W('x', 1), W('y', 1)), lines(regs('r0'), W('y', 2), R('r0', 'x'))],
    cond: 'exists (y=2 /\\ 1:r0=0)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Sometimes',
  },
  {
    name: 'R+mbonceonces',
    procs: [lines(W('x', 1), '\tsmp_mb();', W('y', 1)), lines(regs('r0'), W('y', 2), '\tsmp_mb();', R('r0', 'x'))],
    cond: 'exists (y=2 /\\ 1:r0=0)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'R+o-wmb-o+o-mb-o',
    procs: [lines(W('x', 1), '\tsmp_wmb();', W('y', 1)), lines(regs('r0'), W('y', 2), '\tsmp_mb();', R('r0', 'x'))],
    cond: 'exists (y=2 /\\ 1:r0=0)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  // ----------------------------------------------------------------- S
  {
    name: 'S+poonceonces',
    procs: [lines(W('x', 2), W('y', 1)), lines(regs('r0'), R('r0', 'y'), W('x', 1))],
    cond: 'exists (x=2 /\\ 1:r0=1)',
    lkmm: ['Sometimes', 1, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'S+wmbonceonce+poacquireonce',
    procs: [lines(W('x', 2), '\tsmp_wmb();', W('y', 1)), lines(regs('r0'), '\tr0 = smp_load_acquire(y);', W('x', 1))],
    cond: 'exists (x=2 /\\ 1:r0=1)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  // --------------------------------------------------------- coherence
  {
    name: 'CoRR+poonceonce+Once',
    procs: [W('x', 1), lines(regs('r0', 'r1'), R('r0', 'x'), R('r1', 'x'))],
    cond: 'exists (1:r0=1 /\\ 1:r1=0)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'CoRW+poonceonce+Once',
    procs: [lines(regs('r0'), R('r0', 'x'), W('x', 1)), W('x', 2)],
    cond: 'exists (x=2 /\\ 0:r0=2)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'CoWR+poonceonce+Once',
    procs: [lines(regs('r0'), W('x', 1), R('r0', 'x')), W('x', 2)],
    cond: 'exists (x=1 /\\ 0:r0=2)',
    lkmm: ['Never', 0, 3], sc: 'Never', tso: 'Never',
  },
  {
    name: 'CoWW+poonceonce',
    procs: [lines(W('x', 1), W('x', 2))],
    cond: 'exists (x=1)',
    lkmm: ['Never', 0, 1], sc: 'Never', tso: 'Never',
  },
];

/** The kernel's MP+pooncerelease+poacquireonce, as a file would hold it (Result: Never). */
export const MP_REL_ACQ = `C MP+pooncerelease+poacquireonce

(*
 * Result: Never
 *)

{}

P0(int *buf, int *flag)
{
	WRITE_ONCE(*buf, 1);
	smp_store_release(flag, 1);
}

P1(int *buf, int *flag)
{
	int r0;
	int r1;

	r0 = smp_load_acquire(flag);
	r1 = READ_ONCE(*buf);
}

exists (1:r0=1 /\\ 1:r1=0)
`;

/** SB's two processes and its condition (both reads see 0), for tests that write their own header. */
export const SB_PROCS = `P0(int *x, int *y)
{
\tint r0;
\tWRITE_ONCE(*x, 1);
\tr0 = READ_ONCE(*y);
}
P1(int *x, int *y)
{
\tint r0;
\tWRITE_ONCE(*y, 1);
\tr0 = READ_ONCE(*x);
}
exists (0:r0=0 /\\ 1:r0=0)
`;

/** SB as a whole test named `SB`, with an optional header comment before the initial state. */
export const sbTest = (header = ''): string => `C SB\n${header}{}\n${SB_PROCS}`;
