/*
 * Directory entries (fs/dcache.c). ramfs keeps one reference on every instantiated dentry, so
 * the tree stays in memory; dput frees only a dentry that never got an inode (a failed create).
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>

struct dentry *root_dentry;

/* A new, unhashed dentry named name[0..len) under parent, with one reference. */
struct dentry *d_alloc(struct dentry *parent, const char *name, unsigned int len)
{
	struct dentry *dentry;

	if (len >= DNAME_INLINE_LEN)
		return NULL;
	dentry = kzalloc(sizeof(*dentry), GFP_KERNEL);
	if (!dentry)
		return NULL;
	memcpy(dentry->d_iname, name, len);
	dentry->d_iname[len] = '\0';
	dentry->d_count = 1;
	dentry->d_parent = parent ? parent : dentry;
	return dentry;
}

/* Attach an inode and make the dentry visible in its parent's children. */
void d_instantiate(struct dentry *dentry, struct inode *inode)
{
	struct dentry *parent = dentry->d_parent;

	dentry->d_inode = inode;
	if (parent != dentry) {
		dentry->d_sibling = parent->d_subdirs;
		parent->d_subdirs = dentry;
	}
}

struct dentry *dget(struct dentry *dentry)
{
	if (dentry)
		dentry->d_count++;
	return dentry;
}

/* Drop a reference; a dentry without an inode goes away with its last one. */
void dput(struct dentry *dentry)
{
	if (!dentry)
		return;
	if (--dentry->d_count == 0 && !dentry->d_inode)
		kfree(dentry);
}

/* Find the child of parent called name[0..len); no reference is taken. */
struct dentry *d_lookup(const struct dentry *parent, const char *name, unsigned int len)
{
	struct dentry *d;

	for (d = parent->d_subdirs; d; d = d->d_sibling)
		if (!strncmp(d->d_iname, name, len) && d->d_iname[len] == '\0')
			return d;
	return NULL;
}
