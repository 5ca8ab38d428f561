/**
 * Published on `Cpu.traps$` for every exception `run()`/`step()` returns (frozen, past tense).
 * `bytes` (hex) and `mnemonic` (iced formatter) name the instruction of a #UD.
 * @see Linux arch/x86/kernel/traps.c (do_trap, the kernel's view of the same events)
 */
export type TrapEvent = {
  readonly type: 'trap:raised';
  readonly cpu: number;
  readonly vector: number;
  readonly name: string;
  readonly rip: bigint;
  readonly errorCode?: number;
  readonly cr2?: bigint;
  readonly bytes?: string;
  readonly mnemonic?: string;
  readonly retired: number;
};
