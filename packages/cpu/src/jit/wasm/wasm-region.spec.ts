import { describe, expect, it } from 'vitest';
import { AddressSpace } from '../../address-space.js';
import { Cpu } from '../../cpu.js';
import { PageFlags } from '../../page-flags.js';
import { Reg } from '../../reg.js';
import type { BlockCompiler } from '../block-compiler.js';
import { isCompilable } from '../compilable.js';
import type { JitRegion, RegionFunction } from '../jit-region.js';
import { planRegion } from '../region-plan.js';
import { compileWasmRegion } from './wasm-install.js';
import { wasmTakes } from './wasm-takes.js';

const CODE = 0x400000n;
const DATA = 0x600000n;
const STACK = 0x7fe000n;
/** Two pages whose data-TLB slot is DATA's. */
const ALT = 0x700000n;
const RWX = PageFlags.Present | PageFlags.Writable | PageFlags.User;

/**
 * Programs of the instructions the WebAssembly back end writes, each a loop of 20 (r15) ending in
 * hlt (assembled with GNU as; the source is beside each).
 */
const PROGRAMS: Record<string, number[]> = {
  // 1: mov ah, bl; add ch, ah; setc dh; sub bl, 0x37; mov al, dh; movzx esi, ah; movsx edi, ch;
  //    xor bh, cl; dec r15; jnz 1b
  'high-byte registers, 8-bit flags': [
    0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x88, 0xdc, 0x00, 0xe5, 0x0f, 0x92, 0xc6, 0x80, 0xeb, 0x37, 0x88, 0xf0,
    0x0f, 0xb6, 0xf4, 0x0f, 0xbe, 0xfd, 0x30, 0xcf, 0x49, 0xff, 0xcf, 0x75, 0xe7, 0xf4,
  ],
  // 1: add rax, rbx; mov rcx, rbp; cmovo ecx, edx; mov rsi, rbp; cmovno esi, eax; cmp eax, ecx;
  //    cmovl rdi, rax; mov rdi, rbp; cmovg edi, ebx; test edx, edx; cmovs rdx, rsi; dec r15; jnz 1b
  //    (rbp's upper half is not 0: a 32-bit cmov clears it whether it moves or not)
  'cmov, a 32-bit one zeroing the upper half when not taken': [
    0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x48, 0x01, 0xd8, 0x48, 0x89, 0xe9, 0x0f, 0x40, 0xca, 0x48, 0x89, 0xee,
    0x0f, 0x41, 0xf0, 0x39, 0xc8, 0x48, 0x0f, 0x4c, 0xf8, 0x48, 0x89, 0xef, 0x0f, 0x4f, 0xfb, 0x85, 0xd2, 0x48, 0x0f,
    0x48, 0xd6, 0x49, 0xff, 0xcf, 0x75, 0xda, 0xf4,
  ],
  // 1: imul rax, rbx; jmp 2f; 2: jo 3f; add rcx, 1; 3: imul edx, esi, 0x12345; jmp 4f; 4: setc bl;
  //    seto bh; movabs rdx, 1 << 59; shl rdx, 5; jmp 5f; 5: setc cl; seto ch; sar esi, 3; jmp 6f;
  //    6: cmovc rdi, rdx; shr rax, 63; jmp 7f; 7: seto al; dec r15; jnz 1b — each reader in a block
  //    after its writer's (one block per region): the record's imul and shift kinds read by the
  //    module's cond; the shl's CF is the one bit set.
  'imul and shift records read in later blocks': [
    0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x48, 0x0f, 0xaf, 0xc3, 0xeb, 0x00, 0x70, 0x04, 0x48, 0x83, 0xc1, 0x01,
    0x69, 0xd6, 0x45, 0x23, 0x01, 0x00, 0xeb, 0x00, 0x0f, 0x92, 0xc3, 0x0f, 0x90, 0xc7, 0x48, 0xba, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x08, 0x48, 0xc1, 0xe2, 0x05, 0xeb, 0x00, 0x0f, 0x92, 0xc1, 0x0f, 0x90, 0xc5, 0xc1, 0xfe,
    0x03, 0xeb, 0x00, 0x48, 0x0f, 0x42, 0xfa, 0x48, 0xc1, 0xe8, 0x3f, 0xeb, 0x00, 0x0f, 0x90, 0xc0, 0x49, 0xff, 0xcf,
    0x75, 0xb9, 0xf4,
  ],
  // 1: push rax; push rbx; call 3f; pop rcx; pop rdx; add rax, rcx; dec r15; jnz 1b; hlt;
  // 3: add rbx, [rsp+8]; mov [rsp+16], rbx; ret
  'push, pop, call and ret': [
    0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x50, 0x53, 0xe8, 0x0b, 0x00, 0x00, 0x00, 0x59, 0x5a, 0x48, 0x01, 0xc8,
    0x49, 0xff, 0xcf, 0x75, 0xef, 0xf4, 0x48, 0x03, 0x5c, 0x24, 0x08, 0x48, 0x89, 0x5c, 0x24, 0x10, 0xc2, 0x00, 0x00,
  ],
  // 1: push rax; call 3f; add rax, 1; dec r15; jnz 1b; hlt; 3: mov rax, [rsp+8]; inc rax; ret 8
  'ret with an immediate': [
    0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x50, 0xe8, 0x0a, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc0, 0x01, 0x49, 0xff,
    0xcf, 0x75, 0xf1, 0xf4, 0x48, 0x8b, 0x44, 0x24, 0x08, 0x48, 0xff, 0xc0, 0xc2, 0x08, 0x00,
  ],
  // rbx = DATA, r8 = 0x100000. 1: add qword [rbx], 0x7f; sub [rbx+8], eax; neg qword [rbx+16];
  // not word [rbx+24]; inc byte [rbx+25]; dec dword [rbx+28]; sete byte [rbx+32]; cmp [rbx], rax;
  // ja 2f; test byte [rbx+1], 0x80; mov rax, [rbx+4093] (crosses into the next page);
  // mov [rbx+4090], eax; 2: xor rbx, r8 (DATA and ALT take the same TLB slot: a miss each time);
  // dec r15; jnz 1b
  'memory operands, TLB misses, and a load across a page': [
    0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x41, 0xb8, 0x00, 0x00, 0x10, 0x00, 0x48, 0x83, 0x03, 0x7f, 0x29, 0x43,
    0x08, 0x48, 0xf7, 0x5b, 0x10, 0x66, 0xf7, 0x53, 0x18, 0xfe, 0x43, 0x19, 0xff, 0x4b, 0x1c, 0x0f, 0x94, 0x43, 0x20,
    0x48, 0x39, 0x03, 0x77, 0x11, 0xf6, 0x43, 0x01, 0x80, 0x48, 0x8b, 0x83, 0xfd, 0x0f, 0x00, 0x00, 0x89, 0x83, 0xfa,
    0x0f, 0x00, 0x00, 0x4c, 0x31, 0xc3, 0x49, 0xff, 0xcf, 0x75, 0xc9, 0xf4,
  ],
  // 1: mov [rip+5], cl (the second add's imm8); add eax, 1; add eax, 1; inc ecx; dec r15; jnz 1b
  'a store into its own code': [
    0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x88, 0x0d, 0x05, 0x00, 0x00, 0x00, 0x83, 0xc0, 0x01, 0x83, 0xc0, 0x01,
    0xff, 0xc1, 0x49, 0xff, 0xcf, 0x75, 0xed, 0xf4,
  ],
};

