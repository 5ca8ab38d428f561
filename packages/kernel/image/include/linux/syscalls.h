/* System call bodies, 2.6-era direct-argument style: sys_call_table calls them with six longs. */
#ifndef _LINUX_SYSCALLS_H
#define _LINUX_SYSCALLS_H

#include <linux/types.h>

struct sockaddr;
struct user_msghdr;
struct __kernel_timespec;
struct rusage;

long sys_read(unsigned int fd, char __user *buf, size_t count);
long sys_write(unsigned int fd, const char __user *buf, size_t count);
long sys_open(const char __user *filename, int flags, umode_t mode);
long sys_close(unsigned int fd);
long sys_sched_yield(void);
long sys_nanosleep(struct __kernel_timespec __user *rqtp, struct __kernel_timespec __user *rmtp);
long sys_getpid(void);
long sys_socket(int family, int type, int protocol);
long sys_connect(int fd, struct sockaddr __user *uservaddr, int addrlen);
long sys_accept(int fd, struct sockaddr __user *upeer_sockaddr, int __user *upeer_addrlen);
long sys_sendmsg(int fd, struct user_msghdr __user *msg, unsigned int flags);
long sys_recvmsg(int fd, struct user_msghdr __user *msg, unsigned int flags);
long sys_bind(int fd, struct sockaddr __user *umyaddr, int addrlen);
long sys_listen(int fd, int backlog);
long sys_clone(unsigned long clone_flags, unsigned long newsp, int __user *parent_tidptr,
	       int __user *child_tidptr, unsigned long tls);
long sys_fork(void);
long sys_exit(int error_code);
long sys_wait4(pid_t upid, int __user *stat_addr, int options, struct rusage __user *ru);
long sys_mkdir(const char __user *pathname, umode_t mode);
long sys_symlink(const char __user *oldname, const char __user *newname);
long sys_getppid(void);
long sys_gettid(void);
long sys_clock_gettime(int which_clock, struct __kernel_timespec __user *tp);
long sys_exit_group(int error_code);
long sys_openat(int dfd, const char __user *filename, int flags, umode_t mode);
long sys_mkdirat(int dfd, const char __user *pathname, umode_t mode);

long sys_ni_syscall(void);

#endif
