/* Sleeping for a number of jiffies or milliseconds (kernel/time/timer.c): schedule() with a timeout. */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/sched.h>

#define NSEC_PER_JIFFY (1000000000UL / HZ)

/*
 * Sleep until `timeout` jiffies have passed, in the state the caller set; returns the jiffies left,
 * always 0: no signal wakes a sleep early here. The host's timer wakes the task (Linux arms a
 * process timer and calls schedule()).
 */
noinline long schedule_timeout(long timeout)
{
	struct task_struct *tsk = current;

	if (timeout <= 0) {
		tsk->state = TASK_RUNNING;
		return 0;
	}
	tsk->wait_addr = NULL;
	tsk->sleep_ns = (u64)timeout * NSEC_PER_JIFFY;
	schedule();
	return 0;
}

long schedule_timeout_uninterruptible(long timeout)
{
	current->state = TASK_UNINTERRUPTIBLE;
	return schedule_timeout(timeout);
}

/*
 * Sleep at least `msecs` ms of virtual time: one jiffy more than asked, as Linux's msleep, so a
 * sleep started between two ticks still lasts the whole time. Module code may call it from its
 * init, which runs in process context.
 */
noinline void msleep(unsigned int msecs)
{
	long timeout = msecs_to_jiffies(msecs) + 1;

	while (timeout)
		timeout = schedule_timeout_uninterruptible(timeout);
}

void ssleep(unsigned int seconds)
{
	msleep(seconds * 1000);
}
