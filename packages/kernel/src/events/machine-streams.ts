import type { TrapEvent } from '@int3/cpu';
import type { Observable } from 'rxjs';
import type { DieEvent, MachineEvent, PrintkEvent, TaskEvent } from './kernel-event.js';
import type { ConsoleWrite } from './machine-events.js';

/**
 * A machine's event streams one family each, for a subscriber that wants one kind only: listening to
 * a family costs what that family emits, where `events$` (all but the console) makes every family emit.
 * Each emits only while someone listens, a frozen event per emission.
 */
export interface MachineStreams {
  /** Every CPU's traps (`#BP`, `#DB`, `#PF`, …) as the CPU raised them. */
  readonly traps$: Observable<TrapEvent>;
  /** Each call of the die notifier chain and whether a notifier stopped it. */
  readonly dies$: Observable<DieEvent>;
  /** Tasks created, signalled, exited. */
  readonly tasks$: Observable<TaskEvent>;
  /** Kernel log lines as printk stores them. */
  readonly printk$: Observable<PrintkEvent>;
  /** The machine's milestones: booted, oops, panicked, text poked, module loaded and unloaded. */
  readonly machine$: Observable<MachineEvent>;
  /** Writes to `/dev/console` (not in `events$`). */
  readonly console$: Observable<ConsoleWrite>;
}
