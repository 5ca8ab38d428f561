/* Inode allocation (fs/inode.c). */
#include <linux/fs.h>
#include <linux/slab.h>

static unsigned long last_ino;

/* A new inode of the given mode, numbered from 1. */
struct inode *new_inode(umode_t mode)
{
	struct inode *inode = kzalloc(sizeof(*inode), GFP_KERNEL);

	if (!inode)
		return NULL;
	inode->i_mode = mode;
	inode->i_ino = ++last_ino;
	inode->i_nlink = 1;
	return inode;
}
