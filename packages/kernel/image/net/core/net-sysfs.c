/* /sys/class/net/<dev>/name (net/core/net-sysfs.c). */
#include <linux/kernel.h>
#include <linux/netdevice.h>

static ssize_t name_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct net_device *ndev = container_of(dev, struct net_device, dev);

	return sysfs_emit(buf, "%s\n", ndev->name);
}

static const struct device_attribute dev_attr_name = { .name = "name", .show = name_show };

int netdev_register_kobject(struct net_device *ndev)
{
	char dir[48];

	snprintf(dir, sizeof(dir), "/sys/class/net/%s", ndev->name);
	return device_create_file(&ndev->dev, &dev_attr_name, dir);
}
