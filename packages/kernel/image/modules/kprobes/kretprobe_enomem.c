/*
 * kretprobe_enomem (test-only): a return probe that changes what the probed function returns.
 * The entry handler keeps sys_mkdir's pathname pointer in the instance's private data; the return
 * handler prints it with the real return address and the task, then makes sys_mkdir fail with
 * -ENOMEM by writing regs->ax. maxactive is left 0 so the host's default is written back.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include "../module.h"

struct mkdir_data {
	unsigned long pathname;
};

static int entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mkdir_data *d = (struct mkdir_data *)ri->data;

	d->pathname = regs->di;
	return 0;
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mkdir_data *d = (struct mkdir_data *)ri->data;

	printk(KERN_INFO "kretprobe_enomem: sys_mkdir(0x%lx) by pid %d returned %ld to 0x%p, now -ENOMEM\n",
	       d->pathname, ri->task->pid, regs_return_value(regs), ri->ret_addr);
	regs->ax = -ENOMEM;
	return 0;
}

static struct kretprobe enomem_kretprobe = {
	.handler = ret_handler,
	.entry_handler = entry_handler,
	.data_size = sizeof(struct mkdir_data),
	.kp = {
		.symbol_name = "sys_mkdir",
	},
};

int init_module(void)
{
	int ret = register_kretprobe(&enomem_kretprobe);

	if (ret < 0)
		return ret;
	printk(KERN_INFO "kretprobe_enomem: planted at 0x%p, maxactive %d\n", enomem_kretprobe.kp.addr,
	       enomem_kretprobe.maxactive);
	return 0;
}

void cleanup_module(void)
{
	unregister_kretprobe(&enomem_kretprobe);
}
