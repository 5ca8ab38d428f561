/*
 * kprobe_example: the seed's kprobe example, on the block layer. A kprobe on the first instruction
 * of __blockdev_direct_IO (an O_DIRECT transfer, `dd`): the pre-handler prints where the probe is and
 * the registers it sees, the post-handler the flags after the single-step, and the fault handler
 * declines every fault so the kernel handles it as usual.
 */
#define pr_fmt(fmt) "kprobe_example: " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>

/* The function to probe: insmod kprobe_example.ko symbol=vfs_read probes another. */
static char symbol[KSYM_NAME_LEN] = "__blockdev_direct_IO";
module_param_string(symbol, symbol, KSYM_NAME_LEN, 0644);
MODULE_PARM_DESC(symbol, "the function to probe");

static int handler_pre(struct kprobe *p, struct pt_regs *regs)
{
	pr_info("pre_handler: p->addr=0x%p, ip=%lx, flags=0x%lx, di=%lx, si=%lx\n",
	       p->addr, regs->ip, regs->flags, regs->di, regs->si);
	return 0;
}

static void handler_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	pr_info("post_handler: p->addr=0x%p, flags=0x%lx\n", p->addr, regs->flags);
}

static int handler_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	pr_info("fault_handler: p->addr=0x%p, trap #%d\n", p->addr, trapnr);
	/* 0: not handled here; the kernel's own fault handling goes on. */
	return 0;
}

static struct kprobe kp = {
	.pre_handler = handler_pre,
	.post_handler = handler_post,
	.fault_handler = handler_fault,
};

static int __init kprobe_init(void)
{
	int ret;

	kp.symbol_name = symbol;
	ret = register_kprobe(&kp);

	if (ret < 0) {
		pr_err("register_kprobe failed, returned %d\n", ret);
		return ret;
	}
	pr_info("planted kprobe at 0x%p\n", kp.addr);
	return 0;
}

static void __exit kprobe_exit(void)
{
	unregister_kprobe(&kp);
	pr_info("kprobe at 0x%p unregistered, %lu missed\n", kp.addr, kp.nmissed);
}

module_init(kprobe_init);
module_exit(kprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("a kprobe with pre, post and fault handlers");
