/* IPv4 output (net/ipv4/ip_output.c): loopback is the only route. */
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <net/sock.h>

#define IPDEFTTL 64

static u16 ip_ident;

/* Prepend an IPv4 header for fl's addresses and send the packet out of `lo`. */
int ip_queue_xmit(struct sock *sk, struct sk_buff *skb, struct flowi4 *fl)
{
	struct iphdr *iph;

	if ((fl->daddr >> 24) != 127) {
		kfree_skb(skb);
		return -ENETUNREACH;
	}
	iph = skb_push(skb, sizeof(*iph));
	skb->network_header = (unsigned char *)iph;
	iph->ihl_version = 0x45;
	iph->tos = 0;
	iph->tot_len = htons(skb->len);
	iph->id = htons(ip_ident++);
	iph->frag_off = 0;
	iph->ttl = IPDEFTTL;
	iph->protocol = fl->flowi4_proto;
	iph->check = 0;
	iph->saddr = htonl(fl->saddr);
	iph->daddr = htonl(fl->daddr);
	skb->sk = sk;
	skb->dev = loopback_dev;
	return dev_queue_xmit(skb);
}
