/*
 * needsym: calls a function no kernel exports, so loading fails with "Unknown symbol", as insmod of a
 * module built against another kernel does.
 */
#include <linux/kernel.h>
#include "module.h"

int int3_no_such_function(int x);

int init_module(void)
{
	printk(KERN_INFO "needsym: must never load\n");
	return int3_no_such_function(1);
}
