import type { TracerView } from './tracer-view.js';

/**
 * What kprobes shows and takes through its debugfs files and sysctl.
 *
 * @see kernel/kprobes.c debugfs_kprobe_init(), proc_kprobes_optimization_handler()
 */
export interface KprobesDebugfs {
  /** `/sys/kernel/debug/kprobes/list`. */
  list(): string;
  /** `/sys/kernel/debug/kprobes/blacklist`. */
  blacklist(): string;
  /** Reads `/sys/kernel/debug/kprobes/enabled`. */
  enabled(): string;
  /** Writes it; false for a value the kernel refuses (EINVAL). */
  writeEnabled(text: string): boolean;
  /** `debug.kprobes-optimization`. */
  readonly optimization: boolean;
  setOptimization(on: boolean): void;
}

/**
 * The {@link TracerView} plus what the tracefs itself needs of the machine beyond a tracer's share:
 * raw page access for the fetch-arg hot path, the module notifier, symbol counts, and the kernel log.
 * Not handed to plugins.
 */
export interface MachineView extends TracerView {
  /**
   * The 4 KiB page holding `hi:lo` (the address's 32-bit halves) in the address space current on
   * `cpu`, live (not a copy), or undefined when unmapped. For readers that must not allocate per hit.
   */
  pageOf(cpu: number, lo: number, hi: number): Uint8Array | undefined;
  /** How many text symbols carry this name (kernel and modules). @see number_of_same_symbols() */
  countFunctions(name: string): number;
  /** Whether the symbol `kallsyms_lookup_name(name)` finds is a text symbol (a function). */
  isFunction(name: string): boolean;
  /** Whether a module of this name is loaded. */
  isModuleLoaded(name: string): boolean;
  /** Calls `fn` with a module's name as it is coming (before its init runs). @see register_module_notifier() */
  onModuleComing(fn: (module: string) => void): void;
  /** Logs a kernel message at a level (4: warning). @see printk() */
  printk(level: number, text: string): void;
  readonly debugfs: KprobesDebugfs;
}
