/* The boot task (init/init_task.c): `current` while start_kernel runs and for host calls. */
#include <linux/sched.h>

struct task_struct init_task = {
	.state = TASK_RUNNING,
	.pid = 0,
	.tgid = 0,
	.comm = "swapper",
	.lock_depth = -1,
	.flags = PF_KTHREAD,
	.children = LIST_HEAD_INIT(init_task.children),
	.sibling = LIST_HEAD_INIT(init_task.sibling),
};
