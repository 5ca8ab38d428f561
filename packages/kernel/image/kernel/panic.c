/* panic: log the reason and stop the machine through host_panic (kernel/panic.c). */
#include <asm/hostcall.h>
#include <linux/kernel.h>

void panic(const char *fmt, ...)
{
	static char buf[256];
	va_list args;
	size_t len;

	va_start(args, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", buf);
	host_panic(buf, len);
}
