// src/report/md5.ts (herd7's Hash= without loading node:crypto) against node:crypto.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { md5Binary, md5HexOf } from '../src/report/md5.js';

const reference = (s: string) => createHash('md5').update(s, 'latin1').digest('hex');

describe('md5', () => {
  it('RFC 1321 test suite', () => {
    expect(md5HexOf('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(md5HexOf('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(md5HexOf('message digest')).toBe('f96b697d7cb7938d525a2f31aaf161d0');
    expect(md5HexOf('1234567890'.repeat(8))).toBe('57edf4a22be3c955ac49da2e2107b67a');
  });
  it('equals node:crypto on byte strings of every length around the block boundaries, and random ones', () => {
    for (let n = 0; n < 200; n++) {
      const s = Array.from({ length: n }, (_, i) => String.fromCharCode((i * 37 + n) & 0xff)).join('');
      expect(md5HexOf(s)).toBe(reference(s));
    }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => {
      const s = Buffer.from(bytes).toString('latin1');
      expect(md5HexOf(s)).toBe(reference(s));
      expect(Buffer.from(md5Binary(s), 'latin1').toString('hex')).toBe(reference(s));
    }));
  });
});
