/*
 * The per-CPU area the host allocates and points GS_BASE (kernel) at. Field names follow
 * Linux's pcpu_hot / cpu_current_top_of_stack / rsp_scratch / cpu_number.
 */
#ifndef _ASM_X86_PERCPU_H
#define _ASM_X86_PERCPU_H

#include <asm/asm-offsets.h>
#include <linux/compiler.h>

struct task_struct;

struct pcpu_hot {
	struct pcpu_hot *self;           /* the area's own address */
	struct task_struct *current_task; /* written by the host on every switch */
	unsigned long top_of_stack;       /* kernel stack top of current_task; 16-byte aligned */
	unsigned long user_rsp;           /* scratch: user rsp while entry_SYSCALL_64 switches stacks */
	int cpu_number;
	int pad;
};

_Static_assert(offsetof(struct pcpu_hot, self) == PCPU_self, "pcpu_hot.self");
_Static_assert(offsetof(struct pcpu_hot, current_task) == PCPU_current_task, "pcpu_hot.current_task");
_Static_assert(offsetof(struct pcpu_hot, top_of_stack) == PCPU_top_of_stack, "pcpu_hot.top_of_stack");
_Static_assert(offsetof(struct pcpu_hot, user_rsp) == PCPU_user_rsp, "pcpu_hot.user_rsp");
_Static_assert(offsetof(struct pcpu_hot, cpu_number) == PCPU_cpu_number, "pcpu_hot.cpu_number");
_Static_assert(sizeof(struct pcpu_hot) == PCPU_SIZE, "pcpu_hot size");

#define this_cpu_read_8(off)                                                     \
	({                                                                       \
		unsigned long __v;                                               \
		__asm__ __volatile__("movq %%gs:%c1, %0" : "=r"(__v) : "i"(off)); \
		__v;                                                             \
	})

static __always_inline int smp_processor_id(void)
{
	int cpu;

	__asm__ __volatile__("movl %%gs:%c1, %0" : "=r"(cpu) : "i"(PCPU_cpu_number));
	return cpu;
}

#endif
