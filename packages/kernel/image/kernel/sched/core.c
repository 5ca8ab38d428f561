/*
 * schedule() and wait queues. The host owns the run queues and every context switch; the
 * guest decides WHY the current task stops running and asks the host through one gate.
 */
#include <asm/hostcall.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/syscalls.h>

/*
 * Give up the CPU. Step 1: drop the big kernel lock if held. Step 2: by current->state, yield
 * (TASK_RUNNING), sleep on a wait queue word (host_wait) or sleep for a time (host_sleep_ns).
 * Step 3: when the host runs this task again, mark it running and retake the lock.
 */
void schedule(void)
{
	struct task_struct *prev = current;
	int depth = prev->lock_depth;

	if (depth >= 0)
		_raw_spin_unlock(&kernel_flag);
	if (prev->state == TASK_RUNNING)
		host_schedule();
	else if (prev->wait_addr)
		host_wait(prev->wait_addr, prev->wait_val);
	else
		host_sleep_ns(prev->sleep_ns);
	prev->state = TASK_RUNNING;
	prev->wait_addr = NULL;
	prev->sleep_ns = 0;
	if (depth >= 0)
		_raw_spin_lock(&kernel_flag);
}

/* Arm the current task to sleep on wq_head unless its sequence word has moved past `seq`. */
void prepare_to_wait(struct wait_queue_head *wq_head, u32 seq)
{
	struct task_struct *tsk = current;

	tsk->state = TASK_INTERRUPTIBLE;
	tsk->wait_addr = &wq_head->seq;
	tsk->wait_val = seq;
}

/* Wake every task sleeping on wq_head. */
void __wake_up(struct wait_queue_head *wq_head)
{
	WRITE_ONCE(wq_head->seq, wq_head->seq + 1);
	host_wake(&wq_head->seq);
}

long sys_sched_yield(void)
{
	schedule();
	return 0;
}
