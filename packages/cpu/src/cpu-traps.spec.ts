import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { ExceptionVector } from './exception-vector.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import { Rflags } from './rflags.js';
import type { RunResult } from './run-result.js';
import type { TrapEvent } from './trap-event.js';

const CODE = 0x400000n;
/** inc rax; int3; inc rax; int3; inc rax; int 0x80; inc rax; hlt */
const PROGRAM = [0x48, 0xff, 0xc0, 0xcc, 0x48, 0xff, 0xc0, 0xcc, 0x48, 0xff, 0xc0, 0xcd, 0x80, 0x48, 0xff, 0xc0, 0xf4];

function cpuWith(code: readonly number[], jit: boolean): { cpu: Cpu; traps: TrapEvent[] } {
  const as = new AddressSpace();
  as.map(CODE, 4096, PageFlags.Present | PageFlags.Writable);
  as.write(CODE, Uint8Array.from(code));
  const cpu = new Cpu({ addressSpace: as, jit });
  cpu.rip = CODE;
  const traps: TrapEvent[] = [];
  cpu.traps$.subscribe((t) => traps.push(t));
  return { cpu, traps };
}

/**
 * The host's side of PROGRAM, both ways: with `inPlace`, the hook takes every #BP; without, each #BP
 * returns and the host runs the CPU again with what is left of `budget`, as the kernel's run loop does.
 * Every other return is recorded, and the runs are counted.
 */
function drive(inPlace: boolean, jit: boolean, budget: number) {
  const { cpu, traps } = cpuWith(PROGRAM, jit);
  const hooked: number[] = [];
  if (inPlace) {
    cpu.trapHook = (_c, vector) => {
      hooked.push(vector);
      return true;
    };
  }
  const returns: RunResult[] = [];
  let runs = 0;
  for (let round = 0; round < 40; round++) {
    const end = cpu.virtualRetired + budget;
    for (;;) {
      runs++;
      const r = cpu.run(end - cpu.virtualRetired);
      if (r.reason === 'exception' && r.vector === ExceptionVector.Breakpoint) continue;
      returns.push(r);
      break;
    }
    if (returns.at(-1)?.reason === 'hlt') break;
  }
  return { returns, runs, hooked, traps: traps.map((t) => [t.vector, t.rip, t.retired]), rax: cpu.getReg(Reg.RAX) };
}

