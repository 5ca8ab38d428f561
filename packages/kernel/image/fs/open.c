/* open(2), openat(2) and friends (fs/open.c). */
#include <linux/fdtable.h>
#include <linux/kernel.h>
#include <linux/syscalls.h>

/* Bind an opened dentry to a file: pick the inode's file operations and run their open. */
static int do_dentry_open(struct file *f, struct inode *inode)
{
	unsigned int acc = f->f_flags & O_ACCMODE;

	f->f_inode = inode;
	f->f_mode = (acc == O_RDONLY || acc == O_RDWR ? FMODE_READ : 0) |
		    (acc == O_WRONLY || acc == O_RDWR ? FMODE_WRITE : 0);
	f->f_op = inode->i_fop;
	if (f->f_op && f->f_op->open)
		return f->f_op->open(inode, f);
	return 0;
}

int vfs_open(const struct path *path, struct file *file)
{
	return do_dentry_open(file, path->dentry->d_inode);
}

/* Open a kernel-space path (boot, console setup). */
struct file *filp_open(const char *filename, int flags, umode_t mode)
{
	struct open_how how = { .flags = flags, .mode = mode };
	struct filename *name = getname_kernel(filename);
	struct file *file;

	if (IS_ERR(name))
		return (struct file *)name;
	file = do_filp_open(AT_FDCWD, name, &how);
	putname(name);
	return file;
}

int filp_close(struct file *filp)
{
	fput(filp);
	return 0;
}

noinline long do_sys_openat2(int dfd, const char __user *filename, struct open_how *how)
{
	struct filename *tmp = getname(filename);
	int fd;

	if (IS_ERR(tmp))
		return PTR_ERR(tmp);
	fd = get_unused_fd_flags(how->flags);
	if (fd >= 0) {
		struct file *f = do_filp_open(dfd, tmp, how);

		if (IS_ERR(f)) {
			put_unused_fd(fd);
			fd = PTR_ERR(f);
		} else {
			fd_install(fd, f);
		}
	}
	putname(tmp);
	return fd;
}

noinline long do_sys_open(int dfd, const char __user *filename, int flags, umode_t mode)
{
	struct open_how how = {
		.flags = flags & ~O_CLOEXEC,
		.mode = (flags & O_CREAT) ? (mode & 07777) : 0,
	};

	return do_sys_openat2(dfd, filename, &how);
}

long sys_open(const char __user *filename, int flags, umode_t mode)
{
	return do_sys_open(AT_FDCWD, filename, flags, mode);
}

long sys_openat(int dfd, const char __user *filename, int flags, umode_t mode)
{
	return do_sys_open(dfd, filename, flags, mode);
}
