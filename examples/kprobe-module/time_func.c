// SPDX-License-Identifier: MIT
/*
 * time_func: how long each call of a kernel function takes, and what it returns.
 *
 * A kretprobe with an entry handler: at entry it stamps the call with ktime_get() in the instance's
 * private data (data_size bytes), at return it prints the result and the time taken. The function is
 * a module parameter: insmod time_func.ko func=vfs_read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>

static char func[KSYM_NAME_LEN] = "do_sys_open";
module_param_string(func, func, KSYM_NAME_LEN, 0644);
MODULE_PARM_DESC(func, "the function to time");

/* What entry_handler leaves for handler, in each kretprobe_instance. */
struct call_stamp {
	ktime_t entered;
};

static int entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;

	stamp->entered = ktime_get();
	return 0;
}
NOKPROBE_SYMBOL(entry_handler);

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;
	s64 ns = ktime_to_ns(ktime_sub(ktime_get(), stamp->entered));

	pr_info("%s returned %ld in %lld ns (%s, pid %d)\n", func, regs_return_value(regs), ns, current->comm,
		current->pid);
	return 0;
}
NOKPROBE_SYMBOL(ret_handler);

static struct kretprobe timer = {
	.handler = ret_handler,
	.entry_handler = entry_handler,
	.data_size = sizeof(struct call_stamp),
	.maxactive = 20,
};

static int __init time_func_init(void)
{
	int ret;

	timer.kp.symbol_name = func;
	ret = register_kretprobe(&timer);
	if (ret < 0) {
		pr_err("register_kretprobe on %s failed: %d\n", func, ret);
		return ret;
	}
	pr_info("timing %s at %p\n", func, timer.kp.addr);
	return 0;
}

static void __exit time_func_exit(void)
{
	unregister_kretprobe(&timer);
	pr_info("stopped timing %s: %d missed\n", func, timer.nmissed);
}

module_init(time_func_init);
module_exit(time_func_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("int3");
MODULE_DESCRIPTION("time each call of a kernel function with a kretprobe");
