/* File operations of block device nodes (block/fops.c): O_DIRECT I/O only. */
#include <linux/blkdev.h>
#include <linux/kernel.h>

static int blkdev_get_block(struct inode *inode, sector_t iblock, struct buffer_head *bh, int create)
{
	bh->b_bdev = inode->i_bdev;
	bh->b_blocknr = iblock;
	bh->b_state |= 1UL << BH_Mapped;
	return 0;
}

static ssize_t blkdev_direct_IO(struct kiocb *iocb, struct iov_iter *iter)
{
	struct inode *inode = iocb->ki_filp->f_inode;

	return __blockdev_direct_IO(iocb, inode, inode->i_bdev, iter, blkdev_get_block, NULL, 0);
}

static ssize_t blkdev_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	if (!(iocb->ki_flags & IOCB_DIRECT))
		return -EINVAL; /* no page cache: only O_DIRECT */
	return blkdev_direct_IO(iocb, to);
}

static ssize_t blkdev_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	if (!(iocb->ki_flags & IOCB_DIRECT))
		return -EINVAL;
	return blkdev_direct_IO(iocb, from);
}

const struct file_operations def_blk_fops = {
	.read_iter = blkdev_read_iter,
	.write_iter = blkdev_write_iter,
};
