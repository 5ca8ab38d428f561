/*
 * Device transmit and receive (net/core/dev.c). netif_rx queues on a backlog that the outermost
 * caller drains at once, as the receive softirq would: a reply sent while a packet is being
 * received is delivered after it, never re-entrantly.
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>

static struct sk_buff_head backlog;
static bool in_net_rx_action;

int dev_queue_xmit(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	return dev->netdev_ops->ndo_start_xmit(skb, dev);
}

static int __netif_receive_skb(struct sk_buff *skb)
{
	return ip_rcv(skb, skb->dev);
}

static void net_rx_action(void)
{
	struct sk_buff *skb;

	in_net_rx_action = true;
	while ((skb = skb_dequeue(&backlog)))
		__netif_receive_skb(skb);
	in_net_rx_action = false;
}

int netif_rx(struct sk_buff *skb)
{
	skb_queue_tail(&backlog, skb);
	if (!in_net_rx_action)
		net_rx_action();
	return 0;
}
