// One seed for every fast-check property of a run, so that CI is
// deterministic: a random seed once drew, in test/properties.test.ts,
// programs whose exploration took over a minute each (five properties past
// vitest's timeout in one run; the same file takes about 7 s otherwise).
// LITMUS_FC_SEED=random draws a fresh seed (printed), LITMUS_FC_SEED=N
// replays one, to look for such programs on purpose.

import fc from 'fast-check';

const wanted = process.env.LITMUS_FC_SEED;
const seed = wanted === 'random' ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : wanted !== undefined ? Number(wanted) : 20261202;
if (wanted === 'random') console.log(`fast-check seed ${seed} (replay with LITMUS_FC_SEED=${seed})`);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