describe('Cpu.trapHook', () => {
  for (const jit of [false, true]) {
    it(`should resume an int3 the hook takes in place, with every other exit where it was (block compiler ${jit})`, () => {
      for (const budget of [1, 2, 3, 4, 5, 100]) {
        const inPlace = drive(true, jit, budget);
        const returned = drive(false, jit, budget);
        expect(inPlace.hooked).toEqual([3, 3]);
        expect(inPlace.returns).toEqual(returned.returns);
        expect(inPlace.traps).toEqual(returned.traps);
        expect(inPlace.rax).toBe(4n);
        // `int 0x80` is no #BP: it returns whatever the hook would say.
        expect(inPlace.returns.filter((r) => r.reason === 'exception')).toEqual([
          { reason: 'exception', vector: 0x80, rip: CODE + 13n },
        ]);
        expect(inPlace.runs).toBe(returned.runs - 2);
      }
    });
  }

  it('should return the trap, published once, when the hook does not take it', () => {
    const { cpu, traps } = cpuWith(PROGRAM, false);
    const seen: bigint[] = [];
    cpu.trapHook = (c) => {
      seen.push(c.rip);
      return false;
    };
    expect(cpu.run(100)).toEqual({ reason: 'exception', vector: 3, rip: CODE + 4n });
    expect(seen).toEqual([CODE + 4n]);
    expect(traps.map((t) => [t.vector, t.rip])).toEqual([[3, CODE + 4n]]);
  });

  it("should resume a single-step's #DB in place when the hook clears TF, and return it when not", () => {
    for (const take of [true, false]) {
      const { cpu, traps } = cpuWith([0x90, 0x90, 0xf4], false);
      cpu.rflags |= Rflags.TF;
      const seen: number[] = [];
      cpu.trapHook = (c, vector) => {
        seen.push(vector);
        if (take) c.rflags &= ~Rflags.TF;
        return take;
      };
      const r = cpu.run(100);
      expect(seen).toEqual([ExceptionVector.Debug]);
      expect(traps.map((t) => t.vector)).toEqual([ExceptionVector.Debug]);
      if (take) expect(r).toEqual({ reason: 'hlt', rip: CODE + 3n });
      else expect(r).toEqual({ reason: 'exception', vector: 1, rip: CODE + 1n, singleStep: true });
    }
  });

  it('should run the code the hook left after the trap: bytes it wrote, a page it mapped anew', () => {
    // int3; inc rax; hlt — the hook makes the `inc rax` an `inc rcx`, by a write or on a new page,
    // and may run guest code itself (a nested run: `hlt` on another page) before it returns.
    for (const how of ['write', 'remap', 'remap, then a nested run'] as const) {
      const { cpu } = cpuWith([0xcc, 0x48, 0xff, 0xc0, 0xf4], false);
      const as = cpu.addressSpace;
      as.map(CODE + 0x10000n, 4096, PageFlags.Present);
      as.write(CODE + 0x10000n, Uint8Array.from([0xf4]));
      // Decoded (and cached by the run loop) before the hook changes it.
      cpu.rip = CODE + 1n;
      expect(cpu.step()).toMatchObject({ reason: 'budget' });
      cpu.rip = CODE;
      cpu.setReg(Reg.RAX, 0n);
      cpu.trapHook = (c) => {
        const code = Uint8Array.from([0xcc, 0x48, 0xff, 0xc1, 0xf4]);
        if (how === 'write') as.write(CODE, code);
        else {
          as.unmap(CODE, 4096);
          as.map(CODE, 4096, PageFlags.Present | PageFlags.Writable);
          as.write(CODE, code);
        }
        if (how === 'remap, then a nested run') {
          c.rip = CODE + 0x10000n;
          expect(c.run(10)).toEqual({ reason: 'hlt', rip: CODE + 0x10001n });
          c.rip = CODE + 1n;
        }
        return true;
      };
      expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: CODE + 5n });
      expect([cpu.getReg(Reg.RAX), cpu.getReg(Reg.RCX)]).toEqual([0n, 1n]);
    }
  });

  it('should keep an explicit hard cap across a trap taken in place, and renew the default one as a re-run would', () => {
    // `l: int3; jmp l`: every trap taken in place; the cap of 11 instructions holds.
    const looping = cpuWith([0xcc, 0xeb, 0xfd], false).cpu;
    looping.trapHook = () => true;
    expect(looping.run(Number.POSITIVE_INFINITY, 11)).toEqual({ reason: 'budget', rip: CODE + 1n });
    expect(looping.retired).toBe(11);
    // `int3; l: jmp l` costing no virtual time: run(1) is bounded by its default hard cap only, which
    // the host's run(1) after the trap would have started afresh (16 + 1e6 instructions after it).
    const capped = (inPlace: boolean) => {
      const { cpu } = cpuWith([0xcc, 0xeb, 0xfe], false);
      cpu.instrumentationMode = true;
      if (inPlace) cpu.trapHook = () => true;
      let r = cpu.run(1);
      if (!inPlace) {
        expect(r).toEqual({ reason: 'exception', vector: 3, rip: CODE + 1n });
        r = cpu.run(1);
      }
      return { r, retired: cpu.retired };
    };
    expect(capped(true)).toEqual({ r: { reason: 'budget', rip: CODE + 1n }, retired: 1 + 16 + 1e6 });
    expect(capped(false)).toEqual(capped(true));
  });
});
