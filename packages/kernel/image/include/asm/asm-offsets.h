/*
 * Fixed offsets shared by assembly and C. The C structs check them with _Static_assert, and
 * ABI.md lists them for the host. Changing one is an ABI change.
 */
#ifndef _ASM_X86_ASM_OFFSETS_H
#define _ASM_X86_ASM_OFFSETS_H

/* struct pcpu_hot, reached through %gs in kernel mode */
#define PCPU_self 0
#define PCPU_current_task 8
#define PCPU_top_of_stack 16
#define PCPU_user_rsp 24
#define PCPU_cpu_number 32
#define PCPU_SIZE 40

/* struct pt_regs, pushed by entry_SYSCALL_64 at the top of the kernel stack */
#define PTREGS_r15 0
#define PTREGS_r14 8
#define PTREGS_r13 16
#define PTREGS_r12 24
#define PTREGS_bp 32
#define PTREGS_bx 40
#define PTREGS_r11 48
#define PTREGS_r10 56
#define PTREGS_r9 64
#define PTREGS_r8 72
#define PTREGS_ax 80
#define PTREGS_cx 88
#define PTREGS_dx 96
#define PTREGS_si 104
#define PTREGS_di 112
#define PTREGS_orig_ax 120
#define PTREGS_ip 128
#define PTREGS_cs 136
#define PTREGS_flags 144
#define PTREGS_sp 152
#define PTREGS_ss 160
#define PTREGS_SIZE 168

/* Segment selectors (arch/x86/include/asm/segment.h, 64-bit) */
#define __KERNEL_CS 0x10
#define __KERNEL_DS 0x18
#define __USER32_CS 0x23
#define __USER_DS 0x2b
#define __USER_CS 0x33

#endif
