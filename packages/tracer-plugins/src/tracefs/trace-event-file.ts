/**
 * The `EVENT_FILE_FL_*` bits of one event's `struct trace_event_file` that event triggers use.
 *
 * @see include/linux/trace_events.h enum EVENT_FILE_FL_*
 */
export const EventFileFlag = Object.freeze({
  ENABLED: 1 << 0,
  /** Enabled by a trigger (`enable_event`, or any trigger on the event itself): `sm_ref` counts them. */
  SOFT_MODE: 1 << 3,
  /** Armed but recording nothing: the probe fires only so the event's triggers can run. */
  SOFT_DISABLED: 1 << 4,
  /** The event has triggers (`tm_ref` counts them). */
  TRIGGER_MODE: 1 << 5,
  /** A trigger needs the record: it has a filter, runs after the commit, or reads fields (hist). */
  TRIGGER_COND: 1 << 6,
} as const);

/**
 * The enable state of one event as triggers see it: the flags, the soft-mode and trigger-mode
 * reference counts, and the kernel's rules for turning the event on "for real" (`enable`) or "softly"
 * (for a trigger). `arm` turns the event's probes on or off; it is called when ENABLED changes.
 *
 * @see kernel/trace/trace_events.c __ftrace_event_enable_disable(), event_enable_read()
 * @see kernel/trace/trace_events_trigger.c trace_event_trigger_enable_disable()
 * @example
 * const file = new TraceEventFile((on) => (on ? enableProbes() : disableProbes()));
 * file.enableDisable(true, true); // soft mode: armed, SOFT_DISABLED
 * file.enableText(); // '0*\n'
 */
export class TraceEventFile {
  flags = 0;
  #smRef = 0;
  #tmRef = 0;

  constructor(private readonly arm: (on: boolean) => void) {}

  /** The flags and the soft and trigger reference counts, for a machine snapshot. */
  save(): readonly [number, number, number] {
    return Object.freeze([this.flags, this.#smRef, this.#tmRef] as const);
  }

  /** Puts back what {@link save} returned, arming nothing (kprobes' own snapshot holds the kprobes). */
  restore(s: readonly [number, number, number]): void {
    [this.flags, this.#smRef, this.#tmRef] = s;
  }

  /** True when the event's probes are armed (really or softly). */
  get enabled(): boolean {
    return (this.flags & EventFileFlag.ENABLED) !== 0;
  }

  /** True when a hit records nothing (soft mode, not enabled by an `enable_event`). */
  get softDisabled(): boolean {
    return (this.flags & EventFileFlag.SOFT_DISABLED) !== 0;
  }

  /** `enable` as read: `1` when recording, else `0`, with `*` in soft mode. @see event_enable_read() */
  enableText(): string {
    const f = this.flags;
    const on = f & EventFileFlag.ENABLED && !(f & EventFileFlag.SOFT_DISABLED) ? '1' : '0';
    const soft = f & (EventFileFlag.SOFT_DISABLED | EventFileFlag.SOFT_MODE) ? '*' : '';
    return `${on}${soft}\n`;
  }

  /**
   * Turns the event on or off, for real (`soft` false: the `enable` file) or for a trigger (`soft`
   * true, reference counted). A soft enable of an event not yet on arms it SOFT_DISABLED; a real
   * disable of an event in soft mode leaves it armed and SOFT_DISABLED. `arm` may throw (a kprobe
   * that cannot be enabled): the flags are then left as they were.
   *
   * @see kernel/trace/trace_events.c __ftrace_event_enable_disable()
   */
  enableDisable(enable: boolean, soft: boolean): void {
    const F = EventFileFlag;
    if (!enable) {
      if (!(this.flags & F.ENABLED)) return;
      let disable: boolean;
      if (soft) {
        if (--this.#smRef > 0) return;
        disable = (this.flags & F.SOFT_DISABLED) !== 0;
        this.flags &= ~F.SOFT_MODE;
      } else {
        disable = !(this.flags & F.SOFT_MODE);
      }
      if (disable) {
        this.arm(false);
        this.flags &= ~F.ENABLED;
      }
      if (this.flags & F.SOFT_MODE) this.flags |= F.SOFT_DISABLED;
      else this.flags &= ~F.SOFT_DISABLED;
      return;
    }
    const before = this.flags;
    if (!soft) this.flags &= ~F.SOFT_DISABLED;
    else {
      if (++this.#smRef > 1) return;
      this.flags |= F.SOFT_MODE;
    }
    if (this.flags & F.ENABLED) return;
    try {
      this.arm(true);
    } catch (e) {
      this.flags = before;
      if (soft) this.#smRef--;
      throw e;
    }
    if (soft) this.flags |= F.SOFT_DISABLED;
    this.flags |= F.ENABLED;
  }

  /**
   * A trigger was added to (true) or removed from (false) this event: the first one puts it in
   * trigger mode and soft-enables it, the last one undoes that.
   *
   * @see kernel/trace/trace_events_trigger.c trace_event_trigger_enable_disable()
   */
  triggerEnableDisable(enable: boolean): void {
    if (enable) {
      if (++this.#tmRef > 1) return;
      this.flags |= EventFileFlag.TRIGGER_MODE;
      try {
        this.enableDisable(true, true);
      } catch (e) {
        this.#tmRef--;
        this.flags &= ~EventFileFlag.TRIGGER_MODE;
        throw e;
      }
      return;
    }
    if (--this.#tmRef > 0) return;
    this.flags &= ~EventFileFlag.TRIGGER_MODE;
    this.enableDisable(false, true);
  }

  /** Sets or clears TRIGGER_COND. @see update_cond_flag() */
  setCond(on: boolean): void {
    if (on) this.flags |= EventFileFlag.TRIGGER_COND;
    else this.flags &= ~EventFileFlag.TRIGGER_COND;
  }
}
