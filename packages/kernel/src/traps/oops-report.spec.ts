import { AddressSpace, Cpu, PageFlags, Reg } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { Kallsyms } from '../kallsyms/kallsyms.js';
import { frameReturnAddresses, oopsReport } from './oops-report.js';

const TEXT = 0xffffffff81000000n;
const STACK = 0xffffc90000000000n;
const RW = PageFlags.Present | PageFlags.Writable;

/** The report of a #GP at victim+0 (in its prologue) with these stack and frame pointers. */
function report(rsp: bigint, rbp: bigint, prepare: (space: AddressSpace) => void = () => {}): string[] {
  const space = new AddressSpace();
  space.map(TEXT, 4096, PageFlags.Present);
  space.map(STACK, 8192, RW);
  prepare(space);
  const cpu = new Cpu({ addressSpace: space, jit: false });
  const ksyms = new Kallsyms();
  ksyms.addRegion(undefined, [
    { name: 'victim', address: TEXT, size: 0x40, kind: 'text', global: true },
    { name: 'caller', address: TEXT + 0x40n, size: 0x40, kind: 'text', global: true },
  ]);
  cpu.rip = TEXT;
  cpu.setReg(Reg.RSP, rsp);
  cpu.setReg(Reg.RBP, rbp);
  return oopsReport({
    cpu,
    cpuIndex: 0,
    vector: 13,
    errorCode: 0,
    cr2: undefined,
    pid: 1,
    comm: 'init',
    ksyms,
    stackLow: STACK,
    stackHigh: STACK + 8192n,
    oopsCount: 1,
    release: '6.8.0-int3',
  });
}

describe(oopsReport, () => {
  it("should print the return address at a prologue's stack top", () => {
    const lines = report(STACK + 0x100n, 0n, (space) => space.writeU64(STACK + 0x100n, TEXT + 0x48n));
    expect(lines.slice(-3)).toEqual([' <TASK>', ' caller+0x8/0x40', ' </TASK>']);
  });

  it('should leave out what it cannot read when the stack pointer points at unmapped memory', () => {
    // A stack pointer a guest (or a broken handler) left pointing nowhere: no read faults the host.
    for (const rsp of [0n, 0x1000n, STACK - 8n, STACK + 8192n - 4n, (1n << 64n) - 4n]) {
      expect(report(rsp, STACK + 0x80n).slice(-2)).toEqual([' <TASK>', ' </TASK>']);
    }
  });
});

describe(frameReturnAddresses, () => {
  it('should stop at a frame link that leads to an unmapped word', () => {
    const space = new AddressSpace();
    space.map(STACK, 4096, RW);
    // The frame at STACK+0x10 returns to 0x1234 and links to the next page, which is not mapped.
    space.writeU64(STACK + 0x18n, 0x1234n);
    space.writeU64(STACK + 0x10n, STACK + 0x1000n);
    expect(frameReturnAddresses(space, STACK + 0x10n, STACK, STACK + 0x2000n)).toEqual([0x1234n]);
  });
});
