import type { KernelImage } from '../boot/kernel-image.js';
import type { TextPoke } from '../mm/kernel-memory.js';
import type { SnapshotProvider } from '../snapshot/snapshot-provider.js';
import type { DieNotifier } from '../traps/die-chain.js';
import type { PtRegs } from '../traps/pt-regs.js';
import type { StepHook } from './cpu-stepper.js';
import type { GuestCallOptions } from './guest-caller.js';
import type { HostCallHandler, HostGate } from './host-calls.js';

/**
 * The die notifier chain as a subsystem sees it: it registers notifiers; the kernel alone notifies.
 * @see kernel/notifier.c register_die_notifier(), unregister_die_notifier()
 */
export interface DieNotifierChain {
  /** Adds `fn` at `priority` (higher runs first); returns the unregister handle. */
  register(name: string, priority: number, fn: DieNotifier<PtRegs>): () => void;
  /** The registered notifiers' names, in call order. */
  names(): string[];
}

/**
 * The exception table: faulting instruction → fixup, the kernel's and every loaded module's.
 * @see kernel/extable.c search_exception_tables()
 */
export type ExceptionTable = ReadonlyMap<bigint, bigint>;

/**
 * Kernel memory as a subsystem uses it: `text_poke`, the module area, vmalloc, kmalloc.
 * @see arch/x86/kernel/alternative.c text_poke(); arch/x86/kernel/module.c module_alloc()
 */
export interface KernelMemoryApi {
  /** The only way to change kernel text: writes `bytes` at `address` and reports the poke. */
  textPoke(address: bigint, bytes: Uint8Array): TextPoke;
  /** Maps `size` bytes in the module area (within ±2 GiB of kernel text) with `flags`. */
  moduleAlloc(size: number, flags?: number): bigint;
  /** Maps `size` bytes of zeroed kernel data in the vmalloc area. */
  vmallocMap(size: number, flags?: number): bigint;
  /** Unmaps pages of {@link moduleAlloc} or {@link vmallocMap}. */
  free(address: bigint): void;
  /** `kmalloc` / `kfree`. */
  readonly heap: { alloc(size: number): bigint; free(address: bigint): void };
}

/**
 * Host services bound to guest addresses (gates): what a subsystem defines, binds and unbinds.
 * @see image/ABI.md §3
 */
export interface HostCallTable {
  /** Gives `handler` a fresh gate (and a kallsyms entry `name`); returns its address. */
  define(name: string, handler: HostCallHandler): bigint;
  /** Binds `handler` at `address`; an `inline` gate runs inside the CPU's run loop and must move rip. */
  bind(name: string, address: bigint, handler: HostCallHandler, options?: { readonly inline?: boolean }): void;
  unbind(address: bigint): void;
  lookup(address: bigint): HostGate | undefined;
}

/** Host-to-guest calls: run a guest function with the SysV ABI and get its rax back. */
export interface GuestCalls {
  call(cpu: number, fn: bigint, args: readonly bigint[], options?: GuestCallOptions): bigint;
  /** True while a host-to-guest call is in progress. */
  readonly active: boolean;
}

/**
 * Per-CPU areas: each CPU's `pcpu_hot` base (what `%gs` points at in kernel mode) and room after it.
 * @see mm/percpu.c __alloc_percpu(); arch/x86/include/asm/current.h struct pcpu_hot
 */
export interface PerCpuAreas {
  /** Address of each CPU's `pcpu_hot`. */
  readonly bases: readonly bigint[];
  /** Reserves `size` bytes in every CPU's area; returns their offset from the base (`%gs:offset`). */
  alloc(size: number): number;
}

/**
 * What an in-kernel subsystem (kprobes) may use of the kernel, each capability a narrow interface:
 * a subsystem declares its own host in terms of these, picking the few it needs, and is handed them
 * once by its composition root. Users of a machine (run, spawn, read state) do not need any of it.
 */
export interface KernelApi {
  readonly dieChain: DieNotifierChain;
  readonly exTable: ExceptionTable;
  readonly memory: KernelMemoryApi;
  readonly hostCalls: HostCallTable;
  readonly guest: GuestCalls;
  readonly percpu: PerCpuAreas;
  /** Top of each CPU's stack for host-to-guest calls made outside any task. */
  readonly hostStackTop: readonly bigint[];
  /** The booted image: its symbols (`_stext`, `init_task`, …). */
  readonly image: KernelImage;
  /** printk from the host side, on behalf of `cpu`. */
  log(cpu: number, level: number, text: string): void;
  /**
   * A `BUG()` in host code on behalf of the guest: an oops (`invalid opcode`) for the current task of
   * `cpu`, which is killed.
   */
  oops(cpu: number, reason: string): void;
  /**
   * Calls `fn` at every round boundary (every CPU ran its slice since the last): where work that waits
   * for all CPUs runs (`text_poke_sync()`). `idle`, when given, tells whether the hook has nothing to do
   * while every CPU idles (then idle time is skipped in one step). Returns the unregister handle.
   * @see kernel/workqueue.c
   */
  onRoundBoundary(fn: () => void, idle?: () => boolean): () => void;
  /** Adds a subsystem's state to every later machine snapshot; returns the unregister handle. */
  registerSnapshotProvider(name: string, provider: SnapshotProvider): () => void;
  /**
   * When set, CPUs run one instruction at a time and this is called with the address of each one
   * before it runs: an oracle for tests (how often did an instruction execute?), slow by design. A hook
   * that returns true holds the CPU before that instruction (see {@link StepHook}): a debugger's stop.
   */
  stepHook: StepHook | undefined;
  /**
   * Runs the CPUs at full speed and stops them before the instructions at `addresses` (a debugger's
   * breakpoints, `Cpu.debugStops`): `hook` is asked at each as the step hook is at every instruction,
   * and holds the CPU there or lets the instruction run. Guest memory and virtual time are untouched;
   * an empty list removes every stop.
   */
  setDebugStops(addresses: readonly bigint[], hook: StepHook | undefined): void;
}
