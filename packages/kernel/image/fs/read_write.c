/* read(2) and write(2) through file_operations (fs/read_write.c). */
#include <asm/uaccess.h>
#include <linux/fdtable.h>
#include <linux/kernel.h>
#include <linux/syscalls.h>

/* Adapt a plain read to a driver that only has read_iter. */
static ssize_t new_sync_read(struct file *filp, char __user *buf, size_t len, loff_t *ppos)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct kiocb kiocb = { .ki_filp = filp, .ki_pos = *ppos };
	struct iov_iter iter;
	ssize_t ret;

	if (filp->f_flags & O_DIRECT)
		kiocb.ki_flags |= IOCB_DIRECT;
	iov_iter_init(&iter, READ, &iov, 1, len);
	ret = filp->f_op->read_iter(&kiocb, &iter);
	if (ret > 0)
		*ppos = kiocb.ki_pos;
	return ret;
}

static ssize_t new_sync_write(struct file *filp, const char __user *buf, size_t len, loff_t *ppos)
{
	struct iovec iov = { .iov_base = (void __user *)buf, .iov_len = len };
	struct kiocb kiocb = { .ki_filp = filp, .ki_pos = *ppos };
	struct iov_iter iter;
	ssize_t ret;

	if (filp->f_flags & O_DIRECT)
		kiocb.ki_flags |= IOCB_DIRECT;
	iov_iter_init(&iter, WRITE, &iov, 1, len);
	ret = filp->f_op->write_iter(&kiocb, &iter);
	if (ret > 0)
		*ppos = kiocb.ki_pos;
	return ret;
}

noinline ssize_t vfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos)
{
	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (!access_ok(buf, count))
		return -EFAULT;
	if (file->f_op->read)
		return file->f_op->read(file, buf, count, pos);
	if (file->f_op->read_iter)
		return new_sync_read(file, buf, count, pos);
	return -EINVAL;
}

noinline ssize_t vfs_write(struct file *file, const char __user *buf, size_t count, loff_t *pos)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!access_ok(buf, count))
		return -EFAULT;
	if (file->f_op->write)
		return file->f_op->write(file, buf, count, pos);
	if (file->f_op->write_iter)
		return new_sync_write(file, buf, count, pos);
	return -EINVAL;
}

noinline ssize_t ksys_read(unsigned int fd, char __user *buf, size_t count)
{
	struct file *f = fget(fd);
	ssize_t ret;

	if (!f)
		return -EBADF;
	ret = vfs_read(f, buf, count, &f->f_pos);
	fput(f);
	return ret;
}

noinline ssize_t ksys_write(unsigned int fd, const char __user *buf, size_t count)
{
	struct file *f = fget(fd);
	ssize_t ret;

	if (!f)
		return -EBADF;
	ret = vfs_write(f, buf, count, &f->f_pos);
	fput(f);
	return ret;
}

long sys_read(unsigned int fd, char __user *buf, size_t count)
{
	return ksys_read(fd, buf, count);
}

long sys_write(unsigned int fd, const char __user *buf, size_t count)
{
	return ksys_write(fd, buf, count);
}
