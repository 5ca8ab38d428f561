/* nanosleep and clock_gettime over the host's virtual clock (kernel/time/hrtimer.c, posix-timers.c). */
#include <asm/hostcall.h>
#include <asm/uaccess.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/syscalls.h>

#define NSEC_PER_SEC 1000000000L
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1

struct __kernel_timespec {
	long tv_sec;
	long tv_nsec;
};

/* How an hrtimer's expiry is given (include/linux/hrtimer.h): nanosleep's is relative to now. */
enum hrtimer_mode {
	HRTIMER_MODE_ABS = 0x0,
	HRTIMER_MODE_REL = 0x1,
};

/*
 * Sleep the current task for `ns` of virtual time: the host's timer wakes it (Linux arms an
 * hrtimer_sleeper and calls schedule() until it fires).
 */
noinline long do_nanosleep(u64 ns, enum hrtimer_mode mode)
{
	struct task_struct *tsk = current;

	tsk->state = TASK_INTERRUPTIBLE;
	tsk->wait_addr = NULL;
	tsk->sleep_ns = ns;
	schedule();
	return 0;
}

/*
 * The nanosleep family's common part (kernel/time/hrtimer.c): `rqtp` ns on `clockid`. Only the
 * relative mode is reached (nanosleep's); every clock here is the one virtual clock.
 */
noinline long hrtimer_nanosleep(ktime_t rqtp, const enum hrtimer_mode mode, const clockid_t clockid)
{
	if (mode != HRTIMER_MODE_REL || (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC))
		return -EINVAL;
	return do_nanosleep(rqtp, mode);
}

long sys_nanosleep(struct __kernel_timespec __user *rqtp, struct __kernel_timespec __user *rmtp)
{
	struct __kernel_timespec t;

	if (copy_from_user(&t, rqtp, sizeof(t)))
		return -EFAULT;
	if (t.tv_sec < 0 || t.tv_nsec < 0 || t.tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	return hrtimer_nanosleep((ktime_t)t.tv_sec * NSEC_PER_SEC + t.tv_nsec, HRTIMER_MODE_REL, CLOCK_MONOTONIC);
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
