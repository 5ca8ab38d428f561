/**
 * What the gdb stub asks of a machine. Thread ids are gdb's: 1 … {@link GdbTarget.threads} (one per
 * CPU). Register values are in {@link AMD64_REGISTERS} order.
 */

/** Why the machine stopped, as the stub reports it (a `T` stop reply, or the end of the run). */
export type StopEvent =
  | {
      readonly kind: 'stopped';
      readonly thread: number;
      /** `swbreak`/`hwbreak`: at a breakpoint; `watch`…: a watchpoint triggered on `address`. */
      readonly reason?:
        | { readonly type: 'swbreak' | 'hwbreak' }
        | { readonly type: 'watch' | 'rwatch' | 'awatch'; readonly address: bigint }
        /** No more history that way: the start of the log, or its end. */
        | { readonly type: 'replaylog'; readonly which: 'begin' | 'end' };
      /** SIGINT (2) after Ctrl-C, else SIGTRAP (5). */
      readonly signal?: number;
    }
  | { readonly kind: 'exited'; readonly status: number };

/** How a resume goes: forwards or backwards, a whole `continue` or one instruction of `thread`. */
export interface ResumeRequest {
  readonly action: 'continue' | 'step';
  readonly direction: 'forward' | 'reverse';
  readonly thread: number;
}

/** Breakpoint kinds by their `Z` packet number. */
export const BreakpointType = {
  Software: 0,
  Hardware: 1,
  WriteWatch: 2,
  ReadWatch: 3,
  AccessWatch: 4,
} as const;

/** One of the {@link BreakpointType} numbers. */
export type BreakpointType = (typeof BreakpointType)[keyof typeof BreakpointType];

/** A refusal, reported to gdb as an `E` reply (and, with a message, through `E.message` replies). */
export class TargetRefusal extends Error {
  constructor(
    /** errno-like number gdb shows: 1 EPERM (refused), 14 EFAULT (unmapped memory), 22 EINVAL. */
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The machine under gdb: what the stub reads, writes and runs. */
export interface GdbTarget {
  /** Number of threads (CPUs). */
  readonly threads: number;
  /** Where the machine is now. */
  stopEvent(): StopEvent;
  /** Every register of `thread`'s CPU. */
  readRegisters(thread: number): readonly bigint[];
  /** Writes register `regno`; throws {@link TargetRefusal} when refused (a replay). */
  writeRegister(thread: number, regno: number, value: bigint): void;
  /** Reads guest memory as `thread`'s CPU sees it; shorter (or empty) where it is unmapped. */
  readMemory(thread: number, address: bigint, length: number): Uint8Array;
  /** Writes guest memory; throws {@link TargetRefusal} when refused or unmapped. */
  writeMemory(thread: number, address: bigint, bytes: Uint8Array): void;
  /** Runs until a stop; `interrupt()` during it stops at the next instruction. */
  resume(request: ResumeRequest): Promise<StopEvent>;
  /** Asks a running {@link resume} to stop (gdb's Ctrl-C). */
  interrupt(): void;
  /** Inserts a breakpoint or watchpoint; false when the type is not supported. */
  insertBreakpoint(type: BreakpointType, address: bigint, length: number): boolean;
  /** Removes one; false when the type is not supported. */
  removeBreakpoint(type: BreakpointType, address: bigint, length: number): boolean;
  /** One line about the thread (`CPU 0: cat (pid 1)`), for `info threads`. */
  threadInfo(thread: number): string;
  /** Runs a `monitor` command and returns its output; throws {@link TargetRefusal} for a bad one. */
  monitor(command: string): string;
  /** Text for gdb's console that the last resume produced (sent as `O` packets before its stop). */
  takeOutput?(): string;
}
