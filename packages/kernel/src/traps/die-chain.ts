/**
 * The die notifier chain: how a trap becomes everyone's business before the kernel's own handling.
 * Notifiers run in descending priority (ties: registration order); `NOTIFY_STOP` ends the walk and
 * tells the trap handler the event was consumed (kprobes' int3 and debug handlers work this way).
 *
 * @see kernel/notifier.c notifier_call_chain(), atomic_notifier_chain_register()
 * @see arch/x86/kernel/traps.c notify_die() callers
 */

/** Notifier return values, as in `include/linux/notifier.h`. */
export const NotifyResult = {
  /** Don't care. */
  DONE: 0x0000,
  /** Suits me. */
  OK: 0x0001,
  /** Stop the chain: the event was handled. `NOTIFY_STOP_MASK | NOTIFY_OK`. */
  STOP: 0x8001,
} as const;
export type NotifyResultValue = (typeof NotifyResult)[keyof typeof NotifyResult];

/** `enum die_val` (x86): which trap is being reported. */
export const DieVal = {
  OOPS: 1,
  INT3: 2,
  DEBUG: 3,
  PANIC: 4,
  NMI: 5,
  DIE: 6,
  KERNELDEBUG: 7,
  TRAP: 8,
  GPF: 9,
  CALL: 10,
  PAGE_FAULT: 11,
  NMIUNKNOWN: 12,
} as const;
export type DieValue = (typeof DieVal)[keyof typeof DieVal];

/** Printable names of {@link DieVal}, for events and messages. */
export const DIE_NAMES: Readonly<Record<number, string>> = Object.freeze(
  Object.fromEntries(Object.entries(DieVal).map(([k, v]) => [v, `DIE_${k}`])),
);

/**
 * `struct die_args`: what a notifier sees. `regs` is the live register view of the trapping CPU —
 * writes to it change what the CPU resumes with. The object is reused between notifications; a
 * notifier must not keep it.
 */
export interface DieArgs<Regs> {
  val: DieValue;
  regs: Regs;
  /** A short description, e.g. `int3`, `debug`, `general protection fault`. */
  str: string;
  /** Error code pushed by the CPU (0 when none). */
  err: number;
  /** Exception vector. */
  trapnr: number;
  /** The CPU that trapped. */
  cpu: number;
}

/** A notifier callback: returns a {@link NotifyResult}. */
export type DieNotifier<Regs> = (args: DieArgs<Regs>) => NotifyResultValue;

interface Entry<Regs> {
  readonly fn: DieNotifier<Regs>;
  readonly priority: number;
  readonly name: string;
}

/**
 * A priority-ordered notifier chain. Registration returns an unregister handle; unregistering during a
 * notification is safe (the walk uses the list as it was when the walk began).
 *
 * @example
 * const off = chain.register('kprobes', 0x7fffffff, (a) => (a.val === DieVal.INT3 ? NotifyResult.STOP : NotifyResult.DONE));
 * off();
 */
export class DieChain<Regs> {
  private entries: readonly Entry<Regs>[] = [];

  /**
   * Adds a notifier. Higher priority runs first.
   * @see kernel/notifier.c notifier_chain_register()
   */
  register(name: string, priority: number, fn: DieNotifier<Regs>): () => void {
    const entry: Entry<Regs> = { fn, priority, name };
    const list = [...this.entries];
    let i = 0;
    while (i < list.length && list[i].priority >= priority) i++;
    list.splice(i, 0, entry);
    this.entries = list;
    let registered = true;
    return () => {
      if (!registered) return;
      registered = false;
      this.entries = this.entries.filter((e) => e !== entry);
    };
  }

  /** Names of the registered notifiers, in calling order. */
  names(): string[] {
    return this.entries.map((e) => e.name);
  }

  /**
   * Walks the chain; returns `STOP` if some notifier stopped it, else the OR of the results.
   * @see kernel/notifier.c notifier_call_chain()
   */
  notify(args: DieArgs<Regs>): NotifyResultValue {
    const list = this.entries;
    let ret: number = NotifyResult.DONE;
    for (let i = 0; i < list.length; i++) {
      const r = list[i].fn(args);
      if ((r & 0x8000) !== 0) return NotifyResult.STOP;
      ret |= r;
    }
    return ret as NotifyResultValue;
  }
}
