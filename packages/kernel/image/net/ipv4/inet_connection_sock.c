/* Listening sockets and their accept queue (net/ipv4/inet_connection_sock.c). */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <net/sock.h>

int inet_csk_listen_start(struct sock *sk)
{
	int err = 0;

	if (!sk->sk_num)
		err = inet_autobind(sk);
	if (err)
		return err;
	sk->sk_state = TCP_LISTEN;
	sk->sk_ack_backlog = 0;
	inet_hash(sk);
	return 0;
}

/* Queue an established child for accept() and wake the acceptor. */
void inet_csk_reqsk_queue_add(struct sock *sk, struct sock *child)
{
	child->icsk_accept_next = NULL;
	if (sk->icsk_accept_tail)
		sk->icsk_accept_tail->icsk_accept_next = child;
	else
		sk->icsk_accept_head = child;
	sk->icsk_accept_tail = child;
	sk->sk_ack_backlog++;
	wake_up(&sk->sk_wq);
}

/* Wait for and dequeue the oldest established connection of a listening socket. */
struct sock *inet_csk_accept(struct sock *sk, int flags, int *err, bool kern)
{
	struct sock *newsk;

	if (sk->sk_state != TCP_LISTEN) {
		*err = -EINVAL;
		return NULL;
	}
	if (!sk->icsk_accept_head && (flags & 04000)) {
		*err = -EAGAIN; /* O_NONBLOCK */
		return NULL;
	}
	wait_event(sk->sk_wq, sk->icsk_accept_head != NULL);
	newsk = sk->icsk_accept_head;
	sk->icsk_accept_head = newsk->icsk_accept_next;
	if (!sk->icsk_accept_head)
		sk->icsk_accept_tail = NULL;
	sk->sk_ack_backlog--;
	newsk->icsk_accept_next = NULL;
	*err = 0;
	return newsk;
}