const START = [
  0x8000000000000001n,
  0x7fffffffffffffffn,
  0x123456789abcdef0n,
  DATA,
  STACK + 0x1000n,
  0xffffffff80000000n,
  0x00000000ffffffffn,
  3n,
];

function machine(code: number[], jit: false | { threshold: number; maxBlocks?: number; wasm?: boolean }) {
  const as = new AddressSpace();
  as.map(CODE, 4096, RWX);
  as.write(CODE, Uint8Array.from(code));
  // The data's two pages apart in the arena (a page between them), the second not zero: a load
  // across them that read past the first slot would read the wrong bytes.
  for (const base of [DATA, ALT]) {
    as.map(base, 4096, RWX);
    as.map(base + 0x10000n, 4096, RWX);
    as.map(base + 4096n, 4096, RWX);
    for (let k = 0; k < 64; k++) as.writeU8(base + BigInt(k), (k * 37 + 11 + Number(base >> 20n)) & 0xff);
    for (let k = 0; k < 16; k++) as.writeU8(base + 4096n + BigInt(k), (k * 91 + 5) & 0xff);
  }
  as.map(STACK, 8192, RWX);
  const cpu = new Cpu({ addressSpace: as, jit });
  START.forEach((v, r) => {
    cpu.setReg(r as 0, v);
  });
  cpu.setReg(Reg.RSP, STACK + 0x1000n);
  cpu.rip = CODE;
  return { cpu, as };
}

function observe(m: ReturnType<typeof machine>, budget: number) {
  const r = m.cpu.run(budget);
  return {
    r: { ...r },
    ctx: m.cpu.saveContext(),
    data: Buffer.from(m.as.read(DATA, 8192)).toString('hex'),
    alt: Buffer.from(m.as.read(ALT, 8192)).toString('hex'),
    stack: Buffer.from(m.as.read(STACK, 8192)).toString('hex'),
    code: Buffer.from(m.as.read(CODE, 64)).toString('hex'),
  };
}

