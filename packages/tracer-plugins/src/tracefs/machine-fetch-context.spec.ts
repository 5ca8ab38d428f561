import { AddressSpace, PageFlags } from '@int3/cpu';
import { type Machine, PT_REGS_NAMES, type PtRegs } from '@int3/kernel';
import type { Kprobes } from '@int3/kprobes';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { machineTracerView } from '../view/machine-tracer-view.js';
import { MachineFetchContext } from './machine-fetch-context.js';

const USER_PAGE = 0x7000n;
const KERNEL_PAGE = 0xffff_8880_0000_0000n;

/** A context over a space with two user pages at 0x7000 (the second unmapped past 0x9000) and one kernel page. */
function context() {
  const space = new AddressSpace();
  space.map(USER_PAGE, 0x2000, PageFlags.Present | PageFlags.User);
  space.map(KERNEL_PAGE, 0x1000, PageFlags.Present);
  const R = new Int32Array(16);
  const H = new Int32Array(16);
  const cpu = { id: 0, addressSpace: space, regLo: (r: number) => R[r], regHi: (r: number) => H[r] };
  const regs = { cpu } as unknown as PtRegs;
  // The real adapter over a one-CPU stand-in machine: pages and registers come through the view.
  const view = machineTracerView({ cpus: [cpu], streams: {} } as unknown as Machine, {} as Kprobes);
  const ctx = new MachineFetchContext(view).at(regs, undefined);
  return { space, ctx, R, H };
}

describe(MachineFetchContext, () => {
  it('should copy a string that crosses a page boundary, and measure it without a destination', () => {
    const { space, ctx } = context();
    space.write(0x7ffcn, new TextEncoder().encode('abcdefgh\0'));
    const dst = new Uint8Array(16);
    expect(ctx.copyString(0x7ffc, 0, true, null, 0, 4096)).toBe(9);
    expect(ctx.copyString(0x7ffc, 0, true, dst, 2, 4096)).toBe(9);
    expect(new TextDecoder().decode(dst.subarray(2, 10))).toBe('abcdefgh');
  });

  it('should cut a string at max bytes with a NUL, and fault where the pages end', () => {
    const { space, ctx } = context();
    space.write(0x8ff0n, new Uint8Array(16).fill(0x41)); // runs into the unmapped page at 0x9000
    const dst = new Uint8Array(8).fill(0xff);
    expect(ctx.copyString(0x8ff0, 0, true, dst, 0, 8)).toBe(8);
    expect([...dst]).toEqual([65, 65, 65, 65, 65, 65, 65, 0]);
    expect(ctx.copyString(0x8ff0, 0, true, null, 0, 4096)).toBe(-1);
  });

  it('should read memory across pages whole or not at all', () => {
    const { space, ctx } = context();
    space.write(0x7ffcn, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    const dst = new Uint8Array(8);
    expect(ctx.copyMemory(0x7ffc, 0, 8, false, dst, 0)).toBe(true);
    expect([...dst]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    dst.fill(9);
    expect(ctx.copyMemory(0x8ffc, 0, 8, false, dst, 0)).toBe(false);
    expect([...dst]).toEqual([9, 9, 9, 9, 9, 9, 9, 9]);
  });

  it('should refuse user reads of the kernel half but allow kernel reads there', () => {
    const { space, ctx } = context();
    space.write(KERNEL_PAGE, Uint8Array.of(0x2a, 0));
    const lo = Number(KERNEL_PAGE & 0xffffffffn);
    const hi = Number(KERNEL_PAGE >> 32n);
    const dst = new Uint8Array(2);
    expect(ctx.copyMemory(lo, hi, 2, true, dst, 0)).toBe(false);
    expect(ctx.copyString(lo, hi, true, dst, 0, 16)).toBe(-1);
    expect(ctx.copyMemory(lo, hi, 2, false, dst, 0)).toBe(true);
    expect(ctx.copyString(lo, hi, false, dst, 0, 16)).toBe(2);
  });

  it('should load registers and stack words as 32-bit halves', () => {
    const { space, ctx, R, H } = context();
    R[7] = 0x7ff8; // rdi
    H[7] = -1;
    R[4] = 0x7ff0; // rsp
    space.writeU64(0x7ff8n, 0x1122334455667788n);
    const out = new Uint32Array(2);
    ctx.loadRegister(PT_REGS_NAMES.indexOf('di'), out);
    expect([...out]).toEqual([0x7ff8, 0xffffffff]);
    ctx.loadStackNth(1, out);
    expect([...out]).toEqual([0x55667788, 0x11223344]);
    ctx.loadStackNth(1000, out);
    expect([...out]).toEqual([0, 0]);
  });

  it('should read exactly what the address space reads, for any address near a page edge and length', () => {
    const { space, ctx } = context();
    const bytes = Uint8Array.from({ length: 0x2000 }, (_, i) => (i * 7 + 1) % 256 || (i % 3 === 0 ? 0 : 9));
    space.write(USER_PAGE, bytes);
    fc.assert(
      fc.property(fc.integer({ min: 0x6f00, max: 0x9100 }), fc.integer({ min: 1, max: 64 }), (addr, len) => {
        const a = BigInt(addr);
        const dst = new Uint8Array(len);
        const ok = ctx.copyMemory(addr, 0, len, true, dst, 0);
        expect(ok).toBe(space.isMapped(a, len));
        if (ok) expect(dst).toEqual(space.read(a, len));
        // Reference strncpy: byte by byte until NUL, a fault or `len` bytes.
        let want = -1;
        for (let i = 0; i < len; i++) {
          if (!space.isMapped(a + BigInt(i))) break;
          if (space.readU8(a + BigInt(i)) === 0) {
            want = i + 1;
            break;
          }
          if (i === len - 1) want = len;
        }
        expect(ctx.copyString(addr, 0, true, null, 0, len)).toBe(want);
      }),
      { numRuns: Number(process.env.INT3_FUZZ_RUNS ?? 300) },
    );
  });
});
