/* The system call table and its dispatcher (arch/x86/entry/syscall_64.c, common.c). */
#include <asm/ptrace.h>
#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/syscalls.h>

typedef long (*sys_call_ptr_t)(long, long, long, long, long, long);

#define __NR_syscall_max 258
#define SYSCALL(nr, fn) [nr] = (sys_call_ptr_t)(fn)

/* Linux x86-64 numbers; every other slot is sys_ni_syscall. Lives in .rodata. */
const sys_call_ptr_t sys_call_table[__NR_syscall_max + 1] = {
	[0 ... __NR_syscall_max] = (sys_call_ptr_t)sys_ni_syscall,
	SYSCALL(0, sys_read),
	SYSCALL(1, sys_write),
	SYSCALL(2, sys_open),
	SYSCALL(3, sys_close),
	SYSCALL(24, sys_sched_yield),
	SYSCALL(35, sys_nanosleep),
	SYSCALL(39, sys_getpid),
	SYSCALL(41, sys_socket),
	SYSCALL(42, sys_connect),
	SYSCALL(43, sys_accept),
	SYSCALL(46, sys_sendmsg),
	SYSCALL(47, sys_recvmsg),
	SYSCALL(49, sys_bind),
	SYSCALL(50, sys_listen),
	SYSCALL(56, sys_clone),
	SYSCALL(57, sys_fork),
	SYSCALL(60, sys_exit),
	SYSCALL(61, sys_wait4),
	SYSCALL(83, sys_mkdir),
	SYSCALL(88, sys_symlink),
	SYSCALL(110, sys_getppid),
	SYSCALL(186, sys_gettid),
	SYSCALL(228, sys_clock_gettime),
	SYSCALL(231, sys_exit_group),
	SYSCALL(257, sys_openat),
	SYSCALL(258, sys_mkdirat),
};

/* An unimplemented system call. */
long sys_ni_syscall(void)
{
	return -ENOSYS;
}

/*
 * Run system call `nr` for the frame entry_SYSCALL_64 built, under the big kernel lock, and
 * leave the result in regs->ax. Arguments are di, si, dx, r10, r8, r9 (r10 stands in for cx,
 * which `syscall` overwrote with the return address).
 */
void do_syscall_64(struct pt_regs *regs, long nr)
{
	unsigned long unr = (unsigned long)nr;

	if (likely(unr <= __NR_syscall_max)) {
		lock_kernel();
		regs->ax = sys_call_table[unr](regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9);
		unlock_kernel();
	} else {
		regs->ax = -ENOSYS;
	}
}
