/* Devices with show-attributes, read through small sysfs files (include/linux/device.h). */
#ifndef _LINUX_DEVICE_H
#define _LINUX_DEVICE_H

#include <linux/fs.h>
#include <linux/types.h>

#define PAGE_SIZE 4096

struct device;

struct device_attribute {
	const char *name;
	ssize_t (*show)(struct device *dev, struct device_attribute *attr, char *buf);
};

struct device {
	const char *init_name;
	void *driver_data;
};

int sysfs_emit(char *buf, const char *fmt, ...) __printf(2, 3);
int device_create_file(struct device *dev, const struct device_attribute *attr, const char *dir);
int sysfs_init(void);

#endif
