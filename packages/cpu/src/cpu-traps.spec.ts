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

/**
 * A loop calling a probed function, the shape of a kprobe hit: `mov ecx, 200; l: call f; dec ecx;
 * jnz l; hlt` and `f: int3; inc rax; ret`, with a stack, and on the next page a probe's slot
 * (`inc rdx; jmp f+1`), run to its end (boosted) or single-stepped.
 */
const LOOP = [0xb9, 200, 0, 0, 0, 0xe8, 0x16, 0, 0, 0, 0xff, 0xc9, 0x75, 0xf7, 0xf4];
const F = CODE + 0x20n;
const SLOT = CODE + 0x1000n;

/** What the host does at a #BP of the probed loop (see {@link probedLoop}). */
type Hit =
  | 'nop'
  | 'boosted'
  | 'single-step'
  | 'single-step every 2nd'
  | 'refuse every 3rd'
  | 'nested run'
  | 'disarm at 50';

/**
 * The probed loop's machine: LOOP and `f` on the first page, `slot` at SLOT on the second, a stack
 * page, the pages `map` adds; its traps recorded as [vector, rip, retired].
 */
function loopMachine(slot: readonly number[], jit: boolean, map: (as: AddressSpace) => void) {
  const code = new Array<number>(0x1000 + slot.length).fill(0x90);
  code.splice(0, LOOP.length, ...LOOP);
  code.splice(0x20, 5, 0xcc, 0x48, 0xff, 0xc0, 0xc3);
  code.splice(0x1000, slot.length, ...slot);
  const as = new AddressSpace();
  as.map(CODE, 0x2000, PageFlags.Present | PageFlags.Writable);
  as.map(0x500000n, 4096, PageFlags.Present | PageFlags.Writable);
  map(as);
  as.write(CODE, Uint8Array.from(code));
  const cpu = new Cpu({ addressSpace: as, jit: jit ? { threshold: 1 } : false });
  cpu.rip = CODE;
  cpu.setReg(Reg.RSP, 0x501000n);
  const traps: unknown[] = [];
  cpu.traps$.subscribe((t) => traps.push([t.vector, t.rip, t.retired]));
  return { as, cpu, traps };
}

function probedLoop(jit: boolean, hit: Hit, budget: number) {
  // jmp rel32 from SLOT+8 back to F+1.
  const back = Number(F + 1n - (SLOT + 8n));
  const slot = [0x48, 0xff, 0xc2, 0xe9, back & 0xff, (back >> 8) & 0xff, (back >> 16) & 0xff, (back >> 24) & 0xff];
  const { as, cpu, traps } = loopMachine(slot, jit, (space) => {
    space.map(0x600000n, 4096, PageFlags.Present);
    space.write(0x600000n, Uint8Array.from([0x48, 0xff, 0xc3, 0xf4])); // inc rbx; hlt (the nested run)
  });
  let hits = 0;
  cpu.trapHook = (c, vector) => {
    if (vector === ExceptionVector.Debug) {
      c.rflags &= ~Rflags.TF;
      c.rip = F + 1n;
      return true;
    }
    hits++;
    switch (hit) {
      case 'boosted':
        c.rip = SLOT;
        return true;
      case 'single-step every 2nd':
        c.rip = SLOT;
        // The slot's region runs for the boosted hits: a single-stepped one must not run there.
        if (hits % 2 === 0) c.rflags |= Rflags.TF;
        return true;
      case 'single-step':
        c.rip = SLOT;
        c.rflags |= Rflags.TF;
        return true;
      case 'refuse every 3rd':
        return hits % 3 !== 0;
      case 'nested run': {
        const at = c.rip;
        c.rip = 0x600000n;
        expect(c.run(10)).toEqual({ reason: 'hlt', rip: 0x600004n });
        c.rip = at;
        return true;
      }
      case 'disarm at 50':
        if (hits === 50) as.write(F, Uint8Array.of(0x90));
        return true;
      default:
        return true;
    }
  };
  const returns: RunResult[] = [];
  for (let round = 0; round < 2000; round++) {
    const r = cpu.run(budget);
    returns.push(r);
    if (r.reason === 'hlt') break;
  }
  const regs = [Reg.RAX, Reg.RBX, Reg.RCX, Reg.RDX, Reg.RSP].map((r) => cpu.getReg(r));
  return { returns, traps, hits, regs, retired: cpu.retired, rflags: cpu.rflags, rip: cpu.rip, stats: cpu.jit?.stats };
}

