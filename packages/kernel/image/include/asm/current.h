/* `current`: one %gs-relative load, as arch/x86/include/asm/current.h. */
#ifndef _ASM_X86_CURRENT_H
#define _ASM_X86_CURRENT_H

#include <asm/percpu.h>
#include <asm/ptrace.h>

static __always_inline struct task_struct *get_current(void)
{
	return (struct task_struct *)this_cpu_read_8(PCPU_current_task);
}

#define current get_current()

/* The frame entry_SYSCALL_64 pushed for the current task's system call. */
static __always_inline struct pt_regs *current_pt_regs(void)
{
	return (struct pt_regs *)(this_cpu_read_8(PCPU_top_of_stack) - sizeof(struct pt_regs));
}

#endif
