import { Reg, type RegIndex } from '@int3/cpu';
import type { PtRegName } from './pt-regs-layout.js';

/**
 * The x86-64 SysV calling convention's integer argument registers, in order: the first six arguments
 * of a C function (and of a system call's `do_syscall_64` handler, after the entry code moved r10 to
 * rcx). A seventh argument onwards is on the stack, above the return address.
 *
 * @see arch/x86/entry/calling.h (the x86-64 function call convention table)
 */
export const SYSV_ARG_REGS: readonly RegIndex[] = Object.freeze([Reg.RDI, Reg.RSI, Reg.RDX, Reg.RCX, Reg.R8, Reg.R9]);

/**
 * The same registers by `struct pt_regs` member name, as `$arg1`..`$arg6` read them.
 * @see arch/x86/include/asm/ptrace.h regs_get_kernel_argument()
 */
export const SYSV_ARG_PT_REGS: readonly PtRegName[] = Object.freeze(['di', 'si', 'dx', 'cx', 'r8', 'r9']);
