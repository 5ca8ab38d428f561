/* Network devices (include/linux/netdevice.h); only the loopback device exists. */
#ifndef _LINUX_NETDEVICE_H
#define _LINUX_NETDEVICE_H

#include <linux/device.h>
#include <linux/skbuff.h>

#define NETDEV_TX_OK 0

struct net_device;

struct net_device_ops {
	int (*ndo_start_xmit)(struct sk_buff *skb, struct net_device *dev);
};

struct net_device_stats {
	unsigned long rx_packets;
	unsigned long tx_packets;
	unsigned long rx_bytes;
	unsigned long tx_bytes;
};

struct net_device {
	char name[16];
	unsigned int mtu;
	const struct net_device_ops *netdev_ops;
	struct net_device_stats stats;
	struct device dev;
};

extern struct net_device *loopback_dev;

int dev_queue_xmit(struct sk_buff *skb);
int netif_rx(struct sk_buff *skb);
int loopback_net_init(void);
int netdev_register_kobject(struct net_device *ndev);
int ip_rcv(struct sk_buff *skb, struct net_device *dev);

#endif
