/* The socket layer and its system calls (net/socket.c). */
#include <asm/uaccess.h>
#include <linux/fdtable.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <net/sock.h>

#define SOCK_TYPE_MASK 0xf

static const struct file_operations socket_file_ops;

struct socket_alloc {
	struct socket socket;
	struct inode vfs_inode;
};

/* A new socket with its sockfs inode. */
struct socket *sock_alloc(void)
{
	struct socket_alloc *ei = kzalloc(sizeof(*ei), GFP_KERNEL);

	if (!ei)
		return NULL;
	ei->vfs_inode.i_mode = S_IFSOCK | 0777;
	ei->vfs_inode.i_private = &ei->socket;
	ei->socket.state = SS_UNCONNECTED;
	return &ei->socket;
}

void sock_release(struct socket *sock)
{
	if (sock->ops)
		sock->ops->release(sock);
	kfree(container_of(sock, struct socket_alloc, socket));
}

noinline int sock_sendmsg(struct socket *sock, struct msghdr *msg)
{
	return sock->ops->sendmsg(sock, msg, iov_iter_count(&msg->msg_iter));
}

noinline int sock_recvmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	return sock->ops->recvmsg(sock, msg, iov_iter_count(&msg->msg_iter), flags);
}

static ssize_t sock_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { 0 };

	iov_iter_init(&msg.msg_iter, READ, &iov, 1, len);
	return sock_recvmsg(file->private_data, &msg, 0);
}

static ssize_t sock_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	struct iovec iov = { .iov_base = (void __user *)buf, .iov_len = len };
	struct msghdr msg = { 0 };

	iov_iter_init(&msg.msg_iter, WRITE, &iov, 1, len);
	return sock_sendmsg(file->private_data, &msg);
}

static int sock_close(struct inode *inode, struct file *file)
{
	sock_release(file->private_data);
	return 0;
}

static const struct file_operations socket_file_ops = {
	.read = sock_read,
	.write = sock_write,
	.release = sock_close,
};

/* Install sock as a new descriptor of current. */
static int sock_map_fd(struct socket *sock, int flags)
{
	int fd = get_unused_fd_flags(flags);
	struct file *file;

	if (fd < 0)
		return fd;
	file = alloc_empty_file(O_RDWR | (flags & 04000));
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		return PTR_ERR(file);
	}
	file->f_inode = &container_of(sock, struct socket_alloc, socket)->vfs_inode;
	file->f_op = &socket_file_ops;
	file->f_mode = FMODE_READ | FMODE_WRITE;
	file->private_data = sock;
	sock->file = file;
	fd_install(fd, file);
	return fd;
}

/* The socket open on fd, with a file reference the caller drops with fput(sock->file). */
static struct socket *sockfd_lookup(int fd, int *err)
{
	struct file *file = fget(fd);

	if (!file) {
		*err = -EBADF;
		return NULL;
	}
	if (file->f_op != &socket_file_ops) {
		fput(file);
		*err = -ENOTSOCK;
		return NULL;
	}
	*err = 0;
	return file->private_data;
}

static int move_addr_to_kernel(void __user *uaddr, int ulen, struct sockaddr_in *kaddr)
{
	if (ulen < 0 || ulen > (int)sizeof(*kaddr))
		return -EINVAL;
	memset(kaddr, 0, sizeof(*kaddr));
	if (ulen && copy_from_user(kaddr, uaddr, ulen))
		return -EFAULT;
	return 0;
}

