/*
 * Task creation: fork/clone through kernel_clone (kernel/fork.c), and int3_task_create, the
 * host's way to make the first task of a workload.
 */
#include <asm/hostcall.h>
#include <asm/uaccess.h>
#include <linux/fdtable.h>
#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/syscalls.h>

static pid_t last_pid;

/* The next process id; pids are never reused. */
pid_t alloc_pid(void)
{
	return ++last_pid;
}

/* A new user address space's guest half, with one user. */
struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm), GFP_KERNEL);

	if (!mm)
		return NULL;
	mm->task_size = TASK_SIZE_MAX;
	mm->mm_users = 1;
	return mm;
}

/* Drop a user of `mm`; the last one frees it. */
void mmput(struct mm_struct *mm)
{
	if (mm && --mm->mm_users == 0)
		kfree(mm);
}

static struct task_struct *alloc_task_struct(void)
{
	struct task_struct *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	p->state = TASK_RUNNING;
	p->pid = alloc_pid();
	p->tgid = p->pid;
	p->lock_depth = -1;
	INIT_LIST_HEAD(&p->children);
	INIT_LIST_HEAD(&p->sibling);
	return p;
}

/* Duplicate current: same comm, a copy of its descriptor table, current as parent. */
static struct task_struct *copy_process(struct kernel_clone_args *args)
{
	struct task_struct *p;

	if ((args->flags & ~CSIGNAL) || (args->exit_signal && args->exit_signal != SIGCHLD))
		return ERR_PTR(-EINVAL);
	p = alloc_task_struct();
	if (!p)
		return ERR_PTR(-ENOMEM);
	memcpy(p->comm, current->comm, TASK_COMM_LEN);
	p->files = dup_fd(current->files);
	p->mm = mm_alloc();
	if (!p->files || !p->mm) {
		if (p->files)
			exit_files(p);
		kfree(p->mm);
		kfree(p);
		return ERR_PTR(-ENOMEM);
	}
	p->parent = current;
	return p;
}

/*
 * Create a child of current. Step 1: copy_process builds its task_struct and descriptor table.
 * Step 2: host_task_fork copies the address space and makes the child runnable, starting in
 * user mode at the parent's pt_regs with rax = 0. Step 3: link it into current->children.
 */
pid_t kernel_clone(struct kernel_clone_args *args)
{
	struct task_struct *p = copy_process(args);
	struct pt_regs regs;
	long err;

	if (IS_ERR(p))
		return PTR_ERR(p);
	regs = *current_pt_regs();
	regs.ax = 0;
	if (args->stack)
		regs.sp = args->stack;
	err = host_task_fork(p, &regs);
	if (err) {
		exit_files(p);
		mmput(p->mm);
		kfree(p);
		return err;
	}
	list_add_tail(&p->sibling, &current->children);
	return p->pid;
}

long sys_fork(void)
{
	struct kernel_clone_args args = { .exit_signal = SIGCHLD };

	return kernel_clone(&args);
}

long sys_clone(unsigned long clone_flags, unsigned long newsp, int __user *parent_tidptr,
	       int __user *child_tidptr, unsigned long tls)
{
	struct kernel_clone_args args = {
		.flags = clone_flags & ~CSIGNAL,
		.exit_signal = clone_flags & CSIGNAL,
		.stack = newsp,
	};

	return kernel_clone(&args);
}

/*
 * Host entry point: the guest half of a new top-level task, with no parent and descriptors
 * 0, 1 and 2 open on /dev/console. Returns NULL when out of memory or without a console.
 */
struct task_struct *int3_task_create(const char *comm)
{
	struct task_struct *p;
	struct file *console;
	int fd;

	_raw_spin_lock(&kernel_flag);
	p = alloc_task_struct();
	if (!p)
		goto out;
	strscpy(p->comm, comm, TASK_COMM_LEN);
	p->files = alloc_files();
	p->mm = mm_alloc();
	console = filp_open("/dev/console", O_RDWR, 0);
	if (!p->files || !p->mm || IS_ERR(console)) {
		kfree(p->files);
		kfree(p->mm);
		kfree(p);
		p = NULL;
		goto out;
	}
	for (fd = 0; fd < 3; fd++)
		p->files->fd_array[fd] = fd ? get_file(console) : console;
	p->files->open_fds = 0x7;
out:
	_raw_spin_unlock(&kernel_flag);
	return p;
}
