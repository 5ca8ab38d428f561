/*
 * The host half for the native smoke test (smoke.sh): gates as C functions, a bump allocator,
 * a SIGSEGV handler that applies __ex_table fixups, and a list of checks run from _start.
 */
#include <asm/hostcall.h>
#include <asm/uaccess.h>
#include <linux/fdtable.h>
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/syscalls.h>

void start_kernel(void);
void do_syscall_64(struct pt_regs *regs, long nr);

static long native(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ __volatile__("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
	return ret;
}

static void out(const char *s)
{
	native(1, 1, (long)s, strlen(s), 0);
}

/* ---- gates ---- */

static char arena[8 << 20] __aligned(16);
static unsigned long arena_used;
static char console[8192];
static size_t console_len;
static char logbuf[8192];
static size_t log_len;
static u64 clock_ns;
static long exit_code = -1;
static void *exit_jmp[5];

void *host_alloc(unsigned long size, gfp_t flags)
{
	unsigned long need = (size + 16 + 15) & ~15UL;
	char *p;

	if (arena_used + need > sizeof(arena))
		return NULL;
	p = arena + arena_used;
	arena_used += need;
	*(unsigned long *)p = size;
	return p + 16;
}

/* Poison freed objects so a use after free shows up. */
void host_free(const void *ptr)
{
	char *p = (char *)ptr;

	memset(p, 0xa5, *(unsigned long *)(p - 16));
}

long host_log_store(int level, const char *text, unsigned long len)
{
	if (log_len + len + 1 < sizeof(logbuf)) {
		memcpy(logbuf + log_len, text, len);
		log_len += len;
		logbuf[log_len++] = '\n';
	}
	return len;
}

long host_console_write(const char *buf, unsigned long len)
{
	if (console_len + len < sizeof(console)) {
		memcpy(console + console_len, buf, len);
		console_len += len;
	}
	return len;
}

long host_schedule(void)
{
	return 0;
}

/* One task only: a sleep that nobody can end is a bug in the guest. */
long host_wait(const u32 *uaddr, u32 val)
{
	if (READ_ONCE(*uaddr) != val)
		return -EAGAIN;
	out("smoke: host_wait would block forever\n");
	native(231, 100, 0, 0, 0);
	return 0;
}

long host_wake(const u32 *uaddr)
{
	return 0;
}

long host_task_fork(struct task_struct *child, const struct pt_regs *regs)
{
	return -ENOMEM;
}

void host_task_exit(long code)
{
	exit_code = code;
	kernel_flag.slock = 0;
	__builtin_longjmp(exit_jmp, 1);
}

long host_sleep_ns(u64 ns)
{
	clock_ns += ns;
	return 0;
}

u64 host_clock_ns(void)
{
	return clock_ns;
}

void host_panic(const char *msg, unsigned long len)
{
	out("smoke: panic: ");
	native(1, 1, (long)msg, len, 0);
	out("\n");
	native(231, 100, 0, 0, 0);
	__builtin_unreachable();
}

/* ---- kernel-mode #PF emulation: SIGSEGV + __ex_table ---- */

struct k_sigaction {
	void (*handler)(int, void *, void *);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

#define SA_SIGINFO 4
#define SA_RESTORER 0x04000000
#define REG_RIP 16 /* index into uc_mcontext.gregs */

void smoke_restorer(void);
__asm__(".text\nsmoke_restorer:\n\tmovq $15, %rax\n\tsyscall\n");

static int fixups;

static void segv(int sig, void *info, void *uctx)
{
	unsigned long *gregs = (unsigned long *)((char *)uctx + 40);
	const struct exception_table_entry *e;

	for (e = __start___ex_table; e < __stop___ex_table; e++) {
		if (e->insn == gregs[REG_RIP]) {
			gregs[REG_RIP] = e->fixup;
			fixups++;
			return;
		}
	}
	out("smoke: SIGSEGV outside the exception table\n");
	native(231, 101, 0, 0, 0);
}

/* ---- checks ---- */

static int failures;

static void check(bool ok, const char *what)
{
	out(ok ? "ok   " : "FAIL ");
	out(what);
	out("\n");
	failures += !ok;
}

static char buf[16384];

/* Read a whole file through the system calls; returns its length or a negative errno. */
static long slurp(const char *path)
{
	long fd = sys_open(path, O_RDONLY, 0), n, len = 0;

	if (fd < 0)
		return fd;
	while ((n = sys_read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	sys_close(fd);
	buf[len] = '\0';
	return n < 0 ? n : len;
}

static struct pcpu_hot pcpu;
static unsigned long kstack[2048];

static void test_vfs(void)
{
	static char big[10000];
	long fd, i;

	check(sys_write(1, "hello\n", 6) == 6 && console_len == 6 && !memcmp(console, "hello\n", 6),
	      "write to fd 1 reaches host_console_write");
	check(slurp("/etc/hostname") == 5 && !strcmp(buf, "int3\n"), "cat /etc/hostname");
	check(slurp("/etc/motd") > 40 && !strncmp(buf, "Welcome to int3.\n", 17), "cat /etc/motd");
	check(slurp("/proc/version") > 0 && !strncmp(buf, "Linux version 6.1.0-int3 (int3@int3) (gcc", 41),
	      "/proc/version from linux_proc_banner");
	check(slurp("/sys/block/ram0/name") == 5 && !strcmp(buf, "ram0\n"), "/sys/block/ram0/name via name_show");
	check(slurp("/sys/class/net/lo/name") == 3 && !strcmp(buf, "lo\n"), "/sys/class/net/lo/name via name_show");
	check(slurp("/nonexistent") == -ENOENT, "open of a missing file gives -ENOENT");
	check(slurp("/etc/motd/x") == -ENOTDIR, "a file used as a directory gives -ENOTDIR");
	fd = sys_open("/dev/zero", O_RDONLY, 0);
	memset(buf, 1, 600);
	check(sys_read(fd, buf, 600) == 600 && buf[0] == 0 && buf[599] == 0, "/dev/zero reads zeros");
	sys_close(fd);
	fd = sys_open("/dev/null", O_WRONLY, 0);
	check(sys_write(fd, "x", 1) == 1 && sys_read(fd, buf, 1) == -EBADF, "/dev/null swallows, not readable O_WRONLY");
	sys_close(fd);
	check(sys_mkdir("/tmp/a", 0755) == 0, "mkdir /tmp/a");
	check(sys_mkdir("/tmp/a", 0755) == -EEXIST, "mkdir /tmp/a again gives -EEXIST");
	check(sys_mkdir("/tmp/missing/b", 0755) == -ENOENT, "mkdir under a missing parent gives -ENOENT");
	for (i = 0; i < (long)sizeof(big); i++)
		big[i] = (char)(i * 13);
	fd = sys_open("/tmp/a/f", O_CREAT | O_RDWR, 0644);
	check(fd >= 3 && sys_write(fd, big, sizeof(big)) == sizeof(big), "create and write 10000 bytes");
	sys_close(fd);
	check(slurp("/tmp/a/f") == sizeof(big) && !memcmp(buf, big, sizeof(big)), "read them back");
	check(sys_symlink("/etc/hostname", "/tmp/h") == 0 && slurp("/tmp/h") == 5 && !strcmp(buf, "int3\n"),
	      "symlink /tmp/h -> /etc/hostname and follow it");
	check(sys_openat(AT_FDCWD, "tmp/a/../a/f", O_RDONLY, 0) >= 3, "openat with a relative path and ..");
}

static void test_blockdev(void)
{
	static char blk[4096 * 3], back[4096 * 3];
	long fd, i;

	for (i = 0; i < (long)sizeof(blk); i++)
		blk[i] = (char)(i * 7 + 3);
	fd = sys_open("/dev/ram0", O_RDWR | O_DIRECT, 0);
	check(fd >= 0 && sys_write(fd, blk, sizeof(blk)) == sizeof(blk), "O_DIRECT write of 3 blocks to /dev/ram0");
	check(sys_write(fd, blk, 100) == -EINVAL, "unaligned O_DIRECT write gives -EINVAL");
	sys_close(fd);
	fd = sys_open("/dev/ram0", O_RDONLY | O_DIRECT, 0);
	check(sys_read(fd, back, sizeof(back)) == sizeof(back) && !memcmp(blk, back, sizeof(blk)),
	      "O_DIRECT read back through __blockdev_direct_IO");
	check(sys_read(fd, back, 512) == 512 && back[0] == 0, "unwritten sectors read as zeros");
	sys_close(fd);
	fd = sys_open("/dev/ram0", O_RDONLY, 0);
	check(sys_read(fd, back, 512) == -EINVAL, "buffered read of /dev/ram0 gives -EINVAL");
	sys_close(fd);
}

static void test_net(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(7777),
				    .sin_addr = { htonl(INADDR_LOOPBACK) } };
	struct sockaddr_in peer, other = addr;
	int peerlen = sizeof(peer);
	static char head[] = "message ", body[] = "0\n";
	struct iovec iov[2] = { { head, 8 }, { body, 2 } };
	struct user_msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	struct iovec riov = { buf, sizeof(buf) };
	struct user_msghdr rmsg = { .msg_iov = &riov, .msg_iovlen = 1 };
	long ls, cs, as, refused;

	ls = sys_socket(AF_INET, SOCK_STREAM, 0);
	check(ls >= 0 && sys_bind(ls, (struct sockaddr *)&addr, sizeof(addr)) == 0 && sys_listen(ls, 4) == 0,
	      "socket, bind 127.0.0.1:7777, listen");
	check(sys_bind(sys_socket(AF_INET, SOCK_STREAM, 0), (struct sockaddr *)&addr, sizeof(addr)) == -EADDRINUSE,
	      "a second bind to the port gives -EADDRINUSE");
	cs = sys_socket(AF_INET, SOCK_STREAM, 0);
	check(sys_connect(cs, (struct sockaddr *)&addr, sizeof(addr)) == 0, "connect over loopback");
	as = sys_accept(ls, (struct sockaddr *)&peer, &peerlen);
	check(as >= 0 && peerlen == sizeof(peer) && ntohs(peer.sin_port) >= 32768, "inet_csk_accept gives the peer");
	check(sys_sendmsg(cs, &msg, 0) == 10, "sendmsg with two iovecs");
	check(sys_write(cs, "more\n", 5) == 5, "write on a socket");
	check(sys_recvmsg(as, &rmsg, 0) == 15 && !memcmp(buf, "message 0\nmore\n", 15), "recvmsg gets both segments");
	check(sys_write(as, "reply", 5) == 5 && sys_read(cs, buf, 100) == 5 && !memcmp(buf, "reply", 5),
	      "data flows back to the client");
	sys_close(cs);
	check(sys_read(as, buf, 100) == 0, "the peer's close reads as end of stream");
	sys_close(as);
	other.sin_port = htons(7778);
	refused = sys_socket(AF_INET, SOCK_STREAM, 0);
	check(sys_connect(refused, (struct sockaddr *)&other, sizeof(other)) == -ECONNREFUSED,
	      "connect to a closed port gives -ECONNREFUSED");
	sys_close(ls);
}

static void test_uaccess(void)
{
	check(sys_write(1, (const char *)0x10, 4) == -EFAULT && fixups == 1, "write from a bad pointer: fixup, -EFAULT");
	check(sys_open((const char *)0x10, O_RDONLY, 0) == -EFAULT && fixups == 2,
	      "open of a bad path pointer: strncpy_from_user fixup, -EFAULT");
	check(sys_mkdir((const char *)0xffff888000000000UL, 0755) == -EFAULT && fixups == 2,
	      "a kernel-half pointer fails access_ok without faulting");
}

static void test_syscall_dispatch(struct task_struct *p)
{
	struct pt_regs regs = { 0 };

	do_syscall_64(&regs, 39);
	check((long)regs.ax == p->pid, "do_syscall_64 dispatches getpid through sys_call_table");
	do_syscall_64(&regs, 999);
	check((long)regs.ax == -ENOSYS, "an unknown number gives -ENOSYS");
	do_syscall_64(&regs, 100);
	check((long)regs.ax == -ENOSYS, "an unimplemented number gives -ENOSYS");
	check(kernel_flag.slock == 0 && p->lock_depth == -1, "the big kernel lock is released after a system call");
	check(sys_wait4(-1, NULL, 0, NULL) == -ECHILD, "wait4 without children gives -ECHILD");
	check(sys_fork() == -ENOMEM && p->files && list_empty(&p->children), "a failed host_task_fork is undone");
}

void smoke_main(void)
{
	struct k_sigaction sa = { segv, SA_SIGINFO | SA_RESTORER, smoke_restorer, 0 };
	struct task_struct *p;

	native(13, 11, (long)&sa, 0, 8); /* rt_sigaction(SIGSEGV) */
	pcpu.self = &pcpu;
	pcpu.current_task = &init_task;
	pcpu.top_of_stack = (unsigned long)&kstack[2048];
	native(158, 0x1001, (long)&pcpu, 0, 0); /* arch_prctl(ARCH_SET_GS) */
	start_kernel();
	check(log_len > 0 && !strncmp(logbuf, "Linux version 6.1.0-int3", 24), "printk reaches host_log_store");
	p = int3_task_create("smoke");
	check(p && p->pid == 1 && !strcmp(p->comm, "smoke") && p->files->fd_array[2] && !p->parent,
	      "int3_task_create: pid 1, comm, fds 0-2, no parent");
	pcpu.current_task = p;
	check(sys_getpid() == 1, "getpid");
	test_vfs();
	test_blockdev();
	test_net();
	test_uaccess();
	test_syscall_dispatch(p);
	if (!__builtin_setjmp(exit_jmp))
		sys_exit(3);
	check(exit_code == 0x300 && p->exit_state == EXIT_DEAD && !p->files && kernel_flag.slock == 0,
	      "exit(3): wait status 0x300, EXIT_DEAD, files closed, host released the lock");
	out(failures ? "smoke: FAILED\n" : "smoke: all passed\n");
	native(231, failures, 0, 0, 0);
}

__asm__(".text\n.globl _start\n_start:\n\tandq $-16, %rsp\n\tcall smoke_main\n\thlt\n");
