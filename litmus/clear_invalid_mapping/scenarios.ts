// The six scenarios. Each names its threads' calls; every version supplies
// the functions (calls resolve in the version being checked). `exists` is
// the BAD outcome, so Never means the version is safe in that scenario.

import { READ_ONCE, scenario, smp_mb, smp_store_release, spin_lock, spin_unlock } from '../kernel.js';
import { INVALIDATED, NFS_INO_INVALID_ATIME, NFS_INO_INVALID_DATA, VALID, WAIT, type Inode } from './inode.js';
import { nfs_clear_invalid_mapping, nfs_clear_invalid_mapping_locked, nfs_set_cache_invalid, wait_on_bit_sleeping } from './pre.js';

/** A caller that requests an invalidation: nfs_set_cache_invalid() under i_lock. */
function request(inode: Inode, flags: number): void {
  spin_lock(inode.i_lock);
  nfs_set_cache_invalid(inode, flags);
  spin_unlock(inode.i_lock);
}

/** The caller's page-cache lookup after the call: folio_try_get() is fully ordered. */
function lookup(inode: Inode): number {
  smp_mb();
  return READ_ONCE(inode.pages);
}

export const s1 = scenario({
  name: 's1-publish',
  says: 'An INVALID_DATA request that happened before the reader\'s call (the reader saw a flag published after it) is not skipped.',
  threads: [
    (inode: Inode) => {
      request(inode, NFS_INO_INVALID_DATA);
      smp_store_release(inode.msg, 1);
    },
    (inode: Inode) => {
      const msg = READ_ONCE(inode.msg); // a plain read: before the patch, i_lock made it enough
      const valid = nfs_clear_invalid_mapping(inode);
      return { msg, valid };
    },
  ],
  exists: ([, p1]) => p1.msg === 1 && p1.valid === VALID,
});

export const s2 = scenario({
  name: 's2-twosetters',
  says: 'Two concurrent nfs_set_cache_invalid() calls with different flags, plus a reader: no requested bit is lost.',
  threads: [
    (inode: Inode) => request(inode, NFS_INO_INVALID_DATA),
    (inode: Inode) => request(inode, NFS_INO_INVALID_ATIME),
    (inode: Inode) => ({ result: nfs_clear_invalid_mapping(inode) }),
  ],
  // The ATIME request vanished, or the DATA request vanished without the reader invalidating.
  exists: ([, , p2], mem) =>
    mem.cache_validity === 0 || mem.cache_validity === 1 ||
    (mem.cache_validity === 2 && (p2.result === VALID || p2.result === WAIT)),
});

export const s3 = scenario({
  name: 's3-inflight',
  says: 'A reader does not return "valid" while another task is between set_bit(INVALIDATING) and clear_bit_unlock() (it would read stale pages).',
  init: { cache_validity: NFS_INO_INVALID_DATA, pages: 1 },
  threads: [
    (inode: Inode) => {
      nfs_clear_invalid_mapping_locked(inode); // past its own lockless checks
    },
    (inode: Inode) => {
      const valid = nfs_clear_invalid_mapping(inode);
      const page = lookup(inode);
      return { valid, page };
    },
  ],
  exists: ([, p1]) => p1.valid === VALID && p1.page === 1,
});

export const s4 = scenario({
  name: 's4-tworeaders',
  says: 'Two readers race into the slow path: exactly one invalidates, and neither returns "valid" over stale pages.',
  init: { cache_validity: NFS_INO_INVALID_DATA, pages: 1 },
  threads: [
    (inode: Inode) => {
      const valid = nfs_clear_invalid_mapping(inode);
      const page = lookup(inode);
      return { valid, page };
    },
    (inode: Inode) => {
      const valid = nfs_clear_invalid_mapping(inode);
      const page = lookup(inode);
      return { valid, page };
    },
  ],
  exists: ([p0, p1]) =>
    (p0.valid === INVALIDATED && p1.valid === INVALIDATED) ||
    (p0.valid === VALID && p0.page === 1) ||
    (p1.valid === VALID && p1.page === 1),
});

export const s5 = scenario({
  name: 's5-emptied',
  says: 'A reader that returns "valid" during or after an invalidation sees the page cache emptied, with no help from the caller\'s own barriers.',
  init: { cache_validity: NFS_INO_INVALID_DATA, pages: 1 },
  threads: [
    (inode: Inode) => {
      nfs_clear_invalid_mapping_locked(inode);
    },
    (inode: Inode) => {
      const valid = nfs_clear_invalid_mapping(inode);
      const page = READ_ONCE(inode.pages); // a bare lookup: no barrier of its own
      return { valid, page };
    },
  ],
  // In pre and fix, a "valid" return means the reader found INVALIDATING
  // clear after P0 had set it (under i_lock after P0's critical section, or
  // after an acquire that saw P0's clear of INVALID_DATA): it saw it cleared
  // again. In v1 and v2 the bit may also be seen before P0 sets it (s3's window).
  exists: ([, p1]) => p1.valid === VALID && p1.page === 1,
});

export const s6 = scenario({
  name: 's6-rerequest',
  says: 'An INVALID_DATA request made while an invalidation is in flight is not skipped by a reader that saw the request.',
  init: { cache_validity: NFS_INO_INVALID_DATA, pages: 1 },
  threads: [
    (inode: Inode) => {
      nfs_clear_invalid_mapping_locked(inode);
    },
    (inode: Inode) => {
      request(inode, NFS_INO_INVALID_DATA | 4); // 4: a marker telling the two requests apart
      smp_store_release(inode.msg, 1);
    },
    (inode: Inode) => {
      const msg = READ_ONCE(inode.msg);
      const valid = nfs_clear_invalid_mapping(inode);
      return { msg, valid };
    },
  ],
  // p0.cache_validity === 1: the invalidator ran before the re-request, which it does not cover.
  exists: ([p0, , p2]) => p0.cache_validity === 1 && p2.msg === 1 && p2.valid === VALID,
});

export const s7 = scenario({
  name: 's7-wakeup',
  says: 'A reader that sleeps in wait_on_bit(INVALIDATING) while an invalidation is in flight is woken by its wake_up_bit() (no reader waits forever on INVALIDATING), and its next pass does not return "valid" over stale pages.',
  init: { cache_validity: NFS_INO_INVALID_DATA, pages: 1 },
  threads: [
    (inode: Inode) => {
      nfs_clear_invalid_mapping_locked(inode);
    },
    (inode: Inode) => {
      const slept = wait_on_bit_sleeping(inode);
      const valid = nfs_clear_invalid_mapping(inode);
      const page = READ_ONCE(inode.pages); // a bare lookup, as in s5
      return { slept, valid, page };
    },
  ],
  // The reader slept and was woken, yet its pass returned "valid" and found the stale page.
  exists: ([, p1]) => p1.slept === 1 && p1.valid === VALID && p1.page === 1,
});
