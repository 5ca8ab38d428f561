/*
 * Probe targets for the kprobes tests (lib/test_kprobes.c in spirit): kprobe_target and
 * kprobe_target2, simple arithmetic as in Linux's self-test, and the jump-optimization fixtures,
 * one function that can be optimized at its entry and one function per safety rule of
 * can_optimize() / copy_optimized_instructions() that violates it at its entry.
 *
 * The fixtures are written in assembly so gcc cannot change their shape: each is placed with its
 * own .type/.size, and kallsyms sizes a symbol up to the next one, so the padding between them is
 * part of the function before it (only NOPs). Nothing in the kernel calls any of them: no workload
 * reaches them; tests call them with `m.guest.call`.
 *
 * The exception-table rule has no fixture here: copy_user_generic (arch/x86/lib/copy_user_64.S)
 * already has an __ex_table entry, and the image test pins the owners of the table.
 */
#include <linux/types.h>
#include <linux/compiler.h>

static const u32 div_factor = 3;

noinline u32 kprobe_target(u32 value)
{
	return value / div_factor;
}

noinline u32 kprobe_target2(u32 value)
{
	return (value / div_factor) + 1;
}

__asm__(
	"	.text\n"

	/* Optimizable at +0: push/mov/lea are boostable and cover 8 bytes; no jump into them. */
	"	.globl optprobe_target\n"
	"	.type optprobe_target, @function\n"
	"	.p2align 4\n"
	"optprobe_target:\n"
	"	push %rbp\n"			/* +0: 55 */
	"	mov %rsp, %rbp\n"		/* +1: 48 89 e5 */
	"	lea 1(%rdi), %eax\n"		/* +4: 8d 47 01 */
	"	imul %esi, %eax\n"		/* +7: 0f af c6 */
	"	pop %rbp\n"
	"	ret\n"
	"	.size optprobe_target, . - optprobe_target\n"

	/* A loop branches back to +2, inside the Jump Target Prohibition Region of +0. */
	"	.globl optprobe_jump_into_region\n"
	"	.type optprobe_jump_into_region, @function\n"
	"	.p2align 4\n"
	"optprobe_jump_into_region:\n"
	"	mov %edi, %eax\n"		/* +0: 89 f8 */
	"1:	add $1, %eax\n"			/* +2: 83 c0 01 */
	"	cmp $10, %eax\n"		/* +5 */
	"	jl 1b\n"			/* to +2 */
	"	ret\n"
	"	.size optprobe_jump_into_region, . - optprobe_jump_into_region\n"

	/* An indirect jump anywhere in the function (a jump table could land in any region). */
	"	.globl optprobe_indirect_jump\n"
	"	.type optprobe_indirect_jump, @function\n"
	"	.p2align 4\n"
	"optprobe_indirect_jump:\n"
	"	mov %edi, %eax\n"		/* +0 */
	"	add $1, %eax\n"			/* +2 */
	"	lea 2f(%rip), %rdx\n"		/* +5 */
	"	jmp *%rdx\n"
	"2:	ret\n"
	"	.size optprobe_indirect_jump, . - optprobe_indirect_jump\n"

	/* 4 bytes long and immediately followed by the next symbol: a 5-byte jump cannot fit. */
	"	.globl optprobe_too_short\n"
	"	.type optprobe_too_short, @function\n"
	"	.p2align 4\n"
	"optprobe_too_short:\n"
	"	lea 1(%rdi), %eax\n"		/* +0: 8d 47 01 */
	"	ret\n"				/* +3 */
	"	.size optprobe_too_short, . - optprobe_too_short\n"

	/* A call in the region: push (1) + mov (3) + call (5). */
	"	.globl optprobe_call_in_region\n"
	"	.type optprobe_call_in_region, @function\n"
	"optprobe_call_in_region:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call kprobe_target\n"		/* +4 */
	"	pop %rbp\n"
	"	ret\n"
	"	.size optprobe_call_in_region, . - optprobe_call_in_region\n"

	/* A jcc in the region (relative to where it runs: cannot run out of line). */
	"	.globl optprobe_jcc_in_region\n"
	"	.type optprobe_jcc_in_region, @function\n"
	"	.p2align 4\n"
	"optprobe_jcc_in_region:\n"
	"	mov %edi, %eax\n"		/* +0 */
	"	test %eax, %eax\n"		/* +2 */
	"	je 3f\n"			/* +4: 74 xx, target past the region */
	"	add $1, %eax\n"
	"3:	ret\n"
	"	.size optprobe_jcc_in_region, . - optprobe_jcc_in_region\n"

	/*
	 * A RIP-relative operand aimed 2 GiB below the kernel: it fits from here, but not from a detour
	 * buffer in module space (0xffffffffa0000000 up), so the region cannot be relocated. lea does
	 * not touch memory, so the function can run.
	 */
	"	.globl optprobe_riprel_far\n"
	"	.type optprobe_riprel_far, @function\n"
	"	.p2align 4\n"
	"optprobe_riprel_far:\n"
	"	lea -0x7ff00000(%rip), %rax\n"	/* +0: 48 8d 05 disp32 */
	"	ret\n"
	"	.size optprobe_riprel_far, . - optprobe_riprel_far\n");

/*
 * For the kprobes benchmark: n calls of kprobe_target from one host-to-guest call, so the host's cost
 * of entering the guest is paid once and a probe's cost per hit stands out from it.
 */
noinline u32 kprobe_target_loop(u32 n)
{
	u32 sum = 0;

	for (u32 i = 0; i < n; i++)
		sum += kprobe_target(i);
	return sum;
}
