/* TCP send, receive and close (net/ipv4/tcp.c). */
#include <linux/kernel.h>
#include <net/sock.h>

/*
 * Copy `size` bytes from the user's iovecs into segments of at most TCP_MSS bytes and transmit
 * each. Returns the bytes sent, or a negative errno if none were.
 */
int tcp_sendmsg(struct sock *sk, struct msghdr *msg, size_t size)
{
	size_t copied = 0;
	int err = 0;

	if (sk->sk_state != TCP_ESTABLISHED && sk->sk_state != TCP_CLOSE_WAIT)
		return sk->sk_state == TCP_CLOSE ? -ENOTCONN : -EPIPE;
	while (copied < size) {
		size_t chunk = min(size - copied, (size_t)TCP_MSS);
		struct sk_buff *skb = alloc_skb(MAX_TCP_HEADER + chunk, GFP_KERNEL);

		if (!skb) {
			err = -ENOMEM;
			break;
		}
		skb_reserve(skb, MAX_TCP_HEADER);
		if (copy_from_iter(skb_put(skb, chunk), chunk, &msg->msg_iter) != chunk) {
			kfree_skb(skb);
			err = -EFAULT;
			break;
		}
		err = tcp_transmit_skb(sk, skb, TCPHDR_ACK | TCPHDR_PSH);
		if (err)
			break;
		copied += chunk;
	}
	return copied ? (int)copied : err;
}

/* Sleep until data, end of stream or an error; then copy up to `len` queued bytes out. */
int tcp_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags, int *addr_len)
{
	size_t copied = 0;
	struct sk_buff *skb;

	if (sk->sk_state == TCP_LISTEN)
		return -ENOTCONN;
	wait_event(sk->sk_wq, sk->sk_receive_queue.qlen || (sk->sk_shutdown & RCV_SHUTDOWN) ||
				      sk->sk_state == TCP_CLOSE);
	while (copied < len && (skb = sk->sk_receive_queue.next)) {
		size_t n = min((size_t)skb->len, len - copied);

		if (copy_to_iter(skb->data, n, &msg->msg_iter) != n)
			return copied ? (int)copied : -EFAULT;
		skb_pull(skb, n);
		copied += n;
		if (!skb->len)
			kfree_skb(skb_dequeue(&sk->sk_receive_queue));
	}
	if (!copied && sk->sk_err && sk->sk_state == TCP_CLOSE)
		return -sk->sk_err;
	return copied;
}

/* Close: a listener drops its unaccepted children; a connection sends FIN. Frees sk. */
void tcp_close(struct sock *sk, long timeout)
{
	struct sock *child;

	if (sk->sk_state == TCP_LISTEN) {
		while ((child = sk->icsk_accept_head)) {
			sk->icsk_accept_head = child->icsk_accept_next;
			tcp_close(child, 0);
		}
	} else if (sk->sk_state == TCP_ESTABLISHED || sk->sk_state == TCP_CLOSE_WAIT) {
		tcp_send_ctl(sk, TCPHDR_FIN | TCPHDR_ACK);
	}
	sk->sk_state = TCP_CLOSE;
	inet_unhash(sk);
	sk_free(sk);
}
