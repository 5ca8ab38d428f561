import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';

/** Small by default; INT3_FUZZ=<runs> for a longer campaign. */
const RUNS = Number(process.env.INT3_FUZZ ?? 300);
const M64 = (1n << 64n) - 1n;

const u64 = fc.oneof(
  fc.bigInt({ min: 0n, max: M64 }),
  fc.bigInt({ min: 0n, max: 0xffffn }),
  fc.bigInt({ min: -0x300000n, max: 0x300000n }).map((v) => BigInt.asUintN(64, v)),
  fc.constantFrom(0n, 1n, M64, 1n << 63n, (1n << 63n) - 1n, 0xffffffffn, 0x80000000n),
);

function exec(bytes: number[], rax: bigint, rbx: bigint, rdx = 0n): Cpu | number {
  const as = new AddressSpace();
  as.map(0x1000n, 4096, PageFlags.Present);
  as.write(0x1000n, Uint8Array.from(bytes));
  const cpu = new Cpu({ addressSpace: as });
  cpu.rip = 0x1000n;
  cpu.setReg(Reg.RAX, rax);
  cpu.setReg(Reg.RBX, rbx);
  cpu.setReg(Reg.RDX, rdx);
  const r = cpu.step();
  return r.reason === 'exception' ? r.vector : cpu;
}

const s64 = (v: bigint) => BigInt.asIntN(64, v);

describe('64-bit multiply and divide (against BigInt)', () => {
  it('should compute imul r64, r64 and its overflow flag', () => {
    fc.assert(
      fc.property(u64, u64, (a, b) => {
        const cpu = exec([0x48, 0x0f, 0xaf, 0xc3], a, b) as Cpu;
        const p = s64(a) * s64(b);
        expect(cpu.getReg(Reg.RAX)).toBe(BigInt.asUintN(64, p));
        expect(cpu.rflags & 0x801).toBe(p === s64(BigInt.asUintN(64, p)) ? 0 : 0x801);
      }),
      { numRuns: RUNS },
    );
  });

  it('should compute mul r64 into RDX:RAX', () => {
    fc.assert(
      fc.property(u64, u64, (a, b) => {
        const cpu = exec([0x48, 0xf7, 0xe3], a, b) as Cpu;
        const p = a * b;
        expect([cpu.getReg(Reg.RDX), cpu.getReg(Reg.RAX)]).toEqual([p >> 64n, p & M64]);
      }),
      { numRuns: RUNS },
    );
  });

  it('should compute div and idiv r64, or raise #DE exactly when the SDM says', () => {
    fc.assert(
      fc.property(u64, u64, u64, (lo, hi, d) => {
        const n = (hi << 64n) | lo;
        const u = exec([0x48, 0xf7, 0xf3], lo, d, hi);
        if (d === 0n || n / d > M64) expect(u).toBe(0);
        else expect([(u as Cpu).getReg(Reg.RAX), (u as Cpu).getReg(Reg.RDX)]).toEqual([n / d, n % d]);
        const sn = BigInt.asIntN(128, n);
        const sd = s64(d);
        const s = exec([0x48, 0xf7, 0xfb], lo, d, hi);
        const q = sd === 0n ? 0n : sn / sd;
        if (sd === 0n || q !== s64(BigInt.asUintN(64, q))) expect(s).toBe(0);
        else
          expect([(s as Cpu).getReg(Reg.RAX), (s as Cpu).getReg(Reg.RDX)]).toEqual([
            BigInt.asUintN(64, q),
            BigInt.asUintN(64, sn % sd),
          ]);
      }),
      { numRuns: RUNS },
    );
  });
});
