// The review of "NFSD: Eliminate percpu counter contention in IO byte
// accounting" (percpu_counter_add -> percpu_counter_add_local), which says
// read accuracy is unaffected because readers use percpu_counter_sum_positive().

import { suite } from '../kernel.js';
import * as pre from './pre.js';
import * as v1 from './v1.js';
import { irq_same_cpu, read_error, sum_after_io, sum_after_two, sum_unordered } from '../percpu_counter/scenarios.js';

export default suite({
  title: 'nfsd io byte counters: is a summed count still exact after percpu_counter_add_local()?',
  underReview: 'v1',
  baseline: 'pre',
  badOutcome: 'a wrong byte count',
  versions: { pre, v1 },
  scenarios: [sum_after_io, sum_after_two, sum_unordered, read_error, irq_same_cpu],
});
