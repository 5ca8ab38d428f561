/* The loopback device `lo` (drivers/net/loopback.c): every transmitted packet is received. */
#include <linux/kernel.h>
#include <linux/netdevice.h>

static struct net_device loopback_dev_storage;
struct net_device *loopback_dev;

static int loopback_xmit(struct sk_buff *skb, struct net_device *dev)
{
	unsigned int len = skb->len;

	dev->stats.tx_packets++;
	dev->stats.tx_bytes += len;
	netif_rx(skb);
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	return NETDEV_TX_OK;
}

static const struct net_device_ops loopback_ops = {
	.ndo_start_xmit = loopback_xmit,
};

int loopback_net_init(void)
{
	struct net_device *dev = &loopback_dev_storage;

	strscpy(dev->name, "lo", sizeof(dev->name));
	dev->mtu = 65536;
	dev->netdev_ops = &loopback_ops;
	dev->dev.init_name = dev->name;
	loopback_dev = dev;
	return netdev_register_kobject(dev);
}
