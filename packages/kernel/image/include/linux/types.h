/* Basic kernel types (the LP64 x86-64 sizes Linux uses). */
#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

typedef unsigned long size_t;
typedef long ssize_t;
typedef long loff_t;
typedef unsigned short umode_t;
typedef unsigned int gfp_t;
typedef int pid_t;
typedef unsigned long sector_t;
typedef unsigned int dev_t;
typedef u16 __be16;
typedef u32 __be32;
typedef _Bool bool;
typedef int clockid_t;

#define true 1
#define false 0
#define NULL ((void *)0)

#endif
