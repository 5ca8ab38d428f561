/*
 * Process entry. The host leaves rsp at argc, followed by argv[0..argc-1], NULL, envp..., NULL,
 * and the auxiliary vector (SysV x86-64 ABI, figure 3.9). main's return value is the exit status.
 */
	.text
	.globl _start
	.type _start, @function
_start:
	xorl	%ebp, %ebp
	movq	(%rsp), %rdi			/* argc */
	leaq	8(%rsp), %rsi			/* argv */
	leaq	8(%rsi,%rdi,8), %rdx		/* envp */
	andq	$-16, %rsp
	call	main
	movl	%eax, %edi
	call	exit
	hlt
	.size _start, . - _start
