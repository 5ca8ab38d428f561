/*
 * nodev: a module whose init fails with -ENODEV, as a driver that finds no device does. The loader
 * must undo everything: no kallsyms entries, no mappings, and cleanup_module never runs.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include "module.h"

static int nodev_probes;

int init_module(void)
{
	void *p = kmalloc(32, GFP_KERNEL);

	nodev_probes++;
	kfree(p);
	printk(KERN_ERR "nodev: no device found (probe %d)\n", nodev_probes);
	return -ENODEV;
}

void cleanup_module(void)
{
	printk(KERN_ERR "nodev: cleanup_module must not run after a failed init\n");
}
