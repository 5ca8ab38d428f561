/*
 * The module entry points the int3 loader runs (kernel/module/main.c do_init_module() and
 * delete_module() call the same two names for a module built without module_init/module_exit).
 */
#ifndef _INT3_MODULE_H
#define _INT3_MODULE_H

int init_module(void);
void cleanup_module(void);

#endif
