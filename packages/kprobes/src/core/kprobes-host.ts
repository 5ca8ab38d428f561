import type { AddressSpace, Cpu } from '@int3/cpu';
import type {
  DieArgs,
  ExceptionTable,
  GuestCalls,
  HostCallTable,
  Kallsyms,
  KernelMemoryApi,
  KernelSymbols,
  LoadedModule,
  ModuleNotifier,
  NotifyResultValue,
  PtRegs,
  SnapshotProvider,
  Task,
  TaskEvent,
} from '@int3/kernel';
import type { Observable } from 'rxjs';

/** Which task runs on each CPU, and every task (for the optimizer's "nobody is inside" check). */
export interface TaskView {
  readonly current: readonly (Task | undefined)[];
  readonly tasks: ReadonlyMap<number, Task>;
}

/** The module notifier chain and the module lookup by address. */
export interface ModuleHooks {
  onModule(fn: ModuleNotifier): () => void;
  moduleAt(address: bigint): LoadedModule | undefined;
}

/**
 * What kprobes needs of the kernel, as narrow capabilities: the kernel's address space and text, its
 * symbols, CPUs, tasks, clock and log, and the hook points kprobes plugs into (the die notifier chain,
 * the module notifier, task exits, round boundaries, snapshots). Built once, from a `Machine`, by the
 * composition root ({@link Kprobes.init}); no part of kprobes sees the machine itself.
 * @see kernel/kprobes.c init_kprobes() (what it registers with the rest of the kernel)
 */
export interface KprobesHost {
  readonly cpus: readonly Cpu[];
  /** The kernel's address space. */
  readonly space: AddressSpace;
  /** `text_poke`, `module_alloc` and `kmalloc`. */
  readonly memory: Pick<KernelMemoryApi, 'textPoke' | 'moduleAlloc' | 'free'>;
  readonly heap: KernelMemoryApi['heap'];
  readonly guest: GuestCalls;
  readonly kallsyms: Kallsyms;
  /** The kernel image's section markers (`_stext`, `__entry_text_start`, …). */
  readonly symbols: KernelSymbols;
  /** The exception table: faulting addresses with a fixup (`search_exception_tables()`). */
  readonly exTable: ExceptionTable;
  readonly hostCalls: Pick<HostCallTable, 'define' | 'bind' | 'unbind'>;
  readonly sched: TaskView;
  readonly modules: ModuleHooks;
  /** Per-CPU area bases (the GS base of each CPU). */
  readonly pcpu: readonly bigint[];
  /** The top of each CPU's host-call stack (a probe hit outside any task runs on it). */
  readonly hostStackTop: readonly bigint[];
  readonly tasks$: Observable<TaskEvent>;
  /** Virtual time of a CPU, in ns. */
  clock(cpu: number): number;
  /** `printk` at a log level. */
  log(cpu: number, level: number, text: string): void;
  /** `die("Oops")` on a CPU: what a `BUG()` does. */
  oops(cpu: number, reason: string): void;
  /** Reserves `size` bytes in every CPU's per-CPU area; returns the offset from the GS base. */
  percpuAlloc(size: number): number;
  registerDieNotifier(name: string, priority: number, fn: (args: DieArgs<PtRegs>) => NotifyResultValue): void;
  registerSnapshotProvider(name: string, provider: SnapshotProvider): void;
  /**
   * Runs `fn` at every round boundary (between two CPUs' time slices). `idle` tells when `fn` has
   * nothing to do while every CPU idles, so idle time can pass in one step.
   */
  onRoundBoundary(fn: () => void, idle?: () => boolean): void;
}
