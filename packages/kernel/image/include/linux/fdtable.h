/* Per-task descriptor table (include/linux/fdtable.h), copied on fork. */
#ifndef _LINUX_FDTABLE_H
#define _LINUX_FDTABLE_H

#include <linux/fs.h>

struct task_struct;

#define NR_OPEN_DEFAULT 32

struct files_struct {
	unsigned long open_fds; /* bit n: descriptor n is in use (reserved or installed) */
	struct file *fd_array[NR_OPEN_DEFAULT];
};

struct files_struct *alloc_files(void);
struct files_struct *dup_fd(struct files_struct *oldf);
void exit_files(struct task_struct *tsk);
int get_unused_fd_flags(unsigned int flags);
void put_unused_fd(unsigned int fd);
void fd_install(unsigned int fd, struct file *file);
struct file *fget(unsigned int fd);
int close_fd(unsigned int fd);

#endif
