/*
 * Host-call gates: 16-byte slots of 0xcc in the .hostcall pages (arch/x86/kernel/hostcall.S).
 * Reaching host_<name> runs the host's TypeScript service with SysV arguments, sets rax and
 * returns as if by `ret`. ABI.md documents each one; keep this list and ABI.md in step.
 */
#ifndef _ASM_X86_HOSTCALL_H
#define _ASM_X86_HOSTCALL_H

#include <linux/compiler.h>
#include <linux/types.h>

struct task_struct;
struct pt_regs;

extern void *host_alloc(unsigned long size, gfp_t flags);
extern void host_free(const void *ptr);
extern long host_log_store(int level, const char *text, unsigned long len);
extern long host_console_write(const char *buf, unsigned long len);
extern long host_schedule(void);
extern long host_wait(const u32 *uaddr, u32 val);
extern long host_wake(const u32 *uaddr);
extern long host_task_fork(struct task_struct *child, const struct pt_regs *regs);
extern void __noreturn host_task_exit(long code);
extern long host_sleep_ns(u64 ns);
extern u64 host_clock_ns(void);
extern void __noreturn host_panic(const char *msg, unsigned long len);

#endif
