/* jiffies: ticks of the virtual clock at HZ (include/linux/jiffies.h). */
#ifndef _LINUX_JIFFIES_H
#define _LINUX_JIFFIES_H

#include <linux/types.h>

#define HZ 1000

/* The tick count now (a host service); `jiffies` reads it, as the volatile variable does in Linux. */
u64 get_jiffies_64(void);
#define jiffies ((unsigned long)get_jiffies_64())

static inline unsigned int jiffies_to_msecs(unsigned long j) { return (unsigned int)(j * 1000 / HZ); }
static inline unsigned long msecs_to_jiffies(unsigned int m) { return (unsigned long)m * HZ / 1000; }

#endif
