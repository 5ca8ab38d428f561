/* /dev/console: writes go to the host console through host_console_write; reads see EOF. */
#include <asm/hostcall.h>
#include <asm/uaccess.h>
#include <linux/fs.h>
#include <linux/kernel.h>

#define CON_BUF_SIZE 256

/* Hand kernel text to the console driver. */
static long con_write(const char *buf, size_t count)
{
	return host_console_write(buf, count);
}

static ssize_t tty_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	char kbuf[CON_BUF_SIZE];
	size_t done = 0;

	while (done < count) {
		size_t chunk = min(count - done, sizeof(kbuf));

		if (copy_from_user(kbuf, buf + done, chunk))
			return done ? (ssize_t)done : -EFAULT;
		con_write(kbuf, chunk);
		done += chunk;
	}
	return done;
}

static ssize_t tty_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	return 0;
}

const struct file_operations console_fops = {
	.read = tty_read,
	.write = tty_write,
};
