import { Reg } from '@int3/cpu';
import type { Machine } from '../machine/machine.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import { TICK_NS } from '../time/virtual-time.js';
import { frameReturnAddresses } from '../traps/oops-report.js';

/**
 * The Linux module API the sample kernel's C does not implement, as host services a module links
 * against (`<linux/ktime.h>`, `<linux/jiffies.h>`, `<linux/kallsyms.h>`, `dump_stack()`): defined once,
 * the first time a module loads, each only if the kernel has no function of that name.
 *
 * @see kernel/time/timekeeping.c ktime_get(), kernel/kallsyms.c kallsyms_lookup_name(),
 *   lib/dump_stack.c dump_stack()
 */
export function defineModuleApiGates(m: Machine): void {
  const define = (name: string, handler: Parameters<Machine['hostCalls']['define']>[1]) => {
    if (m.kallsyms.lookupName(name) === undefined) m.hostCalls.define(name, handler);
  };
  define('ktime_get', (ctx) => BigInt(m.clock(ctx.cpu)));
  define('get_jiffies_64', (ctx) => BigInt(Math.floor(m.clock(ctx.cpu) / TICK_NS)));
  define('kallsyms_lookup_name', (ctx) => {
    const name = m.space.readCString(ctx.arg(0), 512);
    return m.kallsyms.lookupName(name)?.address ?? 0n;
  });
  define('dump_stack', (ctx) => {
    const task = m.sched.current[ctx.cpu];
    const cpu = m.cpus[ctx.cpu];
    const rsp = cpu.getReg(Reg.RSP);
    const high = task ? task.kernelStack + BigInt(KernelLayout.THREAD_SIZE) : rsp + 4096n;
    const low = task ? task.kernelStack : rsp;
    m.log(
      ctx.cpu,
      4,
      `CPU: ${ctx.cpu} PID: ${task?.pid ?? 0} Comm: ${task?.comm ?? 'swapper'} Not tainted ${m.release} #1`,
    );
    m.log(ctx.cpu, 4, 'Call Trace:');
    m.log(ctx.cpu, 4, ' <TASK>');
    // The gate was called: its return address is at the stack top, then the frame-pointer chain.
    for (const ret of [
      cpu.addressSpace.readU64(rsp),
      ...frameReturnAddresses(cpu.addressSpace, cpu.getReg(Reg.RBP), low, high),
    ]) {
      m.log(ctx.cpu, 4, ` ${m.kallsyms.format(ret)}`);
    }
    m.log(ctx.cpu, 4, ' </TASK>');
    return 0n;
  });
}
