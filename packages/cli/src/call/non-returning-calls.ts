/**
 * Kernel functions a host-to-guest call (`int3 call -e`, the tracefs shell's `call`) cannot come back
 * from, and why: they end or halt the calling context (`__noreturn`), switch to another task or sleep
 * (they return only when the scheduler picks this context again, which a call from the host never
 * waits for), or are trampolines that jump back into a frame the call does not have. Calling one
 * left the machine half-way (a task half exited) and the next call failed inside int3.
 *
 * @see image/include/linux/sched.h do_exit(), image/include/linux/kernel.h panic(),
 *   image/include/asm/hostcall.h (the host gates), arch/x86/kernel/kprobes/core.c jprobe_return()
 */
export const NON_RETURNING_CALLS: ReadonlyMap<string, string> = new Map([
  ['do_exit', 'it ends the calling task (__noreturn)'],
  ['sys_exit', 'it ends the calling task (do_exit)'],
  ['sys_exit_group', 'it ends the calling task (do_exit)'],
  ['panic', 'it halts the machine (__noreturn)'],
  ['host_task_exit', 'it ends the calling task (__noreturn)'],
  ['host_panic', 'it halts the machine (__noreturn)'],
  ['schedule', 'it switches to another task'],
  ['sys_sched_yield', 'it switches to another task (schedule)'],
  ['host_schedule', 'it switches to another task'],
  ['do_nanosleep', 'it sleeps until a timer wakes the task'],
  ['hrtimer_nanosleep', 'it sleeps until a timer wakes the task (do_nanosleep)'],
  ['schedule_timeout', 'it sleeps until a timer wakes the task'],
  ['schedule_timeout_uninterruptible', 'it sleeps until a timer wakes the task (schedule_timeout)'],
  ['msleep', 'it sleeps until a timer wakes the task (schedule_timeout)'],
  ['ssleep', 'it sleeps until a timer wakes the task (msleep)'],
  ['host_sleep_ns', 'it sleeps until a timer wakes the task'],
  ['host_wait', 'it blocks until a child task exits'],
  ['jprobe_return', "it jumps back into a jprobe handler's saved frame (longjmp), which a call has not"],
  ['jprobe_return_end', "it is the end of jprobe_return's jump, not a function"],
  ['kretprobe_trampoline', "it returns to a probed function's saved return address, which a call has not"],
  ['int3_return_gate', "it is the host call's own return gate"],
  ['entry_SYSCALL_64', 'it is the syscall entry: it returns to user mode with sysret'],
]);

/**
 * Why a call of `name` cannot return to its caller, or undefined when it can be tried.
 *
 * @example
 * whyCallCannotReturn('do_exit'); // 'it ends the calling task (__noreturn)'
 */
export function whyCallCannotReturn(name: string): string | undefined {
  return NON_RETURNING_CALLS.get(name);
}
