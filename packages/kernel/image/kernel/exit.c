/* Task exit and reaping: do_exit, wait4 (kernel/exit.c). */
#include <asm/hostcall.h>
#include <asm/uaccess.h>
#include <linux/fdtable.h>
#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/syscalls.h>

#define WNOHANG 0x00000001

/* Free a reaped zombie's task_struct. */
void release_task(struct task_struct *p)
{
	list_del(&p->sibling);
	kfree(p);
}

/* Let go of the user address space: from here `current->mm` is NULL, as a kernel thread's. */
static void exit_mm(struct task_struct *tsk)
{
	struct mm_struct *mm = tsk->mm;

	tsk->mm = NULL;
	mmput(mm);
}

/*
 * Tell the family: orphan live children (a parentless task is released by the host when it
 * exits), free zombie children nobody will reap now, and either become a zombie for our
 * parent to reap or, without a parent, EXIT_DEAD for the host to free.
 */
static void exit_notify(struct task_struct *tsk)
{
	struct task_struct *p, *n;

	list_for_each_entry_safe(p, n, &tsk->children, sibling) {
		if (p->exit_state == EXIT_ZOMBIE) {
			release_task(p);
		} else {
			list_del(&p->sibling);
			p->parent = NULL;
		}
	}
	if (tsk->parent) {
		tsk->exit_state = EXIT_ZOMBIE;
		wake_up(&tsk->parent->wait_chldexit);
	} else {
		tsk->exit_state = EXIT_DEAD;
	}
}

/*
 * End the current task with wait status `code`. Takes the big kernel lock and never releases
 * it: host_task_exit does, after the task is off the CPU, so a parent cannot free this
 * task_struct while it is still running.
 */
void __noreturn do_exit(long code)
{
	struct task_struct *tsk = current;

	if (tsk->lock_depth < 0)
		lock_kernel();
	tsk->flags |= PF_EXITING;
	exit_mm(tsk);
	exit_files(tsk);
	tsk->exit_code = code;
	tsk->state = TASK_DEAD;
	exit_notify(tsk);
	host_task_exit(code);
}

long sys_exit(int error_code)
{
	do_exit((error_code & 0xff) << 8);
}

long sys_exit_group(int error_code)
{
	do_exit((error_code & 0xff) << 8);
}

/* Reap a zombie child matching upid (-1: any), sleeping until one exists unless WNOHANG. */
static long do_wait(pid_t upid, int __user *stat_addr, int options)
{
	struct task_struct *tsk = current;

	for (;;) {
		u32 seq = READ_ONCE(tsk->wait_chldexit.seq);
		struct task_struct *p;
		bool found = false;

		list_for_each_entry(p, &tsk->children, sibling) {
			if (upid > 0 && p->pid != upid)
				continue;
			found = true;
			if (p->exit_state == EXIT_ZOMBIE) {
				pid_t pid = p->pid;
				int status = p->exit_code;

				if (stat_addr && put_user(status, stat_addr))
					return -EFAULT;
				release_task(p);
				return pid;
			}
		}
		if (!found)
			return -ECHILD;
		if (options & WNOHANG)
			return 0;
		prepare_to_wait(&tsk->wait_chldexit, seq);
		schedule();
	}
}

long kernel_wait4(pid_t upid, int __user *stat_addr, int options, struct rusage __user *ru)
{
	if (options & ~WNOHANG)
		return -EINVAL;
	if (upid == 0 || upid < -1)
		return -EINVAL;
	return do_wait(upid, stat_addr, options);
}

long sys_wait4(pid_t upid, int __user *stat_addr, int options, struct rusage __user *ru)
{
	return kernel_wait4(upid, stat_addr, options, ru);
}
