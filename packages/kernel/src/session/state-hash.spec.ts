import { createHash, type Hash } from 'node:crypto';
import type { AddressSpace } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { Machine } from '../machine/machine.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { saveTaskRegs, type TaskRegs } from '../sched/task-regs.js';
import { stateHash } from './state-hash.js';

/** The state hash as the event log documents it, written out the plain way (the first version's code). */
function documentedHash(m: Machine): string {
  const h = createHash('sha256');
  const u64 = (v: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt.asUintN(64, v));
    h.update(b);
  };
  const regs = (r: TaskRegs) => {
    for (const g of r.gpr) u64(g);
    for (const v of [r.rip, BigInt(r.rflags), BigInt(r.cs), BigInt(r.ss), r.fsBase, r.gsBase, r.kernelGsBase]) u64(v);
  };
  const pages = (hash: Hash, space: AddressSpace, keep: (a: bigint) => boolean) => {
    for (const p of space.pages()) {
      if (!keep(p.address)) continue;
      u64(p.address);
      u64(BigInt(p.flags));
      hash.update(p.data);
    }
  };
  pages(h, m.space, () => true);
  for (let c = 0; c < m.cpus.length; c++) {
    regs(saveTaskRegs(m.cpus[c]));
    u64(BigInt(m.clock(c)));
    u64(BigInt(m.sched.current[c]?.pid ?? -1));
  }
  for (const t of [...m.sched.tasks.values()].sort((a, b) => a.pid - b.pid)) {
    h.update(`${t.pid}:${t.state}:${t.cpu}:${t.exitCode}:`);
    if (t.context) regs(t.context);
    pages(h, t.mm, (a) => a < KernelLayout.KERNEL_HALF);
  }
  for (const r of m.printk.records()) h.update(`${r.seq}:${r.timestampNs}:${r.level}:${r.cpu}:${r.text}\n`);
  for (const w of m.console) h.update(`${w.at}:${w.cpu}:${w.pid}:${w.text}`);
  return h.digest('hex');
}

describe(stateHash, () => {
  it('should be the documented SHA-256 at boot, with tasks alive, forked, exited and gone', () => {
    const m = Machine.boot({ image: readSampleImage(), cpus: 2, programs: sampleProgram });
    expect(stateHash(m)).toBe(documentedHash(m));
    for (const argv of [['fork', '3'], ['hello'], ['cat', '/etc/motd'], ['fault']]) m.spawn(argv);
    expect(stateHash(m)).toBe(documentedHash(m));
    for (const deadlineNs of [30_000, 200_000]) {
      m.run({ deadlineNs });
      expect(stateHash(m)).toBe(documentedHash(m));
    }
    m.run({});
    expect(m.console.length).toBeGreaterThan(0);
    expect(stateHash(m)).toBe(documentedHash(m));
  });

  it('should change when one byte of a task memory changes', () => {
    const m = Machine.boot({ image: readSampleImage(), cpus: 1, programs: sampleProgram });
    const t = m.spawn(['hello']);
    const before = stateHash(m);
    const top = KernelLayout.USER_STACK_TOP - 4096n;
    t.mm.writeU8(top, t.mm.readU8(top) ^ 1);
    expect(stateHash(m)).not.toBe(before);
  });
});
