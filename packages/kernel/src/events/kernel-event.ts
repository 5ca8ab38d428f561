import type { TrapEvent } from '@int3/cpu';

/** Fields every kernel event carries: when (virtual ns on the CPU it happened on) and where. */
export interface EventAt {
  /** Virtual time in nanoseconds. */
  readonly at: number;
  readonly cpu: number;
}

/** A die notification and what the chain answered. */
export interface DieEvent extends EventAt {
  readonly type: 'die:notified';
  readonly val: string;
  readonly trapnr: number;
  readonly rip: bigint;
  /** True when some notifier returned NOTIFY_STOP. */
  readonly stopped: boolean;
}

/** Task lifecycle. */
export type TaskEvent =
  | (EventAt & { readonly type: 'task:created'; readonly pid: number; readonly comm: string; readonly ppid: number })
  | (EventAt & { readonly type: 'task:exited'; readonly pid: number; readonly comm: string; readonly status: number })
  | (EventAt & {
      readonly type: 'task:signalled';
      readonly pid: number;
      readonly comm: string;
      readonly signo: number;
    });

/** One printk line. */
export interface PrintkEvent extends EventAt {
  readonly type: 'printk';
  readonly level: number;
  readonly text: string;
}

/** The machine's own milestones. */
export type MachineEvent =
  | (EventAt & { readonly type: 'machine:booted'; readonly cpus: number; readonly image: string })
  | (EventAt & { readonly type: 'machine:oops'; readonly pid: number; readonly rip: bigint; readonly reason: string })
  | (EventAt & { readonly type: 'machine:panicked'; readonly reason: string })
  | (EventAt & {
      readonly type: 'text:poked';
      readonly address: bigint;
      readonly before: string;
      readonly after: string;
    })
  | (EventAt & { readonly type: 'module:loaded'; readonly name: string; readonly base: bigint })
  | (EventAt & { readonly type: 'module:unloaded'; readonly name: string });

/** Everything the kernel publishes, in one discriminated union. */
export type KernelEvent = DieEvent | TaskEvent | PrintkEvent | MachineEvent | TrapEvent;
