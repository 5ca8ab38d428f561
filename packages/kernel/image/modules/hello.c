/*
 * hello: the sample module. Exercises every relocation the loader must apply:
 *   R_X86_64_PLT32  calls to printk, kmalloc, kfree and hello_greet;
 *   R_X86_64_PC32   RIP-relative loads and stores of hello_count and hello_ring;
 *   R_X86_64_32S    the absolute address of hello_ring as an immediate (-mcmodel=kernel);
 *   R_X86_64_64     the pointers of hello_ops, initialised data.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include "module.h"

/* .data: how many times hello_greet ran (starts at 40 so the data really comes from the file). */
int hello_count = 40;

/* .bss: a ring of the last greetings' lengths. */
static long hello_ring[64];

/* .rodata (and .rodata.str): the message and a table of absolute pointers to it. */
static const char hello_who[] = "int3";

struct hello_ops {
	int (*greet)(const char *who);
	const char *who;
	long *ring;
};

static noinline int hello_greet(const char *who);

/* .data.rel: pointers resolved at load time by R_X86_64_64. */
struct hello_ops hello_ops = {
	.greet = hello_greet,
	.who = hello_who,
	.ring = hello_ring,
};

static noinline int hello_greet(const char *who)
{
	char *buf = kmalloc(64, GFP_KERNEL);
	int n;

	if (!buf)
		return -ENOMEM;
	n = snprintf(buf, 64, "hello, %s", who);
	hello_ring[hello_count++ & 63] = n;
	printk(KERN_INFO "hello: %s (%d)\n", buf, hello_count);
	kfree(buf);
	return n;
}

/* The address of the ring as a sign-extended 32-bit immediate: R_X86_64_32S. */
static noinline unsigned long hello_ring_addr(void)
{
	unsigned long addr;

	asm volatile("movq $hello_ring, %0" : "=r"(addr));
	return addr;
}

int init_module(void)
{
	int n = hello_ops.greet(hello_ops.who);

	if (n < 0)
		return n;
	if (hello_ring_addr() != (unsigned long)hello_ops.ring)
		return -EINVAL;
	printk(KERN_INFO "hello: loaded\n");
	return 0;
}

void cleanup_module(void)
{
	printk(KERN_INFO "hello: unloaded after %d greetings\n", hello_count - 40);
}
