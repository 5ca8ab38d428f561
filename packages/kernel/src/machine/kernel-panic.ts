import type { MachineEvents } from '../events/machine-events.js';
import type { Clock } from './cpu-clocks.js';

/**
 * `panic()`: the machine stops for good, with one message; and `panic_on_oops`, whether an oops
 * panics it.
 *
 * @see kernel/panic.c panic(), panic_on_oops
 */
export class KernelPanic {
  /** The panic message, once panicked. */
  message: string | undefined;

  constructor(
    private readonly events: Pick<MachineEvents, 'log' | 'emitMachine'>,
    private readonly clock: Clock,
    /** `panic_on_oops`. */
    readonly onOops: boolean,
  ) {}

  /** Stops the machine for good (a second panic changes nothing). */
  panic(cpu: number, message: string): void {
    if (this.message) return;
    this.message = message;
    this.events.log(cpu, 0, `Kernel panic - not syncing: ${message}`);
    this.events.emitMachine({ type: 'machine:panicked', at: this.clock.clock(cpu), cpu, reason: message });
  }
}
