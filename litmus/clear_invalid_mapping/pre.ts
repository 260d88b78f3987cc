// The code before the patch: nfs_set_cache_invalid() does
// cache_validity |= flags under i_lock, and nfs_clear_invalid_mapping()
// checks both bits only under i_lock. nrpages is taken as non-zero;
// nfs_ooo_clear(), fscache and tracing are left out. The loop runs once.

import {
  READ_ONCE, WRITE_ONCE, clear_bit_unlock, observe, set_bit, smp_mb, smp_mb__after_atomic, smp_wmb, spin_lock, spin_unlock,
  test_bit, test_bit_acquire, type int,
} from '../kernel.js';
import { INVALIDATED, NFS_INO_INVALID_DATA, NFS_INO_INVALIDATING, VALID, WAIT, type Inode } from './inode.js';

/** Called with i_lock held. */
export function nfs_set_cache_invalid(inode: Inode, flags: int): void {
  const cache_validity = READ_ONCE(inode.cache_validity);
  WRITE_ONCE(inode.cache_validity, cache_validity | flags);
}

/** wait_on_bit(NFS_INO_INVALIDATING) tests with test_bit_acquire(): set means it would sleep. */
export function wait_on_bit_invalidating(inode: Inode): int {
  return test_bit_acquire(NFS_INO_INVALIDATING, inode.flags);
}

/**
 * wait_on_bit(NFS_INO_INVALIDATING) for a task that sleeps:
 * prepare_to_wait() puts it on the bit's wait queue, set_current_state()
 * is a full barrier, then the bit is tested (test_bit_acquire()); set, the
 * task sleeps until wake_up_bit() wakes it. Returns whether it slept.
 */
export function wait_on_bit_sleeping(inode: Inode): int {
  WRITE_ONCE(inode.queued, 1);
  smp_mb();
  if (test_bit_acquire(NFS_INO_INVALIDATING, inode.flags)) {
    while (READ_ONCE(inode.woken) === 0) {
      // schedule(): asleep until woken
    }
    return 1;
  }
  return 0;
}

/** wake_up_bit(NFS_INO_INVALIDATING): wakes the task on the bit's wait queue, if it sees one there (waitqueue_active()). */
export function wake_up_bit_invalidating(inode: Inode): void {
  if (READ_ONCE(inode.queued)) WRITE_ONCE(inode.woken, 1);
}

/** How the code tests NFS_INO_INVALIDATING (a version may change it). */
export function nfs_test_invalidating(inode: Inode): int {
  return test_bit(NFS_INO_INVALIDATING, inode.flags);
}

export function nfs_clear_invalid_mapping(inode: Inode): int {
  if (wait_on_bit_invalidating(inode)) return WAIT;
  return nfs_clear_invalid_mapping_locked(inode);
}

/** The part of nfs_clear_invalid_mapping() from spin_lock(&inode->i_lock) on. */
export function nfs_clear_invalid_mapping_locked(inode: Inode): int {
  spin_lock(inode.i_lock);
  if (nfs_test_invalidating(inode)) {
    spin_unlock(inode.i_lock);
    return WAIT;
  }
  const cache_validity = READ_ONCE(inode.cache_validity);
  observe('cache_validity', cache_validity);
  if ((cache_validity & NFS_INO_INVALID_DATA) === 0) {
    spin_unlock(inode.i_lock);
    return VALID;
  }
  set_bit(NFS_INO_INVALIDATING, inode.flags);
  smp_wmb();
  WRITE_ONCE(inode.cache_validity, cache_validity & ~NFS_INO_INVALID_DATA);
  spin_unlock(inode.i_lock);
  WRITE_ONCE(inode.pages, 0); // nfs_invalidate_mapping()
  clear_bit_unlock(NFS_INO_INVALIDATING, inode.flags);
  smp_mb__after_atomic();
  wake_up_bit_invalidating(inode);
  return INVALIDATED;
}
