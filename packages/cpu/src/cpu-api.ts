import type { Observable } from 'rxjs';
import type { AddressSpace } from './address-space.js';
import { Cpu as CpuMachine, type CpuOptions } from './cpu.js';
import type { CpuContext } from './cpu-context.js';
import type { MemoryWatch } from './cpu-core.js';
import type { PortIo } from './cpu-system.js';
import type { Insn } from './insn.js';
import type { JitStats } from './jit/jit-stats.js';
import type { RegIndex } from './reg.js';
import type { RunResult } from './run-result.js';
import type { TrapEvent } from './trap-event.js';

export type { MemoryWatch, PortIo };

/**
 * What the run loop calls at a gate (see {@link Cpu.gateHook}). Written as a method's type: the CPU
 * calls it with itself, which is more than the Cpu a host sees.
 */
export type GateHook = { hook(cpu: Cpu, gate: Insn): boolean }['hook'];

/**
 * What the run loop calls at a #BP or single-step #DB (see {@link Cpu.trapHook}): true when the host
 * handled the trap in place. `vector` is `ExceptionVector.Breakpoint` or `ExceptionVector.Debug`.
 */
export type TrapHook = { hook(cpu: Cpu, vector: number): boolean }['hook'];

/** What the block compiler of a CPU shows: where its time goes. */
export interface CompilerView {
  readonly threshold: number;
  readonly stats: Readonly<JitStats>;
}

/**
 * One x86-64 CPU as host code sees it: the architectural registers (as bigints, or as int32 halves on
 * hot paths), MSRs, the run and step entry points, the context a snapshot keeps, and the hooks a host
 * kernel installs. This is all other packages reach: how the CPU keeps its state (int32 register
 * halves, lazy flags, the TLB, the decode cache, compiled regions) stays inside `@int3/cpu`.
 * @see Intel SDM Vol. 1 §3 (basic execution environment) and Vol. 3A §2 (system architecture)
 * @example
 * const cpu = new Cpu({ addressSpace: as });
 * cpu.rip = 0x400000n;
 * const r = cpu.run(1_000_000); // { reason: 'hlt', rip } or an exception as a value
 */
export interface Cpu {
  /** The CPU's number (its APIC id). */
  readonly id: number;
  /** The address space it translates through; assigning one is a CR3 write (the TLB is flushed). */
  addressSpace: AddressSpace;

  rip: bigint;
  /** RFLAGS with its arithmetic flags evaluated. */
  rflags: number;
  cpl: 0 | 3;
  cs: number;
  ss: number;
  fsBase: bigint;
  gsBase: bigint;
  kernelGsBase: bigint;
  /**
   * CR0 (paging honours its WP bit). The host's setters store what they are given, as firmware
   * would; the guest's MOV to CR0/CR3/CR4 is checked as the SDM says (#GP(0) for reserved bits or a
   * combination IA-32e mode forbids).
   */
  cr0: bigint;
  cr2: bigint;
  cr3: bigint;
  cr4: bigint;
  /**
   * While true, every instruction executed costs no virtual time, as if it were marked with
   * markInstrumentation (kprobes sets it while a jprobe handler runs).
   */
  instrumentationMode: boolean;
  /** Every instruction retired. */
  readonly retired: number;
  /** Instructions retired minus instrumentation; rdtsc derives from it. */
  readonly virtualRetired: number;

