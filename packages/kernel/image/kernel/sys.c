/* Process identity system calls (kernel/sys.c). */
#include <linux/sched.h>
#include <linux/syscalls.h>

long sys_getpid(void)
{
	return current->tgid;
}

long sys_gettid(void)
{
	return current->pid;
}

long sys_getppid(void)
{
	struct task_struct *parent = current->parent;

	return parent ? parent->tgid : 0;
}
