/* User memory access for modules (include/linux/uaccess.h): copy_from_user(), strncpy_from_user(), … */
#ifndef _LINUX_UACCESS_H
#define _LINUX_UACCESS_H

#include <asm/uaccess.h>

#endif
