/* Copy between kernel buffers and an iterator over user iovecs (lib/iov_iter.c). */
#include <asm/uaccess.h>
#include <linux/kernel.h>
#include <linux/uio.h>

void iov_iter_init(struct iov_iter *i, int direction, const struct iovec *iov, unsigned long nr_segs,
		   size_t count)
{
	i->data_source = direction;
	i->iov = iov;
	i->nr_segs = nr_segs;
	i->iov_offset = 0;
	i->count = count;
}

/*
 * Copy up to `bytes` between kbuf and the iterator's user chunks, stopping short at the first
 * chunk that faults. Returns the bytes done and advances the iterator by that much.
 */
static size_t iterate_iovec(struct iov_iter *i, char *kbuf, size_t bytes, bool to_user)
{
	size_t done = 0;

	if (bytes > i->count)
		bytes = i->count;
	while (done < bytes && i->nr_segs) {
		char __user *ubase = (char __user *)i->iov->iov_base + i->iov_offset;
		size_t chunk = min(bytes - done, i->iov->iov_len - i->iov_offset);
		size_t left = to_user ? copy_to_user(ubase, kbuf + done, chunk)
				      : copy_from_user(kbuf + done, ubase, chunk);

		done += chunk - left;
		i->iov_offset += chunk - left;
		i->count -= chunk - left;
		if (left)
			break;
		if (i->iov_offset == i->iov->iov_len) {
			i->iov++;
			i->nr_segs--;
			i->iov_offset = 0;
		}
	}
	return done;
}

size_t copy_from_iter(void *addr, size_t bytes, struct iov_iter *i)
{
	return iterate_iovec(i, addr, bytes, false);
}

size_t copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	return iterate_iovec(i, (char *)addr, bytes, true);
}
