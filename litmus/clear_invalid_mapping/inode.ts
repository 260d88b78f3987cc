// The shared state of the NFS suite: the parts of struct nfs_inode and its
// inode that nfs_set_cache_invalid() and nfs_clear_invalid_mapping() touch.

import type { Ref, spinlock_t } from '../kernel.js';

export interface Inode {
  /**
   * nfsi->cache_validity: a word of NFS_INO_INVALID_* bit masks, changed
   * with plain C (|=, &=) under i_lock.
   */
  cache_validity: Ref;
  /**
   * nfsi->flags: a word of NFS_INO_* bit numbers, changed with the atomic
   * bit operations (set_bit(), clear_bit_unlock(), ...); here only
   * NFS_INO_INVALIDATING is used.
   */
  flags: Ref;
  /** The page cache: 1 = stale pages cached, 0 = emptied by nfs_invalidate_mapping(). */
  pages: Ref;
  /** inode->i_lock. */
  i_lock: spinlock_t;
  /** A message a scenario uses to say "this happened before". */
  msg: Ref;
  /** The bit's wait queue: a task is on it (prepare_to_wait() in wait_on_bit()). */
  queued: Ref;
  /** That task has been woken (wake_up_bit()). */
  woken: Ref;
}

/** Masks in cache_validity. */
export const NFS_INO_INVALID_DATA = 1;
/** Stands for any other attribute bit (NFS_INO_INVALID_ATIME). */
export const NFS_INO_INVALID_ATIME = 2;

/** A bit number in nfsi->flags (the kernel's value). */
export const NFS_INO_INVALIDATING = 3;

// What one pass of nfs_clear_invalid_mapping()'s loop ends in.
/** Returned "mapping valid" without invalidating. */
export const VALID = 0;
/** This task invalidated the mapping. */
export const INVALIDATED = 1;
/** Went (back) to wait_on_bit(): safe, a later pass is the same code with later values. */
export const WAIT = 2;
