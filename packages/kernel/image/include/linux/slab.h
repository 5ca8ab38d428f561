/* Object allocation over the host allocator (mm/slab.c). */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <linux/types.h>

#define GFP_KERNEL 0xcc0u
#define __GFP_ZERO 0x100u

void *kmalloc(size_t size, gfp_t flags);
void kfree(const void *objp);

/* Host memory is always zero-filled; the flag documents intent, as in Linux. */
static inline void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

#endif
