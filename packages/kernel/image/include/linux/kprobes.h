/*
 * Kernel probes for modules: the 2.6-era kprobes API (kprobes, jprobes, kretprobes).
 *
 * In int3 the kprobes core runs on the host: register_kprobe() and friends are host-call gates that
 * @int3/kprobes defines when it is set up (packages/kprobes/src/module-api). A module links against
 * them like any kernel function. The host reads the structs below, writes `addr`, `nmissed`, `flags`
 * and `maxactive` back, and calls the handlers (guest C functions) with a `struct pt_regs` it stores
 * on the kernel stack of the trapping CPU and loads back afterwards, so a handler may change registers.
 *
 * The layouts are an ABI between this header and the host: every offset is checked here and kept as
 * a constant in packages/kprobes/src/module-api/guest-layout.ts.
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <asm/ptrace.h>
#include <linux/compiler.h>
#include <linux/types.h>

struct kprobe;
struct kretprobe_instance;
struct task_struct;

typedef int (*kprobe_pre_handler_t)(struct kprobe *p, struct pt_regs *regs);
typedef void (*kprobe_post_handler_t)(struct kprobe *p, struct pt_regs *regs, unsigned long flags);
typedef int (*kprobe_fault_handler_t)(struct kprobe *p, struct pt_regs *regs, int trapnr);
typedef int (*kprobe_break_handler_t)(struct kprobe *p, struct pt_regs *regs);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *ri, struct pt_regs *regs);

/* p->flags, written by the host. */
#define KPROBE_FLAG_GONE 1      /* the probed code has gone (its module was unloaded) */
#define KPROBE_FLAG_DISABLED 2  /* disabled; set it before register_kprobe() to register disabled */
#define KPROBE_FLAG_OPTIMIZED 4 /* jump-optimized */
#define KPROBE_FLAG_FTRACE 8    /* never set: int3 has no ftrace */

/*
 * A probe on one instruction. Give either symbol_name (+ offset) or addr, never both. pre_handler
 * runs before the instruction is single-stepped (non-zero: "I changed regs->ip, do not step"),
 * post_handler after it, fault_handler when the step or a handler faults (non-zero: handled).
 */
struct kprobe {
	const char *symbol_name;
	unsigned int offset;
	void *addr;                          /* resolved address, written at registration */
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_fault_handler_t fault_handler;
	kprobe_break_handler_t break_handler; /* jprobes' own; leave NULL */
	unsigned long nmissed;               /* hits whose handlers did not run (re-entry) */
	u32 flags;                           /* KPROBE_FLAG_* */
	unsigned long __int3_reserved[4];    /* the host's; never touch */
};

_Static_assert(offsetof(struct kprobe, symbol_name) == 0, "kprobe.symbol_name");
_Static_assert(offsetof(struct kprobe, offset) == 8, "kprobe.offset");
_Static_assert(offsetof(struct kprobe, addr) == 16, "kprobe.addr");
_Static_assert(offsetof(struct kprobe, pre_handler) == 24, "kprobe.pre_handler");
_Static_assert(offsetof(struct kprobe, post_handler) == 32, "kprobe.post_handler");
_Static_assert(offsetof(struct kprobe, fault_handler) == 40, "kprobe.fault_handler");
_Static_assert(offsetof(struct kprobe, break_handler) == 48, "kprobe.break_handler");
_Static_assert(offsetof(struct kprobe, nmissed) == 56, "kprobe.nmissed");
_Static_assert(offsetof(struct kprobe, flags) == 64, "kprobe.flags");
_Static_assert(offsetof(struct kprobe, __int3_reserved) == 72, "kprobe.__int3_reserved");
_Static_assert(sizeof(struct kprobe) == 104, "sizeof(struct kprobe)");

/*
 * A jprobe: entry runs instead of the probed function's first instruction, with its registers and
 * stack, so it sees the arguments. It must have the probed function's prototype and end with
 * jprobe_return(); the probed function then runs as if nothing happened.
 */
struct jprobe {
	struct kprobe kp;
	void *entry;
};

_Static_assert(offsetof(struct jprobe, kp) == 0, "jprobe.kp");
_Static_assert(offsetof(struct jprobe, entry) == 104, "jprobe.entry");
_Static_assert(sizeof(struct jprobe) == 112, "sizeof(struct jprobe)");

#define JPROBE_ENTRY(pentry) ((void *)(pentry))

/* Code kprobes must not probe: a __kprobes function, or one NOKPROBE_SYMBOL() names (the blacklist). */
#define __kprobes __section(".kprobes.text")
#define NOKPROBE_SYMBOL(fname) \
	static unsigned long __used __section("_kprobe_blacklist") __aligned(8) _kbl_addr_##fname = (unsigned long)fname

/*
 * A function-return probe: handler runs when the probed function returns (regs_return_value(regs)
 * is its result; changing regs->ax changes it). entry_handler, if set, runs at entry (non-zero: skip
 * this call). maxactive instances can be in flight at once (<= 0: the default, written back); a call
 * finding none free counts in nmissed. Each instance carries data_size bytes of private data.
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
};

_Static_assert(offsetof(struct kretprobe, kp) == 0, "kretprobe.kp");
_Static_assert(offsetof(struct kretprobe, handler) == 104, "kretprobe.handler");
_Static_assert(offsetof(struct kretprobe, entry_handler) == 112, "kretprobe.entry_handler");
_Static_assert(offsetof(struct kretprobe, maxactive) == 120, "kretprobe.maxactive");
_Static_assert(offsetof(struct kretprobe, nmissed) == 124, "kretprobe.nmissed");
_Static_assert(offsetof(struct kretprobe, data_size) == 128, "kretprobe.data_size");
_Static_assert(sizeof(struct kretprobe) == 136, "sizeof(struct kretprobe)");

/* One call in flight of a kretprobe'd function; the host allocates it in kernel memory. */
struct kretprobe_instance {
	struct kretprobe *rp;
	void *ret_addr;          /* the real return address (the trampoline took its place) */
	struct task_struct *task;
	char data[];             /* rp->data_size bytes, kept from entry_handler to handler */
};

_Static_assert(offsetof(struct kretprobe_instance, rp) == 0, "kretprobe_instance.rp");
_Static_assert(offsetof(struct kretprobe_instance, ret_addr) == 8, "kretprobe_instance.ret_addr");
_Static_assert(offsetof(struct kretprobe_instance, task) == 16, "kretprobe_instance.task");
_Static_assert(offsetof(struct kretprobe_instance, data) == 24, "kretprobe_instance.data");

/* Host-call gates: 0 or a negative errno (-EINVAL, -ENOENT, -EILSEQ, -EEXIST, -E2BIG, ...). */
int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);
int register_jprobe(struct jprobe *jp);
void unregister_jprobe(struct jprobe *jp);
int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int enable_kprobe(struct kprobe *kp);
int disable_kprobe(struct kprobe *kp);

#define enable_kretprobe(rp) enable_kprobe(&(rp)->kp)
#define disable_kretprobe(rp) disable_kprobe(&(rp)->kp)
#define enable_jprobe(jp) enable_kprobe(&(jp)->kp)
#define disable_jprobe(jp) disable_kprobe(&(jp)->kp)

/*
 * kprobes' own text (`jprobe_return`: `xchg %rbx,%rsp; int3`): ends a jprobe entry. The int3 hands
 * the CPU back to the probed function with its registers and stack; the call never returns.
 */
void jprobe_return(void);

/* The value a function returned, in a kretprobe handler. */
static inline long regs_return_value(struct pt_regs *regs)
{
	return (long)regs->ax;
}

#endif
