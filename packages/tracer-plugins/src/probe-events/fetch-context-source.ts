import { PT_REGS_NAMES } from '@int3/kernel';
import type { FetchContext } from './fetch-context.js';
import type { FetchSource } from './fetch-source.js';

const U64 = (1n << 64n) - 1n;

function split(v: bigint, out: Uint32Array): void {
  const u = v & U64;
  out[0] = Number(u & 0xffffffffn);
  out[1] = Number(u >> 32n);
}

/**
 * Adapts a {@link FetchContext} (BigInt values, copied reads: simple to write for tests and tools) to
 * the {@link FetchSource} the evaluator runs on. The machine's own source reads registers and pages
 * directly instead; this one allocates per read.
 *
 * @example
 * processFetchInsn(steps, fetchContextSource(ctx), cursor, dest);
 */
export function fetchContextSource(ctx: FetchContext): FetchSource {
  const read = (lo: number, hi: number, length: number, user: boolean) => {
    const a = (BigInt(hi) << 32n) | BigInt(lo);
    return user ? ctx.readUser(a, length) : ctx.readKernel(a, length);
  };
  return {
    loadRegister: (reg, out) => split(ctx.readRegister(PT_REGS_NAMES[reg]), out),
    loadStackNth: (n, out) => split(ctx.kernelStackNth(n), out),
    loadEntryArg: (n, out) => split(ctx.entryArgs?.[n] ?? 0n, out),
    copyMemory(lo, hi, length, user, dst, at) {
      const bytes = read(lo, hi, length, user);
      if (!bytes || bytes.length < length) return false;
      dst.set(bytes.subarray(0, length), at);
      return true;
    },
    copyString(lo, hi, user, dst, at, max) {
      for (let len = 0; len < max; len++) {
        const sum = lo + len;
        const b = read(sum >>> 0, (hi + (sum > 0xffffffff ? 1 : 0)) >>> 0, 1, user);
        if (!b) return -1;
        if (dst) dst[at + len] = b[0];
        if (b[0] === 0) return len + 1;
      }
      if (dst) dst[at + max - 1] = 0;
      return max;
    },
    get comm() {
      return ctx.comm;
    },
    ...(ctx.symbolize === undefined ? {} : { symbolize: (a: bigint) => ctx.symbolize?.(a) }),
  };
}
