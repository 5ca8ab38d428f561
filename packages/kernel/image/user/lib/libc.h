/* The tiny libc the int3 workloads link: raw system calls, string helpers and printf. */
#ifndef INT3_LIBC_H
#define INT3_LIBC_H

typedef unsigned long size_t;
typedef long ssize_t;
typedef int pid_t;
typedef __builtin_va_list va_list;
#define va_start(v, l) __builtin_va_start(v, l)
#define va_end(v) __builtin_va_end(v)
#define va_arg(v, T) __builtin_va_arg(v, T)
#define NULL ((void *)0)

#define O_RDONLY 00
#define O_WRONLY 01
#define O_RDWR 02
#define O_CREAT 0100
#define O_TRUNC 01000
#define O_DIRECT 040000
#define AF_INET 2
#define SOCK_STREAM 1
#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WTERMSIG(s) ((s) & 0x7f)

struct iovec {
	void *iov_base;
	size_t iov_len;
};

struct msghdr {
	void *msg_name;
	int msg_namelen;
	struct iovec *msg_iov;
	unsigned long msg_iovlen;
	void *msg_control;
	unsigned long msg_controllen;
	unsigned int msg_flags;
};

struct sockaddr_in {
	unsigned short sin_family;
	unsigned short sin_port; /* network byte order */
	unsigned int sin_addr;   /* network byte order */
	unsigned char pad[8];
};

struct timespec {
	long tv_sec;
	long tv_nsec;
};

/* System calls return -errno on failure, like the raw kernel interface. */
long syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
ssize_t read(int fd, void *buf, size_t count);
ssize_t write(int fd, const void *buf, size_t count);
int open(const char *path, int flags, int mode);
int close(int fd);
int mkdir(const char *path, int mode);
pid_t getpid(void);
pid_t fork(void);
pid_t waitpid(pid_t pid, int *status, int options);
int nanosleep(const struct timespec *req, struct timespec *rem);
int socket(int family, int type, int protocol);
int bind(int fd, const struct sockaddr_in *addr, int len);
int listen(int fd, int backlog);
int accept(int fd, struct sockaddr_in *addr, int *len);
int connect(int fd, const struct sockaddr_in *addr, int len);
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t recvmsg(int fd, struct msghdr *msg, int flags);
void __attribute__((noreturn)) exit(int status);

size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
long atol(const char *s);
unsigned short htons(unsigned short x);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int dprintf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "<prog>: <what>: error <n>" to stderr and return 1. */
int fail(const char *prog, const char *what, long err);

#endif
