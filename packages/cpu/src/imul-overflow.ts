const TWO32 = 4294967296;

/**
 * High 32 bits (as an int32 bit pattern) of the unsigned 32x32-bit product of `a` and `b` (int32 bit
 * patterns), in int32 arithmetic: the function that umulHighText in semantics/alu-semantics.ts writes
 * out for the compiled code (four 16x16-bit products and their carries, Hacker's Delight 8-2).
 * @see Intel SDM Vol. 2B (MUL)
 */
export function umulHigh32(a: number, b: number): number {
  const a0 = a & 65535;
  const a1 = a >>> 16;
  const b0 = b & 65535;
  const b1 = b >>> 16;
  const t = (Math.imul(a1, b0) >>> 0) + (Math.imul(a0, b0) >>> 16);
  const mid = ((Math.imul(a0, b1) >>> 0) + (t & 65535)) >>> 16;
  return (Math.imul(a1, b1) + (t >>> 16) + mid) | 0;
}

/** Bit 31 and up of `x` (a sum of uint32 terms below 2^53) as a carry count. */
function carry(x: number): number {
  return Math.floor(x / TWO32);
}

/**
 * CF = OF of a two- or three-operand imul: 1 when the signed product of the `size`-byte factors a
 * (al, ah) and b (bl, bh) does not fit in `size` bytes. Factors are held as the lazy-flags state keeps
 * them: zero-extended below 4 bytes, int32 halves otherwise. Computed only when a flag is read.
 * @see Intel SDM Vol. 2A (IMUL: "CF and OF are set when the signed result is truncated")
 */
export function imulOverflow(size: number, al: number, ah: number, bl: number, bh: number): number {
  if (size === 2) {
    const r = ((al << 16) >> 16) * ((bl << 16) >> 16);
    return r === (r << 16) >> 16 ? 0 : 1;
  }
  if (size === 4) return (al | 0) * (bl | 0) === Math.imul(al, bl) ? 0 : 1;
  // Step 1: the unsigned 128-bit product's words w1..w3 from four 32x32 partial products.
  const hi00 = umulHigh32(al, bl);
  const t1 = (hi00 >>> 0) + (Math.imul(al, bh) >>> 0) + (Math.imul(ah, bl) >>> 0);
  const t2 = (umulHigh32(al, bh) >>> 0) + (umulHigh32(ah, bl) >>> 0) + (Math.imul(ah, bh) >>> 0) + carry(t1);
  const w1 = t1 | 0;
  let w2 = t2 | 0;
  let w3 = (umulHigh32(ah, bh) + carry(t2)) | 0;
  // Step 2: a negative factor makes the signed high half the unsigned one minus the other factor.
  if (ah < 0) {
    const x = (w2 >>> 0) - (bl >>> 0);
    w2 = x | 0;
    w3 = (w3 - bh - (x < 0 ? 1 : 0)) | 0;
  }
  if (bh < 0) {
    const x = (w2 >>> 0) - (al >>> 0);
    w2 = x | 0;
    w3 = (w3 - ah - (x < 0 ? 1 : 0)) | 0;
  }
  // Step 3: the product fits iff the high half is the sign extension of the low half.
  return w2 === w1 >> 31 && w3 === w1 >> 31 ? 0 : 1;
}
