/* IPv4 input (net/ipv4/ip_input.c). */
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <net/sock.h>

/* Hand a packet addressed to us to its transport protocol. */
int ip_local_deliver(struct sk_buff *skb)
{
	if (ip_hdr(skb)->protocol == IPPROTO_TCP)
		return tcp_v4_rcv(skb);
	kfree_skb(skb);
	return 0;
}

/* Validate the IPv4 header and strip it. */
int ip_rcv(struct sk_buff *skb, struct net_device *dev)
{
	struct iphdr *iph = (struct iphdr *)skb->data;
	unsigned int ihl;

	if (skb->len < sizeof(*iph) || (iph->ihl_version >> 4) != 4)
		goto drop;
	ihl = (iph->ihl_version & 0xf) * 4;
	if (ihl < sizeof(*iph) || ntohs(iph->tot_len) != skb->len)
		goto drop;
	skb->network_header = skb->data;
	skb_pull(skb, ihl);
	skb->transport_header = skb->data;
	return ip_local_deliver(skb);
drop:
	kfree_skb(skb);
	return 0;
}
