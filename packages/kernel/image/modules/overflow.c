/*
 * overflow: refers to far_away with a sign-extended 32-bit immediate (R_X86_64_32S, as every global
 * address is under -mcmodel=kernel). overflow_far.S defines far_away as an absolute symbol outside the
 * top 2 GiB, so the relocation cannot be applied: the loader must refuse the module, as Linux's
 * apply_relocate_add() does with "overflow in relocation type".
 */
#include <linux/kernel.h>
#include "module.h"

extern char far_away[];

int init_module(void)
{
	unsigned long addr;

	asm volatile("movq $far_away, %0" : "=r"(addr));
	return addr == 0 ? -EINVAL : 0;
}
