/*
 * Wait queues as futex-like sequence words. A waker bumps `seq` and calls host_wake(&seq); a
 * sleeper samples `seq`, tests its condition, and sleeps in host_wait(&seq, sample), which
 * returns at once if `seq` moved, so no wake-up is lost between the test and the sleep.
 */
#ifndef _LINUX_WAIT_H
#define _LINUX_WAIT_H

#include <linux/compiler.h>
#include <linux/types.h>

struct wait_queue_head {
	u32 seq;
};
typedef struct wait_queue_head wait_queue_head_t;

void __wake_up(struct wait_queue_head *wq_head);
void prepare_to_wait(struct wait_queue_head *wq_head, u32 seq);
void schedule(void);

#define wake_up(wq) __wake_up(wq)

/* Sleep until `condition` holds. No signals interrupt it (only fatal ones exist here). */
#define wait_event(wq, condition)                                                \
	do {                                                                     \
		for (;;) {                                                       \
			u32 __seq = READ_ONCE((wq).seq);                         \
			if (condition)                                           \
				break;                                           \
			prepare_to_wait(&(wq), __seq);                           \
			schedule();                                              \
		}                                                                \
	} while (0)

#endif
