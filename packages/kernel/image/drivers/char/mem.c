/* /dev/null and /dev/zero (drivers/char/mem.c). */
#include <asm/uaccess.h>
#include <linux/fs.h>
#include <linux/kernel.h>

static const char zero_page[256];

static ssize_t read_null(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	return 0;
}

static ssize_t write_null(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	return count;
}

static ssize_t read_zero(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	size_t done = 0;

	while (done < count) {
		size_t chunk = min(count - done, sizeof(zero_page));

		if (copy_to_user(buf + done, zero_page, chunk))
			return done ? (ssize_t)done : -EFAULT;
		done += chunk;
	}
	return done;
}

static const struct file_operations null_fops = {
	.read = read_null,
	.write = write_null,
};

static const struct file_operations zero_fops = {
	.read = read_zero,
	.write = write_null,
};

/* Create /dev with null, zero and console. */
int chr_dev_init(void)
{
	struct dentry *dev = ramfs_mkdir_kernel(root_dentry, "dev");
	struct dentry *null, *zero, *console;

	if (!dev)
		return -ENOMEM;
	null = ramfs_create_file(dev, "null", S_IFCHR | 0666, &null_fops, NULL, 0);
	zero = ramfs_create_file(dev, "zero", S_IFCHR | 0666, &zero_fops, NULL, 0);
	console = ramfs_create_file(dev, "console", S_IFCHR | 0600, &console_fops, NULL, 0);
	if (!null || !zero || !console)
		return -ENOMEM;
	null->d_inode->i_rdev = MKDEV(1, 3);
	zero->d_inode->i_rdev = MKDEV(1, 5);
	console->d_inode->i_rdev = MKDEV(5, 1);
	return 0;
}
