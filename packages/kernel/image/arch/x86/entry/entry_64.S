/*
 * The 64-bit system call entry (arch/x86/entry/entry_64.S in spirit; written for int3).
 *
 * On `syscall` the CPU has put the user rip in rcx and the user rflags in r11, loaded CS/SS from
 * STAR and cleared the FMASK bits; rsp is still the user stack and GS_BASE still the user's.
 *
 * Step 1: swapgs to reach the per-CPU area, park the user rsp there, load the kernel stack.
 * Step 2: push a Linux-layout struct pt_regs (ss sp flags cs ip orig_ax di si dx cx ax r8..r15).
 * Step 3: do_syscall_64(regs, nr) runs the body and stores the result in regs->ax.
 * Step 4: pop the frame (rcx = ip, r11 = flags, rsp = sp), swapgs back and sysretq.
 */
#include <asm/asm-offsets.h>

#define ENOSYS 38

	.section .entry.text, "ax"
	.globl entry_SYSCALL_64
	.type entry_SYSCALL_64, @function
	.p2align 4
entry_SYSCALL_64:
	swapgs
	movq	%rsp, %gs:PCPU_user_rsp
	movq	%gs:PCPU_top_of_stack, %rsp

	pushq	$__USER_DS			/* pt_regs->ss */
	pushq	%gs:PCPU_user_rsp		/* pt_regs->sp */
	pushq	%r11				/* pt_regs->flags */
	pushq	$__USER_CS			/* pt_regs->cs */
	pushq	%rcx				/* pt_regs->ip */
	pushq	%rax				/* pt_regs->orig_ax */
	pushq	%rdi				/* pt_regs->di */
	pushq	%rsi				/* pt_regs->si */
	pushq	%rdx				/* pt_regs->dx */
	pushq	%rcx				/* pt_regs->cx */
	pushq	$-ENOSYS			/* pt_regs->ax */
	pushq	%r8				/* pt_regs->r8 */
	pushq	%r9				/* pt_regs->r9 */
	pushq	%r10				/* pt_regs->r10 */
	pushq	%r11				/* pt_regs->r11 */
	pushq	%rbx				/* pt_regs->bx */
	pushq	%rbp				/* pt_regs->bp */
	pushq	%r12				/* pt_regs->r12 */
	pushq	%r13				/* pt_regs->r13 */
	pushq	%r14				/* pt_regs->r14 */
	pushq	%r15				/* pt_regs->r15 */

	movq	%rsp, %rdi
	movq	%rax, %rsi
	call	do_syscall_64

	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	addq	$8, %rsp			/* orig_ax */
	popq	%rcx				/* ip: where sysretq returns */
	addq	$8, %rsp			/* cs */
	popq	%r11				/* flags: what sysretq restores */
	swapgs
	popq	%rsp				/* sp: back on the user stack */
	sysretq
	.size entry_SYSCALL_64, . - entry_SYSCALL_64
