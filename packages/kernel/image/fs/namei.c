/*
 * Pathname lookup and the directory-changing operations (fs/namei.c). There is no current
 * directory: relative names start at the directory open on dfd, or at / for AT_FDCWD.
 */
#include <asm/uaccess.h>
#include <linux/fdtable.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/syscalls.h>

#define MAXSYMLINKS 8

struct nameidata {
	struct dentry *dentry; /* after link_path_walk: the parent of `last` */
	const char *last;
	unsigned int last_len;
	int depth;             /* symlinks followed so far */
};

static struct dentry *lookup_at(struct dentry *start, const char *name, struct nameidata *nd, bool follow);

struct filename *getname(const char __user *filename)
{
	struct filename *result = kmalloc(sizeof(*result), GFP_KERNEL);
	long len;

	if (!result)
		return ERR_PTR(-ENOMEM);
	len = strncpy_from_user(result->iname, filename, sizeof(result->iname));
	if (len < 0 || len == sizeof(result->iname) || len == 0) {
		kfree(result);
		return ERR_PTR(len < 0 ? len : len ? -ENAMETOOLONG : -ENOENT);
	}
	result->name = result->iname;
	result->uptr = filename;
	return result;
}

struct filename *getname_kernel(const char *filename)
{
	struct filename *result = kmalloc(sizeof(*result), GFP_KERNEL);

	if (!result)
		return ERR_PTR(-ENOMEM);
	if (strscpy(result->iname, filename, sizeof(result->iname)) + 1 >= sizeof(result->iname)) {
		kfree(result);
		return ERR_PTR(-ENAMETOOLONG);
	}
	result->name = result->iname;
	result->uptr = NULL;
	return result;
}

void putname(struct filename *name)
{
	if (!IS_ERR(name))
		kfree(name);
}

/* One step down from dir: ".", "..", or a child, following a symlink when asked. */
static struct dentry *walk_component(struct dentry *dir, const char *name, unsigned int len,
				     struct nameidata *nd, bool follow)
{
	struct dentry *child;

	if (len == 1 && name[0] == '.')
		return dir;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return dir->d_parent;
	child = d_lookup(dir, name, len);
	if (!child)
		return ERR_PTR(-ENOENT);
	if (follow && S_ISLNK(child->d_inode->i_mode)) {
		if (++nd->depth > MAXSYMLINKS)
			return ERR_PTR(-ELOOP);
		child = lookup_at(dir, child->d_inode->i_private, nd, true);
		if (!IS_ERR(child))
			dput(child); /* lookup_at took a reference; ramfs pins the tree */
	}
	return child;
}

/* Walk every component but the last; nd->dentry is then its parent directory. */
static int link_path_walk(struct dentry *start, const char *name, struct nameidata *nd)
{
	struct dentry *dir = *name == '/' ? root_dentry : start;

	for (;;) {
		unsigned int len = 0;
		const char *next;

		while (*name == '/')
			name++;
		while (name[len] && name[len] != '/')
			len++;
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		next = name + len;
		while (*next == '/')
			next++;
		if (!*next) {
			nd->dentry = dir;
			nd->last = name;
			nd->last_len = len;
			return 0;
		}
		dir = walk_component(dir, name, len, nd, true);
		if (IS_ERR(dir))
			return PTR_ERR(dir);
		if (!S_ISDIR(dir->d_inode->i_mode))
			return -ENOTDIR;
		name = next;
	}
}

/* The dentry `name` names, with a reference. */
static struct dentry *lookup_at(struct dentry *start, const char *name, struct nameidata *nd, bool follow)
{
	struct dentry *d;
	int err = link_path_walk(start, name, nd);

	if (err)
		return ERR_PTR(err);
	d = nd->last_len ? walk_component(nd->dentry, nd->last, nd->last_len, nd, follow) : nd->dentry;
	return IS_ERR(d) ? d : dget(d);
}

/* Where a relative name starts: the directory open on dfd, or the root. */
static struct dentry *path_start(int dfd, const char *name)
{
	struct file *f;
	struct dentry *d;

	if (*name == '/' || dfd == AT_FDCWD)
		return root_dentry;
	f = fget(dfd);
	if (!f)
		return ERR_PTR(-EBADF);
	d = f->f_path.dentry;
	fput(f);
	return S_ISDIR(d->d_inode->i_mode) ? d : ERR_PTR(-ENOTDIR);
}

struct dentry *filename_lookup(int dfd, struct filename *name, int *err)
{
	struct nameidata nd = { 0 };
	struct dentry *start = path_start(dfd, name->name);
	struct dentry *d = IS_ERR(start) ? start : lookup_at(start, name->name, &nd, true);

	*err = IS_ERR(d) ? PTR_ERR(d) : 0;
	return IS_ERR(d) ? NULL : d;
}

/* Look up a kernel-space absolute path. */
struct dentry *kern_path(const char *name)
{
	struct nameidata nd = { 0 };
	struct dentry *d = lookup_at(root_dentry, name, &nd, true);

	return IS_ERR(d) ? NULL : d;
}

/*
 * Prepare to create the last component of name: returns a new negative dentry and puts the
 * referenced parent in *parentp, or an error (-EEXIST if the name exists).
 */
static struct dentry *filename_create(int dfd, struct filename *name, struct dentry **parentp)
{
	struct nameidata nd = { 0 };
	struct dentry *start = path_start(dfd, name->name);
	struct dentry *dentry;
	int err;

