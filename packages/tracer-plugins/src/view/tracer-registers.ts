import type { RegIndex } from '@int3/cpu';
import type { PtRegName, PtRegs } from '@int3/kernel';

/**
 * Register reads of the CPU a probe handler runs on, from the `regs` kprobes hands the handler. Reads
 * only: a tracer observes, it does not steer the guest.
 *
 * @see arch/x86/include/asm/ptrace.h struct pt_regs, regs_get_register(), regs_get_kernel_argument()
 * @example
 * preHandler: (_p, regs) => {
 *   const cpu = ctx.regs.smpProcessorId(regs);
 *   const nr = ctx.regs.get(regs, 'si');
 *   return 0;
 * }
 */
export interface TracerRegisters {
  /** The number of the CPU whose trap frame `regs` is. @see include/linux/smp.h smp_processor_id() */
  smpProcessorId(regs: PtRegs): number;
  /** One `struct pt_regs` member by name (`'di'`, `'ip'`, `'flags'`, `'orig_ax'`…). @see regs_get_register() */
  get(regs: PtRegs, name: PtRegName): bigint;
  /**
   * A general register by CPU index (`Reg.RDI`…) as two unsigned 32-bit halves, `out[0]` low and
   * `out[1]` high: no BigInt, for handlers that run on every hit.
   */
  raw(regs: PtRegs, reg: RegIndex, out: Uint32Array): void;
  /** The `n`th integer argument at a function's entry (SysV: six registers, then the stack). @see regs_get_kernel_argument() */
  argument(regs: PtRegs, n: number): bigint;
  /**
   * The registers `cpu` was interrupted with, for work done between rounds with no trap frame of its
   * own (a profile sample). @see include/asm-generic/irq_regs.h get_irq_regs()
   */
  irqRegs(cpu: number): PtRegs;
}
