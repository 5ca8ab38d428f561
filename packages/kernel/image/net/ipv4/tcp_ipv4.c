/* TCP over IPv4: the socket hash, connect, and the receive state machine (net/ipv4/tcp_ipv4.c). */
#include <linux/kernel.h>
#include <net/sock.h>

#define EPHEMERAL_PORT_LOW 32768

/* Every bound, listening or connected TCP socket. */
static struct sock *tcp_hashinfo;
static u16 next_ephemeral = EPHEMERAL_PORT_LOW;

void inet_hash(struct sock *sk)
{
	if (sk->sk_hashed)
		return;
	sk->sk_bind_next = tcp_hashinfo;
	tcp_hashinfo = sk;
	sk->sk_hashed = true;
}

void inet_unhash(struct sock *sk)
{
	struct sock **pp;

	for (pp = &tcp_hashinfo; *pp; pp = &(*pp)->sk_bind_next) {
		if (*pp == sk) {
			*pp = sk->sk_bind_next;
			break;
		}
	}
	sk->sk_hashed = false;
}

struct sock *inet_lookup_listener(u16 port)
{
	struct sock *sk;

	for (sk = tcp_hashinfo; sk; sk = sk->sk_bind_next)
		if (sk->sk_state == TCP_LISTEN && sk->sk_num == port)
			return sk;
	return NULL;
}

/* The socket a segment from saddr:sport to daddr:dport belongs to: connected first, then listening. */
struct sock *__inet_lookup(u32 saddr, u16 sport, u32 daddr, u16 dport)
{
	struct sock *sk;

	for (sk = tcp_hashinfo; sk; sk = sk->sk_bind_next)
		if (sk->sk_state != TCP_LISTEN && sk->sk_num == dport && sk->sk_dport == sport &&
		    sk->sk_daddr == saddr)
			return sk;
	return inet_lookup_listener(dport);
}

static bool inet_port_in_use(u16 port)
{
	struct sock *sk;

	for (sk = tcp_hashinfo; sk; sk = sk->sk_bind_next)
		if (sk->sk_num == port)
			return true;
	return false;
}

/* Give sk a free ephemeral local port. */
int inet_autobind(struct sock *sk)
{
	int tries;

	for (tries = 0; tries < 32768; tries++) {
		u16 port = next_ephemeral++;

		if (next_ephemeral == 0)
			next_ephemeral = EPHEMERAL_PORT_LOW;
		if (!inet_port_in_use(port)) {
			sk->sk_num = port;
			if (!sk->sk_rcv_saddr)
				sk->sk_rcv_saddr = INADDR_LOOPBACK;
			inet_hash(sk);
			return 0;
		}
	}
	return -EADDRINUSE;
}

/* Start an active open: pick a local port, enter SYN_SENT and send the SYN. */
int tcp_v4_connect(struct sock *sk, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_in *usin = (struct sockaddr_in *)uaddr;
	int err;

	if (addr_len < (int)sizeof(*usin))
		return -EINVAL;
	if (usin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if ((ntohl(usin->sin_addr.s_addr) >> 24) != 127)
		return -ENETUNREACH;
	if (!sk->sk_num) {
		err = inet_autobind(sk);
		if (err)
			return err;
	}
	sk->sk_daddr = ntohl(usin->sin_addr.s_addr);
	sk->sk_dport = ntohs(usin->sin_port);
	sk->sk_state = TCP_SYN_SENT;
	sk->snd_nxt = (u32)sk->sk_num << 16;
	return tcp_send_ctl(sk, TCPHDR_SYN);
}

/* A SYN reached a listener: make the established child, queue it for accept, answer SYN|ACK. */
static void tcp_v4_syn_recv_sock(struct sock *sk, const struct iphdr *iph, const struct tcphdr *th)
{
	struct sock *newsk;

	if (sk->sk_ack_backlog >= sk->sk_max_ack_backlog)
		return;
	newsk = sk_alloc(AF_INET, GFP_KERNEL);
	if (!newsk)
		return;
	newsk->sk_rcv_saddr = ntohl(iph->daddr);
	newsk->sk_num = sk->sk_num;
	newsk->sk_daddr = ntohl(iph->saddr);
	newsk->sk_dport = ntohs(th->source);
	newsk->sk_state = TCP_ESTABLISHED;
	newsk->rcv_nxt = ntohl(th->seq) + 1;
	newsk->snd_nxt = (u32)newsk->sk_dport << 16 | 1;
	inet_hash(newsk);
	inet_csk_reqsk_queue_add(sk, newsk);
	tcp_send_ctl(newsk, TCPHDR_SYN | TCPHDR_ACK);
}

/* Payload and FIN on a synchronized connection. */
static void tcp_data_queue(struct sock *sk, struct sk_buff *skb, const struct tcphdr *th)
{
	sk->rcv_nxt += skb->len + !!(th->flags & TCPHDR_FIN);
	if (th->flags & TCPHDR_FIN) {
		sk->sk_shutdown |= RCV_SHUTDOWN;
		if (sk->sk_state == TCP_ESTABLISHED)
			sk->sk_state = TCP_CLOSE_WAIT;
	}
	if (skb->len)
		skb_queue_tail(&sk->sk_receive_queue, skb);
	else
		kfree_skb(skb);
	wake_up(&sk->sk_wq);
}

/* Receive one segment: find its socket, then act by the socket's state. */
int tcp_v4_rcv(struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct tcphdr *th = tcp_hdr(skb);
	unsigned int doff = (th->doff >> 4) * 4;
	struct sock *sk;

	if (doff < sizeof(*th) || !skb_pull(skb, doff))
		goto discard;
	sk = __inet_lookup(ntohl(iph->saddr), ntohs(th->source), ntohl(iph->daddr), ntohs(th->dest));
	if (!sk) {
		if (!(th->flags & TCPHDR_RST))
			tcp_v4_send_reset(skb);
		goto discard;
	}
	switch (sk->sk_state) {
	case TCP_LISTEN:
		if ((th->flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN)
			tcp_v4_syn_recv_sock(sk, iph, th);
		goto discard;
	case TCP_SYN_SENT:
		if (th->flags & TCPHDR_RST) {
			sk->sk_state = TCP_CLOSE;
			sk->sk_err = ECONNREFUSED;
		} else if ((th->flags & (TCPHDR_SYN | TCPHDR_ACK)) == (TCPHDR_SYN | TCPHDR_ACK)) {
			sk->rcv_nxt = ntohl(th->seq) + 1;
			sk->sk_state = TCP_ESTABLISHED;
		}
		wake_up(&sk->sk_wq);
		goto discard;
	case TCP_SYN_RECV:
	case TCP_ESTABLISHED:
	case TCP_FIN_WAIT1:
	case TCP_FIN_WAIT2:
		if (th->flags & TCPHDR_RST) {
			sk->sk_state = TCP_CLOSE;
			sk->sk_err = ECONNRESET;
			wake_up(&sk->sk_wq);
			goto discard;
		}
		tcp_data_queue(sk, skb, th);
		return 0;
	case TCP_CLOSE_WAIT:
	case TCP_LAST_ACK:
	case TCP_CLOSING:
	case TCP_TIME_WAIT:
	case TCP_CLOSE:
	default:
		goto discard;
	}
discard:
	kfree_skb(skb);
	return 0;
}
