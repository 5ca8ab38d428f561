/*
 * Spinlocks and the big kernel lock (lib/kernel_lock.c of Linux 2.6). Every system call runs
 * under kernel_flag; schedule() drops it while the task sleeps and takes it back after, so the
 * guest's data structures need no finer locking on SMP.
 */
#include <linux/sched.h>
#include <linux/spinlock.h>

raw_spinlock_t kernel_flag;

void _raw_spin_lock(raw_spinlock_t *lock)
{
	u32 v;

	for (;;) {
		v = 1;
		__asm__ __volatile__("xchgl %0, %1" : "+r"(v), "+m"(lock->slock) : : "memory");
		if (!v)
			return;
		while (READ_ONCE(lock->slock))
			__asm__ __volatile__("pause" : : : "memory");
	}
}

void _raw_spin_unlock(raw_spinlock_t *lock)
{
	barrier();
	WRITE_ONCE(lock->slock, 0);
}

/* Take the big kernel lock; nests through current->lock_depth. */
void lock_kernel(void)
{
	struct task_struct *tsk = current;

	if (++tsk->lock_depth == 0)
		_raw_spin_lock(&kernel_flag);
}

void unlock_kernel(void)
{
	struct task_struct *tsk = current;

	if (--tsk->lock_depth < 0)
		_raw_spin_unlock(&kernel_flag);
}
