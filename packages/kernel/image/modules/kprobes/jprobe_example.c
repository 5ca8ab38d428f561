/*
 * jprobe_example: the seed's jprobe example, on the network stack. jip_queue_xmit mirrors
 * ip_queue_xmit: it runs on every call with the same arguments, prints them, and hands the CPU back
 * with jprobe_return(), after which ip_queue_xmit runs as if nothing had happened.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <net/sock.h>

static int jip_queue_xmit(struct sock *sk, struct sk_buff *skb, struct flowi4 *fl)
{
	printk(KERN_INFO "jprobe: ip_queue_xmit(sk=0x%p, skb=0x%p, fl=0x%p) len=%u daddr=%x\n",
	       sk, skb, fl, skb->len, fl->daddr);
	/* Never returns: the int3 in jprobe_return() restores ip_queue_xmit's own frame. */
	jprobe_return();
	return 0;
}

static struct jprobe my_jprobe = {
	.entry = JPROBE_ENTRY(jip_queue_xmit),
	.kp = {
		.symbol_name = "ip_queue_xmit",
	},
};

static int __init jprobe_init(void)
{
	int ret = register_jprobe(&my_jprobe);

	if (ret < 0) {
		printk(KERN_ERR "jprobe_example: register_jprobe failed, returned %d\n", ret);
		return ret;
	}
	printk(KERN_INFO "jprobe_example: planted jprobe at 0x%p, handler addr 0x%p\n", my_jprobe.kp.addr,
	       my_jprobe.entry);
	return 0;
}

static void __exit jprobe_exit(void)
{
	unregister_jprobe(&my_jprobe);
	printk(KERN_INFO "jprobe_example: jprobe at 0x%p unregistered\n", my_jprobe.kp.addr);
}

module_init(jprobe_init);
module_exit(jprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("a jprobe mirroring ip_queue_xmit");
