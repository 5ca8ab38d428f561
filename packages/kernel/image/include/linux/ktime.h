/* ktime_t: nanoseconds of the machine's virtual clock (include/linux/ktime.h). */
#ifndef _LINUX_KTIME_H
#define _LINUX_KTIME_H

#include <linux/types.h>

typedef s64 ktime_t;

/* CLOCK_MONOTONIC now: the calling CPU's virtual time, in ns (a host service). */
ktime_t ktime_get(void);

static inline ktime_t ktime_sub(ktime_t a, ktime_t b) { return a - b; }
static inline ktime_t ktime_add(ktime_t a, ktime_t b) { return a + b; }
static inline s64 ktime_to_ns(ktime_t kt) { return kt; }
static inline s64 ktime_to_us(ktime_t kt) { return kt / 1000; }
static inline s64 ktime_to_ms(ktime_t kt) { return kt / 1000000; }
static inline u64 ktime_get_ns(void) { return ktime_get(); }

#endif
