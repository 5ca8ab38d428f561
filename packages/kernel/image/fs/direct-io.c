/*
 * Direct I/O (fs/direct-io.c): move data between the user buffer and the disk, bypassing any
 * cache. Data passes through one kernel bounce page per bio, since user pages are not pinned.
 */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#define DIO_PAGE_SIZE 4096

/* One bio for `len` bytes at `sector`, waited for. */
static int dio_bio_submit(struct block_device *bdev, int rw, sector_t sector, void *buf, size_t len)
{
	struct bio *bio = bio_alloc(bdev, rw == WRITE ? REQ_OP_WRITE : REQ_OP_READ, len);
	int ret;

	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = sector;
	bio->bi_buf = buf;
	ret = submit_bio_wait(bio);
	bio_put(bio);
	return ret;
}

/*
 * Transfer iov_iter_count(iter) bytes at iocb->ki_pos. Step 1: check block alignment and clamp
 * to the device size. Step 2: map each extent with get_block. Step 3: for each page of it,
 * copy in from the user (write), submit a bio and wait, copy out to the user (read).
 * Returns the bytes moved (and advances ki_pos), or a negative errno if none moved.
 */
ssize_t __blockdev_direct_IO(struct kiocb *iocb, struct inode *inode, struct block_device *bdev,
			     struct iov_iter *iter, get_block_t get_block, dio_iodone_t end_io, int flags)
{
	unsigned int blkbits = inode->i_blkbits;
	loff_t offset = iocb->ki_pos;
	size_t count = iov_iter_count(iter), done = 0;
	int rw = iov_iter_rw(iter);
	ssize_t ret = 0;
	char *page;

	if ((offset | count) & ((1UL << blkbits) - 1))
		return -EINVAL;
	if (offset >= inode->i_size)
		return rw == WRITE && count ? -ENOSPC : 0;
	count = min(count, (size_t)(inode->i_size - offset));
	page = kmalloc(DIO_PAGE_SIZE, GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	while (done < count) {
		struct buffer_head map = { .b_size = count - done };
		size_t len;

		ret = get_block(inode, (offset + done) >> blkbits, &map, rw == WRITE);
		if (ret)
			break;
		len = min(min(map.b_size, count - done), (size_t)DIO_PAGE_SIZE);
		if (rw == WRITE && copy_from_iter(page, len, iter) != len) {
			ret = -EFAULT;
			break;
		}
		ret = dio_bio_submit(map.b_bdev ? map.b_bdev : bdev, rw,
				     map.b_blocknr << (blkbits - SECTOR_SHIFT), page, len);
		if (ret)
			break;
		if (rw == READ && copy_to_iter(page, len, iter) != len) {
			ret = -EFAULT;
			break;
		}
		done += len;
	}
	kfree(page);
	if (!done)
		return ret;
	iocb->ki_pos += done;
	if (end_io)
		end_io(iocb, offset, done, NULL);
	return done;
}
