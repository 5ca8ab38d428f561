import { beforeAll, describe, expect, it } from 'vitest';
import { AddressSpace } from '../address-space.js';
import { Cpu } from '../cpu.js';
import type { Cpu as CpuApi } from '../cpu-api.js';
import { PageFlags } from '../page-flags.js';
import { Reg } from '../reg.js';
import type { RunResult } from '../run-result.js';
import { BlockCompiler } from './block-compiler.js';
import type { PageJit } from './jit-region.js';

const CODE = 0x400000n;
const RWX = PageFlags.Present | PageFlags.Writable | PageFlags.User;

/** add eax, 1; dec r15; jnz back; hlt — three instructions per iteration. */
const COUNT_LOOP = [0x83, 0xc0, 0x01, 0x49, 0xff, 0xcf, 0x75, 0xf8, 0xf4];
/**
 * Two regions with one block each (see ONE_BLOCK) that leave for each other: add eax, 1; add ecx, 2;
 * add edx, 3; jmp +0 (the next block); add esi, 1; nop; dec r15; jnz back to the start; hlt.
 */
const TWO_REGIONS = [
  0x83, 0xc0, 0x01, 0x83, 0xc1, 0x02, 0x83, 0xc2, 0x03, 0xeb, 0x00, 0x83, 0xc6, 0x01, 0x90, 0x49, 0xff, 0xcf, 0x75,
  0xec, 0xf4,
];
/** One basic block per region, so every branch leaves its region. */
const ONE_BLOCK = { threshold: 1, maxBlocks: 1 };
/** Offset of the add's immediate in COUNT_LOOP. */
const ADD_IMM = 2n;

type Options = {
  threshold?: number;
  maxRegions?: number;
  maxBlocks?: number;
  maxInsns?: number;
  innerThreshold?: number;
};

/** The back end the specs below run on (each describe block runs them on both, see the end). */
let wasm = false;

function machine(code: number[], jit: boolean | Options) {
  const as = new AddressSpace();
  as.map(CODE, 4096, RWX);
  as.write(CODE, Uint8Array.from(code));
  as.map(0x7fe000n, 8192, RWX);
  const options = jit === false ? false : { ...(jit === true ? { threshold: 1 } : jit), wasm };
  const cpu = new Cpu({ addressSpace: as, jit: options });
  cpu.setReg(Reg.RSP, 0x7ff000n);
  cpu.rip = CODE;
  return { cpu, as };
}

/** Runs the same scenario on the interpreter and the compiler; returns both outcomes. */
function both<T>(
  scenario: (m: ReturnType<typeof machine>) => T,
  code: number[],
  options: Options = { threshold: 1 },
): [T, T, BlockCompiler] {
  const ref = machine(code, false);
  const jit = machine(code, options);
  const a = scenario(ref);
  const b = scenario(jit);
  return [a, b, jit.cpu.jit as BlockCompiler];
}

function state(cpu: Cpu, r: RunResult) {
  return { r: { ...r }, ctx: cpu.saveContext() };
}

/** The state after each run(budget), up to the first that stops for another reason (at most `most` runs). */
function runs(cpu: Cpu, budget: number, most: number) {
  const out = [];
  for (let k = 0; k < most; k++) {
    const s = state(cpu, cpu.run(budget));
    out.push(s);
    if (s.r.reason !== 'budget') break;
  }
  return out;
}

