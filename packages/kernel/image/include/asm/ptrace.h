/* The register frame entry_SYSCALL_64 builds (arch/x86/include/asm/ptrace.h layout). */
#ifndef _ASM_X86_PTRACE_H
#define _ASM_X86_PTRACE_H

#include <asm/asm-offsets.h>
#include <linux/compiler.h>

struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};

_Static_assert(offsetof(struct pt_regs, r15) == PTREGS_r15, "pt_regs.r15");
_Static_assert(offsetof(struct pt_regs, bp) == PTREGS_bp, "pt_regs.bp");
_Static_assert(offsetof(struct pt_regs, r11) == PTREGS_r11, "pt_regs.r11");
_Static_assert(offsetof(struct pt_regs, ax) == PTREGS_ax, "pt_regs.ax");
_Static_assert(offsetof(struct pt_regs, di) == PTREGS_di, "pt_regs.di");
_Static_assert(offsetof(struct pt_regs, orig_ax) == PTREGS_orig_ax, "pt_regs.orig_ax");
_Static_assert(offsetof(struct pt_regs, ip) == PTREGS_ip, "pt_regs.ip");
_Static_assert(offsetof(struct pt_regs, flags) == PTREGS_flags, "pt_regs.flags");
_Static_assert(offsetof(struct pt_regs, sp) == PTREGS_sp, "pt_regs.sp");
_Static_assert(sizeof(struct pt_regs) == PTREGS_SIZE, "pt_regs size");

#endif
