import { createHash, type Hash } from 'node:crypto';
import type { AddressSpace } from '@int3/cpu';
import type { Machine } from '../machine/machine.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import { saveTaskRegs, type TaskRegs } from '../sched/task-regs.js';

/** One scratch buffer for every 64-bit value hashed (`update` copies it at once). */
const scratch = Buffer.alloc(8);

function u64(h: Hash, v: bigint): void {
  scratch.writeBigUInt64LE(BigInt.asUintN(64, v));
  h.update(scratch);
}

function regs(h: Hash, r: TaskRegs): void {
  for (const g of r.gpr) u64(h, g);
  for (const v of [r.rip, BigInt(r.rflags), BigInt(r.cs), BigInt(r.ss), r.fsBase, r.gsBase, r.kernelGsBase]) u64(h, v);
}

/** Page key (`address >> 12`) of the first kernel-half address: `AddressSpace`'s own keys are below it. */
const KERNEL_HALF_KEY = Number(KernelLayout.KERNEL_HALF >> 12n);

/**
 * The pages `space` itself holds below the kernel half, in ascending address order: for a user space,
 * what `space.pages()` filtered to the lower half gives, without walking and sorting the kernel half
 * it shares (which made hashing n tasks cost n times the kernel's pages).
 */
function lowerHalf(h: Hash, space: AddressSpace): void {
  const own = [...space.pageMap].filter(([key]) => key < KERNEL_HALF_KEY).sort((x, y) => x[0] - y[0]);
  for (const [key, page] of own) {
    u64(h, BigInt(key) << 12n);
    u64(h, BigInt(page.flags));
    h.update(page.data);
  }
}

function pages(h: Hash, space: AddressSpace): void {
  for (const p of space.pages()) {
    u64(h, p.address);
    u64(h, BigInt(p.flags));
    h.update(p.data);
  }
}

/**
 * A SHA-256 of everything the guest can observe and everything that decides what happens next:
 * every page of kernel memory and of each task's user memory (address, permissions, bytes), every
 * CPU's registers and virtual clock, each task's state and saved registers, the kernel log and the
 * console. Two runs with equal hashes at every checkpoint went through the same states.
 */
export function stateHash(m: Machine): string {
  const h = createHash('sha256');
  pages(h, m.space);
  for (let c = 0; c < m.cpus.length; c++) {
    regs(h, saveTaskRegs(m.cpus[c]));
    u64(h, BigInt(m.clock(c)));
    u64(h, BigInt(m.sched.current[c]?.pid ?? -1));
  }
  for (const t of [...m.sched.tasks.values()].sort((a, b) => a.pid - b.pid)) {
    h.update(`${t.pid}:${t.state}:${t.cpu}:${t.exitCode}:`);
    if (t.context) regs(h, t.context);
    lowerHalf(h, t.mm);
  }
  for (const r of m.printk.records()) h.update(`${r.seq}:${r.timestampNs}:${r.level}:${r.cpu}:${r.text}\n`);
  for (const w of m.console) h.update(`${w.at}:${w.cpu}:${w.pid}:${w.text}`);
  return h.digest('hex');
}
