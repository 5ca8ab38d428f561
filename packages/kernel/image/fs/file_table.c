/* struct file lifetime (fs/file_table.c). */
#include <linux/fs.h>
#include <linux/slab.h>

struct file *alloc_empty_file(int flags)
{
	struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return ERR_PTR(-ENFILE);
	f->f_count = 1;
	f->f_flags = flags;
	return f;
}

struct file *get_file(struct file *f)
{
	f->f_count++;
	return f;
}

/* The last reference is gone: release the driver state, then the dentry. */
static void __fput(struct file *file)
{
	if (file->f_op && file->f_op->release)
		file->f_op->release(file->f_inode, file);
	dput(file->f_path.dentry);
	kfree(file);
}

void fput(struct file *file)
{
	if (--file->f_count == 0)
		__fput(file);
}
