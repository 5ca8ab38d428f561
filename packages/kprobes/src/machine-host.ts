import type { Machine } from '@int3/kernel';
import type { KprobesHost } from './core/kprobes-host.js';

/**
 * kprobes' capabilities ({@link KprobesHost}) cut from a booted `Machine`: the one place that reads
 * the machine's members, so a change to the machine's shape touches this file alone.
 */
export function machineHost(m: Machine): KprobesHost {
  const kernel = m.kernel;
  const host: KprobesHost = {
    cpus: m.cpus,
    space: m.space,
    memory: kernel.memory,
    heap: kernel.memory.heap,
    guest: kernel.guest,
    kallsyms: m.kallsyms,
    symbols: kernel.image.symbols,
    exTable: kernel.exTable,
    hostCalls: kernel.hostCalls,
    sched: m.sched,
    modules: m.modules,
    pcpu: kernel.percpu.bases,
    hostStackTop: kernel.hostStackTop,
    tasks$: m.streams.tasks$,
    clock: (cpu: number) => m.clock(cpu),
    log: (cpu, level, text) => kernel.log(cpu, level, text),
    oops: (cpu, reason) => kernel.oops(cpu, reason),
    percpuAlloc: (size) => kernel.percpu.alloc(size),
    registerDieNotifier: (name, priority, fn) => {
      kernel.dieChain.register(name, priority, fn);
    },
    registerSnapshotProvider: (name, provider) => {
      kernel.registerSnapshotProvider(name, provider);
    },
    onRoundBoundary: (fn, idle) => {
      kernel.onRoundBoundary(fn, idle);
    },
  };
  return Object.freeze(host);
}
