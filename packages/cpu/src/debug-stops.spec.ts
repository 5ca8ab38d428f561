import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';

const CODE = 0x400000n;
// mov ecx, 1000; loop: add eax, 1; add ebx, 2; dec ecx; jnz loop; hlt
const LOOP = [0xb9, 0xe8, 0x03, 0x00, 0x00, 0x83, 0xc0, 0x01, 0x83, 0xc3, 0x02, 0xff, 0xc9, 0x75, 0xf6, 0xf4];
/** The `add ebx, 2` inside the loop. */
const STOP = CODE + 8n;

function machine(jit: boolean) {
  const as = new AddressSpace();
  as.map(CODE, 4096, PageFlags.Present | PageFlags.Writable);
  as.write(CODE, Uint8Array.from(LOOP));
  const cpu = new Cpu({ addressSpace: as, jit: jit ? { threshold: 1 } : false });
  cpu.rip = CODE;
  return { cpu, as };
}

/** Retired counts at each visit of STOP, stepping one instruction at a time. */
function steppedVisits(): number[] {
  const { cpu } = machine(false);
  const at: number[] = [];
  for (;;) {
    if (cpu.rip === STOP) at.push(cpu.retired);
    if (cpu.step().reason === 'hlt') return at;
  }
}

describe('Cpu.debugStops', () => {
  it.each([false, true])(
    'should stop before the instruction at a stop, at the retired count of the stepped run (block compiler %s)',
    (jit) => {
      const { cpu, as } = machine(jit);
      // Compiled (or decoded) before the stop is set: setting it drops that code, as a code write does.
      cpu.run(30);
      const from = cpu.retired;
      const stops = new Set([STOP]);
      cpu.debugStops = stops;
      as.dropCode(STOP, 1);
      const visits: number[] = [];
      for (;;) {
        const r = cpu.run(1_000_000);
        if (r.reason === 'hlt') break;
        expect(cpu.atDebugStop).toBe(true);
        expect(cpu.rip).toBe(STOP);
        cpu.atDebugStop = false;
        visits.push(cpu.retired);
        // Past the stop once: without it for one instruction, then back.
        stops.delete(STOP);
        as.dropCode(STOP, 1);
        cpu.step();
        stops.add(STOP);
        as.dropCode(STOP, 1);
      }
      expect(visits).toEqual(steppedVisits().filter((r) => r >= from));
      expect(visits.length).toBeGreaterThan(990);
      expect(cpu.getReg(Reg.RBX)).toBe(2000n);
      // Memory is untouched: the stop is no byte written.
      expect([...as.read(CODE, LOOP.length)]).toEqual(LOOP);
    },
  );

  it('should run through once the stop is gone and its code dropped', () => {
    const { cpu, as } = machine(true);
    const stops = new Set([STOP]);
    cpu.debugStops = stops;
    expect(cpu.run(1_000_000).reason).toBe('budget');
    cpu.atDebugStop = false;
    stops.clear();
    as.dropCode(STOP, 1);
    expect(cpu.run(1_000_000).reason).toBe('hlt');
    expect(cpu.atDebugStop).toBe(false);
    expect(cpu.getReg(Reg.RAX)).toBe(1000n);
  });
});