describe('an int3 reached from compiled code', () => {
  const hits: Hit[] = [
    'nop',
    'boosted',
    'single-step',
    'single-step every 2nd',
    'refuse every 3rd',
    'nested run',
    'disarm at 50',
  ];
  for (const hit of hits) {
    it(`should be taken in place by the chain exactly as the interpreter takes it (${hit})`, () => {
      for (const budget of [1, 2, 3, 7, 100, Number.POSITIVE_INFINITY]) {
        const { stats, ...compiled } = probedLoop(true, hit, budget);
        const { stats: _, ...interpreted } = probedLoop(false, hit, budget);
        expect(compiled).toEqual(interpreted);
        expect(compiled.regs[0]).toBe(200n);
        expect(compiled.returns.at(-1)?.reason).toBe('hlt');
        // The hits reached in compiled code were offered to the host from the chain.
        if (budget >= 7) expect(stats?.traps).toBeGreaterThan(0);
      }
    });
  }

  it('should renew the default hard cap as of the trap, as a re-run would', () => {
    // `int3; l: jmp l` costing no virtual time, reached from compiled code (`jmp t; t: int3`): run(1)
    // is bounded by the cap the host's run(1) after the trap would have started afresh.
    const capped = (jit: boolean) => {
      const { cpu } = cpuWith([0xeb, 0x00, 0xcc, 0xeb, 0xfe], false);
      const c = new Cpu({ addressSpace: cpu.addressSpace, jit: jit ? { threshold: 1 } : false });
      c.rip = CODE + 2n;
      c.trapHook = () => true;
      // Warm up the int3's region: the loop reaches it as a block head.
      expect(c.run(Number.POSITIVE_INFINITY, 2)).toEqual({ reason: 'budget', rip: CODE + 3n });
      c.rip = CODE;
      c.instrumentationMode = true;
      const r = c.run(1);
      return { r, retired: c.retired, traps: c.jit?.stats.traps ?? 0 };
    };
    const compiled = capped(true);
    expect(compiled.traps).toBeGreaterThan(0);
    expect({ ...compiled, traps: 0 }).toEqual({ ...capped(false), traps: 0 });
  });
});

/** What the instruction a probe single-steps from its slot is (see {@link steppedLoop}). */
type Stepped = 'add rdx, 1' | 'hlt' | 'a #PF' | 'int3' | 'a #DB refused every 3rd' | 'a gate';

/** A page of gates (the `a gate` slot). */
const GATES = 0x800000n;

/**
 * PROBED's loop and probed function (see {@link probedLoop}), its int3's hook single-stepping the
 * slot's instruction as an unboosted kprobe does: it moves RIP to the slot and sets TF, and the #DB
 * handler moves RIP past the probe and clears TF. Whatever run() returns before the loop's hlt (the
 * slot's hlt, #PF, refused #DB or gate), the host resumes the same way.
 */
