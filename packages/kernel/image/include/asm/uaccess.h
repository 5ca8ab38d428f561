/* User-space access with exception-table fixups (arch/x86/include/asm/uaccess.h). */
#ifndef _ASM_X86_UACCESS_H
#define _ASM_X86_UACCESS_H

#include <linux/compiler.h>
#include <linux/types.h>

/* The lowest address a user pointer may not reach: the top of the lower canonical half, less a guard page. */
#define TASK_SIZE_MAX 0x00007ffffffff000UL

/* True when [addr, addr + size) lies entirely in the user half. */
static __always_inline bool access_ok(const void __user *addr, unsigned long size)
{
	unsigned long a = (unsigned long)addr;

	return size <= TASK_SIZE_MAX && a <= TASK_SIZE_MAX - size;
}

/* One exception-table entry: two absolute addresses, as ABI.md describes. */
struct exception_table_entry {
	unsigned long insn;
	unsigned long fixup;
};

extern const struct exception_table_entry __start___ex_table[];
extern const struct exception_table_entry __stop___ex_table[];

/* Assembly in arch/x86/lib/copy_user_64.S: return the number of bytes NOT copied / -EFAULT. */
unsigned long copy_user_generic(void *to, const void *from, unsigned long len);
long __strncpy_from_user(char *dst, const char __user *src, long count);

unsigned long copy_from_user(void *to, const void __user *from, unsigned long n);
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);
long strncpy_from_user(char *dst, const char __user *src, long count);
long strnlen_user(const char __user *str, long n);

#define put_user(x, ptr)                                                         \
	({                                                                       \
		__typeof__(*(ptr)) __pu_val = (x);                               \
		copy_to_user((ptr), &__pu_val, sizeof(__pu_val)) ? -EFAULT : 0;  \
	})

#define get_user(x, ptr)                                                         \
	({                                                                       \
		__typeof__(*(ptr)) __gu_val;                                     \
		int __gu_err = copy_from_user(&__gu_val, (ptr), sizeof(__gu_val)) ? -EFAULT : 0; \
		(x) = __gu_val;                                                  \
		__gu_err;                                                        \
	})

#endif
