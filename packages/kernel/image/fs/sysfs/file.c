/*
 * A tiny sysfs: each attribute is a ramfs file whose read calls the attribute's show() through
 * its function pointer (fs/sysfs/file.c). Files live under /sys and are read-only.
 */
#include <asm/uaccess.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/slab.h>

struct sysfs_binding {
	struct device *dev;
	const struct device_attribute *attr;
};

/* Like scnprintf into a PAGE_SIZE sysfs buffer. */
int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list args;
	int len;

	va_start(args, fmt);
	len = vsnprintf(buf, PAGE_SIZE, fmt, args);
	va_end(args);
	return len < PAGE_SIZE ? len : PAGE_SIZE - 1;
}

static ssize_t sysfs_kf_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct sysfs_binding *b = file->f_inode->i_private;
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	ssize_t len;

	if (!buf)
		return -ENOMEM;
	len = b->attr->show(b->dev, (struct device_attribute *)b->attr, buf);
	if (len >= 0) {
		len = *ppos < len ? min((size_t)(len - *ppos), count) : 0;
		if (len && copy_to_user(ubuf, buf + *ppos, len))
			len = -EFAULT;
		else
			*ppos += len;
	}
	kfree(buf);
	return len;
}

static const struct file_operations sysfs_file_operations = {
	.read = sysfs_kf_read,
};

/* mkdir -p for an absolute kernel path. */
static struct dentry *sysfs_mkdir_p(const char *path)
{
	struct dentry *d = root_dentry;
	char comp[DNAME_INLINE_LEN];

	while (d && *path) {
		unsigned int len = 0;

		while (*path == '/')
			path++;
		while (path[len] && path[len] != '/' && len + 1 < sizeof(comp)) {
			comp[len] = path[len];
			len++;
		}
		if (!len)
			break;
		comp[len] = '\0';
		d = ramfs_mkdir_kernel(d, comp);
		path += len;
	}
	return d;
}

/* Publish attr of dev as the file <dir>/<attr->name>. */
int device_create_file(struct device *dev, const struct device_attribute *attr, const char *dir)
{
	struct sysfs_binding *b = kmalloc(sizeof(*b), GFP_KERNEL);
	struct dentry *parent = sysfs_mkdir_p(dir);
	struct dentry *file;

	if (!b || !parent)
		return -ENOMEM;
	b->dev = dev;
	b->attr = attr;
	file = ramfs_create_file(parent, attr->name, S_IFREG | 0444, &sysfs_file_operations, NULL, 0);
	if (!file) {
		kfree(b);
		return -ENOMEM;
	}
	file->d_inode->i_private = b;
	return 0;
}
