// The proposed correction (fix.diff, on top of v1; the setter is v2's):
// the fast path loads cache_validity (acquire) before it tests INVALIDATING,
// and every test of INVALIDATING is test_bit_acquire() (the fast path's and
// the one under i_lock).

export * from './v2.js';
import { smp_load_acquire, smp_rmb, test_bit_acquire, type int } from '../kernel.js';
import { NFS_INO_INVALID_DATA, NFS_INO_INVALIDATING, VALID, WAIT, type Inode } from './inode.js';
import { nfs_clear_invalid_mapping_locked, wait_on_bit_invalidating } from './pre.js';

export function nfs_test_invalidating(inode: Inode): int {
  return test_bit_acquire(NFS_INO_INVALIDATING, inode.flags);
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
