/*
 * kprobe_example: the seed's kprobe example, on the block layer. A kprobe on the first instruction
 * of __blockdev_direct_IO (an O_DIRECT transfer, `dd`): the pre-handler prints where the probe is and
 * the registers it sees, the post-handler the flags after the single-step, and the fault handler
 * declines every fault so the kernel handles it as usual.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include "../module.h"

static int handler_pre(struct kprobe *p, struct pt_regs *regs)
{
	printk(KERN_INFO "kprobe_example: pre_handler: p->addr=0x%p, ip=%lx, flags=0x%lx, di=%lx, si=%lx\n",
	       p->addr, regs->ip, regs->flags, regs->di, regs->si);
	return 0;
}

static void handler_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	printk(KERN_INFO "kprobe_example: post_handler: p->addr=0x%p, flags=0x%lx\n", p->addr, regs->flags);
}

static int handler_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	printk(KERN_INFO "kprobe_example: fault_handler: p->addr=0x%p, trap #%d\n", p->addr, trapnr);
	/* 0: not handled here; the kernel's own fault handling goes on. */
	return 0;
}

static struct kprobe kp = {
	.symbol_name = "__blockdev_direct_IO",
	.pre_handler = handler_pre,
	.post_handler = handler_post,
	.fault_handler = handler_fault,
};

int init_module(void)
{
	int ret = register_kprobe(&kp);

	if (ret < 0) {
		printk(KERN_ERR "kprobe_example: register_kprobe failed, returned %d\n", ret);
		return ret;
	}
	printk(KERN_INFO "kprobe_example: planted kprobe at 0x%p\n", kp.addr);
	return 0;
}

void cleanup_module(void)
{
	unregister_kprobe(&kp);
	printk(KERN_INFO "kprobe_example: kprobe at 0x%p unregistered, %lu missed\n", kp.addr, kp.nmissed);
}
