/* BSD sockets: struct socket, proto_ops, msghdr, sockaddr_in (include/linux/net.h, socket.h, in.h). */
#ifndef _LINUX_NET_H
#define _LINUX_NET_H

#include <linux/types.h>
#include <linux/uio.h>

#define AF_INET 2
#define SOCK_STREAM 1
#define IPPROTO_TCP 6
#define INADDR_LOOPBACK 0x7f000001u
#define UIO_MAXIOV 8

typedef enum {
	SS_FREE = 0,
	SS_UNCONNECTED,
	SS_CONNECTING,
	SS_CONNECTED,
	SS_DISCONNECTING
} socket_state;

struct sockaddr {
	u16 sa_family;
	char sa_data[14];
};

struct in_addr {
	__be32 s_addr;
};

struct sockaddr_in {
	u16 sin_family;
	__be16 sin_port;
	struct in_addr sin_addr;
	unsigned char __pad[8];
};

/* The user-space layout of struct msghdr (struct user_msghdr in Linux). */
struct user_msghdr {
	void __user *msg_name;
	int msg_namelen;
	struct iovec __user *msg_iov;
	unsigned long msg_iovlen;
	void __user *msg_control;
	unsigned long msg_controllen;
	unsigned int msg_flags;
};

struct msghdr {
	void *msg_name;
	int msg_namelen;
	struct iov_iter msg_iter;
	unsigned int msg_flags;
};

struct socket;
struct sock;
struct file;

struct proto_ops {
	int family;
	int (*release)(struct socket *sock);
	int (*bind)(struct socket *sock, struct sockaddr *myaddr, int sockaddr_len);
	int (*connect)(struct socket *sock, struct sockaddr *vaddr, int sockaddr_len, int flags);
	int (*accept)(struct socket *sock, struct socket *newsock, int flags, bool kern);
	int (*listen)(struct socket *sock, int len);
	int (*sendmsg)(struct socket *sock, struct msghdr *m, size_t total_len);
	int (*recvmsg)(struct socket *sock, struct msghdr *m, size_t total_len, int flags);
};

struct socket {
	socket_state state;
	short type;
	struct file *file;
	struct sock *sk;
	const struct proto_ops *ops;
};

struct socket *sock_alloc(void);
void sock_release(struct socket *sock);
int sock_sendmsg(struct socket *sock, struct msghdr *msg);
int sock_recvmsg(struct socket *sock, struct msghdr *msg, int flags);
int inet_create(struct socket *sock, int protocol);
extern const struct proto_ops inet_stream_ops;

static inline u16 htons(u16 x)
{
	return __builtin_bswap16(x);
}

static inline u32 htonl(u32 x)
{
	return __builtin_bswap32(x);
}

#define ntohs htons
#define ntohl htonl

#endif
