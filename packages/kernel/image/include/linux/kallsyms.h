/* Symbol lookup for modules (include/linux/kallsyms.h). */
#ifndef _LINUX_KALLSYMS_H
#define _LINUX_KALLSYMS_H

#define KSYM_NAME_LEN 512

/* The address of a symbol (`mod:name` restricts to a module), 0 if there is none (a host service). */
unsigned long kallsyms_lookup_name(const char *name);

#endif
