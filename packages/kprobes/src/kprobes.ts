import type { Machine } from '@int3/kernel';
import { X86KprobesArch } from './arch/x86/x86-kprobes-arch.js';
import { KprobesCore } from './core/kprobes-core.js';
import { machineHost } from './machine-host.js';
import { bindGuestKprobes } from './module-api/guest-kprobes.js';

/**
 * kprobes on a machine — the composition root: the one place that picks the x86 arch, cuts kprobes'
 * capabilities from the machine and binds the C API for modules.
 *
 * @see kernel/kprobes.c
 * @example
 * const kprobes = Kprobes.init(machine);
 * kprobes.registerKprobe({ symbolName: 'do_sys_open', preHandler: () => 0 });
 */
export class Kprobes extends KprobesCore {
  /**
   * Sets kprobes up on a machine: maps its own text (`kretprobe_trampoline`, `jprobe_return`), adds
   * it to kallsyms and the blacklist, hooks the die notifier chain and module notifier, and defines
   * the gates of the C API (`register_kprobe`, …) that modules link against.
   * @see kernel/kprobes.c init_kprobes()
   */
  static init(m: Machine): Kprobes {
    const host = machineHost(m);
    const k = new Kprobes(host, (h, core) => new X86KprobesArch(h, core));
    bindGuestKprobes(host, k);
    return k;
  }
}
