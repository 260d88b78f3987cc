// MD5 (RFC 1321) of a "binary" string (one character per byte, as
// hash.ts keeps a test's text), written out rather than taken from
// node:crypto: loading node:crypto costs ~4.5 ms of a process's start, and
// `litmus herd7` hashes every test of the kernel's scripts, which start one
// process per test. test/hash.test.ts checks it against node:crypto.

/** Per-round left-rotation amounts. */
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

/** The sine table: floor(abs(sin(i + 1)) * 2^32). */
const K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 0x100000000) >>> 0);

/** The 16 raw digest bytes, as a binary string. */
export function md5Binary(s: string): string {
  const n = s.length;
  // Message, a 1 bit, zeros, and the bit length (little-endian, 64 bits) to a multiple of 64 bytes.
  const blocks = ((n + 8) >>> 6) + 1;
  const words = new Uint32Array(blocks * 16);
  for (let i = 0; i < n; i++) words[i >> 2] |= (s.charCodeAt(i) & 0xff) << ((i % 4) * 8);
  words[n >> 2] |= 0x80 << ((n % 4) * 8);
  const bits = n * 8;
  words[blocks * 16 - 2] = bits >>> 0;
  words[blocks * 16 - 1] = Math.floor(bits / 0x100000000) >>> 0;
  let a0 = 0x67452301;
  let b0 = 0xefcdab89;
  let c0 = 0x98badcfe;
  let d0 = 0x10325476;
  for (let blk = 0; blk < blocks; blk++) {
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    for (let i = 0; i < 64; i++) {
      let f: number;
      let g: number;
      const round = i >> 4;
      if (round === 0) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (round === 1) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (round === 2) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      const sum = (a + f + K[i] + words[blk * 16 + g]) >>> 0;
      const r = SHIFTS[round * 4 + (i % 4)];
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << r) | (sum >>> (32 - r)))) >>> 0;
    }
    a0 = (a0 + a) >>> 0;
    b0 = (b0 + b) >>> 0;
    c0 = (c0 + c) >>> 0;
    d0 = (d0 + d) >>> 0;
  }
  let out = '';
  for (const w of [a0, b0, c0, d0]) for (let k = 0; k < 4; k++) out += String.fromCharCode((w >>> (8 * k)) & 0xff);
  return out;
}

export function md5HexOf(s: string): string {
  let hex = '';
  for (const ch of md5Binary(s)) hex += ch.charCodeAt(0).toString(16).padStart(2, '0');
  return hex;
}
