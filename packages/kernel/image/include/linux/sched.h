/* struct task_struct: its first 64 bytes are a fixed layout the host reads (ABI.md). */
#ifndef _LINUX_SCHED_H
#define _LINUX_SCHED_H

#include <asm/current.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/wait.h>

#define TASK_COMM_LEN 16

/* task_struct.state */
#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1
#define TASK_UNINTERRUPTIBLE 2
#define TASK_DEAD 64

/* task_struct.exit_state */
#define EXIT_DEAD 16
#define EXIT_ZOMBIE 32

/* task_struct.flags */
#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000

struct files_struct;
struct mm_struct;

struct task_struct {
	/* ---- host ABI prefix: offsets are fixed (see the asserts below and ABI.md) ---- */
	volatile long state;          /* 0: TASK_RUNNING / TASK_INTERRUPTIBLE / TASK_DEAD */
	pid_t pid;                    /* 8 */
	pid_t tgid;                   /* 12 */
	char comm[TASK_COMM_LEN];     /* 16: NUL-terminated */
	struct task_struct *parent;   /* 32: NULL for a task the host started */
	struct files_struct *files;   /* 40 */
	int exit_code;                /* 48: wait status, valid once exit_state != 0 */
	int exit_state;               /* 52: 0, EXIT_ZOMBIE or EXIT_DEAD */
	int lock_depth;               /* 56: big-kernel-lock depth, -1 when not held */
	unsigned int flags;           /* 60: PF_* */
	/* ---- guest-private from here ---- */
	struct list_head children;
	struct list_head sibling;
	wait_queue_head_t wait_chldexit;
	const u32 *wait_addr;         /* what schedule() sleeps on when state != TASK_RUNNING */
	u32 wait_val;
	u64 sleep_ns;                 /* or how long it sleeps */
	struct mm_struct *mm;         /* the user address space; NULL for a kernel thread */
};

_Static_assert(offsetof(struct task_struct, state) == 0, "task_struct.state");
_Static_assert(offsetof(struct task_struct, pid) == 8, "task_struct.pid");
_Static_assert(offsetof(struct task_struct, tgid) == 12, "task_struct.tgid");
_Static_assert(offsetof(struct task_struct, comm) == 16, "task_struct.comm");
_Static_assert(offsetof(struct task_struct, parent) == 32, "task_struct.parent");
_Static_assert(offsetof(struct task_struct, files) == 40, "task_struct.files");
_Static_assert(offsetof(struct task_struct, exit_code) == 48, "task_struct.exit_code");
_Static_assert(offsetof(struct task_struct, exit_state) == 52, "task_struct.exit_state");
_Static_assert(offsetof(struct task_struct, lock_depth) == 56, "task_struct.lock_depth");
_Static_assert(offsetof(struct task_struct, flags) == 60, "task_struct.flags");

extern struct task_struct init_task;

struct kernel_clone_args {
	u64 flags;
	int exit_signal;
	unsigned long stack;
};

#define CSIGNAL 0x000000ff
#define SIGCHLD 17
#define SIGKILL 9
#define SIGSEGV 11

pid_t kernel_clone(struct kernel_clone_args *args);
long schedule_timeout(long timeout);
long schedule_timeout_uninterruptible(long timeout);
void __noreturn do_exit(long code);
pid_t alloc_pid(void);
void release_task(struct task_struct *p);
struct task_struct *int3_task_create(const char *comm);

#endif
