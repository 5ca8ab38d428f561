/*
 * kretprobe_example: the seed's return-probe example. Every return of sys_mkdir prints
 * "sys_mkdir exited" and the value it returned; init reports where the probe went and how many
 * returns can be in flight at once.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	printk(KERN_INFO "sys_mkdir exited, returned %ld\n", regs_return_value(regs));
	return 0;
}

static struct kretprobe my_kretprobe = {
	.handler = ret_handler,
	.maxactive = 20,
	.kp = {
		.symbol_name = "sys_mkdir",
	},
};

static int __init kretprobe_init(void)
{
	int ret = register_kretprobe(&my_kretprobe);

	if (ret < 0) {
		printk(KERN_ERR "kretprobe_example: register_kretprobe failed, returned %d\n", ret);
		return ret;
	}
	printk(KERN_INFO "kretprobe_example: planted return probe at 0x%p, maxactive %d\n",
	       my_kretprobe.kp.addr, my_kretprobe.maxactive);
	return 0;
}

static void __exit kretprobe_exit(void)
{
	unregister_kretprobe(&my_kretprobe);
	printk(KERN_INFO "kretprobe_example: return probe at 0x%p unregistered, %d missed\n",
	       my_kretprobe.kp.addr, my_kretprobe.nmissed);
}

module_init(kretprobe_init);
module_exit(kretprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("a kretprobe on sys_mkdir");