function steppedLoop(jit: boolean, stepped: Stepped, budget: number) {
  const slot: Record<Stepped, number[]> = {
    'add rdx, 1': [0x48, 0x83, 0xc2, 0x01],
    hlt: [0xf4],
    'a #PF': [0x88, 0x04, 0x25, 0x00, 0x00, 0x70, 0x00], // mov [0x700000], al: unmapped
    int3: [0xcc],
    'a #DB refused every 3rd': [0x48, 0x83, 0xc2, 0x01],
    'a gate': [],
  };
  const { cpu, traps } = loopMachine(slot[stepped], jit, (space) => {
    space.map(GATES, 4096, PageFlags.Present | PageFlags.Gate);
  });
  const resume = () => {
    cpu.rflags &= ~Rflags.TF;
    cpu.rip = F + 1n;
  };
  let steps = 0;
  cpu.trapHook = (c, vector) => {
    if (vector === ExceptionVector.Breakpoint && c.rip === F + 1n) {
      c.rip = stepped === 'a gate' ? GATES : SLOT;
      c.rflags |= Rflags.TF;
      return true;
    }
    // The slot's own int3 (its #BP, no #DB after it), or the single-step's #DB.
    if (vector === ExceptionVector.Debug && stepped === 'a #DB refused every 3rd' && ++steps % 3 === 0) return false;
    resume();
    return true;
  };
  const returns: RunResult[] = [];
  for (let round = 0; round < 4000; round++) {
    const r = cpu.run(budget);
    returns.push(r);
    if (r.reason === 'hlt' && r.rip === CODE + 0x0fn) break;
    if (r.reason !== 'budget') resume();
  }
  const regs = [Reg.RAX, Reg.RCX, Reg.RDX, Reg.RSP].map((r) => cpu.getReg(r));
  return { returns, traps, regs, retired: cpu.retired, rflags: cpu.rflags, rip: cpu.rip, stats: cpu.jit?.stats };
}

describe('a single-step after an int3 reached from compiled code', () => {
  const kinds: Stepped[] = ['add rdx, 1', 'hlt', 'a #PF', 'int3', 'a #DB refused every 3rd', 'a gate'];
  for (const stepped of kinds) {
    it(`should run in the chain exactly as the interpreter runs it (${stepped})`, () => {
      for (const budget of [1, 2, 3, 7, 100, Number.POSITIVE_INFINITY]) {
        const { stats, ...compiled } = steppedLoop(true, stepped, budget);
        const { stats: _, ...interpreted } = steppedLoop(false, stepped, budget);
        expect(compiled).toEqual(interpreted);
        expect(compiled.regs[0]).toBe(200n);
        expect(compiled.returns.at(-1)).toEqual({ reason: 'hlt', rip: CODE + 0x0fn });
        // The chain ran the steps of the hits it reached, but a gate's (the loop runs gates); a #PF
        // leaves from inside the step (the run returns it as from the loop), before it is counted.
        const none = stepped === 'a gate' || stepped === 'a #PF';
        if (budget === Number.POSITIVE_INFINITY) expect(stats?.steps).toBe(none ? 0 : 199);
      }
    });
  }

  it('should renew the default hard cap as of the #DB, as a re-run would', () => {
    // `jmp t; t: int3; nop; l: jmp l` costing no virtual time, the int3's hook single-stepping the nop
    // in place: run(3) is bounded by the cap a host's run(3) after the #DB would have started afresh.
    const capped = (jit: boolean) => {
      const { cpu } = cpuWith([0xeb, 0x00, 0xcc, 0x90, 0xeb, 0xfe], false);
      const c = new Cpu({ addressSpace: cpu.addressSpace, jit: jit ? { threshold: 1 } : false });
      c.trapHook = (h, vector) => {
        if (vector === ExceptionVector.Breakpoint) h.rflags |= Rflags.TF;
        else h.rflags &= ~Rflags.TF;
        return true;
      };
      // Warm up the int3's region: the loop reaches it as a block head.
      c.rip = CODE + 2n;
      const warm = c.run(Number.POSITIVE_INFINITY, 3);
      c.rip = CODE;
      c.instrumentationMode = true;
      const r = c.run(3);
      return { warm, r, retired: c.retired, steps: c.jit?.stats.steps ?? 0 };
    };
    const compiled = capped(true);
    expect(compiled.steps).toBeGreaterThan(0);
    expect({ ...compiled, steps: 0 }).toEqual({ ...capped(false), steps: 0 });
  });
});
