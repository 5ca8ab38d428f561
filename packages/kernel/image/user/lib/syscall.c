/* Raw system calls: `syscall` with the number in rax and arguments in rdi rsi rdx r10 r8 r9. */
#include "libc.h"

long syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

#define SC(nr, a, b, c) syscall6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)

ssize_t read(int fd, void *buf, size_t count) { return SC(0, fd, buf, count); }
ssize_t write(int fd, const void *buf, size_t count) { return SC(1, fd, buf, count); }
int open(const char *path, int flags, int mode) { return SC(2, path, flags, mode); }
int close(int fd) { return SC(3, fd, 0, 0); }
int nanosleep(const struct timespec *req, struct timespec *rem) { return SC(35, req, rem, 0); }
pid_t getpid(void) { return SC(39, 0, 0, 0); }
int socket(int family, int type, int protocol) { return SC(41, family, type, protocol); }
int connect(int fd, const struct sockaddr_in *addr, int len) { return SC(42, fd, addr, len); }
int accept(int fd, struct sockaddr_in *addr, int *len) { return SC(43, fd, addr, len); }
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags) { return SC(46, fd, msg, flags); }
ssize_t recvmsg(int fd, struct msghdr *msg, int flags) { return SC(47, fd, msg, flags); }
int bind(int fd, const struct sockaddr_in *addr, int len) { return SC(49, fd, addr, len); }
int listen(int fd, int backlog) { return SC(50, fd, backlog, 0); }
pid_t fork(void) { return SC(57, 0, 0, 0); }
pid_t waitpid(pid_t pid, int *status, int options) { return syscall6(61, pid, (long)status, options, 0, 0, 0); }
int mkdir(const char *path, int mode) { return SC(83, path, mode, 0); }

void exit(int status)
{
	for (;;)
		SC(231, status, 0, 0);
}
