// v2 as merged: v1 plus "flags |= nfsi->cache_validity" in the setter.

export * from './v1.js';
import { READ_ONCE, smp_store_release, type int } from '../kernel.js';
import type { Inode } from './inode.js';

export function nfs_set_cache_invalid(inode: Inode, flags: int): void {
  flags |= READ_ONCE(inode.cache_validity);
  smp_store_release(inode.cache_validity, flags);
}
