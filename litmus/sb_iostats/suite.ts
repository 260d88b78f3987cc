// The review of "Generic per-sb io stats" v4, which switches the iostats
// counters to "relaxed" per-CPU counter helpers to cut their overhead.

import { suite } from '../kernel.js';
import * as v3 from './v3.js';
import * as v4 from './v4.js';
import * as raw from './raw.js';
import { irq_same_cpu, read_error, sum_after_io, sum_after_two, sum_unordered } from '../percpu_counter/scenarios.js';

export default suite({
  title: 'per-sb iostats: do "relaxed" per-CPU counters keep every byte?',
  underReview: 'v4',
  baseline: 'v3',
  badOutcome: 'a wrong byte count',
  versions: { v3, v4, raw },
  scenarios: [sum_after_io, sum_after_two, sum_unordered, read_error, irq_same_cpu],
});
