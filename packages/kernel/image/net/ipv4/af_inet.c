/* The AF_INET stream protocol operations (net/ipv4/af_inet.c). */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <net/sock.h>

static int inet_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (sk) {
		sock->sk = NULL;
		tcp_close(sk, 0);
	}
	return 0;
}

static int inet_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in *addr = (struct sockaddr_in *)uaddr;
	struct sock *sk = sock->sk;
	u16 port;

	if (addr_len < (int)sizeof(*addr))
		return -EINVAL;
	if (addr->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (sk->sk_num)
		return -EINVAL;
	port = ntohs(addr->sin_port);
	if (!port)
		return inet_autobind(sk);
	if (__inet_lookup(0, 0, 0, port) || inet_lookup_listener(port))
		return -EADDRINUSE;
	sk->sk_rcv_saddr = ntohl(addr->sin_addr.s_addr);
	sk->sk_num = port;
	inet_hash(sk);
	return 0;
}

static int inet_stream_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	int err;

	if (sock->state == SS_CONNECTED)
		return -EISCONN;
	if (sock->state != SS_UNCONNECTED || sk->sk_state == TCP_LISTEN)
		return -EINVAL;
	err = tcp_v4_connect(sk, uaddr, addr_len);
	if (err)
		return err;
	sock->state = SS_CONNECTING;
	wait_event(sk->sk_wq, sk->sk_state != TCP_SYN_SENT);
	if (sk->sk_state != TCP_ESTABLISHED) {
		sock->state = SS_UNCONNECTED;
		return sk->sk_err ? -sk->sk_err : -ECONNREFUSED;
	}
	sock->state = SS_CONNECTED;
	return 0;
}

static int inet_accept(struct socket *sock, struct socket *newsock, int flags, bool kern)
{
	int err = -EINVAL;
	struct sock *sk2 = inet_csk_accept(sock->sk, flags, &err, kern);

	if (!sk2)
		return err;
	sk2->sk_socket = newsock;
	newsock->sk = sk2;
	newsock->state = SS_CONNECTED;
	return 0;
}

static int inet_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;

	if (sock->state != SS_UNCONNECTED)
		return -EINVAL;
	sk->sk_max_ack_backlog = backlog > 0 ? backlog : 1;
	if (sk->sk_state == TCP_LISTEN)
		return 0;
	return inet_csk_listen_start(sk);
}

static int inet_sendmsg(struct socket *sock, struct msghdr *msg, size_t size)
{
	return tcp_sendmsg(sock->sk, msg, size);
}

static int inet_recvmsg(struct socket *sock, struct msghdr *msg, size_t size, int flags)
{
	int addr_len = 0;

	return tcp_recvmsg(sock->sk, msg, size, flags, &addr_len);
}

const struct proto_ops inet_stream_ops = {
	.family = AF_INET,
	.release = inet_release,
	.bind = inet_bind,
	.connect = inet_stream_connect,
	.accept = inet_accept,
	.listen = inet_listen,
	.sendmsg = inet_sendmsg,
	.recvmsg = inet_recvmsg,
};

/* Attach a new TCP sock to sock. */
int inet_create(struct socket *sock, int protocol)
{
	struct sock *sk;

	if (protocol && protocol != IPPROTO_TCP)
		return -EPROTONOSUPPORT;
	sk = sk_alloc(AF_INET, GFP_KERNEL);
	if (!sk)
		return -ENOMEM;
	sk->sk_socket = sock;
	sock->sk = sk;
	sock->ops = &inet_stream_ops;
	sock->state = SS_UNCONNECTED;
	return 0;
}
