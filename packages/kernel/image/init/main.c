/*
 * Boot (init/main.c). The host calls start_kernel() once, on CPU 0, with current = &init_task;
 * unlike Linux's it returns, and the host then starts workloads with int3_task_create().
 */
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

static const char etc_hostname[] = "int3\n";
static const char etc_motd[] =
	"Welcome to int3.\n"
	"This machine is an x86-64 emulator: every instruction you see is counted, every kprobe is real.\n"
	"Try: cat /proc/version\n";

/* Populate the root: /dev, /etc, /proc, /tmp, /sys. */
static int populate_rootfs(void)
{
	struct dentry *etc;

	if (chr_dev_init())
		return -ENOMEM;
	etc = ramfs_mkdir_kernel(root_dentry, "etc");
	if (!etc || !ramfs_create_file(etc, "hostname", S_IFREG | 0644, &ramfs_file_operations, etc_hostname,
				       sizeof(etc_hostname) - 1) ||
	    !ramfs_create_file(etc, "motd", S_IFREG | 0644, &ramfs_file_operations, etc_motd, sizeof(etc_motd) - 1))
		return -ENOMEM;
	if (!ramfs_mkdir_kernel(root_dentry, "tmp"))
		return -ENOMEM;
	return proc_version_init();
}

/* Run one init step; a failure stops the machine. */
static void do_initcall(int (*fn)(void), const char *name)
{
	int ret = fn();

	if (ret)
		panic("%s failed: %d", name, ret);
}

void start_kernel(void)
{
	_raw_spin_lock(&kernel_flag);
	printk(KERN_NOTICE "%s", linux_banner);
	do_initcall(ramfs_init, "ramfs_init");
	do_initcall(populate_rootfs, "populate_rootfs");
	do_initcall(brd_init, "brd_init");
	do_initcall(loopback_net_init, "loopback_net_init");
	printk(KERN_INFO "int3: rootfs ready, /dev/ram0 %d KiB, lo up\n", 256);
	_raw_spin_unlock(&kernel_flag);
}