  /** Reads a GPR as an unsigned 64-bit bigint. */
  getReg(r: RegIndex): bigint;
  /** Writes a GPR; the value is taken modulo 2^64. */
  setReg(r: RegIndex, v: bigint): void;
  /** Reads the low 32 bits of a GPR, unsigned. */
  getReg32(r: RegIndex): number;
  /** The low 32 bits of a GPR, as an int32 (no bigint: for gates and probe handlers). */
  regLo(r: RegIndex): number;
  /** The high 32 bits of a GPR, as an int32. */
  regHi(r: RegIndex): number;
  /** Writes a GPR from its int32 halves. */
  setRegHalves(r: RegIndex, lo: number, hi: number): void;
  /** The low 32 bits of RIP, as an int32. */
  readonly ripLow: number;
  /** The high 32 bits of RIP, as an int32. */
  readonly ripHigh: number;
  /** Moves RIP to `hi:lo` (int32 halves). */
  setRipHalves(lo: number, hi: number): void;
  /** @see Intel SDM Vol. 2B (RDMSR); throws a TypeError for an MSR the CPU does not implement. */
  readMsr(index: number): bigint;
  /** @see Intel SDM Vol. 2B (WRMSR); throws a TypeError for an MSR it does not implement or a refused value. */
  writeMsr(index: number, v: bigint): void;

  /**
   * Runs until an exit. `budget` counts virtual instructions (instrumentation costs 0); `hardCap`
   * bounds all executed instructions.
   */
  run(budget: number, hardCap?: number): RunResult;
  /** Executes exactly one instruction. */
  step(): RunResult;
  /** Latches an external interrupt, taken at an instruction boundary when IF=1 (after any STI shadow). */
  raiseInterrupt(vector: number): void;
  /** The exceptions run() and step() return, as frozen `trap:raised` events (published only when observed). */
  readonly traps$: Observable<TrapEvent>;

  /** The full register file as plain, deep-copied data. */
  saveContext(): CpuContext;
  /** Restores a context produced by saveContext (of this or another CPU). */
  restoreContext(c: CpuContext): void;
  /** Drops every cached translation (after page-table changes the CPU cannot see). */
  flushTlb(): void;
  /** Drops the cached write translations only (after pages became read-only). */
  flushWriteTlb(): void;

  /**
   * Consulted when the run loop reaches a gate: true when the host handled it in place (it moved rip,
   * and the run goes on without leaving the loop); false, or no hook, and the run exits with reason
   * `gate`. The hook gets the gate's decoded instruction, whose `gate` field is the hook's to cache its
   * binding in. It may run guest code on this CPU (a nested run).
   */
  gateHook: GateHook | null;
  /**
   * Consulted when the run loop would return a #BP (`int3`, `int 3`) or the #DB of a single-step
   * (TF), after the trap was published on {@link traps$}: true when the host handled it in place (a
   * kprobe's int3 and its single-step: it may have moved rip and changed registers), and the run
   * goes on as if the host had called run() again (the same budget end, a default hard cap renewed,
   * an explicit one kept, pending interrupts looked at first); false, or no hook, and the run
   * returns the exception as usual (not published again). Other exceptions, and `int n` for other
   * vectors, always return. It may run guest code on this CPU (a nested run).
   */
  trapHook: TrapHook | null;
  /** A debugger's memory watch, or null (the default, which costs nothing). */
  memoryWatch: MemoryWatch | null;
  /**
   * A debugger's stops: the addresses where a run returns before the instruction (reason `budget`,
   * {@link atDebugStop} set), nothing executed or counted. Decoding looks at them, so whoever changes
   * the set drops the decoded code at each address it adds or removes (AddressSpace.dropCode). Null,
   * the default, costs nothing.
   */
  debugStops: ReadonlySet<bigint> | null;
  /** Set when a run returned at a {@link debugStops} address; the host clears it. */
  atDebugStop: boolean;
  /** The port space `in`/`out` reach; with none, `in` reads all ones and `out` goes nowhere (no device). */
  io: PortIo | undefined;
  /** The block compiler's view, or null when this CPU only interprets. */
  readonly jit: CompilerView | null;
}

// Internal modules never import this file (the architecture test forbids cycles, type-only imports
// included): the assignment below is what checks that the CPU is this Cpu.
/**
 * Makes a CPU: long mode, CPL 0, RIP 0, the block compiler on unless `options.jit` or `INT3_JIT=0`
 * says otherwise.
 */
export const Cpu: new (options: CpuOptions) => Cpu = CpuMachine;
