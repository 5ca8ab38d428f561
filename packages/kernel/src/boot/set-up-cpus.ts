import { type AddressSpace, Cpu, Msr, PAGE_SIZE, PageFlags, Selector } from '@int3/cpu';
import { KernelLayout } from '../mm/kernel-layout.js';
import { PcpuHot } from '../sched/scheduler.js';
import type { KernelSymbols } from './kernel-image.js';

const KERNEL_DATA = PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute;

/**
 * Builds `ncpus` CPUs on `space`: each gets its per-CPU page (`pcpu_hot` with `current = init_task`),
 * the syscall MSRs (`LSTAR = entry_SYSCALL_64`) and long mode, ring 0, ready for `start_kernel`.
 *
 * @see arch/x86/kernel/cpu/common.c syscall_init(); arch/x86/kernel/setup_percpu.c
 */
export function setUpCpus(
  space: AddressSpace,
  ncpus: number,
  symbols: Pick<KernelSymbols, 'init_task' | 'entry_SYSCALL_64'>,
): { cpus: Cpu[]; pcpu: bigint[] } {
  const cpus: Cpu[] = [];
  const pcpu: bigint[] = [];
  for (let c = 0; c < ncpus; c++) {
    const area = KernelLayout.PERCPU_BASE + BigInt(c * PAGE_SIZE);
    space.map(area, PAGE_SIZE, KERNEL_DATA);
    space.writeU64(area + BigInt(PcpuHot.self), area);
    space.writeU32(area + BigInt(PcpuHot.cpuNumber), c);
    space.writeU64(area + BigInt(PcpuHot.currentTask), symbols.init_task);
    const cpu = new Cpu({ addressSpace: space, id: c });
    cpu.writeMsr(Msr.EFER, 0xd01n);
    cpu.writeMsr(Msr.STAR, 0x0023001000000000n);
    cpu.writeMsr(Msr.LSTAR, symbols.entry_SYSCALL_64);
    cpu.writeMsr(Msr.FMASK, 0x40700n);
    cpu.cs = Selector.KERNEL_CS;
    cpu.ss = Selector.KERNEL_DS;
    cpu.gsBase = area;
    cpu.rflags = 0x2;
    cpus.push(cpu);
    pcpu.push(area);
  }
  return { cpus, pcpu };
}
