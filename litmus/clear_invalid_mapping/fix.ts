// The proposed correction (fix.diff, on top of v1; the setter is v2's):
// the fast path loads cache_validity (acquire) before it tests INVALIDATING,
// and every test of INVALIDATING is test_bit_acquire() (the fast path's and
// the one under i_lock).

export * from './v2.js';
import { observe, smp_load_acquire, smp_rmb, type int } from '../kernel.js';
import { NFS_INO_INVALID_DATA, VALID, WAIT, type Inode } from './inode.js';
import { nfs_clear_invalid_mapping_locked, wait_on_bit_invalidating } from './pre.js';

export function nfs_test_invalidating(inode: Inode): boolean {
  const bit = smp_load_acquire(inode.flags); // test_bit_acquire()
  observe('invalidating', bit);
  return bit === 1;
}

export function nfs_clear_invalid_mapping(inode: Inode): int {
  if (wait_on_bit_invalidating(inode)) return WAIT;
  smp_rmb();
  if ((smp_load_acquire(inode.cache_validity) & NFS_INO_INVALID_DATA) === 0) {
    if (nfs_test_invalidating(inode)) return WAIT; // continue
    return VALID;
  }
  return nfs_clear_invalid_mapping_locked(inode);
}
