/* Descriptor tables (fs/file.c). */
#include <linux/fdtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/syscalls.h>

struct files_struct *alloc_files(void)
{
	return kzalloc(sizeof(struct files_struct), GFP_KERNEL);
}

/* A copy of oldf sharing each open file (fork). */
struct files_struct *dup_fd(struct files_struct *oldf)
{
	struct files_struct *newf = alloc_files();
	int fd;

	if (!newf)
		return NULL;
	for (fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		struct file *f = oldf->fd_array[fd];

		if (f) {
			newf->fd_array[fd] = get_file(f);
			newf->open_fds |= 1UL << fd;
		}
	}
	return newf;
}

/* Close every descriptor of tsk and free its table. */
void exit_files(struct task_struct *tsk)
{
	struct files_struct *files = tsk->files;
	int fd;

	if (!files)
		return;
	tsk->files = NULL;
	for (fd = 0; fd < NR_OPEN_DEFAULT; fd++)
		if (files->fd_array[fd])
			fput(files->fd_array[fd]);
	kfree(files);
}

/* Reserve the lowest free descriptor of current. */
int get_unused_fd_flags(unsigned int flags)
{
	struct files_struct *files = current->files;
	int fd;

	for (fd = 0; fd < NR_OPEN_DEFAULT; fd++) {
		if (!(files->open_fds & (1UL << fd))) {
			files->open_fds |= 1UL << fd;
			return fd;
		}
	}
	return -EMFILE;
}

void put_unused_fd(unsigned int fd)
{
	current->files->open_fds &= ~(1UL << fd);
}

void fd_install(unsigned int fd, struct file *file)
{
	current->files->fd_array[fd] = file;
}

/* The file open on fd, with a reference the caller must fput; NULL if none. */
struct file *fget(unsigned int fd)
{
	struct files_struct *files = current->files;

	if (fd >= NR_OPEN_DEFAULT || !files->fd_array[fd])
		return NULL;
	return get_file(files->fd_array[fd]);
}

int close_fd(unsigned int fd)
{
	struct files_struct *files = current->files;
	struct file *file;

	if (fd >= NR_OPEN_DEFAULT || !files->fd_array[fd])
		return -EBADF;
	file = files->fd_array[fd];
	files->fd_array[fd] = NULL;
	files->open_fds &= ~(1UL << fd);
	return filp_close(file);
}

long sys_close(unsigned int fd)
{
	return close_fd(fd);
}
