import type { Kprobe, KprobeEvent, Kretprobe } from '@int3/kprobes';
import type { Observable } from 'rxjs';

/**
 * The kprobes API a tracer registers its probes with. The probes and their handlers are kprobes' own
 * types (`Kprobe`, `Kretprobe`); failures throw `KprobeError` with an errno code.
 *
 * @see include/linux/kprobes.h register_kprobe(), register_kretprobe(), enable_kprobe()
 * @example
 * const kp: Kprobe = { symbolName: 'do_sys_open', preHandler: (_p, regs) => 0 };
 * ctx.kprobes.registerKprobe(kp);
 * // ...
 * ctx.kprobes.unregisterKprobe(kp);
 */
export interface TracerKprobes {
  registerKprobe(p: Kprobe): void;
  unregisterKprobe(p: Kprobe): void;
  /** All or none: on a failure the ones already registered are unregistered. @see register_kprobes() */
  registerKprobes(ps: readonly Kprobe[]): void;
  unregisterKprobes(ps: readonly Kprobe[]): void;
  registerKretprobe(rp: Kretprobe): void;
  unregisterKretprobe(rp: Kretprobe): void;
  enableKprobe(p: Kprobe): void;
  disableKprobe(p: Kprobe): void;
  /** What kprobes did: registered, armed, hit, boosted, optimized… (`kprobe:*` events). */
  readonly events$: Observable<KprobeEvent>;
}