describe.each([
  ['JavaScript', false],
  ['WebAssembly', true],
])('BlockCompiler, compiling to %s', (_, toWasm) => {
  beforeAll(() => {
    wasm = toWasm;
  });

  it('should stop a block right after a store into its own code, so the next instruction runs patched', () => {
    // mov [rip+2], cl (the add's imm8); add eax, 1; inc ecx; dec r15; jnz back; hlt
    const code = [0x88, 0x0d, 0x02, 0, 0, 0, 0x83, 0xc0, 0x01, 0xff, 0xc1, 0x49, 0xff, 0xcf, 0x75, 0xf0, 0xf4];
    const [a, b, jit] = both(({ cpu }) => {
      cpu.setReg(Reg.RCX, 5n);
      cpu.setReg(Reg.R15, 10n);
      return state(cpu, cpu.run(10_000));
    }, code);
    expect(b).toEqual(a);
    // Each iteration adds the value it has just stored: 5 + 6 + … + 14.
    expect(b.ctx.gpr[Reg.RAX]).toBe(95n);
    expect(jit.stats.retired).toBeGreaterThan(0);
  });

  it('should run the new code after a host write to a hot loop between runs', () => {
    const [a, b, jit] = both(({ cpu, as }) => {
      cpu.setReg(Reg.R15, 1000n);
      const first = cpu.run(99);
      as.writeU8(CODE + ADD_IMM, 2);
      return [first, state(cpu, cpu.run(1e6))] as const;
    }, COUNT_LOOP);
    expect(b).toEqual(a);
    // 33 iterations added 1, the other 967 add 2.
    expect(b[1].ctx.gpr[Reg.RAX]).toBe(33n + 2n * 967n);
    expect(jit.stats.compiled).toBeGreaterThanOrEqual(2);
  });

  it('should trap at an int3 armed in a hot loop, and run on once it is disarmed', () => {
    const [a, b] = both(({ cpu, as }) => {
      cpu.setReg(Reg.R15, 1000n);
      cpu.run(99);
      as.writeU8(CODE, 0xcc);
      const armed = state(cpu, cpu.run(1e6));
      as.writeU8(CODE, 0x83);
      cpu.rip = CODE;
      return [armed, state(cpu, cpu.run(1e6))];
    }, COUNT_LOOP);
    expect(b).toEqual(a);
    expect(b[0].r).toEqual({ reason: 'exception', vector: 3, rip: CODE + 1n });
    expect(b[1].r.reason).toBe('hlt');
    expect(b[1].ctx.gpr[Reg.RAX]).toBe(1000n);
  });

  it('should stop at exactly the budget, mid-loop, at every budget', () => {
    for (const budget of [1, 2, 3, 4, 5, 7, 8, 64, 100, 301]) {
      const [a, b] = both(({ cpu }) => {
        cpu.setReg(Reg.R15, 1000n);
        const out = [];
        for (let k = 0; k < 5; k++) out.push(state(cpu, cpu.run(budget)));
        return out;
      }, COUNT_LOOP);
      expect(b).toEqual(a);
      expect(b[4].ctx.retired).toBe(Math.min(5 * budget, 3001));
    }
  });

  describe('a region that checks its budget only where a loop closes', () => {
    // A: cmp eax, ebx; jne C. B: add ecx, 1; jmp L. C: add ecx, 2; add ecx, 3, then L's three
    // instructions (a block runs on to its branch). L: add edx, 1; dec r15; jnz L. D: xor eax, 1;
    // mov r15d, 3; dec r14; jnz A. hlt. Each pass through A takes the other way, and L loops 3 times.
    const code = [
      0x39, 0xd8, 0x75, 0x05, 0x83, 0xc1, 0x01, 0xeb, 0x06, 0x83, 0xc1, 0x02, 0x83, 0xc1, 0x03, 0x83, 0xc2, 0x01, 0x49,
      0xff, 0xcf, 0x75, 0xf8, 0x83, 0xf0, 0x01, 0x41, 0xbf, 0x03, 0x00, 0x00, 0x00, 0x49, 0xff, 0xce, 0x75, 0xdb, 0xf4,
    ];
    const start = (cpu: Cpu, passes: bigint) => {
      cpu.setReg(Reg.R14, passes);
      cpu.setReg(Reg.R15, 3n);
      cpu.rip = CODE;
    };

    // The JavaScript back end's budget plan (the WebAssembly one checks at every jump: each entry
    // needs its block's length).
    it.skipIf(toWasm)('should ask, at each entry, for the longest run of unchecked blocks from it', () => {
      const { cpu, as } = machine(code, { threshold: 8 });
      start(cpu, 40n);
      expect(cpu.run(10_000).reason).toBe('hlt');
      const pj = as.lookup(Number(CODE), 0)?.jit as PageJit;
      // L, the hottest head, is the region's entry. Depth first from it: L jumps back to itself, and
      // L, D, A, C to D again, so jumps to L and to D check. From L: L (both its jumps check); from D:
      // D, A and C, 11 instructions before C's jumps to L or D. A, jumped to from D alone, is inline.
      expect([0, 0x0f, 0x17].map((o) => pj.entry(o)?.n)).toEqual([undefined, 3, 11]);
    });

    it('should stop at exactly the budget, as the interpreter does, at every budget', () => {
      for (let budget = 1; budget <= 14; budget++) {
        const [a, b, jit] = both(
          ({ cpu }) => {
            start(cpu, 20n);
            return runs(cpu, budget, 2000);
          },
          code,
          { threshold: 8 },
        );
        expect(b).toEqual(a);
        expect(b.at(-1)?.r.reason, String(budget)).toBe('hlt');
        expect(jit.stats.compiled).toBeGreaterThan(0);
      }
    });
  });

  // V8's limit on the bytecode it optimizes is the JavaScript back end's (the region's JavaScript
  // source); WebAssembly has no such limit on a region of 512 instructions.
  it.skipIf(toWasm)(
    'should compile a region too big for V8 to optimize as two that chain, as exact as the interpreter',
    () => {
      // 130 × (mov rax, [rbx + d]; add rcx, rax), then dec r15; jnz back; hlt: 263 instructions whose
      // one region would be 78 KB of source, which V8 never optimizes (it ran at 5 MIPS).
      const code: number[] = [];
      for (let k = 0; k < 130; k++) code.push(0x48, 0x8b, 0x43, (8 * k) & 0x7f, 0x48, 0x01, 0xc1);
      code.push(0x49, 0xff, 0xcf);
      const rel = -(code.length + 6);
      code.push(0x0f, 0x85, rel & 0xff, (rel >> 8) & 0xff, (rel >> 16) & 0xff, (rel >> 24) & 0xff, 0xf4);
      for (const budget of [1, 7, 100, 1e6]) {
        const [a, b, jit] = both(({ cpu, as }) => {
          as.map(0x600000n, 4096, RWX);
          as.write(
            0x600000n,
            Uint8Array.from({ length: 4096 }, (_, k) => k * 7),
          );
          cpu.setReg(Reg.RBX, 0x600000n);
          cpu.setReg(Reg.R15, 20n);
          const out = [];
          for (let k = 0; k < 20_000; k++) {
            const s = state(cpu, cpu.run(budget));
            if (s.r.reason !== 'budget' || k % 500 === 0) out.push(s);
            if (s.r.reason !== 'budget') break;
          }
          // The live compiled regions entered on the page, by size.
          const pj = as.lookup(Number(CODE), 0)?.jit as PageJit | null;
          const sizes = new Map<object, number>();
          for (let o = 0; o < code.length; o++) {
            const region = pj?.entry(o)?.region;
            if (region !== undefined && !region.dead && region.insns.length > 0) sizes.set(region, region.insns.length);
          }
          return { out, sizes: [...sizes.values()] };
        }, code);
        expect(b.out).toEqual(a.out);
        expect(b.out.at(-1)?.r.reason).toBe('hlt');
        if (budget === 1e6) {
          // No region holds the whole loop (one would be 78 KB of source); they chain.
          expect(b.sizes.length).toBeGreaterThan(1);
          expect(Math.max(...b.sizes)).toBeLessThan(140);
          expect(jit.stats.chained).toBeGreaterThan(30);
        }
      }
    },
  );

  it('should leave a region before a memory access its TLB does not serve, and run on interpreted', () => {
    // add rcx, 1; mov rax, [rbx]; add rax, 1; mov [rbx], rax; dec r15; jnz back; hlt. At 0x7feffc the
    // 8-byte accesses cross a page (never served inline): each iteration leaves the region there.
    const code = [
      0x48, 0x83, 0xc1, 0x01, 0x48, 0x8b, 0x03, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x89, 0x03, 0x49, 0xff, 0xcf, 0x75, 0xed,
      0xf4,
    ];
    for (const at of [0x7feffcn, 0x7fe100n]) {
      const [a, b, jit] = both(({ cpu, as }) => {
        as.writeU64(at, 0x1_ffff_fff0n);
        cpu.setReg(Reg.RBX, at);
        cpu.setReg(Reg.R15, 50n);
        return [state(cpu, cpu.run(10_000)), as.readU64(at)] as const;
      }, code);
      expect(b).toEqual(a);
      expect(b[0].r.reason).toBe('hlt');
      expect(b[1]).toBe(0x1_ffff_fff0n + 50n);
      // Compiled code runs the add before the access, and with a served access the whole loop.
      expect(jit.stats.retired).toBeGreaterThanOrEqual(at === 0x7feffcn ? 45 : 200);
    }
  });

  it('should interpret a region entry whose first access the TLB does not serve (no endless re-entry)', () => {
    // mov rax, [rbx]; add rax, 1; mov [rbx], rax; dec r15; jnz back; hlt, the access page-crossing.
    const code = [0x48, 0x8b, 0x03, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x89, 0x03, 0x49, 0xff, 0xcf, 0x75, 0xf1, 0xf4];
    const [a, b] = both(({ cpu, as }) => {
      as.writeU64(0x7feffcn, 7n);
      cpu.setReg(Reg.RBX, 0x7feffcn);
      cpu.setReg(Reg.R15, 50n);
      return [state(cpu, cpu.run(10_000)), as.readU64(0x7feffcn)] as const;
    }, code);
    expect(b).toEqual(a);
    expect(b[0].r.reason).toBe('hlt');
    expect(b[1]).toBe(57n);
  });

  it('should enter a region at another of its blocks, compiling nothing more', () => {
    // test ecx, ecx; jz L; add edx, 1; L: add eax, 1; dec r15; jnz L; hlt. L is jumped to from three
    // places (jz, the fall-through block's jnz, its own jnz): a block the region can be entered at.
    const code = [0x85, 0xc9, 0x74, 0x03, 0x83, 0xc2, 0x01, 0x83, 0xc0, 0x01, 0x49, 0xff, 0xcf, 0x75, 0xf8, 0xf4];
    const [a, b, jit] = both(({ cpu }) => {
      cpu.setReg(Reg.R15, 20n);
      const first = state(cpu, cpu.run(10_000));
      cpu.rip = CODE + 7n;
      cpu.setReg(Reg.R15, 30n);
      return [first, state(cpu, cpu.run(10_000))] as const;
    }, code);
    expect(b).toEqual(a);
    expect(b[1].r.reason).toBe('hlt');
    expect(b[1].ctx.gpr[Reg.RAX]).toBe(50n);
    expect(jit.stats.compiled).toBe(1);
    expect(jit.stats.retired).toBeGreaterThan(80);
  });

  it('should give a region an inner entry where it left early, compiling no second region there', () => {
    // add eax, 1; jmp +0 (to B); B: add ecx, 2; dec r15; jnz back to the start; hlt. B is jumped to
    // from one place only: the region's code cannot start there. Run 1's budget ends at the jmp, so
    // run 2 starts at B: the interpreter runs B, then the region goes on from its entry. (A first
    // pass decodes the code, so the region is then compiled at its first block with B in it.)
    const code = [0x83, 0xc0, 0x01, 0xeb, 0x00, 0x83, 0xc1, 0x02, 0x49, 0xff, 0xcf, 0x75, 0xf3, 0xf4];
    for (const budget of [2, 7, 12]) {
      const [a, b, jit] = both(({ cpu }) => {
        cpu.setReg(Reg.R15, 1n);
        cpu.run(10);
        cpu.rip = CODE;
        cpu.setReg(Reg.R15, 40n);
        return [state(cpu, cpu.run(budget)), state(cpu, cpu.run(10_000))] as const;
      }, code);
      expect(b).toEqual(a);
      expect(b[0].r.rip).toBe(CODE + 5n);
      expect(b[1].r.reason).toBe('hlt');
      expect(jit.stats.compiled).toBe(1);
      // B, and maybe the jnz after it (a head after an instruction the interpreter runs out of line).
      expect(jit.stats.inner).toBeGreaterThanOrEqual(1);
      expect(jit.stats.widened).toBe(0);
      expect(jit.stats.retired).toBeGreaterThan(100);
    }
  });

  it('should give entries never entered (the inner entry, the hlt not compiled) a small-integer n', () => {
    // Infinity there made the run loop's `region.n <= left + 1` deoptimize ("not a Smi").
    const code = [0x83, 0xc0, 0x01, 0xeb, 0x00, 0x83, 0xc1, 0x02, 0x49, 0xff, 0xcf, 0x75, 0xf3, 0xf4];
    const { cpu, as } = machine(code, { threshold: 1 });
    cpu.setReg(Reg.R15, 1n);
    cpu.run(10);
    cpu.rip = CODE;
    cpu.setReg(Reg.R15, 40n);
    cpu.run(2);
    expect(cpu.run(10_000).reason).toBe('hlt');
    const pj = as.lookup(Number(CODE), 0)?.jit as PageJit;
    const never = [5, 13].map((off) => pj.entry(off));
    expect(never.map((e) => e?.block)).toEqual([-1, 0]);
    for (const e of never) expect(e !== null && Number.isInteger(e.n) && e.n <= 0x3fffffff).toBe(true);
  });

  it('should compile a region again with its inner entry as an entry once the interpreter loops there', () => {
    // add eax, 1; jmp +0 (to B); B: add ecx, 2; dec r15; jnz B; hlt. B loops on itself, reached from
    // one place: landing at B, the interpreter would run the whole loop.
    const code = [0x83, 0xc0, 0x01, 0xeb, 0x00, 0x83, 0xc1, 0x02, 0x49, 0xff, 0xcf, 0x75, 0xf8, 0xf4];
    const [a, b, jit] = both(
      ({ cpu }) => {
        cpu.setReg(Reg.R15, 1n);
        cpu.run(10);
        const out = [];
        for (let k = 0; k < 3; k++) {
          cpu.rip = CODE;
          cpu.setReg(Reg.R15, 1000n);
          out.push(state(cpu, cpu.run(2)), state(cpu, cpu.run(100_000)));
        }
        return out;
      },
      code,
      { threshold: 1, innerThreshold: 4 },
    );
    expect(b).toEqual(a);
    expect(b[5].r.reason).toBe('hlt');
    expect(jit.stats.inner).toBeGreaterThanOrEqual(1);
    expect(jit.stats.widened).toBe(1);
    expect(jit.stats.compiled).toBe(2);
    // After the first few interpreted iterations, every loop runs compiled (entered at B).
    expect(jit.stats.retired).toBeGreaterThan(3 * 3000 - 100);
  });

  it('should leave a head reached fewer than 1,024 times to the interpreter by default', () => {
    // Code run a few hundred times (a forked child's) runs faster interpreted than in a region V8
    // has not optimized yet. COUNT_LOOP's head is reached once per iteration.
    const [a, b, jit] = both(
      ({ cpu }) => {
        cpu.setReg(Reg.R15, 1000n);
        const first = state(cpu, cpu.run(1e6));
        const compiled = cpu.jit?.stats.compiled ?? 0;
        cpu.rip = CODE;
        cpu.setReg(Reg.R15, 1000n);
        return [first, compiled, state(cpu, cpu.run(1e6))] as const;
      },
      COUNT_LOOP,
      {},
    );
    expect(b).toEqual([a[0], 0, a[2]]);
    expect(jit.threshold).toBe(1024);
    expect(jit.stats.compiled).toBe(1);
  });

  it('should leave single-stepping (TF) to the interpreter: one instruction, then #DB', () => {
    const [a, b] = both(({ cpu }) => {
      cpu.setReg(Reg.R15, 1000n);
      cpu.run(60);
      cpu.rflags |= 0x100;
      return state(cpu, cpu.run(1e6));
    }, COUNT_LOOP);
    expect(b).toEqual(a);
    expect(b.r).toMatchObject({ reason: 'exception', vector: 1, singleStep: true });
    expect(b.ctx.retired).toBe(61);
  });

  it('should take a pending interrupt at the first boundary, as the interpreter does', () => {
    const [a, b] = both(({ cpu }) => {
      cpu.setReg(Reg.R15, 1000n);
      cpu.rflags |= 0x200;
      cpu.run(50);
      cpu.raiseInterrupt(0x20);
      return state(cpu, cpu.run(1e6));
    }, COUNT_LOOP);
    expect(b).toEqual(a);
    expect(b.r).toMatchObject({ reason: 'interrupt', vector: 0x20 });
    expect(b.ctx.retired).toBe(50);
  });

  it('should keep at most maxRegions compiled regions while code is patched over and over', () => {
    const { cpu, as } = machine(COUNT_LOOP, { threshold: 1, maxRegions: 4 });
    const jit = cpu.jit as BlockCompiler;
    for (let k = 0; k < 200; k++) {
      // A different instruction length each time moves the loop's entry around the page.
      as.writeU8(CODE + ADD_IMM, k & 0x7f);
      cpu.rip = CODE;
      cpu.setReg(Reg.R15, 3n);
      expect(cpu.run(1e6).reason).toBe('hlt');
      expect(jit.liveRegions()).toBeLessThanOrEqual(4);
    }
    expect(jit.stats.compiled).toBeGreaterThan(4);
  });

  it('should chain from region to region, as exact as the interpreter at every budget', () => {
    for (const budget of [1, 3, 4, 5, 9, 10, 11, 64, 1e6]) {
      const [a, b, jit] = both(
        ({ cpu }) => {
          cpu.setReg(Reg.R15, 100n);
          const out = [];
          for (let k = 0; k < 4; k++) out.push(state(cpu, cpu.run(budget)));
          return out;
        },
        TWO_REGIONS,
        ONE_BLOCK,
      );
      expect(b).toEqual(a);
      if (budget === 1e6) {
        expect(b[0].r.reason).toBe('hlt');
        expect(b[0].ctx.gpr[Reg.RAX]).toBe(100n);
        // Nearly every region after the first few was entered from the other one's exit.
        expect(jit.stats.chained).toBeGreaterThan(150);
      }
    }
  });

  it('should never chain into a region a store has killed: the patched code runs', () => {
    // A: inc ecx; nop; cmp r15d, 5; jne B. Then, once (r15 = 5): mov [rip+5], cl (B's add imm8);
    // nop × 3. B: add eax, imm8; dec r15; nop; nop; jnz A; hlt. A and B are each a region that leaves
    // for the other: the patch kills B while A is linked to it.
    const code = [
      0xff, 0xc1, 0x90, 0x41, 0x83, 0xff, 0x05, 0x75, 0x09, 0x88, 0x0d, 0x05, 0, 0, 0, 0x90, 0x90, 0x90, 0x83, 0xc0,
      0x01, 0x49, 0xff, 0xcf, 0x90, 0x90, 0x75, 0xe4, 0xf4,
    ];
    const [a, b, jit] = both(
      ({ cpu }) => {
        cpu.setReg(Reg.RCX, 5n);
        cpu.setReg(Reg.R15, 30n);
        return state(cpu, cpu.run(10_000));
      },
      code,
      ONE_BLOCK,
    );
    expect(b).toEqual(a);
    // 25 iterations add 1, the 5 from the patch on add the ecx it stored (5 + 26).
    expect(b.ctx.gpr[Reg.RAX]).toBe(25n + 5n * 31n);
    expect(b.r.reason).toBe('hlt');
    // B was compiled again after the patch, and A chained into both.
    expect(jit.stats.compiled).toBeGreaterThanOrEqual(3);
    expect(jit.stats.chained).toBeGreaterThan(20);
  });

  describe('a gate reached in compiled code', () => {
    // CODE: add eax, 1; jmp GATE. GATE (the next page): the gate; add ecx, 2; dec r15; jnz CODE; hlt.
    const GATE = CODE + 0x1000n;
    const text = [0x83, 0xc0, 0x01, 0xe9, 0xf8, 0x0f, 0, 0];
    const detour = [0xcc, 0x83, 0xc1, 0x02, 0x49, 0xff, 0xcf, 0x0f, 0x85, 0xf3, 0xef, 0xff, 0xff, 0xf4];
    type Hook = (cpu: CpuApi, calls: number) => boolean;

    /** The loop on one engine (every head compiled at its first visit, or none), RIP at CODE. */
    function gateMachine(jit: boolean, iterations: bigint): { as: AddressSpace; cpu: Cpu } {
      const as = new AddressSpace();
      as.map(CODE, 8192, RWX);
      as.write(CODE, Uint8Array.from(text));
      as.write(GATE, Uint8Array.from(detour));
      as.markGate(GATE, true);
      const cpu = new Cpu({ addressSpace: as, jit: jit ? { threshold: 1 } : false });
      cpu.setReg(Reg.R15, iterations);
      cpu.rip = CODE;
      return { as, cpu };
    }

    /** Runs the loop 200 times with `hook` at the gate (it counts in rdx unless `quiet`), on one engine. */
    function run(hook: Hook, jit: boolean, budget: number, quiet = false) {
      const { cpu } = gateMachine(jit, 200n);
      let calls = 0;
      cpu.gateHook = (c) => {
        calls++;
        if (!quiet) c.setReg(Reg.RDX, c.getReg(Reg.RDX) + 1n);
        return hook(c, calls);
      };
      const out = [];
      for (let k = 0; k < 50; k++) {
        const r = state(cpu, cpu.run(budget));
        out.push({ ...r, calls });
        if (r.r.reason === 'hlt') break;
        // After a gate exit or a trap, the host moves on past the gate, as a handler would.
        if (r.r.reason !== 'budget' && cpu.rip === GATE) cpu.rip = GATE + 1n;
        if (r.r.reason === 'exception') cpu.rflags &= ~0x100;
      }
      return { out, jit: cpu.jit };
    }

    const hooks: Record<string, Hook> = {
      'run in place': (c) => {
        c.rip += 1n;
        return true;
      },
      'not run in place every 7th time': (c, n) => {
        if (n % 7 === 0) return false;
        c.rip += 1n;
        return true;
      },
      // A register the region keeps in a local: it must take the host's value (see regWrites).
      'changing a register the region keeps': (c) => {
        c.setReg(Reg.RCX, c.getReg(Reg.RCX) + 100n);
        c.rip += 1n;
        return true;
      },
      'flushing the TLB': (c) => {
        c.flushTlb();
        c.rip += 1n;
        return true;
      },
      'setting TF once': (c, n) => {
        if (n === 30) c.rflags |= 0x100;
        c.rip += 1n;
        return true;
      },
      'raising an interrupt once': (c, n) => {
        if (n === 40) {
          c.rflags |= 0x200;
          c.raiseInterrupt(0x20);
        }
        c.rip += 1n;
        return true;
      },
      'mapping other code at its page once': (c, n) => {
        if (n === 50) {
          // The same loop, adding 3 to ecx: a region that found the page mapped must not go on there.
          const as = c.addressSpace;
          as.unmap(GATE, 4096);
          as.map(GATE, 4096, RWX);
          as.write(GATE, Uint8Array.from(detour.map((b, k) => (k === 3 ? 3 : b))));
          as.markGate(GATE, true);
        }
        c.rip += 1n;
        return true;
      },
    };

    // Hooks that write no register (a region goes on without reloading its registers: regWrites).
    const quietHooks: Record<string, Hook> = {
      'writing no register': (c) => {
        c.rip += 1n;
        return true;
      },
      'writing registers the values they hold': (c) => {
        c.setReg(Reg.RCX, c.getReg(Reg.RCX));
        c.setRegHalves(Reg.RSP, c.regLo(Reg.RSP), c.regHi(Reg.RSP));
        c.rip += 1n;
        return true;
      },
      'changing a register and putting it back': (c, n) => {
        const rcx = c.getReg(Reg.RCX);
        c.setReg(Reg.RCX, rcx + BigInt(n));
        c.setReg(Reg.RCX, rcx);
        c.rip += 1n;
        return true;
      },
    };

    for (const [name, hook] of Object.entries(quietHooks)) {
      it(`should run a gate hook ${name} as the interpreter does, inside the region`, () => {
        for (const budget of [1, 5, 1e6]) {
          const a = run(hook, false, budget, true);
          const b = run(hook, true, budget, true);
          expect(b.out).toEqual(a.out);
        }
        const b = run(hook, true, 1e6, true);
        expect(b.out[0].r.reason).toBe('hlt');
        expect(b.out[0].ctx.gpr[Reg.RCX]).toBe(400n);
        expect(b.jit?.stats.gates).toBeGreaterThan(190);
        expect(b.jit?.stats.entries).toBeLessThan(10);
      });
    }

    it('should run the byte under a gate as code once it is no gate, though regions were linked to it', () => {
      const go = (jit: boolean) => {
        const { as, cpu } = gateMachine(jit, 400n);
        let calls = 0;
        cpu.gateHook = (c) => {
          calls++;
          c.rip += 1n;
          return true;
        };
        const first = state(cpu, cpu.run(600));
        // The gate goes, and its byte becomes a nop that the loop now runs.
        as.markGate(GATE, false);
        as.write(GATE, Uint8Array.of(0x90));
        const second = state(cpu, cpu.run(1e6));
        return { first, second, calls, stats: cpu.jit?.stats };
      };
      const a = go(false);
      const b = go(true);
      expect({ ...b, stats: undefined }).toEqual({ ...a, stats: undefined });
      expect(b.second.r.reason).toBe('hlt');
      // The hook ran only while the gate was there: 600 instructions are 120 iterations of five.
      expect(b.calls).toBe(120);
      expect(b.stats?.gates).toBeGreaterThan(100);
    });

    for (const [name, hook] of Object.entries(hooks)) {
      it(`should run a gate hook ${name} as the interpreter does, at every budget`, () => {
        for (const budget of [1, 2, 5, 13, 1e6]) {
          const a = run(hook, false, budget);
          const b = run(hook, true, budget);
          expect(b.out).toEqual(a.out);
          if (budget === 1e6 && name === 'run in place') {
            expect(b.out[0].r.reason).toBe('hlt');
            expect(b.out[0].calls).toBe(200);
            expect(b.out[0].ctx.gpr[Reg.RCX]).toBe(400n);
            // The hook ran inside a chain of compiled regions, nearly every time.
            expect(b.jit?.stats.gates).toBeGreaterThan(190);
            expect(b.jit?.stats.exits).toBeLessThan(10);
            // Inside the region that runs the loop across both pages, not between regions.
            expect(b.jit?.stats.entries).toBeLessThan(10);
          }
        }
      });
    }
  });

  describe('a region that a direct jmp takes to another page', () => {
    // CODE: jmp +0; LOOP: add eax, 1; jmp NEXT. NEXT (the next page): add ecx, 2; dec r15; jnz LOOP; hlt.
    const NEXT = CODE + 0x1000n;
    const text = [0xeb, 0x00, 0x83, 0xc0, 0x01, 0xe9, 0xf6, 0x0f, 0, 0];
    const next = (add: number) => [0x83, 0xc1, add, 0x49, 0xff, 0xcf, 0x0f, 0x85, 0xf6, 0xef, 0xff, 0xff, 0xf4];
    /** Compiled at the third visit of a head, once both pages were fetched. */
    const THIRD = { threshold: 3 };

    function twoPages(jit: false | Options, iterations: bigint, as = new AddressSpace(), add = 2) {
      if (!as.isMapped(CODE)) {
        as.map(CODE, 4096, RWX);
        as.write(CODE, Uint8Array.from(text));
      }
      as.map(NEXT, 4096, RWX);
      as.write(NEXT, Uint8Array.from(next(add)));
      const cpu = new Cpu({ addressSpace: as, jit });
      cpu.setReg(Reg.R15, iterations);
      cpu.rip = CODE;
      return { cpu, as };
    }

    it('should run both pages in one region, as the interpreter does at every budget', () => {
      for (const budget of [1, 2, 3, 5, 7, 13, 1e6]) {
        const go = (jit: false | Options) => {
          const { cpu } = twoPages(jit, 2000n);
          const out = [];
          for (let k = 0; k < 20_000; k++) {
            const r = state(cpu, cpu.run(budget));
            if (r.r.reason !== 'budget') {
              out.push(r);
              break;
            }
            if (k % 97 === 0) out.push(r);
          }
          return { out, stats: cpu.jit?.stats };
        };
        const a = go(false);
        const b = go(THIRD);
        expect(b.out).toEqual(a.out);
        expect(b.out.at(-1)?.r.reason).toBe('hlt');
        expect(b.out.at(-1)?.ctx.gpr[Reg.RCX]).toBe(4000n);
        if (budget === 1e6) {
          // One region runs the loop across both pages: a few calls in all (its first four runs are
          // capped at 1,024 instructions), where one region per page would be two calls an iteration.
          expect(b.stats?.entries).toBeLessThan(20);
        }
      }
    });

    it('should run the new code after a host write to the other page between runs', () => {
      const go = (jit: false | Options) => {
        const { cpu, as } = twoPages(jit, 1000n);
        const first = state(cpu, cpu.run(100));
        const compiled = cpu.jit?.stats.compiled ?? 0;
        as.writeU8(NEXT + 2n, 5);
        return { first, second: state(cpu, cpu.run(1e6)), compiled, after: cpu.jit?.stats.compiled ?? 0 };
      };
      const a = go(false);
      const b = go(THIRD);
      expect(b.first).toEqual(a.first);
      expect(b.second).toEqual(a.second);
      // 20 iterations of five instructions added 2, the other 980 add 5.
      expect(b.second.ctx.gpr[Reg.RCX]).toBe(40n + 5n * 980n);
      expect(b.compiled).toBe(1);
      expect(b.after).toBeGreaterThan(1);
    });

    it("should stop right after a guest store into the other page's code, and run it patched", () => {
      // CODE: inc eax; mov [NEXT + 2], al (the add's imm8); jmp NEXT. NEXT: add ecx, 0; dec r15; jnz CODE; hlt.
      const store = [0xff, 0xc0, 0x88, 0x05, 0xfa, 0x0f, 0, 0, 0xe9, 0xf3, 0x0f, 0, 0];
      const back = [0x83, 0xc1, 0x00, 0x49, 0xff, 0xcf, 0x0f, 0x85, 0xf4, 0xef, 0xff, 0xff, 0xf4];
      const go = (jit: false | Options) => {
        const as = new AddressSpace();
        as.map(CODE, 8192, RWX);
        as.write(CODE, Uint8Array.from(store));
        as.write(NEXT, Uint8Array.from(back));
        const cpu = new Cpu({ addressSpace: as, jit });
        cpu.setReg(Reg.R15, 100n);
        cpu.rip = CODE;
        return { ...state(cpu, cpu.run(1e6)), stats: cpu.jit?.stats };
      };
      const a = go(false);
      const b = go(THIRD);
      expect({ ...b, stats: undefined }).toEqual({ ...a, stats: undefined });
      // Each iteration adds the count it has just stored: 1 + 2 + … + 100.
      expect(b.ctx.gpr[Reg.RCX]).toBe(5050n);
      expect(b.stats?.compiled).toBeGreaterThan(1);
    });

    it("should not run another address space's page at that address, though both share the first page", () => {
      const go = (jit: false | Options) => {
        const one = twoPages(jit, 100n);
        const r1 = state(one.cpu, one.cpu.run(1e6));
        // A second space shares CODE (its decoded code and regions) but maps a NEXT of its own.
        const as2 = new AddressSpace();
        as2.share(one.as, CODE, 4096);
        const two = twoPages(jit, 100n, as2, 5);
        return [r1, state(two.cpu, two.cpu.run(1e6))];
      };
      const a = go(false);
      const b = go(THIRD);
      expect(b).toEqual(a);
      expect(b[0].ctx.gpr[Reg.RCX]).toBe(200n);
      expect(b[1].ctx.gpr[Reg.RCX]).toBe(500n);
    });

    it('should raise #PF at the other page once it is unmapped (the region dies with its decoded code)', () => {
      const go = (jit: false | Options) => {
        const { cpu, as } = twoPages(jit, 1000n);
        const first = state(cpu, cpu.run(500));
        as.unmap(NEXT, 4096);
        // From CODE, the interpreter's jmp +0 fetches CODE again, and LOOP is a region's entry.
        cpu.rip = CODE;
        return [first, state(cpu, cpu.run(1e6))];
      };
      const a = go(false);
      const b = go(THIRD);
      expect(b).toEqual(a);
      expect(b[1].r).toMatchObject({ reason: 'exception', vector: 14, rip: NEXT });
    });
  });

  describe('a loop whose load before its first flag writer leaves at a TLB miss', () => {
    // movzx eax, byte [rsi]; add rsi, 520; cmp rsi, rdi; jne back; hlt. The load misses at each new
    // page; the flags there are the last iteration's cmp's (PF differs from one to the next), which
    // the loop stores only at its exits.
    const code = [0x0f, 0xb6, 0x06, 0x48, 0x81, 0xc6, 0x08, 0x02, 0x00, 0x00, 0x48, 0x39, 0xfe, 0x75, 0xf1, 0xf4];
    const BUF = 0x800000n;

    function go(jit: false | Options, budget: number, mapped: number) {
      const as = new AddressSpace();
      as.map(CODE, 4096, RWX);
      as.write(CODE, Uint8Array.from(code));
      as.map(BUF, 4096 * mapped, RWX);
      const cpu = new Cpu({ addressSpace: as, jit });
      cpu.setReg(Reg.RSI, BUF);
      cpu.setReg(Reg.RDI, BUF + 520n * 80n);
      cpu.rip = CODE;
      return runs(cpu, budget, 10_000);
    }

    it('should leave with those flags at every budget, as the interpreter does', () => {
      for (let budget = 1; budget <= 41; budget++) {
        const a = go(false, budget, 11);
        const b = go({ threshold: 3 }, budget, 11);
        expect(b).toEqual(a);
        expect(b.at(-1)?.r.reason).toBe('hlt');
      }
    });

    it("should leave with an outer loop's flags when it enters the inner one afresh", () => {
      // outer: mov rsi, rbx; add rbx, rdx; lea rdi, [rsi + 2080]; jmp +0 (so the loop is a block of
      // its own, entered with the add's flags); the loop above (four iterations), then sub rcx, 1;
      // jnz outer; hlt (nothing reads the inner cmp's flags after it, so the inner loop carries them). With rdx 0 every iteration loads from one page, and the regions are
      // compiled (the loop runs in the one entered at the sub, with the add and the inner loop in it);
      // then with rdx 4096 the third outer iteration's first load, in that region right after the inner
      // loop's back edges, misses on a page that is not mapped: the #PF is raised with the add's
      // flags, not the inner cmp's before it.
      const nested = [
        0x48,
        0x89,
        0xde,
        0x48,
        0x01,
        0xd3,
        0x48,
        0x8d,
        0xbe,
        0x20,
        0x08,
        0x00,
        0x00,
        0xeb,
        0x00,
        ...code.slice(0, 15),
        0x48,
        0x83,
        0xe9,
        0x01,
        0x75,
        0xdc,
        0xf4,
      ];
      const run = (jit: false | Options) => {
        const as = new AddressSpace();
        as.map(CODE, 4096, RWX);
        as.write(CODE, Uint8Array.from(nested));
        as.map(BUF, 8192, RWX);
        const cpu = new Cpu({ addressSpace: as, jit });
        const go = (rbx: bigint, rdx: bigint) => {
          cpu.setReg(Reg.RBX, rbx);
          cpu.setReg(Reg.RCX, 5n);
          cpu.setReg(Reg.RDX, rdx);
          cpu.rip = CODE;
          return state(cpu, cpu.run(1e6));
        };
        // Both pages are in the TLB after the first two runs.
        return [go(BUF, 0n), go(BUF + 4096n, 0n), go(BUF, 4096n)];
      };
      const a = run(false);
      const b = run({ threshold: 3 });
      expect(b).toEqual(a);
      expect(b[1].r.reason).toBe('hlt');
      expect(b[2].r).toMatchObject({ reason: 'exception', vector: 14, rip: CODE + 15n, cr2: BUF + 8192n });
    });

    it('should store the flags where they are written when the loop changes a register its cmp read', () => {
      // lea rdx, [rdx + 8]; movzx eax, byte [rsi]; add rsi, 520; cmp rsi, rdx; jb back; hlt, and the
      // same with the lea after the cmp: either way the cmp cannot be computed again at the load, whose
      // rdx is no longer the one it compared. The third page is not mapped.
      const lea = [0x48, 0x8d, 0x52, 0x08];
      const load = [0x0f, 0xb6, 0x06, 0x48, 0x81, 0xc6, 0x08, 0x02, 0x00, 0x00];
      const cmp = [0x48, 0x39, 0xd6];
      const jb = [0x72, 0xed, 0xf4];
      for (const moving of [
        [...lea, ...load, ...cmp, ...jb],
        [...load, ...cmp, ...lea, ...jb],
      ]) {
        const run = (jit: false | Options) => {
          const as = new AddressSpace();
          as.map(CODE, 4096, RWX);
          as.write(CODE, Uint8Array.from(moving));
          as.map(BUF, 4096 * 3, RWX);
          const cpu = new Cpu({ addressSpace: as, jit });
          cpu.setReg(Reg.RSI, BUF);
          cpu.setReg(Reg.RDX, BUF + 512n * 40n);
          cpu.rip = CODE;
          return state(cpu, cpu.run(1e6));
        };
        const a = run(false);
        const b = run({ threshold: 3 });
        expect(b).toEqual(a);
        // The 24th load is the first at or past the third page.
        expect(b.r).toMatchObject({ reason: 'exception', vector: 14, cr2: BUF + 520n * 24n });
      }
    });

    it('should raise #PF at the first unmapped page with those flags', () => {
      const a = go(false, 1e6, 6);
      const b = go({ threshold: 3 }, 1e6, 6);
      expect(b).toEqual(a);
      expect(b.at(-1)?.r).toMatchObject({ reason: 'exception', vector: 14 });
    });
  });

  it('should run leave in a hot loop as the interpreter does (its temporaries share the region locals)', () => {
    // push rbp; mov rbp, rsp; leave; dec r15; jnz back; hlt
    const code = [0x55, 0x48, 0x89, 0xe5, 0xc9, 0x49, 0xff, 0xcf, 0x75, 0xf6, 0xf4];
    const [a, b, jit] = both(({ cpu }) => {
      cpu.setReg(Reg.RBP, 0x1234n);
      cpu.setReg(Reg.R15, 50n);
      return state(cpu, cpu.run(10_000));
    }, code);
    expect(b).toEqual(a);
    expect(b.r.reason).toBe('hlt');
    expect(b.ctx.gpr[Reg.RBP]).toBe(0x1234n);
    expect(jit.stats.retired).toBeGreaterThan(200);
  });

  it("should leave with a writer's flags that only an exit reads, at every budget", () => {
    // L: add eax, 3; jmp M; M: mov ebx, eax; sub r15, 1; jnz L; hlt. No block of the region reads
    // the add's or the sub's flags before the next writer: each is stored only on the way out, at the
    // budget checks of the jumps and at the exit to the hlt.
    const code = [0x83, 0xc0, 0x03, 0xeb, 0x00, 0x89, 0xc3, 0x49, 0x83, 0xef, 0x01, 0x75, 0xf3, 0xf4];
    for (const budget of [1, 2, 3, 4, 5, 6, 7, 9, 13, 50]) {
      const [a, b, jit] = both(({ cpu }) => {
        cpu.setReg(Reg.RAX, 0xfffffff0n);
        cpu.setReg(Reg.R15, 400n);
        const out = [];
        for (let k = 0; k < 12; k++) out.push(state(cpu, cpu.run(budget)));
        out.push(state(cpu, cpu.run(1e6)));
        return out;
      }, code);
      expect(b).toEqual(a);
      expect(b[12].r.reason).toBe('hlt');
      expect(jit.stats.retired).toBeGreaterThan(100);
    }
  });

  it('should leave with the flags of an add to memory that killed its own code', () => {
    // add [rip+1], cl (the imm8 of the mov); mov dl, 0x10; setc bl; add esi, ebx; add edi, edx;
    // sub r15, 1; jnz back; hlt. The add's flags are read (by setc) only after its store killed
    // the region: the interpreter runs the patched rest, with the add's CF.
    const code = [
      0x00, 0x0d, 0x01, 0, 0, 0, 0xb2, 0x10, 0x0f, 0x92, 0xc3, 0x01, 0xde, 0x01, 0xd7, 0x49, 0x83, 0xef, 0x01, 0x75,
      0xeb, 0xf4,
    ];
    const [a, b, jit] = both(({ cpu }) => {
      cpu.setReg(Reg.RCX, 0xf8n);
      cpu.setReg(Reg.R15, 10n);
      return state(cpu, cpu.run(10_000));
    }, code);
    expect(b).toEqual(a);
    // The imm8 goes 0x10 + 0xf8 = 0x08 (carry), 0x00 (carry), 0xf8, 0xf0 (carry), …: setc saw carries.
    expect(b.ctx.gpr[Reg.RSI]).toBeGreaterThan(0n);
    // The JavaScript back end stores into its own code and leaves after it; the WebAssembly one
    // leaves before any store to a page with decoded code, and the interpreter runs the store.
    if (!toWasm) expect(jit.stats.retired).toBeGreaterThan(0);
  });

  it('should be off with the jit option false', () => {
    expect(new Cpu({ addressSpace: new AddressSpace(), jit: false }).jit).toBeNull();
    expect(new Cpu({ addressSpace: new AddressSpace(), jit: true }).jit).toBeInstanceOf(BlockCompiler);
  });

  it('should take its default from INT3_JIT, INT3_JIT_THRESHOLD and INT3_JIT_WASM, and refuse a threshold that is no count', () => {
    const saved = {
      jit: process.env.INT3_JIT,
      threshold: process.env.INT3_JIT_THRESHOLD,
      wasm: process.env.INT3_JIT_WASM,
    };
    const made = () => new Cpu({ addressSpace: new AddressSpace() }).jit;
    try {
      delete process.env.INT3_JIT_THRESHOLD;
      delete process.env.INT3_JIT_WASM;
      process.env.INT3_JIT = '0';
      expect(made()).toBeNull();
      process.env.INT3_JIT = '1';
      expect(made()?.threshold).toBe(1024);
      // The WebAssembly back end is on (this CPU's state is in the page arena), unless turned off.
      expect(made()?.wasm).toBe(true);
      process.env.INT3_JIT_WASM = '0';
      expect(made()?.wasm).toBe(false);
      process.env.INT3_JIT_THRESHOLD = '3';
      expect(made()?.threshold).toBe(3);
      expect(made()?.wasm).toBe(false);
      delete process.env.INT3_JIT_WASM;
      // An explicit option wins over the environment.
      expect(new Cpu({ addressSpace: new AddressSpace(), jit: { threshold: 9 } }).jit?.threshold).toBe(9);
      for (const bad of ['0', '-4', '2.5', 'many', '70000']) {
        process.env.INT3_JIT_THRESHOLD = bad;
        expect(made).toThrow(`INT3_JIT_THRESHOLD=${bad}: a whole number of visits from 1 to 65535 was expected`);
      }
    } finally {
      for (const [k, v] of [
        ['INT3_JIT', saved.jit],
        ['INT3_JIT_THRESHOLD', saved.threshold],
        ['INT3_JIT_WASM', saved.wasm],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
