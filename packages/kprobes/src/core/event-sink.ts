import type { KprobeEvent } from './kprobe-event.js';

/** Where the parts of kprobes publish their events (`events$`), cheaply when nobody listens. */
export interface KprobeEventSink {
  /** Publishes an event when someone listens (free otherwise). */
  emit(e: KprobeEvent): void;
  /** True when `events$` has subscribers (handlers skip building events otherwise). */
  readonly observed: boolean;
  /** Virtual time of a CPU (CPU 0 by default: for events outside a hit). */
  now(cpu?: number): number;
}
