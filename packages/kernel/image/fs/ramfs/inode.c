/*
 * ramfs: the root filesystem. Regular files keep their bytes in one kmalloc'd buffer that
 * grows by doubling; directories are the dentry tree itself (fs/ramfs/inode.c).
 */
#include <asm/uaccess.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#define RAMFS_MAX_FILE (1UL << 20)

static const struct inode_operations ramfs_dir_inode_operations;

static struct inode *ramfs_get_inode(umode_t mode)
{
	struct inode *inode = new_inode(mode);

	if (inode && S_ISDIR(mode))
		inode->i_op = &ramfs_dir_inode_operations;
	else if (inode && S_ISREG(mode))
		inode->i_fop = &ramfs_file_operations;
	return inode;
}

/* Instantiate dentry with a new inode, and pin it: ramfs dentries live as long as the fs. */
static int ramfs_mknod(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct inode *inode = ramfs_get_inode(mode);

	if (!inode)
		return -ENOSPC;
	d_instantiate(dentry, inode);
	dget(dentry);
	return 0;
}

static int ramfs_create(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	return ramfs_mknod(dir, dentry, mode | S_IFREG);
}

static int ramfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	int error = ramfs_mknod(dir, dentry, mode | S_IFDIR);

	if (!error)
		dir->i_nlink++;
	return error;
}

static int ramfs_symlink(struct inode *dir, struct dentry *dentry, const char *symname)
{
	size_t len = strlen(symname);
	char *target = kmalloc(len + 1, GFP_KERNEL);
	struct inode *inode;

	if (!target)
		return -ENOMEM;
	inode = ramfs_get_inode(S_IFLNK | 0777);
	if (!inode) {
		kfree(target);
		return -ENOSPC;
	}
	memcpy(target, symname, len + 1);
	inode->i_private = target;
	inode->i_size = len;
	d_instantiate(dentry, inode);
	dget(dentry);
	return 0;
}

static const struct inode_operations ramfs_dir_inode_operations = {
	.create = ramfs_create,
	.mkdir = ramfs_mkdir,
	.symlink = ramfs_symlink,
};

/* Make room for `size` bytes of file data. */
static int ramfs_reserve(struct inode *inode, size_t size)
{
	size_t cap = inode->i_capacity ? inode->i_capacity : 64;
	char *data;

	if (size <= inode->i_capacity)
		return 0;
	if (size > RAMFS_MAX_FILE)
		return -EFBIG;
	while (cap < size)
		cap *= 2;
	data = kmalloc(cap, GFP_KERNEL);
	if (!data)
		return -ENOSPC;
	memcpy(data, inode->i_private, inode->i_size);
	kfree(inode->i_private);
	inode->i_private = data;
	inode->i_capacity = cap;
	return 0;
}

static ssize_t ramfs_read(struct file *file, char __user *buf, size_t count, loff_t *ppos)
{
	struct inode *inode = file->f_inode;
	loff_t pos = *ppos;
	size_t n;

	if (pos >= inode->i_size)
		return 0;
	n = min((size_t)(inode->i_size - pos), count);
	if (copy_to_user(buf, (char *)inode->i_private + pos, n))
		return -EFAULT;
	*ppos = pos + n;
	return n;
}

static ssize_t ramfs_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct inode *inode = file->f_inode;
	loff_t pos = (file->f_flags & O_APPEND) ? inode->i_size : *ppos;
	int err = ramfs_reserve(inode, pos + count);

	if (err)
		return err;
	if (pos > inode->i_size)
		memset((char *)inode->i_private + inode->i_size, 0, pos - inode->i_size);
	if (copy_from_user((char *)inode->i_private + pos, buf, count))
		return -EFAULT;
	if (pos + (loff_t)count > inode->i_size)
		inode->i_size = pos + count;
	*ppos = pos + count;
	return count;
}

const struct file_operations ramfs_file_operations = {
	.read = ramfs_read,
	.write = ramfs_write,
};

/*
 * Boot-time helper: create parent/name with the given mode and file operations, its content
 * (for regular files) a copy of data[0..len). Returns the new dentry or NULL.
 */
struct dentry *ramfs_create_file(struct dentry *parent, const char *name, umode_t mode,
				 const struct file_operations *fops, const void *data, size_t len)
{
	struct dentry *dentry = d_alloc(parent, name, strlen(name));
	struct inode *inode;

	if (!dentry || ramfs_mknod(parent->d_inode, dentry, mode)) {
		dput(dentry);
		return NULL;
	}
	inode = dentry->d_inode;
	inode->i_fop = fops;
	if (len && !ramfs_reserve(inode, len)) {
		memcpy(inode->i_private, data, len);
		inode->i_size = len;
	}
	dput(dentry);
	return dentry;
}

/* Boot-time helper: parent/name as a directory, created if missing. */
struct dentry *ramfs_mkdir_kernel(struct dentry *parent, const char *name)
{
	struct dentry *dentry = d_lookup(parent, name, strlen(name));

	if (dentry)
		return dentry;
	dentry = d_alloc(parent, name, strlen(name));
	if (!dentry || ramfs_mkdir(parent->d_inode, dentry, 0755)) {
		dput(dentry);
		return NULL;
	}
	dput(dentry);
	return dentry;
}

/* Mount the root: an empty directory. */
int ramfs_init(void)
{
	struct inode *inode = ramfs_get_inode(S_IFDIR | 0755);

	root_dentry = d_alloc(NULL, "/", 1);
	if (!inode || !root_dentry)
		return -ENOMEM;
	d_instantiate(root_dentry, inode);
	return 0;
}
