/* nanosleep and clock_gettime over the host's virtual clock (kernel/time/hrtimer.c, posix-timers.c). */
#include <asm/hostcall.h>
#include <asm/uaccess.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/syscalls.h>

#define NSEC_PER_SEC 1000000000L
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1

struct __kernel_timespec {
	long tv_sec;
	long tv_nsec;
};

/* Sleep the current task for `ns` of virtual time. */
long do_nanosleep(u64 ns)
{
	struct task_struct *tsk = current;

	tsk->state = TASK_INTERRUPTIBLE;
	tsk->wait_addr = NULL;
	tsk->sleep_ns = ns;
	schedule();
	return 0;
}

long sys_nanosleep(struct __kernel_timespec __user *rqtp, struct __kernel_timespec __user *rmtp)
{
	struct __kernel_timespec t;

	if (copy_from_user(&t, rqtp, sizeof(t)))
		return -EFAULT;
	if (t.tv_sec < 0 || t.tv_nsec < 0 || t.tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	return do_nanosleep((u64)t.tv_sec * NSEC_PER_SEC + t.tv_nsec);
}

long sys_clock_gettime(int which_clock, struct __kernel_timespec __user *tp)
{
	struct __kernel_timespec t;
	u64 now;

	if (which_clock != CLOCK_REALTIME && which_clock != CLOCK_MONOTONIC)
		return -EINVAL;
	now = host_clock_ns();
	t.tv_sec = now / NSEC_PER_SEC;
	t.tv_nsec = now % NSEC_PER_SEC;
	return copy_to_user(tp, &t, sizeof(t)) ? -EFAULT : 0;
}
