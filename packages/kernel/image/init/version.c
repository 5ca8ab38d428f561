/* The version banners (init/version.c). */
#include <linux/kernel.h>

#define UTS_RELEASE "6.1.0-int3"
#define UTS_VERSION "#1 SMP int3"
#define LINUX_COMPILER "gcc version " __VERSION__

const char linux_banner[] = "Linux version " UTS_RELEASE " (int3@int3) (" LINUX_COMPILER ") " UTS_VERSION "\n";

/* sysname, release, version: formatted into /proc/version. */
const char linux_proc_banner[] = "%s version %s (int3@int3) (" LINUX_COMPILER ") %s\n";
