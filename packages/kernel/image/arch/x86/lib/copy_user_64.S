/*
 * User-memory primitives with exception-table fixups. An access that faults on a bad user
 * pointer resumes at the fixup named by its __ex_table entry instead of oopsing; see ABI.md
 * ("Exception table") for what the host does on a kernel-mode #PF.
 */

/* One __ex_table entry: the address that may fault, then where to resume. */
#define _ASM_EXTABLE(from, to)			\
	.pushsection __ex_table, "a";		\
	.balign 8;				\
	.quad from, to;				\
	.popsection

	.text

/*
 * unsigned long copy_user_generic(void *to, const void *from, unsigned long len)
 * Returns the number of bytes NOT copied: 0 on success.
 */
	.globl copy_user_generic
	.type copy_user_generic, @function
	.p2align 4
copy_user_generic:
	movq	%rdx, %rcx
1:	rep movsb
	xorl	%eax, %eax
	ret
2:	movq	%rcx, %rax			/* rep movsb leaves the remaining count in rcx */
	ret
	_ASM_EXTABLE(1b, 2b)
	.size copy_user_generic, . - copy_user_generic

/*
 * long __strncpy_from_user(char *dst, const char __user *src, long count)
 * Copies up to count bytes including a NUL. Returns the string length (count when no NUL was
 * found within count bytes) or -EFAULT (-14).
 */
	.globl __strncpy_from_user
	.type __strncpy_from_user, @function
	.p2align 4
__strncpy_from_user:
	xorl	%eax, %eax
3:	cmpq	%rdx, %rax
	jge	5f
4:	movzbl	(%rsi,%rax), %ecx
	movb	%cl, (%rdi,%rax)
	testb	%cl, %cl
	je	5f
	incq	%rax
	jmp	3b
5:	ret
6:	movq	$-14, %rax
	ret
	_ASM_EXTABLE(4b, 6b)
	.size __strncpy_from_user, . - __strncpy_from_user
