import { type AddressSpace, type Cpu, Reg } from '@int3/cpu';
import type { MachineEvents } from '../events/machine-events.js';
import type { Kallsyms } from '../kallsyms/kallsyms.js';
import type { Clock } from '../machine/cpu-clocks.js';
import type { HostCallHandler, HostCalls } from '../machine/host-calls.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { Task } from '../sched/task.js';
import { TICK_NS } from '../time/virtual-time.js';
import { frameReturnAddresses } from '../traps/oops-report.js';

/** What the module API gates need: symbols, gates, the clock, the CPUs and their tasks, printk. */
export interface ModuleApiHost {
  readonly kallsyms: Pick<Kallsyms, 'lookupName' | 'format'>;
  readonly hostCalls: Pick<HostCalls, 'define'>;
  readonly clock: Clock;
  /** The kernel address space. */
  readonly space: AddressSpace;
  readonly cpus: readonly Cpu[];
  /** The task running on each CPU. */
  readonly current: readonly (Task | undefined)[];
  readonly events: Pick<MachineEvents, 'log'>;
  /** Kernel release, for `dump_stack`'s banner line. */
  readonly release: string;
}

/**
 * The Linux module API the sample kernel's C does not implement, as host services a module links
 * against (`<linux/ktime.h>`, `<linux/jiffies.h>`, `<linux/kallsyms.h>`, `dump_stack()`): defined once,
 * the first time a module loads, each only if the kernel has no function of that name.
 *
 * @see kernel/time/timekeeping.c ktime_get(), kernel/kallsyms.c kallsyms_lookup_name(),
 *   lib/dump_stack.c dump_stack()
 */
export function defineModuleApiGates(m: ModuleApiHost): void {
  const define = (name: string, handler: HostCallHandler) => {
    if (m.kallsyms.lookupName(name) === undefined) m.hostCalls.define(name, handler);
  };
  define('ktime_get', (ctx) => BigInt(m.clock.clock(ctx.cpu)));
  define('get_jiffies_64', (ctx) => BigInt(Math.floor(m.clock.clock(ctx.cpu) / TICK_NS)));
  define('kallsyms_lookup_name', (ctx) => {
    const name = m.space.readCString(ctx.arg(0), 512);
    return m.kallsyms.lookupName(name)?.address ?? 0n;
  });
  define('dump_stack', (ctx) => {
    const task = m.current[ctx.cpu];
    const cpu = m.cpus[ctx.cpu];
    const rsp = cpu.getReg(Reg.RSP);
    const high = task ? task.kernelStack + BigInt(KernelLayout.THREAD_SIZE) : rsp + 4096n;
    const low = task ? task.kernelStack : rsp;
    m.events.log(
      ctx.cpu,
      4,
      `CPU: ${ctx.cpu} PID: ${task?.pid ?? 0} Comm: ${task?.comm ?? 'swapper'} Not tainted ${m.release} #1`,
    );
    m.events.log(ctx.cpu, 4, 'Call Trace:');
    m.events.log(ctx.cpu, 4, ' <TASK>');
    // The gate was called: its return address is at the stack top, then the frame-pointer chain.
    for (const ret of [
      cpu.addressSpace.readU64(rsp),
      ...frameReturnAddresses(cpu.addressSpace, cpu.getReg(Reg.RBP), low, high),
    ]) {
      m.events.log(ctx.cpu, 4, ` ${m.kallsyms.format(ret)}`);
    }
    m.events.log(ctx.cpu, 4, ' </TASK>');
    return 0n;
  });
}
