/**
 * Why `Cpu.run()` / `Cpu.step()` stopped. Faults report RIP of the faulting instruction with state
 * unchanged; traps (int3, int n, single-step #DB) report RIP after the instruction.
 * @see Intel SDM Vol. 3A §6.5 (faults, traps, aborts)
 */
export type RunResult =
  | { reason: 'exception'; vector: number; errorCode?: number; cr2?: bigint; rip: bigint; singleStep?: boolean }
  | { reason: 'interrupt'; vector: number; rip: bigint }
  | { reason: 'hlt'; rip: bigint }
  | { reason: 'gate'; rip: bigint }
  | { reason: 'budget'; rip: bigint };
