/* An absolute symbol no 32-bit sign-extended field can hold (it lies in the user half). */
	.globl far_away
	.set far_away, 0x100000000000
	.section .note.GNU-stack, "", @progbits
