import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import { testMachine } from './test-machine.fixture.js';

/** Small by default; INT3_FUZZ=<runs> for a longer campaign. */
const RUNS = Number(process.env.INT3_FUZZ ?? 200);
const M64 = (1n << 64n) - 1n;

const u64 = fc.oneof(
  fc.bigInt({ min: 0n, max: M64 }),
  fc.bigInt({ min: -0x100000n, max: 0x100000n }).map((v) => BigInt.asUintN(64, v)),
  fc.constantFrom(0n, M64, 0xffffffffn, 0x100000000n, 1n << 63n),
);
const disp32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
/** Code and data in the kernel half, so a stale high half of an address cannot go unnoticed. */
const CODE = 0xffffffff81000000n;
const DATA = 0xffff888000000000n;
const le32 = (v: number) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];

/** Runs one instruction with RBX and RCX set; returns RAX. */
function run(bytes: number[], rbx: bigint, rcx: bigint): bigint {
  const m = testMachine(bytes);
  m.cpu.setReg(Reg.RBX, rbx);
  m.cpu.setReg(Reg.RCX, rcx);
  expect(m.cpu.step().reason).toBe('budget');
  return m.cpu.getReg(Reg.RAX);
}

describe('CpuCore.ea', () => {
  it('should compute every memory form of lea as base + index * scale + disp, wrapped', () => {
    fc.assert(
      fc.property(u64, u64, disp32, (b, x, d) => {
        const sd = BigInt(d);
        const want = (v: bigint, bits: number) => BigInt.asUintN(bits, v);
        // lea rax, [rbx + disp32]; lea rax, [rbx + rcx*8 + disp32]; lea rax, [rcx*4 + disp32]
        expect(run([0x48, 0x8d, 0x83, ...le32(d)], b, x)).toBe(want(b + sd, 64));
        expect(run([0x48, 0x8d, 0x84, 0xcb, ...le32(d)], b, x)).toBe(want(b + x * 8n + sd, 64));
        expect(run([0x48, 0x8d, 0x04, 0x8d, ...le32(d)], b, x)).toBe(want(x * 4n + sd, 64));
        // lea eax, [rbx + rcx*2 + disp32] (32-bit destination); lea rax, [ebx + ecx*8 + disp32] (0x67)
        expect(run([0x8d, 0x84, 0x4b, ...le32(d)], b, x)).toBe(want(b + x * 2n + sd, 32));
        expect(run([0x67, 0x48, 0x8d, 0x84, 0xcb, ...le32(d)], b, x)).toBe(
          want(want(b, 32) + want(x, 32) * 8n + sd, 32),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('should load and store through base + disp and base + index * scale + disp at every size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4088 }), disp32, u64, (off, d, v) => {
        const at = DATA + BigInt(off);
        const base = BigInt.asUintN(64, at - BigInt(d));
        const leaRip = [0x4c, 0x8d, 0x0d, 0, 0, 0, 0]; // lea r9, [rip]: leaves the code page's high half behind
        const as = new AddressSpace();
        as.map(CODE, 4096, PageFlags.Present);
        as.write(
          CODE,
          Uint8Array.from([
            ...leaRip,
            0x48,
            0x89,
            0x83,
            ...le32(d), // mov [rbx + disp32], rax
            ...leaRip,
            0x8b,
            0x93,
            ...le32(d), // mov edx, [rbx + disp32]
            ...leaRip,
            0x48,
            0x8b,
            0xb3,
            ...le32(d), // mov rsi, [rbx + disp32]
            ...leaRip,
            0x0f,
            0xb6,
            0xbb,
            ...le32(d), // movzx edi, byte [rbx + disp32]
            0x4c,
            0x8b,
            0x84,
            0x0b,
            ...le32(d), // mov r8, [rbx + rcx + disp32]
            0x66,
            0x89,
            0x84,
            0x0b,
            ...le32(d), // mov [rbx + rcx + disp32], ax
            0xf4, // hlt
          ]),
        );
        as.map(DATA, 4096, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
        const cpu = new Cpu({ addressSpace: as });
        cpu.rip = CODE;
        cpu.setReg(Reg.RAX, v);
        cpu.setReg(Reg.RBX, base);
        cpu.setReg(Reg.RCX, 0n);
        expect(cpu.run(100).reason).toBe('hlt');
        expect(as.readU64(at)).toBe(v);
        expect(cpu.getReg(Reg.RDX)).toBe(v & 0xffffffffn);
        expect(cpu.getReg(Reg.RSI)).toBe(v);
        expect(cpu.getReg(Reg.RDI)).toBe(v & 0xffn);
        expect(cpu.getReg(Reg.R8)).toBe(v);
      }),
      { numRuns: RUNS },
    );
  });
});
