/*
 * kmalloc/kfree: thin C functions over the host's object allocator, kept as real functions
 * (with frame-pointer prologues) so they can be probed like Linux's (mm/slab_common.c).
 */
#include <asm/hostcall.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#define KMALLOC_MAX_SIZE (1UL << 22)

/* Allocation counters, readable from a probe with @kmalloc_stats. */
struct kmalloc_stats {
	unsigned long allocs;
	unsigned long frees;
	unsigned long bytes;
} kmalloc_stats;

/* Allocate `size` bytes, zero-filled, 16-byte aligned; NULL when the host is out of memory. */
void *kmalloc(size_t size, gfp_t flags)
{
	void *p;

	if (unlikely(!size || size > KMALLOC_MAX_SIZE))
		return NULL;
	p = host_alloc(size, flags);
	if (likely(p)) {
		kmalloc_stats.allocs++;
		kmalloc_stats.bytes += size;
	}
	return p;
}

/* Free an object kmalloc returned; NULL is ignored. */
void kfree(const void *objp)
{
	if (unlikely(!objp))
		return;
	kmalloc_stats.frees++;
	host_free(objp);
}