long sys_socket(int family, int type, int protocol)
{
	struct socket *sock;
	int err, fd;

	if (family != AF_INET)
		return -EAFNOSUPPORT;
	if ((type & SOCK_TYPE_MASK) != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	sock = sock_alloc();
	if (!sock)
		return -ENOMEM;
	sock->type = SOCK_STREAM;
	err = inet_create(sock, protocol);
	if (err) {
		sock_release(sock);
		return err;
	}
	fd = sock_map_fd(sock, type & ~SOCK_TYPE_MASK);
	if (fd < 0)
		sock_release(sock);
	return fd;
}

long sys_bind(int fd, struct sockaddr __user *umyaddr, int addrlen)
{
	struct sockaddr_in address;
	int err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	err = move_addr_to_kernel(umyaddr, addrlen, &address);
	if (!err)
		err = sock->ops->bind(sock, (struct sockaddr *)&address, addrlen);
	fput(sock->file);
	return err;
}

long sys_listen(int fd, int backlog)
{
	int err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	err = sock->ops->listen(sock, backlog);
	fput(sock->file);
	return err;
}

long sys_connect(int fd, struct sockaddr __user *uservaddr, int addrlen)
{
	struct sockaddr_in address;
	int err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	err = move_addr_to_kernel(uservaddr, addrlen, &address);
	if (!err)
		err = sock->ops->connect(sock, (struct sockaddr *)&address, addrlen, sock->file->f_flags);
	fput(sock->file);
	return err;
}

/* accept(2): a new descriptor for the oldest pending connection, and the peer's address. */
static long __sys_accept4(int fd, struct sockaddr __user *upeer_sockaddr, int __user *upeer_addrlen, int flags)
{
	struct socket *sock, *newsock;
	struct sockaddr_in peer = { .sin_family = AF_INET };
	int err, len, newfd;

	sock = sockfd_lookup(fd, &err);
	if (!sock)
		return err;
	newsock = sock_alloc();
	err = -ENOMEM;
	if (!newsock)
		goto out;
	newsock->type = sock->type;
	err = sock->ops->accept(sock, newsock, sock->file->f_flags, false);
	if (err < 0)
		goto out_release;
	newsock->ops = sock->ops;
	if (upeer_sockaddr) {
		peer.sin_port = htons(newsock->sk->sk_dport);
		peer.sin_addr.s_addr = htonl(newsock->sk->sk_daddr);
		err = -EFAULT;
		if (get_user(len, upeer_addrlen) || len < 0)
			goto out_release;
		if (copy_to_user(upeer_sockaddr, &peer, min((size_t)len, sizeof(peer))) ||
		    put_user((int)sizeof(peer), upeer_addrlen))
			goto out_release;
	}
	newfd = sock_map_fd(newsock, flags);
	err = newfd;
	if (newfd < 0)
		goto out_release;
	fput(sock->file);
	return newfd;
out_release:
	sock_release(newsock);
out:
	fput(sock->file);
	return err;
}

long sys_accept(int fd, struct sockaddr __user *upeer_sockaddr, int __user *upeer_addrlen)
{
	return __sys_accept4(fd, upeer_sockaddr, upeer_addrlen, 0);
}

/* Copy a user msghdr and its iovec array in, and set up msg->msg_iter over them. */
static int copy_msghdr_from_user(struct msghdr *kmsg, struct user_msghdr __user *umsg, struct iovec *iov,
				 int direction)
{
	struct user_msghdr msg;
	size_t total = 0;
	unsigned long i;

	if (copy_from_user(&msg, umsg, sizeof(msg)))
		return -EFAULT;
	if (msg.msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	if (copy_from_user(iov, msg.msg_iov, msg.msg_iovlen * sizeof(*iov)))
		return -EFAULT;
	for (i = 0; i < msg.msg_iovlen; i++) {
		if (iov[i].iov_len > 0x7ffff000 - total)
			return -EINVAL;
		total += iov[i].iov_len;
	}
	kmsg->msg_name = NULL;
	kmsg->msg_namelen = 0;
	kmsg->msg_flags = 0;
	iov_iter_init(&kmsg->msg_iter, direction, iov, msg.msg_iovlen, total);
	return 0;
}

static long ___sys_msg(int fd, struct user_msghdr __user *umsg, unsigned int flags, bool send)
{
	struct iovec iovstack[UIO_MAXIOV];
	struct msghdr msg;
	int err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	err = copy_msghdr_from_user(&msg, umsg, iovstack, send ? WRITE : READ);
	if (!err) {
		msg.msg_flags = flags;
		err = send ? sock_sendmsg(sock, &msg) : sock_recvmsg(sock, &msg, flags);
	}
	fput(sock->file);
	return err;
}

long sys_sendmsg(int fd, struct user_msghdr __user *msg, unsigned int flags)
{
	return ___sys_msg(fd, msg, flags, true);
}

long sys_recvmsg(int fd, struct user_msghdr __user *msg, unsigned int flags)
{
	return ___sys_msg(fd, msg, flags, false);
}
