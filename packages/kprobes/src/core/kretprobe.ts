import type { PtRegs } from '@int3/kernel';
import type { Kprobe } from './kprobe.js';

/** One in-flight return of a probed function (`struct kretprobe_instance`). */
export interface KretprobeInstance {
  readonly rp: Kretprobe;
  /** The real return address the trampoline replaced. */
  retAddr: bigint;
  /** Where on the stack the return address was. */
  stackSlot: bigint;
  /** pid of the task (0 outside any task). */
  pid: number;
  /** Per-instance private data (`data_size` bytes), for the entry and return handlers. */
  readonly data: Uint8Array;
}

/**
 * `struct kretprobe`: a probe on a function's return. `handler` runs when the function returns (the
 * return value is `regs.ax`); `entryHandler` runs at entry and may decline the instance.
 *
 * @see include/linux/kprobes.h struct kretprobe
 * @example
 * kretprobes.registerKretprobe({ kp: { symbolName: 'sys_mkdir' }, handler: (ri, regs) => { regs.ax = -12n; } });
 */
export interface Kretprobe {
  kp: Kprobe;
  handler?: (ri: KretprobeInstance, regs: PtRegs) => void;
  entryHandler?: (ri: KretprobeInstance, regs: PtRegs) => number | boolean | undefined;
  /** Instances allocated at registration; default `max(10, 2 × NR_CPUS)` (written back). */
  maxactive?: number | undefined;
  /** Bytes of private data per instance (≤ 4096). */
  dataSize?: number;
  /** Function entries missed because every instance was in use. */
  nmissed?: number | undefined;
}

/** `KRETPROBE_MAX_DATA_SIZE`. */
export const KRETPROBE_MAX_DATA_SIZE = 4096;
