/* copy_from_user, copy_to_user, strncpy_from_user: access_ok, then the fault-safe assembly. */
#include <asm/uaccess.h>
#include <linux/kernel.h>

/* Copy n bytes from user space; returns the bytes NOT copied, zero-filling them in `to`. */
unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	unsigned long res = n;

	if (likely(access_ok(from, n)))
		res = copy_user_generic(to, (const void __force *)from, n);
	if (unlikely(res))
		memset((char *)to + (n - res), 0, res);
	return res;
}

/* Copy n bytes to user space; returns the bytes NOT copied. */
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	if (unlikely(!access_ok(to, n)))
		return n;
	return copy_user_generic((void __force *)to, from, n);
}

/* Copy a NUL-terminated user string: its length, `count` if it did not fit, or -EFAULT. */
long strncpy_from_user(char *dst, const char __user *src, long count)
{
	unsigned long src_addr = (unsigned long)src;
	unsigned long max;

	if (count <= 0)
		return 0;
	if (src_addr >= TASK_SIZE_MAX)
		return -EFAULT;
	max = TASK_SIZE_MAX - src_addr;
	if ((unsigned long)count > max)
		count = max;
	return __strncpy_from_user(dst, src, count);
}
