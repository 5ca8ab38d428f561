/**
 * Virtual time. A virtual CPU retires one instruction per nanosecond (a 1 GHz, 1-IPC machine), and only
 * instructions the uninstrumented program executes count (the CPU's `virtualRetired`): probes, slots,
 * trampolines and host handlers cost no virtual time, so a probed run interleaves exactly like an
 * unprobed one. Idle CPUs advance with the others, quantum by quantum.
 */

/** Nanoseconds of virtual time per retired (virtual) instruction. */
export const NS_PER_INSTRUCTION = 1;

/** `HZ`: timer interrupts per virtual second. */
export const HZ = 1000;

/** Virtual nanoseconds between two timer interrupts on one CPU (one jiffy). */
export const TICK_NS = 1_000_000_000 / HZ;

/**
 * Formats nanoseconds the way printk and ftrace print timestamps: `%5lu.%06lu` (seconds right-aligned
 * in five columns, microseconds zero-padded to six).
 *
 * @see kernel/printk/printk.c print_time()
 */
export function formatTimestamp(ns: number): string {
  const us = Math.floor(ns / 1000);
  const secs = Math.floor(us / 1_000_000);
  const frac = us % 1_000_000;
  return `${String(secs).padStart(5, ' ')}.${String(frac).padStart(6, '0')}`;
}
