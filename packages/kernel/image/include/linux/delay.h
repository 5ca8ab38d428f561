/* Sleeping delays (include/linux/delay.h): they block the calling task on virtual time. */
#ifndef _LINUX_DELAY_H
#define _LINUX_DELAY_H

/* Sleep at least `msecs` milliseconds (uninterruptible); process context only. */
void msleep(unsigned int msecs);
/* Sleep `seconds` seconds. */
void ssleep(unsigned int seconds);

#endif
