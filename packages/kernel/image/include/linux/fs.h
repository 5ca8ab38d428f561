/* The VFS objects: inodes, dentries, files and their operation tables (include/linux/fs.h). */
#ifndef _LINUX_FS_H
#define _LINUX_FS_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/uio.h>

#define NAME_MAX 255
#define PATH_MAX 4096
#define DNAME_INLINE_LEN 32
#define AT_FDCWD (-100)

/* open flags (include/uapi/asm-generic/fcntl.h, x86-64 values) */
#define O_ACCMODE 00000003
#define O_RDONLY 00000000
#define O_WRONLY 00000001
#define O_RDWR 00000002
#define O_CREAT 00000100
#define O_EXCL 00000200
#define O_TRUNC 00001000
#define O_APPEND 00002000
#define O_DIRECT 00040000
#define O_DIRECTORY 00200000
#define O_CLOEXEC 02000000

#define FMODE_READ 0x1
#define FMODE_WRITE 0x2

/* inode modes */
#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define S_IFLNK 0120000
#define S_IFREG 0100000
#define S_IFBLK 0060000
#define S_IFDIR 0040000
#define S_IFCHR 0020000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISBLK(m) (((m) & S_IFMT) == S_IFBLK)

#define MKDEV(ma, mi) (((ma) << 20) | (mi))

struct inode;
struct dentry;
struct file;
struct block_device;

struct file_operations {
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	ssize_t (*read_iter)(struct kiocb *, struct iov_iter *);
	ssize_t (*write_iter)(struct kiocb *, struct iov_iter *);
	int (*open)(struct inode *, struct file *);
	int (*release)(struct inode *, struct file *);
};

struct inode_operations {
	int (*create)(struct inode *dir, struct dentry *dentry, umode_t mode);
	int (*mkdir)(struct inode *dir, struct dentry *dentry, umode_t mode);
	int (*symlink)(struct inode *dir, struct dentry *dentry, const char *symname);
};

struct inode {
	umode_t i_mode;
	unsigned int i_blkbits;
	unsigned long i_ino;
	dev_t i_rdev;
	loff_t i_size;
	const struct inode_operations *i_op;
	const struct file_operations *i_fop;
	struct block_device *i_bdev;
	void *i_private; /* ramfs: file data or symlink target; sysfs: the attribute binding */
	size_t i_capacity;
	int i_nlink;
};

struct dentry {
	int d_count;
	struct inode *d_inode;
	struct dentry *d_parent;
	struct dentry *d_subdirs;  /* first child */
	struct dentry *d_sibling;  /* next child of d_parent */
	char d_iname[DNAME_INLINE_LEN];
};

struct path {
	struct dentry *dentry;
};

struct file {
	struct path f_path;
	struct inode *f_inode;
	const struct file_operations *f_op;
	long f_count;
	unsigned int f_flags;
	unsigned int f_mode;
	loff_t f_pos;
	void *private_data;
};

/* A pathname copied in from user space (include/linux/fs.h). */
struct filename {
	const char *name;
	const char __user *uptr;
	char iname[PATH_MAX / 16];
};

struct open_how {
	u64 flags;
	u64 mode;
	u64 resolve;
};

/* dcache */
extern struct dentry *root_dentry;
struct dentry *d_alloc(struct dentry *parent, const char *name, unsigned int len);
struct dentry *dget(struct dentry *dentry);
void dput(struct dentry *dentry);
void d_instantiate(struct dentry *dentry, struct inode *inode);
struct dentry *d_lookup(const struct dentry *parent, const char *name, unsigned int len);

/* inodes */
struct inode *new_inode(umode_t mode);

/* namei */
struct filename *getname(const char __user *filename);
struct filename *getname_kernel(const char *filename);
void putname(struct filename *name);
struct dentry *kern_path(const char *name);
struct dentry *filename_lookup(int dfd, struct filename *name, int *err);
int vfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode);
int vfs_create(struct inode *dir, struct dentry *dentry, umode_t mode);
int vfs_symlink(struct inode *dir, struct dentry *dentry, const char *oldname);
int do_mkdirat(int dfd, struct filename *name, umode_t mode);
int do_symlinkat(struct filename *from, int newdfd, struct filename *to);
struct file *do_filp_open(int dfd, struct filename *pathname, const struct open_how *how);

/* open / read / write */
long do_sys_open(int dfd, const char __user *filename, int flags, umode_t mode);
long do_sys_openat2(int dfd, const char __user *filename, struct open_how *how);
int vfs_open(const struct path *path, struct file *file);
struct file *filp_open(const char *filename, int flags, umode_t mode);
int filp_close(struct file *filp);
ssize_t vfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos);
ssize_t vfs_write(struct file *file, const char __user *buf, size_t count, loff_t *pos);

/* file table */
struct file *alloc_empty_file(int flags);
struct file *get_file(struct file *f);
void fput(struct file *file);

/* ramfs */
int ramfs_init(void);
struct dentry *ramfs_create_file(struct dentry *parent, const char *name, umode_t mode,
				 const struct file_operations *fops, const void *data, size_t len);
struct dentry *ramfs_mkdir_kernel(struct dentry *parent, const char *name);
extern const struct file_operations ramfs_file_operations;

/* special files */
int chr_dev_init(void);
int console_init(void);
extern const struct file_operations console_fops;
int proc_version_init(void);

#endif
