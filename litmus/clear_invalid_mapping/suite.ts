// The review of "nfs: avoid i_lock contention in nfs_clear_invalid_mapping":
// four versions of fs/nfs/inode.c's two functions, seven scenarios.
// `npx litmus check clear_invalid_mapping` checks every pair.

import { suite } from '../kernel.js';
import * as pre from './pre.js';
import * as v1 from './v1.js';
import * as v2 from './v2.js';
import * as fix from './fix.js';
import { s1, s2, s3, s4, s5, s6, s7 } from './scenarios.js';

export default suite({
  title: 'nfs_clear_invalid_mapping: can the lockless fast path skip a required invalidation?',
  underReview: 'v1',
  baseline: 'pre',
  badOutcome: 'skipping (or losing) a required invalidation',
  versions: { pre, v1, v2, fix },
  scenarios: [s1, s2, s3, s4, s5, s6, s7],
});
