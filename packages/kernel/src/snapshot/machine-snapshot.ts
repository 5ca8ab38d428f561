import type { AddressSpace, CpuContext } from '@int3/cpu';
import type { SpaceImage } from './space-image.js';

/** One CPU in a snapshot: its full register file (counters included) and the address space it runs in. */
export interface CpuSnapshot {
  readonly context: CpuContext;
  readonly space: AddressSpace;
  readonly instrumentationMode: boolean;
}

/**
 * The full state of a {@link Machine} at one moment, in memory: every page of every address space
 * (contents shared between snapshots), every CPU, and the host kernel's own state (scheduler, clocks,
 * allocators, printk, console, modules, kallsyms, gates), plus what other packages' snapshot providers
 * saved. Immutable; restorable any number of times, into the machine that took it only.
 */
export interface MachineSnapshot {
  /** The machine that took it. */
  readonly owner: object;
  /** Pages of the kernel space and of every task's user space, by address space. */
  readonly spaces: ReadonlyMap<AddressSpace, SpaceImage>;
  readonly cpus: readonly CpuSnapshot[];
  /** The host kernel's parts, by name (`sched`, `memory`, `printk`, …). */
  readonly kernel: ReadonlyMap<string, unknown>;
  /** What each registered {@link SnapshotProvider} saved, by provider name. */
  readonly providers: ReadonlyMap<string, unknown>;
}
