/* /proc/version, formatted once at boot from linux_proc_banner (fs/proc/version.c). */
#include <linux/fs.h>
#include <linux/kernel.h>

static int version_proc_show(char *buf, size_t size)
{
	return scnprintf(buf, size, linux_proc_banner, "Linux", "6.1.0-int3", "#1 SMP int3");
}

int proc_version_init(void)
{
	static char buf[256];
	struct dentry *proc = ramfs_mkdir_kernel(root_dentry, "proc");
	int len = version_proc_show(buf, sizeof(buf));

	if (!proc || !ramfs_create_file(proc, "version", S_IFREG | 0444, &ramfs_file_operations, buf, len))
		return -ENOMEM;
	return 0;
}
