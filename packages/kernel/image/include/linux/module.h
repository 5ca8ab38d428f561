/*
 * Loadable modules: the macros a module written for Linux uses (include/linux/module.h,
 * include/linux/moduleparam.h, include/linux/init.h), for the int3 module loader.
 *
 * module_init()/module_exit() alias init_module/cleanup_module, the names the loader runs, as Linux
 * does for a module built outside the kernel. MODULE_LICENSE() and friends are strings in .modinfo.
 * module_param() and module_param_string() describe a parameter in the __param section; the loader
 * sets it from `insmod foo.ko name=value` before init runs.
 */
#ifndef _LINUX_MODULE_H
#define _LINUX_MODULE_H

#include <linux/compiler.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/types.h>

#define __init __section(".init.text")
#define __exit __section(".exit.text")
#define __initdata __section(".init.data")

#define THIS_MODULE ((void *)0)

#define __INT3_CAT2(a, b) a##b
#define __INT3_CAT(a, b) __INT3_CAT2(a, b)
#define __INT3_UNIQUE_ID(prefix) __INT3_CAT(__INT3_CAT(__UNIQUE_ID_, prefix), __COUNTER__)

#define __MODULE_INFO(tag, info) \
	static const char __INT3_UNIQUE_ID(tag)[] __used __section(".modinfo") __aligned(1) = #tag "=" info

#define MODULE_LICENSE(_license) __MODULE_INFO(license, _license)
#define MODULE_AUTHOR(_author) __MODULE_INFO(author, _author)
#define MODULE_DESCRIPTION(_description) __MODULE_INFO(description, _description)
#define MODULE_VERSION(_version) __MODULE_INFO(version, _version)
#define MODULE_ALIAS(_alias) __MODULE_INFO(alias, _alias)
#define MODULE_PARM_DESC(_parm, desc) __MODULE_INFO(parm, #_parm ":" desc)

typedef int (*initcall_t)(void);
typedef void (*exitcall_t)(void);

#define module_init(initfn)                                            \
	static inline initcall_t __maybe_unused __inittest(void) { return initfn; } \
	int init_module(void) __attribute__((__alias__(#initfn)))

#define module_exit(exitfn)                                            \
	static inline exitcall_t __maybe_unused __exittest(void) { return exitfn; } \
	void cleanup_module(void) __attribute__((__alias__(#exitfn)))

/*
 * One module parameter, as the loader reads it: its name, where it lives, its kind and its size
 * (the buffer size of a string). The layout is an ABI with packages/kernel/src/modules/module-params.ts.
 */
struct int3_module_param {
	const char *name;
	void *addr;
	u32 kind;
	u32 size;
};

_Static_assert(sizeof(struct int3_module_param) == 24, "sizeof(struct int3_module_param)");

#define __INT3_PARAM_bool 1
#define __INT3_PARAM_int 2
#define __INT3_PARAM_uint 3
#define __INT3_PARAM_long 4
#define __INT3_PARAM_ulong 5
#define __INT3_PARAM_short 6
#define __INT3_PARAM_ushort 7
#define __INT3_PARAM_charp 8
#define __INT3_PARAM_string 9
#define __INT3_PARAM_byte 10

#define module_param_named(name, value, type, perm)                                   \
	static const struct int3_module_param __param_##name __used __section("__param") \
		__aligned(8) = { #name, &(value), __INT3_PARAM_##type, sizeof(value) }

#define module_param(name, type, perm) module_param_named(name, name, type, perm)

#define module_param_string(name, string, len, perm)                                  \
	static const struct int3_module_param __param_##name __used __section("__param") \
		__aligned(8) = { #name, (string), __INT3_PARAM_string, (len) }

#endif
