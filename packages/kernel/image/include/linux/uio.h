/* User I/O vectors and the iterator over them (include/linux/uio.h, lib/iov_iter.c). */
#ifndef _LINUX_UIO_H
#define _LINUX_UIO_H

#include <linux/compiler.h>
#include <linux/types.h>

#define READ 0
#define WRITE 1
#define UIO_FASTIOV 8

struct iovec {
	void __user *iov_base;
	size_t iov_len;
};

/* Iterates over user iovecs (ITER_IOVEC only); `iov` is a kernel copy of the user array. */
struct iov_iter {
	int data_source; /* WRITE: data flows from user memory (a write); READ: to it */
	size_t iov_offset;
	size_t count;
	const struct iovec *iov;
	unsigned long nr_segs;
};

struct file;

/* One I/O request on an open file (include/linux/fs.h). */
struct kiocb {
	struct file *ki_filp;
	loff_t ki_pos;
	int ki_flags;
};

#define IOCB_DIRECT 0x20000

void iov_iter_init(struct iov_iter *i, int direction, const struct iovec *iov, unsigned long nr_segs,
		   size_t count);
size_t copy_from_iter(void *addr, size_t bytes, struct iov_iter *i);
size_t copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i);

static inline size_t iov_iter_count(const struct iov_iter *i)
{
	return i->count;
}

static inline int iov_iter_rw(const struct iov_iter *i)
{
	return i->data_source;
}

#endif
