/* Socket buffers and the IPv4/TCP headers they carry (include/linux/skbuff.h, ip.h, tcp.h). */
#ifndef _LINUX_SKBUFF_H
#define _LINUX_SKBUFF_H

#include <linux/types.h>

struct sock;
struct net_device;

struct sk_buff {
	struct sk_buff *next;
	struct sock *sk;
	struct net_device *dev;
	unsigned int len;        /* bytes from data to tail */
	unsigned char *head;     /* start of the buffer */
	unsigned char *data;     /* start of the current header or payload */
	unsigned char *tail;
	unsigned char *end;
	unsigned char *network_header;
	unsigned char *transport_header;
};

struct sk_buff_head {
	struct sk_buff *next;
	struct sk_buff *tail;
	u32 qlen;
};

struct iphdr {
	u8 ihl_version;  /* version 4 in the high nibble, header length in words in the low one */
	u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	u8 ttl;
	u8 protocol;
	u16 check;
	__be32 saddr;
	__be32 daddr;
};

#define TCPHDR_FIN 0x01
#define TCPHDR_SYN 0x02
#define TCPHDR_RST 0x04
#define TCPHDR_PSH 0x08
#define TCPHDR_ACK 0x10

struct tcphdr {
	__be16 source;
	__be16 dest;
	__be32 seq;
	__be32 ack_seq;
	u8 doff;         /* header length in words, in the high nibble */
	u8 flags;        /* TCPHDR_* */
	__be16 window;
	u16 check;
	u16 urg_ptr;
};

_Static_assert(sizeof(struct iphdr) == 20, "iphdr");
_Static_assert(sizeof(struct tcphdr) == 20, "tcphdr");

#define MAX_TCP_HEADER (sizeof(struct iphdr) + sizeof(struct tcphdr) + 16)

struct sk_buff *alloc_skb(unsigned int size, gfp_t priority);
void kfree_skb(struct sk_buff *skb);
void skb_reserve(struct sk_buff *skb, int len);
void *skb_put(struct sk_buff *skb, unsigned int len);
void *skb_push(struct sk_buff *skb, unsigned int len);
void *skb_pull(struct sk_buff *skb, unsigned int len);
void skb_queue_tail(struct sk_buff_head *list, struct sk_buff *newsk);
struct sk_buff *skb_dequeue(struct sk_buff_head *list);
void skb_queue_purge(struct sk_buff_head *list);

static inline struct iphdr *ip_hdr(const struct sk_buff *skb)
{
	return (struct iphdr *)skb->network_header;
}

static inline struct tcphdr *tcp_hdr(const struct sk_buff *skb)
{
	return (struct tcphdr *)skb->transport_header;
}

#endif
