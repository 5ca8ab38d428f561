/*
 * Indirect branches gcc never emits for this kernel (no jump tables in the sample code, no function
 * pointers in registers at a probe-able place), for the kprobes regression tests of resume_execution():
 * the 0xff group is told apart by its ModRM reg field (ff /2 call, ff /4 jmp), not by the opcode byte.
 *
 *   long int3_jmp_reg(long x)    jmp *%rax to a local label:                    3x + 7
 *   long int3_call_reg(long x)   call *%rax to a local helper:                  (2x + 1) + 1
 *   long int3_call_mem(long x)   call *int3_fnptr(%rip), a pointer in .data:    (2x + 1) + 2
 *   long int3_jmp_table(long x)  jmp *table(,%rdi,8) on x & 3:                  x + 100 * (x & 3)
 */
	.text

	.globl int3_jmp_reg
	.type int3_jmp_reg, @function
int3_jmp_reg:
	movq $1f, %rax
	jmp *%rax
	ud2
1:	leaq 7(%rdi,%rdi,2), %rax
	ret
	.size int3_jmp_reg, . - int3_jmp_reg

	.type int3_twice_plus_one, @function
int3_twice_plus_one:
	leaq 1(%rdi,%rdi), %rax
	ret
	.size int3_twice_plus_one, . - int3_twice_plus_one

	.globl int3_call_reg
	.type int3_call_reg, @function
int3_call_reg:
	movq $int3_twice_plus_one, %rax
	call *%rax
	addq $1, %rax
	ret
	.size int3_call_reg, . - int3_call_reg

	.globl int3_call_mem
	.type int3_call_mem, @function
int3_call_mem:
	call *int3_fnptr(%rip)
	addq $2, %rax
	ret
	.size int3_call_mem, . - int3_call_mem

	.globl int3_jmp_table
	.type int3_jmp_table, @function
int3_jmp_table:
	movq %rdi, %rax
	andl $3, %edi
	jmp *int3_table(,%rdi,8)
2:	addq $100, %rax
3:	addq $100, %rax
4:	addq $100, %rax
5:	ret
	.size int3_jmp_table, . - int3_jmp_table

	.globl init_module
	.type init_module, @function
init_module:
	xorl %eax, %eax
	ret
	.size init_module, . - init_module

	.section .rodata
	.balign 8
int3_table:
	.quad 5b, 4b, 3b, 2b

	.data
	.balign 8
int3_fnptr:
	.quad int3_twice_plus_one

	.section .note.GNU-stack, "", @progbits
