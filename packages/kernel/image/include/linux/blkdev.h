/* Block devices, bios and direct I/O (include/linux/blkdev.h, blk_types.h, buffer_head.h). */
#ifndef _LINUX_BLKDEV_H
#define _LINUX_BLKDEV_H

#include <linux/fs.h>
#include <linux/types.h>

#define SECTOR_SHIFT 9
#define REQ_OP_READ 0
#define REQ_OP_WRITE 1

struct bio;
struct gendisk;

struct block_device_operations {
	void (*submit_bio)(struct bio *bio);
};

struct gendisk {
	char disk_name[32];
	int major;
	int first_minor;
	sector_t capacity; /* in 512-byte sectors */
	const struct block_device_operations *fops;
	void *private_data;
};

struct block_device {
	dev_t bd_dev;
	struct gendisk *bd_disk;
	struct inode *bd_inode;
};

struct bvec_iter {
	sector_t bi_sector;
	unsigned int bi_size;
};

/* One contiguous transfer between a kernel buffer and the disk. */
struct bio {
	struct block_device *bi_bdev;
	unsigned int bi_opf;
	int bi_status;
	struct bvec_iter bi_iter;
	void *bi_buf;
	void (*bi_end_io)(struct bio *);
	void *bi_private;
};

struct buffer_head {
	unsigned long b_state;
	size_t b_size;
	sector_t b_blocknr;
	struct block_device *b_bdev;
};

#define BH_Mapped 1

typedef int(get_block_t)(struct inode *inode, sector_t iblock, struct buffer_head *bh_result, int create);
typedef int(dio_iodone_t)(struct kiocb *iocb, loff_t offset, ssize_t size, void *private);

struct bio *bio_alloc(struct block_device *bdev, unsigned int opf, size_t size);
void bio_put(struct bio *bio);
void bio_endio(struct bio *bio);
void submit_bio(struct bio *bio);
int submit_bio_wait(struct bio *bio);

ssize_t __blockdev_direct_IO(struct kiocb *iocb, struct inode *inode, struct block_device *bdev,
			     struct iov_iter *iter, get_block_t get_block, dio_iodone_t end_io, int flags);

struct dentry *add_disk(struct gendisk *disk);
extern const struct file_operations def_blk_fops;
int brd_init(void);

#endif
