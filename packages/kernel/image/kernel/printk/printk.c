/*
 * printk: format in C, then hand one record to the host's log buffer through host_log_store.
 * The record carries the KERN_<level> as a number and no trailing newline (kernel/printk/printk.c).
 */
#include <asm/hostcall.h>
#include <linux/kernel.h>

#define LOG_LINE_MAX 1024
#define MESSAGE_LOGLEVEL_DEFAULT 4

/* The level encoded by a leading KERN_SOH + digit, or -1. */
static int printk_get_level(const char *buffer)
{
	if (buffer[0] == KERN_SOH[0] && buffer[1] >= '0' && buffer[1] <= '7')
		return buffer[1] - '0';
	return -1;
}

int vprintk(const char *fmt, va_list args)
{
	static char textbuf[LOG_LINE_MAX];
	char *text = textbuf;
	int level = printk_get_level(fmt);
	size_t len;

	if (level >= 0)
		fmt += 2;
	else
		level = MESSAGE_LOGLEVEL_DEFAULT;
	/* textbuf is shared: callers hold the big kernel lock, or run at boot on one CPU. */
	len = vsnprintf(text, sizeof(textbuf), fmt, args);
	if (len >= sizeof(textbuf))
		len = sizeof(textbuf) - 1;
	if (len && text[len - 1] == '\n')
		len--;
	host_log_store(level, text, len);
	return len;
}

int printk(const char *fmt, ...)
{
	va_list args;
	int r;

	va_start(args, fmt);
	r = vprintk(fmt, args);
	va_end(args);
	return r;
}
