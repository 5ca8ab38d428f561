/* Registering a disk: its block_device and its /dev node (block/genhd.c). */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/slab.h>

/* Create /dev/<disk_name> for disk; returns its dentry or NULL. */
struct dentry *add_disk(struct gendisk *disk)
{
	struct block_device *bdev = kzalloc(sizeof(*bdev), GFP_KERNEL);
	struct dentry *dev = kern_path("/dev");
	struct dentry *node;

	if (!bdev || !dev)
		return NULL;
	dput(dev);
	node = ramfs_create_file(dev, disk->disk_name, S_IFBLK | 0660, &def_blk_fops, NULL, 0);
	if (!node)
		return NULL;
	bdev->bd_dev = MKDEV(disk->major, disk->first_minor);
	bdev->bd_disk = disk;
	bdev->bd_inode = node->d_inode;
	node->d_inode->i_rdev = bdev->bd_dev;
	node->d_inode->i_bdev = bdev;
	node->d_inode->i_blkbits = SECTOR_SHIFT;
	node->d_inode->i_size = (loff_t)disk->capacity << SECTOR_SHIFT;
	return node;
}
