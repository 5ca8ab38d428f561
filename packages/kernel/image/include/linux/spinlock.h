/* Test-and-set spinlocks (lock xchg + pause) and the big kernel lock (lib/kernel_lock.c). */
#ifndef _LINUX_SPINLOCK_H
#define _LINUX_SPINLOCK_H

#include <linux/compiler.h>
#include <linux/types.h>

typedef struct {
	volatile u32 slock; /* 0 free, 1 held */
} raw_spinlock_t;

void _raw_spin_lock(raw_spinlock_t *lock);
void _raw_spin_unlock(raw_spinlock_t *lock);

/* The big kernel lock: held by every system call, released across schedule(). */
extern raw_spinlock_t kernel_flag;
void lock_kernel(void);
void unlock_kernel(void);

#endif
