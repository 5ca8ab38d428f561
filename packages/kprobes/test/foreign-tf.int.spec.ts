import { DieVal, NotifyResult } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { bootWithKprobes, boundaries, run } from './support/machine.js';

describe('a single-step someone else started', () => {
  it('should keep its meaning across a probed instruction: the debugger still sees every step', () => {
    const plain = bootWithKprobes();
    const expected = run(plain.m, ['mkdir', '/tmp/tf']);

    const { m, k } = bootWithKprobes();
    const insns = boundaries(m, 'sys_mkdir');
    const start = insns[0].address;
    const probed = insns[2].address; // an instruction the debugger steps onto
    // The probe first: can_probe refuses to decode past a foreign int3 (EILSEQ).
    let hits = 0;
    k.registerKprobe({
      addr: probed,
      preHandler: () => {
        hits++;
        return 0;
      },
    });
    // A "debugger": a breakpoint at sys_mkdir (its own int3, below kprobes in the chain), then
    // single-step with TF through the next few instructions, recording where each step lands.
    const original = m.space.read(start, 1);
    m.kernel.memory.textPoke(start, new Uint8Array([0xcc]));
    const landed: bigint[] = [];
    let stepping = 0;
    m.kernel.dieChain.register('debugger', 0, (a) => {
      if (a.val === DieVal.INT3 && a.regs.ip - 1n === start) {
        m.kernel.memory.textPoke(start, original);
        a.regs.ip = start;
        a.regs.flags |= 0x100; // TF
        stepping = 4;
        return NotifyResult.STOP;
      }
      if (a.val === DieVal.DEBUG && stepping > 0) {
        landed.push(a.regs.ip);
        if (--stepping === 0) a.regs.flags &= ~0x100;
        return NotifyResult.STOP;
      }
      return NotifyResult.DONE;
    });
    expect(run(m, ['mkdir', '/tmp/tf'])).toBe(expected);
    expect(hits).toBe(1);
    // Each step lands on the next instruction, the probed one's step included (at the original
    // address, not the slot: resume_execution ran before do_debug went on).
    expect(landed).toEqual([insns[1].address, insns[2].address, insns[3].address, insns[4].address]);
  });
});
