// The patch as posted (v1): the setter publishes its flags with
// smp_store_release() (storing flags, not cache_validity | flags), and
// nfs_clear_invalid_mapping() gets a lockless fast path.

export * from './pre.js';
import { smp_load_acquire, smp_rmb, smp_store_release, type int } from '../kernel.js';
import { NFS_INO_INVALID_DATA, VALID, WAIT, type Inode } from './inode.js';
import { nfs_clear_invalid_mapping_locked, nfs_test_invalidating, wait_on_bit_invalidating } from './pre.js';

export function nfs_set_cache_invalid(inode: Inode, flags: int): void {
  smp_store_release(inode.cache_validity, flags);
}

export function nfs_clear_invalid_mapping(inode: Inode): int {
  if (wait_on_bit_invalidating(inode)) return WAIT;
  smp_rmb(); // pairs with smp_wmb() below
  if (nfs_test_invalidating(inode)) return WAIT; // continue
  if ((smp_load_acquire(inode.cache_validity) & NFS_INO_INVALID_DATA) === 0) return VALID;
  return nfs_clear_invalid_mapping_locked(inode);
}
