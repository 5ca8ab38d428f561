import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg, type RegIndex } from './reg.js';

/**
 * Every own field of a Cpu, by what a snapshot does with it. A field added to the CPU fails the first
 * test until it is put here — and one put under "context" must then come back through
 * saveContext/restoreContext (the property below), so a snapshot cannot silently lose state.
 */
const FIELDS = {
  /** Architectural state: saved by saveContext, put back by restoreContext. */
  context: [
    'R',
    'H',
    'ripLo',
    'ripHi',
    'flags',
    'cplValue',
    'fsLo',
    'fsHi',
    'gsLo',
    'gsHi',
    'cr0Value',
    'cr2Value',
    'cr3Value',
    'cr4Value',
    'efer',
    'star',
    'lstar',
    'fmask',
    'kernelGsBaseValue',
    'tscOffset',
    'csValue',
    'ssValue',
    'retiredCount',
    'virtualCount',
    'pendingVector',
    'shadowAt',
  ],
  /** The lazy-flag record: saved as the RFLAGS it evaluates to. */
  lazyFlags: ['lop', 'lsz', 'ldl', 'ldh', 'lsl', 'lsh', 'lrl', 'lrh', 'lcf', 'lof'],
  /** Saved by the machine's snapshot beside the context (the space, instrumentation mode). */
  host: ['addressSpaceRef', 'costMask'],
  /**
   * Scratch values within one instruction or one exit (atDebugStop: the exit's reason, the host
   * clears it; chainTrap*: an int3 the compiled-code chain took in place, and chainResult: what a
   * single-step it ran ended the run with, both for the run loop; exchange: what code compiled to
   * WebAssembly takes and leaves).
   */
  scratch: [
    'vh',
    'eah',
    'mal',
    'mah',
    'udInsn',
    'trapVector',
    'atDebugStop',
    'chainTrapRetired',
    'chainTrapVirtual',
    'chainResult',
    'exchange',
  ],
  /** Caches a restore drops (it flushes the TLB; the run loop re-derives the rest). */
  caches: [
    'rTagLo',
    'rTagHi',
    'rOff',
    'rPage',
    'wTagLo',
    'wTagHi',
    'wOff',
    'wPage',
    'fTagLo',
    'fTagHi',
    'fPage',
    'vTagLo',
    'vTagHi',
    'vPage',
    'tlbFlushes',
    'regWrites',
    'attention',
    'epoch',
  ],
  /** What the host wires in, and the CPU's identity and outputs. */
  // A debugger's stops and watches stay across a restore: going back in time keeps the breakpoints.
  wiring: [
    'memoryWatch',
    'debugStops',
    'io',
    'id',
    'cpuId',
    'trapSubject',
    'traps$',
    'gateHook',
    'trapHook',
    'gateExit',
    'jit',
  ],
  /** Where the registers and TLBs are in the page arena's memory (fixed when the CPU is built). */
  layout: ['regsOffset', 'rTlbOffset', 'wTlbOffset'],
} as const;

/** sti; nop; nop; hlt at 0x400000. */
function cpuWithSti(): Cpu {
  const as = new AddressSpace();
  as.map(0x400000n, 4096, PageFlags.Present | PageFlags.Writable);
  as.write(0x400000n, Uint8Array.from([0xfb, 0x90, 0x90, 0xf4]));
  const cpu = new Cpu({ addressSpace: as, jit: false });
  cpu.rip = 0x400000n;
  return cpu;
}

describe('a CPU context', () => {
  it('should account for every field of the CPU', () => {
    const cpu = new Cpu({ addressSpace: new AddressSpace() });
    expect(Object.keys(cpu).sort()).toEqual(Object.values(FIELDS).flat().sort());
  });

  it('should bring back every field of the architectural state', () => {
    const i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    const canonical = fc.bigInt({ min: 0n, max: 2n ** 47n - 1n });
    fc.assert(
      fc.property(
        fc.record({
          regs: fc.array(fc.tuple(i32, i32), { minLength: 16, maxLength: 16 }),
          rip: fc.tuple(i32, i32),
          // Bits that RFLAGS keeps (the reserved bit 1 set), arithmetic ones included.
          flags: fc.integer({ min: 0, max: 0x3f7fd5 }).map((f) => (f & 0x3f7fd5) | 2),
          user: fc.boolean(),
          fs: canonical,
          gs: canonical,
          kgs: canonical,
          cr2: u64,
          cr3: fc.bigInt({ min: 0n, max: 2n ** 40n - 1n }).map((v) => v & ~0xfffn),
          star: u64,
          lstar: canonical,
          fmask: fc.bigInt({ min: 0n, max: 0x3f7fd5n }),
          tsc: fc.integer({ min: 0, max: 2 ** 40 }),
          retired: fc.integer({ min: 0, max: 2 ** 40 }),
          instrumented: fc.integer({ min: 0, max: 1000 }),
          pending: fc.integer({ min: -1, max: 255 }),
          shadow: fc.boolean(),
        }),
        (s) => {
          const a = new Cpu({ addressSpace: new AddressSpace(), jit: false });
          for (const [r, [lo, hi]] of s.regs.entries()) a.setRegHalves(r as RegIndex, lo, hi);
          a.setRipHalves(s.rip[0], s.rip[1]);
          a.rflags = s.flags;
          a.cs = s.user ? 0x33 : 0x10;
          a.ss = s.user ? 0x2b : 0x18;
          a.fsBase = s.fs;
          a.gsBase = s.gs;
          a.kernelGsBase = s.kgs;
          a.cr2 = s.cr2;
          a.cr3 = s.cr3;
          a.star = s.star;
          a.lstar = s.lstar;
          a.fmask = s.fmask;
          a.tscOffset = s.tsc;
          a.retiredCount = s.retired;
          a.virtualCount = s.retired - s.instrumented;
          a.pendingVector = s.pending;
          a.shadowAt = s.shadow ? s.retired : -1;
          const b = new Cpu({ addressSpace: new AddressSpace(), jit: false });
          b.restoreContext(a.saveContext());
          for (const f of FIELDS.context) {
            const [x, y] = [a[f], b[f]];
            if (x instanceof Int32Array) expect([...(y as Int32Array)], f).toEqual([...x]);
            else expect(y, f).toBe(x);
          }
          expect(b.rflags).toBe(a.rflags);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('should keep the STI shadow of a CPU stopped right after sti (a snapshot there resumes as the run would)', () => {
    // The run goes on: the interrupt waits for the instruction after sti, so one nop retires first.
    const live = cpuWithSti();
    expect(live.run(1)).toMatchObject({ reason: 'budget' });
    const saved = live.saveContext();
    live.raiseInterrupt(0x20);
    expect(live.run(10)).toEqual({ reason: 'interrupt', vector: 0x20, rip: 0x400002n });
    // The same point, restored from the snapshot into another CPU.
    const restored = cpuWithSti();
    restored.restoreContext(saved);
    restored.raiseInterrupt(0x20);
    expect(restored.run(10)).toEqual({ reason: 'interrupt', vector: 0x20, rip: 0x400002n });
    expect(restored.retired).toBe(live.retired);
    expect(restored.getReg(Reg.RSP)).toBe(live.getReg(Reg.RSP));
  });
});
