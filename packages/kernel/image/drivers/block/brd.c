/*
 * The RAM disk /dev/ram0 (drivers/block/brd.c): 256 KiB in 4 KiB pages allocated on first
 * write; unwritten sectors read as zeros. Also publishes /sys/block/ram0/name.
 */
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#define RAMDISK_MAJOR 1
#define BRD_SIZE_KB 256
#define BRD_PAGE_SIZE 4096
#define BRD_PAGES (BRD_SIZE_KB * 1024 / BRD_PAGE_SIZE)
#define PAGE_SECTORS_SHIFT 3

struct brd_device {
	struct gendisk *brd_disk;
	struct device dev;
	char *brd_pages[BRD_PAGES];
};

static struct brd_device brd0;

static char *brd_lookup_page(struct brd_device *brd, sector_t sector, bool create)
{
	unsigned long idx = sector >> PAGE_SECTORS_SHIFT;

	if (!brd->brd_pages[idx] && create)
		brd->brd_pages[idx] = kzalloc(BRD_PAGE_SIZE, GFP_KERNEL);
	return brd->brd_pages[idx];
}

/* Move `len` bytes between buf and the disk at `sector`, page by page. */
static int brd_do_bvec(struct brd_device *brd, char *buf, unsigned int len, unsigned int op, sector_t sector)
{
	while (len) {
		unsigned int offset = (sector & ((1 << PAGE_SECTORS_SHIFT) - 1)) << SECTOR_SHIFT;
		unsigned int chunk = min(len, BRD_PAGE_SIZE - offset);
		char *page = brd_lookup_page(brd, sector, op == REQ_OP_WRITE);

		if (op == REQ_OP_WRITE) {
			if (!page)
				return -ENOMEM;
			memcpy(page + offset, buf, chunk);
		} else if (page) {
			memcpy(buf, page + offset, chunk);
		} else {
			memset(buf, 0, chunk);
		}
		buf += chunk;
		len -= chunk;
		sector += chunk >> SECTOR_SHIFT;
	}
	return 0;
}

static void brd_submit_bio(struct bio *bio)
{
	struct brd_device *brd = bio->bi_bdev->bd_disk->private_data;

	bio->bi_status = brd_do_bvec(brd, bio->bi_buf, bio->bi_iter.bi_size, bio->bi_opf,
				     bio->bi_iter.bi_sector) ? -EIO : 0;
	bio_endio(bio);
}

static const struct block_device_operations brd_fops = {
	.submit_bio = brd_submit_bio,
};

static ssize_t name_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct brd_device *brd = dev->driver_data;

	return sysfs_emit(buf, "%s\n", brd->brd_disk->disk_name);
}

static const struct device_attribute dev_attr_name = { .name = "name", .show = name_show };

int brd_init(void)
{
	struct gendisk *disk = kzalloc(sizeof(*disk), GFP_KERNEL);

	if (!disk)
		return -ENOMEM;
	strscpy(disk->disk_name, "ram0", sizeof(disk->disk_name));
	disk->major = RAMDISK_MAJOR;
	disk->first_minor = 0;
	disk->capacity = BRD_SIZE_KB * 2;
	disk->fops = &brd_fops;
	disk->private_data = &brd0;
	brd0.brd_disk = disk;
	brd0.dev.init_name = disk->disk_name;
	brd0.dev.driver_data = &brd0;
	if (!add_disk(disk))
		return -ENOMEM;
	return device_create_file(&brd0.dev, &dev_attr_name, "/sys/block/ram0");
}
