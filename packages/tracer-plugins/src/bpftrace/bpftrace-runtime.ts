import type { PtRegName, PtRegs } from '@int3/kernel';
import type { TracerKprobes } from '../view/tracer-kprobes.js';

/** The task a probe hit runs in, as bpftrace's builtins read it. */
export interface CurrentTask {
  readonly pid: number;
  readonly tid: number;
  readonly comm: string;
  /** Address of its `struct task_struct` (`curtask`). */
  readonly task: bigint;
}

/**
 * What a compiled bpftrace program reads on a probe hit, and nothing more: registers by name, kernel
 * memory, the current task, kernel symbols, the clock and the CPU count. The tracer adapts the
 * machine to it in one file, so the program does not depend on how the host is built.
 *
 * @see bpftrace's BPF helpers: bpf_get_current_pid_tgid, bpf_get_current_comm, bpf_probe_read_kernel,
 * bpf_ktime_get_ns, bpf_get_smp_processor_id, bpf_get_current_task
 */
export interface BpftraceRuntime {
  readonly ncpus: number;
  /** A `pt_regs` member of the CPU that hit. */
  reg(cpu: number, name: PtRegName): bigint;
  /** Copies `length` bytes of kernel memory at `address` into `out`; false if any byte is unmapped. */
  readMemory(cpu: number, address: bigint, length: number, out: Uint8Array): boolean;
  /** A NUL-terminated string of at most `max` bytes at `address`; undefined where unmapped. */
  readString(cpu: number, address: bigint, max: number): string | undefined;
  currentTask(cpu: number): CurrentTask;
  /** The function an address is in: its name and start. */
  functionAt(address: bigint): { readonly name: string; readonly address: bigint } | undefined;
  /** A kernel symbol's address. */
  addressOf(name: string): bigint | undefined;
  /** Virtual ns on `cpu` (bpf_ktime_get_ns). */
  now(cpu: number): number;
}

/**
 * What the bpftrace tracer needs to attach a program besides what it reads on a hit: kprobes' public
 * API, the kernel functions an attach point names, and a hook run between rounds (for `interval` and
 * `profile` on virtual time).
 */
export interface BpftraceAttachHost extends BpftraceRuntime {
  readonly kprobes: TracerKprobes;
  /** The functions a name or wildcard (and module) matches, in address order. */
  matchFunctions(func: string, module?: string): string[];
  /** Calls `fn` after every round of the machine; returns the unregister handle. */
  onRoundBoundary(fn: () => void): () => void;
  /** Aims register reads at a probe hit's trap frame; returns the CPU it runs on. */
  enter(regs: PtRegs): number;
  /** Aims register reads at `cpu`'s interrupted registers (a timer's probe). */
  enterIrq(cpu: number): void;
}
