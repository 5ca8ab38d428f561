import type { TracerClock } from '../plugins/tracer-clock.js';
import type { TracerKprobes } from './tracer-kprobes.js';
import type { TracerMemory } from './tracer-memory.js';
import type { TracerRegisters } from './tracer-registers.js';
import type { TracerSymbols } from './tracer-symbols.js';
import type { TracerTasks } from './tracer-tasks.js';
import type { TracerTimers } from './tracer-timers.js';

/**
 * What a tracer sees of the machine it traces: register and memory reads, the current task per CPU,
 * the symbol table, the virtual clock, the number of CPUs, and the kprobes API — a view, never the
 * `Machine` or `Kprobes` objects themselves. Built by `machineTracerView`, the one place that knows
 * those objects' members.
 *
 * @see kernel/trace/trace_kprobe.c — a kernel tracer reads regs, memory, `current` and kallsyms
 */
export interface TracerView {
  /** How many CPUs the machine has; CPUs are numbered 0 to `nrCpus − 1`. @see nr_cpu_ids */
  readonly nrCpus: number;
  readonly clock: TracerClock;
  readonly regs: TracerRegisters;
  readonly memory: TracerMemory;
  readonly tasks: TracerTasks;
  readonly symbols: TracerSymbols;
  readonly kprobes: TracerKprobes;
  readonly timers: TracerTimers;
}
