import { beforeAll, describe, expect, it } from 'vitest';
import { KernelError } from '../src/kernel-error.js';
import { Machine } from '../src/machine/machine.js';
import { setModuleParams } from '../src/modules/module-params.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import { buildTestModule } from './support/build-test-module.js';

// A module written as for Linux (module_init, module_param, module_param_string, pr_fmt, ktime_get,
// kallsyms_lookup_name, jiffies, dump_stack), compiled at test time with the kernel flags (gcc is on
// every machine) against the headers the package ships.
const SOURCE = `
#define pr_fmt(fmt) "params: " fmt
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>

static int count = 3;
module_param(count, int, 0644);
MODULE_PARM_DESC(count, "how many");
static bool loud;
module_param(loud, bool, 0);
static unsigned long mask = 0xf0;
module_param(mask, ulong, 0);
static char *who = "nobody";
module_param(who, charp, 0);
static char where[8] = "here";
module_param_string(where, where, sizeof(where), 0);

static int __init params_init(void)
{
	ktime_t t0 = ktime_get();
	unsigned long open = kallsyms_lookup_name("do_sys_open");
	pr_info("count=%d loud=%d mask=0x%lx who=%s where=%s\\n", count, loud, mask, who, where);
	pr_info("do_sys_open at %s, jiffies %s, clock %s\\n", open ? "found" : "missing", jiffies < 1000000 ? "ok" : "bad",
		ktime_to_ns(ktime_sub(ktime_get(), t0)) >= 0 ? "ok" : "bad");
	if (loud)
		dump_stack();
	return count == 13 ? -22 : 0;
}

static void __exit params_exit(void)
{
	pr_info("bye\\n");
}

module_init(params_init);
module_exit(params_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("module parameters");
`;

let ko: Uint8Array;

beforeAll(() => {
  ko = buildTestModule('params', SOURCE);
});

const boot = () => Machine.boot({ image: readSampleImage(), cpus: 1, programs: sampleProgram });
const lines = (m: Machine) =>
  m.printk
    .records()
    .map((r) => r.text)
    .filter((t) => t.startsWith('params:') || t.includes('params'));

describe(setModuleParams, () => {
  it('should run init with the defaults when insmod gives no parameters, with the module API services', () => {
    const m = boot();
    m.modules.load(ko, 'params.ko');
    expect(lines(m)).toEqual([
      'params: count=3 loud=0 mask=0xf0 who=nobody where=here',
      'params: do_sys_open at found, jiffies ok, clock ok',
    ]);
  });

  it('should set int, bool, ulong, charp and string parameters from name=value before init', () => {
    const m = boot();
    m.modules.load(ko, 'params.ko', 0, ['count=-7', 'loud', 'mask=0x10', 'who=some one', 'where=there']);
    expect(lines(m)[0]).toBe('params: count=-7 loud=1 mask=0x10 who=some one where=there');
    // loud: dump_stack() printed the call trace, naming the module's init.
    const text = m.printk.dmesg();
    expect(text).toMatch(/Call Trace:\n.*<TASK>\n.* params_init\+0x[0-9a-f]+\/0x[0-9a-f]+ \[params\]\n/);
  });

  it("should refuse a value the type cannot hold, and a string too long, as Linux's parse_args does", () => {
    const m = boot();
    const err = (params: string[]) => {
      try {
        m.modules.load(ko, 'params.ko', 0, params);
        m.modules.unload('params');
        return 'ok';
      } catch (e) {
        if (e instanceof KernelError) return `${e.code} ${e.message}`;
        throw e;
      }
    };
    expect(err(['count=abc'])).toBe("EINVAL params: 'abc' invalid for parameter 'count'");
    expect(err(['count=99999999999'])).toBe("EINVAL params: '99999999999' invalid for parameter 'count'");
    expect(err(['mask=-1'])).toBe("EINVAL params: '-1' invalid for parameter 'mask'");
    expect(err(['where=much too long'])).toBe("ENOSPC where: string doesn't fit in 7 chars.");
    expect(err(['count=13'])).toBe('BAD_MODULE params: init_module failed with -22');
    expect(err(['nosuch=1'])).toBe('ok');
    expect(m.printk.dmesg()).toMatch(/params: unknown parameter 'nosuch' ignored/);
    expect(m.modules.list()).toEqual([]);
  });
});
