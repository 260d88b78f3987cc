// The shared state of the NFS suite: the parts of struct nfs_inode and its
// inode that nfs_set_cache_invalid() and nfs_clear_invalid_mapping() touch.

import type { Ref, spinlock_t } from '../kernel.js';

export interface Inode {
  /** nfsi->cache_validity: bits by value, NFS_INO_INVALID_DATA = 1, another attribute bit = 2. */
  cache_validity: Ref;
  /**
   * The NFS_INO_INVALIDATING bit of nfsi->flags, by value: 0 = never set,
   * 1 = set, 2 = cleared again by clear_bit_unlock(). Value 2 is a ghost that
   * tells "set and cleared" from "never set"; test_bit() is true only for 1.
   */
  flags: Ref;
  /** The page cache: 1 = stale pages cached, 0 = emptied by nfs_invalidate_mapping(). */
  pages: Ref;
  /** inode->i_lock. */
  i_lock: spinlock_t;
  /** A message a scenario uses to say "this happened before". */
  msg: Ref;
}

export const NFS_INO_INVALID_DATA = 1;
/** Stands for any other attribute bit (NFS_INO_INVALID_ATIME). */
export const NFS_INO_INVALID_ATIME = 2;

// What one pass of nfs_clear_invalid_mapping()'s loop ends in.
/** Returned "mapping valid" without invalidating. */
export const VALID = 0;
/** This task invalidated the mapping. */
export const INVALIDATED = 1;
/** Went (back) to wait_on_bit(): safe, a later pass is the same code with later values. */
export const WAIT = 2;
