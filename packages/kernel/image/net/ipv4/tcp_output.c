/* Building and sending TCP segments (net/ipv4/tcp_output.c). */
#include <linux/kernel.h>
#include <net/sock.h>

/* Prepend a TCP header for sk's connection and pass the segment to IP. */
noinline int tcp_transmit_skb(struct sock *sk, struct sk_buff *skb, u8 tcp_flags)
{
	struct flowi4 fl = { .saddr = sk->sk_rcv_saddr, .daddr = sk->sk_daddr, .flowi4_proto = IPPROTO_TCP };
	unsigned int payload = skb->len;
	struct tcphdr *th = skb_push(skb, sizeof(*th));

	skb->transport_header = (unsigned char *)th;
	th->source = htons(sk->sk_num);
	th->dest = htons(sk->sk_dport);
	th->seq = htonl(sk->snd_nxt);
	th->ack_seq = htonl(sk->rcv_nxt);
	th->doff = (sizeof(*th) / 4) << 4;
	th->flags = tcp_flags;
	th->window = htons(65535);
	th->check = 0;
	th->urg_ptr = 0;
	/* SYN and FIN each occupy one sequence number. */
	sk->snd_nxt += payload + !!(tcp_flags & (TCPHDR_SYN | TCPHDR_FIN));
	return ip_queue_xmit(sk, skb, &fl);
}

/* Send a segment without payload: SYN, SYN|ACK or FIN|ACK. */
int tcp_send_ctl(struct sock *sk, u8 tcp_flags)
{
	struct sk_buff *skb = alloc_skb(MAX_TCP_HEADER, GFP_KERNEL);

	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, MAX_TCP_HEADER);
	return tcp_transmit_skb(sk, skb, tcp_flags);
}

/* Answer a segment for which no socket exists with RST. */
void tcp_v4_send_reset(struct sk_buff *in)
{
	const struct iphdr *iph = ip_hdr(in);
	const struct tcphdr *ith = tcp_hdr(in);
	struct flowi4 fl = { .saddr = ntohl(iph->daddr), .daddr = ntohl(iph->saddr), .flowi4_proto = IPPROTO_TCP };
	struct sk_buff *skb = alloc_skb(MAX_TCP_HEADER, GFP_KERNEL);
	struct tcphdr *th;

	if (!skb)
		return;
	skb_reserve(skb, MAX_TCP_HEADER);
	th = skb_push(skb, sizeof(*th));
	skb->transport_header = (unsigned char *)th;
	memset(th, 0, sizeof(*th));
	th->source = ith->dest;
	th->dest = ith->source;
	th->ack_seq = htonl(ntohl(ith->seq) + 1);
	th->doff = (sizeof(*th) / 4) << 4;
	th->flags = TCPHDR_RST | TCPHDR_ACK;
	ip_queue_xmit(NULL, skb, &fl);
}
