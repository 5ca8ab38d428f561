/*
 * Host-call gates. Each service is one 16-byte slot of int3 bytes on pages the host maps with
 * PageFlags.Gate; fetching from a slot hands control to the host, which runs the service with
 * the SysV arguments, sets rax and performs the `ret`. The 0xcc filling only matters if a host
 * ever forgets to mark the pages: then every call traps loudly instead of running garbage.
 * The slot order below is the ABI (ABI.md, "Gates"): append new services at the end.
 */
#define HOSTCALL(name)				\
	.globl host_##name;			\
	.type host_##name, @function;		\
host_##name:					\
	.fill 16, 1, 0xcc;			\
	.size host_##name, 16

	.section .hostcall, "ax"
	.balign 4096
HOSTCALL(alloc)
HOSTCALL(free)
HOSTCALL(log_store)
HOSTCALL(console_write)
HOSTCALL(schedule)
HOSTCALL(wait)
HOSTCALL(wake)
HOSTCALL(task_fork)
HOSTCALL(task_exit)
HOSTCALL(sleep_ns)
HOSTCALL(clock_ns)
HOSTCALL(panic)