describe('the WebAssembly back end', () => {
  for (const [name, code] of Object.entries(PROGRAMS)) {
    for (const options of [
      { threshold: 1, wasm: true },
      { threshold: 1, maxBlocks: 1, wasm: true },
    ]) {
      it(`should run ${name} as the interpreter does, at every budget from 1 to 16 and at 25, 40 and 1000 (${options.maxBlocks ? 'one block a region' : 'whole regions'})`, () => {
        let wasmRetired = 0;
        for (const budget of [...Array.from({ length: 16 }, (_, k) => k + 1), 25, 40, 1000]) {
          const ref = machine(code, false);
          const jit = machine(code, options);
          for (let k = 0; k < 200; k++) {
            const a = observe(ref, budget);
            const b = observe(jit, budget);
            expect(b).toEqual(a);
            if (a.r.reason !== 'budget') break;
          }
          const stats = (jit.cpu.jit as BlockCompiler).stats;
          expect(stats.wasm).toBeGreaterThan(0);
          wasmRetired += stats.retired;
        }
        // Compiled code ran (a store into its own code page leaves it before the store every time).
        expect(wasmRetired).toBeGreaterThan(0);
      });
    }
  }

  const plan = (code: number[]) => {
    const { cpu, as } = machine(code, false);
    cpu.run(1000);
    const page = as.lookup(Number(CODE), 0);
    if (page === undefined) throw new Error('no code page');
    const found = planRegion({ lo: Number(CODE), hi: 0, page }, 7, isCompilable, { maxBlocks: 48, maxInsns: 512 });
    if (found === null) throw new Error('no plan');
    return found;
  };

  it("should run a region through the dispatcher's table while cached, and its own run once released, whoever has the slot since", () => {
    // Each region function (planned from the loop's head, after mov r15, 20) run once from there
    // with r15 = 20 and a budget of 100, on a machine
    // that ran the program to its end first (so its TLB holds the pages: restoring a context would
    // flush it), against the interpreter from the same state.
    const ran = (program: number[]) => {
      const m = machine(program, false);
      m.cpu.run(1000);
      START.forEach((v, r) => {
        m.cpu.setReg(r as 0, v);
      });
      m.cpu.setReg(Reg.RSP, STACK + 0x1000n);
      m.cpu.setReg(Reg.R15, 20n);
      m.cpu.rip = CODE + 7n;
      return m;
    };
    const runOnce = (fn: RegionFunction, program: number[]) => {
      const { cpu } = ran(program);
      const retired = cpu.retiredCount;
      // A WebAssembly region's function reads neither the region nor its instructions.
      const x = fn(cpu, 100, null as unknown as JitRegion, [], 0);
      return { x, retired: cpu.retiredCount - retired, ctx: cpu.saveContext() };
    };
    const interpreted = (program: number[], n: number) => {
      const { cpu } = ran(program);
      cpu.run(n);
      return cpu.saveContext();
    };
    const code = PROGRAMS['push, pop, call and ret'];
    const other = PROGRAMS['ret with an immediate'];
    const a = compileWasmRegion(plan(code), new Set());
    const b = compileWasmRegion(plan(code), new Set());
    if (a === null || b === null) throw new Error('no WebAssembly');
    const viaTable = runOnce(a.fn, code);
    expect(viaTable.retired).toBeGreaterThan(50);
    expect(viaTable.ctx).toEqual(interpreted(code, viaTable.retired));
    // Released (twice: the second does nothing), `a` runs its module directly; the module compiled
    // next takes its slot in the table, and runs its own code there.
    a.release();
    a.release();
    const c = compileWasmRegion(plan(other), new Set());
    if (c === null) throw new Error('no WebAssembly');
    expect(runOnce(a.fn, code)).toEqual(viaTable);
    expect(runOnce(b.fn, code)).toEqual(viaTable);
    const mine = runOnce(c.fn, other);
    expect(mine.retired).toBeGreaterThan(50);
    expect(mine.ctx).toEqual(interpreted(other, mine.retired));
    b.release();
    c.release();
  });

  it('should take the plans of one page with nothing but what it writes, and leave the rest to JavaScript', () => {
    expect(wasmTakes(plan(PROGRAMS['push, pop, call and ret']))).toBe(true);
    // mov r15, 20; 1: shl rax, cl; dec r15; jnz 1b; hlt — a shift by cl goes to the executor.
    expect(
      wasmTakes(plan([0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x48, 0xd3, 0xe0, 0x49, 0xff, 0xcf, 0x75, 0xf8, 0xf4])),
    ).toBe(false);
    // 1: mov rax, fs:[0]; ... — a segment override.
    expect(
      wasmTakes(
        plan([
          0x49, 0xc7, 0xc7, 0x14, 0x00, 0x00, 0x00, 0x64, 0x48, 0x8b, 0x04, 0x25, 0, 0, 0, 0, 0x49, 0xff, 0xcf, 0x75,
          0xf2, 0xf4,
        ]),
      ),
    ).toBe(false);
  });
});