	if (IS_ERR(start))
		return start;
	err = link_path_walk(start, name->name, &nd);
	if (err)
		return ERR_PTR(err);
	if (!nd.last_len || d_lookup(nd.dentry, nd.last, nd.last_len))
		return ERR_PTR(-EEXIST);
	if ((nd.last_len == 1 && nd.last[0] == '.') ||
	    (nd.last_len == 2 && nd.last[0] == '.' && nd.last[1] == '.'))
		return ERR_PTR(-EEXIST);
	dentry = d_alloc(nd.dentry, nd.last, nd.last_len);
	if (!dentry)
		return ERR_PTR(-ENAMETOOLONG);
	*parentp = dget(nd.dentry);
	return dentry;
}

static void done_path_create(struct dentry *parent, struct dentry *dentry)
{
	dput(dentry);
	dput(parent);
}

noinline int vfs_create(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	if (!dir->i_op || !dir->i_op->create)
		return -EPERM;
	return dir->i_op->create(dir, dentry, (mode & 07777) | S_IFREG);
}

noinline int vfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	if (!dir->i_op || !dir->i_op->mkdir)
		return -EPERM;
	return dir->i_op->mkdir(dir, dentry, (mode & 07777) | S_IFDIR);
}

noinline int vfs_symlink(struct inode *dir, struct dentry *dentry, const char *oldname)
{
	if (!dir->i_op || !dir->i_op->symlink)
		return -EPERM;
	return dir->i_op->symlink(dir, dentry, oldname);
}

/* mkdirat(2): consumes `name`. */
noinline int do_mkdirat(int dfd, struct filename *name, umode_t mode)
{
	struct dentry *dentry, *parent = NULL;
	int error;

	if (IS_ERR(name))
		return PTR_ERR(name);
	dentry = filename_create(dfd, name, &parent);
	error = PTR_ERR(dentry);
	if (!IS_ERR(dentry)) {
		error = vfs_mkdir(parent->d_inode, dentry, mode);
		done_path_create(parent, dentry);
	}
	putname(name);
	return error;
}

long sys_mkdirat(int dfd, const char __user *pathname, umode_t mode)
{
	return do_mkdirat(dfd, getname(pathname), mode);
}

long sys_mkdir(const char __user *pathname, umode_t mode)
{
	return do_mkdirat(AT_FDCWD, getname(pathname), mode);
}

/* symlinkat(2): consumes both names. */
noinline int do_symlinkat(struct filename *from, int newdfd, struct filename *to)
{
	struct dentry *dentry, *parent = NULL;
	int error;

	if (IS_ERR(from)) {
		error = PTR_ERR(from);
		goto out;
	}
	if (IS_ERR(to)) {
		error = PTR_ERR(to);
		goto out;
	}
	dentry = filename_create(newdfd, to, &parent);
	error = PTR_ERR(dentry);
	if (!IS_ERR(dentry)) {
		error = vfs_symlink(parent->d_inode, dentry, from->name);
		done_path_create(parent, dentry);
	}
out:
	putname(to);
	putname(from);
	return error;
}

long sys_symlink(const char __user *oldname, const char __user *newname)
{
	return do_symlinkat(getname(oldname), AT_FDCWD, getname(newname));
}

/* Resolve (and with O_CREAT, create) the file to open; returns a referenced dentry. */
static struct dentry *open_last_lookups(int dfd, struct filename *name, const struct open_how *how)
{
	struct dentry *dentry, *parent = NULL;
	int err;

	if (!(how->flags & O_CREAT)) {
		dentry = filename_lookup(dfd, name, &err);
		return dentry ? dentry : ERR_PTR(err);
	}
	dentry = filename_create(dfd, name, &parent);
	if (IS_ERR(dentry)) {
		if (PTR_ERR(dentry) != -EEXIST || (how->flags & O_EXCL))
			return dentry;
		dentry = filename_lookup(dfd, name, &err);
		return dentry ? dentry : ERR_PTR(err);
	}
	err = vfs_create(parent->d_inode, dentry, how->mode);
	dput(parent);
	if (err) {
		dput(dentry);
		return ERR_PTR(err);
	}
	return dentry;
}

struct file *do_filp_open(int dfd, struct filename *pathname, const struct open_how *how)
{
	struct dentry *dentry = open_last_lookups(dfd, pathname, how);
	struct inode *inode;
	struct file *file;
	int err;

	if (IS_ERR(dentry))
		return (struct file *)dentry;
	inode = dentry->d_inode;
	err = 0;
	if ((how->flags & O_DIRECTORY) && !S_ISDIR(inode->i_mode))
		err = -ENOTDIR;
	else if (S_ISDIR(inode->i_mode) && (how->flags & O_ACCMODE) != O_RDONLY)
		err = -EISDIR;
	if (err) {
		dput(dentry);
		return ERR_PTR(err);
	}
	file = alloc_empty_file(how->flags);
	if (IS_ERR(file)) {
		dput(dentry);
		return file;
	}
	file->f_path.dentry = dentry;
	err = vfs_open(&file->f_path, file);
	if (err) {
		fput(file);
		return ERR_PTR(err);
	}
	if ((how->flags & O_TRUNC) && S_ISREG(inode->i_mode) && (file->f_mode & FMODE_WRITE))
		inode->i_size = 0;
	return file;
}
