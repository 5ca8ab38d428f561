import { beforeAll, describe, expect, it } from 'vitest';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import { buildTestModule } from './support/build-test-module.js';

// A module whose init sleeps with msleep() (<linux/delay.h>) and reads current->mm, compiled at test
// time with the kernel flags against the headers the package ships. Linux runs a module's init in
// process context (insmod's), where it may sleep; int3 runs it as the boot task, a kernel thread.
const SOURCE = `
#define pr_fmt(fmt) "napper: " fmt
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>

static int ms = 10;
module_param(ms, int, 0);

static int __init napper_init(void)
{
	ktime_t t0 = ktime_get();

	pr_info("%s (pid %d): mm %s\\n", current->comm, current->pid, current->mm ? "set" : "NULL");
	msleep(ms);
	pr_info("slept %lld ns\\n", ktime_to_ns(ktime_sub(ktime_get(), t0)));
	return 0;
}

static void __exit napper_exit(void)
{
	msleep(1);
	pr_info("bye\\n");
}

module_init(napper_init);
module_exit(napper_exit);
MODULE_LICENSE("GPL");
`;

let ko: Uint8Array;

beforeAll(() => {
  ko = buildTestModule('napper', SOURCE);
});

const boot = (cpus: number) => Machine.boot({ image: readSampleImage(), cpus, programs: sampleProgram });
const said = (m: Machine) =>
  m.printk
    .records()
    .map((r) => r.text)
    .filter((t) => t.startsWith('napper:'));

describe('msleep() in a module', () => {
  it('should block init for at least the time asked, on virtual time, as a kernel thread (no mm)', () => {
    const m = boot(2);
    const t0 = m.clock(0);
    m.modules.load(ko, 'napper.ko', 0, ['ms=10']);
    const [first, second] = said(m);
    expect(first).toBe('napper: swapper (pid 0): mm NULL');
    const slept = Number(second.match(/^napper: slept (\d+) ns$/)![1]);
    expect(slept).toBeGreaterThanOrEqual(10_000_000);
    expect(slept).toBeLessThan(12_000_000);
    expect(m.clock(0) - t0).toBeGreaterThanOrEqual(10_000_000);
    expect(m.modules.list().map((x) => x.name)).toEqual(['napper']);
  });

  it('should let other tasks run on the CPU while init sleeps, and go on after', () => {
    const m = boot(1);
    const task = m.spawn(['hello']);
    m.modules.load(ko, 'napper.ko');
    // hello ran to its end on the only CPU while init slept.
    expect(task.exited).toBe(true);
    expect(m.console.map((c) => c.text).join('')).toBe('Hello from int3, pid 1!\n');
    expect(said(m)[1]).toMatch(/^napper: slept \d+ ns$/);
    // The machine goes on: a task spawned now runs, and rmmod sleeps in exit too.
    const next = m.spawn(['cat', '/etc/hostname']);
    expect(m.run({ until: () => next.exited })).toEqual({ reason: 'done' });
    const before = m.clock(0);
    m.modules.unload('napper');
    expect(m.clock(0) - before).toBeGreaterThanOrEqual(1_000_000);
    expect(said(m).at(-1)).toBe('napper: bye');
  });

  it('should sleep the same way every run (deterministic interleaving)', () => {
    const once = () => {
      const m = boot(2);
      const tasks = [m.spawn(['spin', '3000']), m.spawn(['syscall', 'nanosleep', '3e6'])];
      m.modules.load(ko, 'napper.ko', 0, ['ms=5']);
      m.run({ until: () => tasks.every((t) => t.exited) });
      return [m.console.map((c) => c.text).join(''), m.printk.dmesg(), m.clock(0), m.clock(1)];
    };
    expect(once()).toEqual(once());
  });
});
