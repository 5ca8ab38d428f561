import type { Kprobe, Kprobes, Kretprobe } from '@int3/kprobes';
import { describeThrown, PluginError, PluginErrorCode } from './plugin-error.js';

/** The keys of `T` that hold (optional) functions: the handler slots of a probe. */
type Slot<T> = { [K in keyof T]: T[K] extends ((...args: never[]) => unknown) | undefined ? K : never }[keyof T];

/**
 * Contains one plugin at run time. The plugin sees a {@link Kprobes} facade whose registrations wrap
 * every handler it gives: if a handler throws while the machine runs, the throw stops there — the
 * probe's caller gets the neutral result (run the instruction, skip the instance), the failure becomes
 * one {@link PluginError} naming the plugin (reported once), every probe the plugin registered is
 * disabled, and from then on its handlers no longer run. The machine and the other tracers go on.
 * The wrapping happens once per registration, not per hit.
 *
 * @see kernel/kprobes.c kill_kprobe() — a broken probe is taken out, the kernel keeps going
 * @example
 * const guard = new PluginGuard('my-plugin', kprobes, (e) => errors.push(e));
 * tracer.start({ ...ctx, kprobes: guard.kprobes });
 */
export class PluginGuard {
  /** The facade to hand the plugin instead of the real kprobes. */
  readonly kprobes: Kprobes;
  /** The plugin's first run-time failure, once it happened. */
  failure: PluginError | undefined;
  readonly #kprobes = new Set<Kprobe>();
  readonly #kretprobes = new Set<Kretprobe>();

  constructor(
    readonly plugin: string,
    private readonly real: Kprobes,
    private readonly report: (error: PluginError) => void,
  ) {
    this.kprobes = this.#facade();
  }

  /** Marks the plugin failed (first failure only), disables its probes and reports the error. */
  fail(what: string, cause: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = new PluginError(
      PluginErrorCode.HANDLER_FAILED,
      this.plugin,
      `${what} threw while the machine ran: ${describeThrown(cause)}; its probes are disabled`,
      { cause },
    );
    for (const kp of this.#kprobes) this.#disable(kp);
    for (const rp of this.#kretprobes) this.#disable(rp.kp);
    this.report(this.failure);
  }

  #disable(kp: Kprobe): void {
    try {
      this.real.disableKprobe(kp);
    } catch {
      // Already unregistered: nothing left to disable.
    }
  }

  /** Replaces `obj[key]` with a wrapper that contains throws; `fallback` is returned instead. */
  #wrap<T extends object>(obj: T, key: Slot<T>, what: string, fallback: unknown): void {
    const fn = obj[key] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof fn !== 'function') return;
    // Called as a method of the probe by kprobes, so `this` stays the probe object.
    const wrapped = (...args: unknown[]): unknown => {
      if (this.failure !== undefined) return fallback;
      try {
        return fn.apply(obj, args);
      } catch (e) {
        this.fail(what, e);
        return fallback;
      }
    };
    (obj as Record<PropertyKey, unknown>)[key as PropertyKey] = wrapped;
  }

  #guardKprobe(kp: Kprobe): void {
    const at = kp.symbolName ?? `0x${(kp.addr ?? 0n).toString(16)}`;
    this.#wrap(kp, 'preHandler', `the pre-handler of its kprobe at ${at}`, 0);
    this.#wrap(kp, 'postHandler', `the post-handler of its kprobe at ${at}`, undefined);
    this.#wrap(kp, 'faultHandler', `the fault handler of its kprobe at ${at}`, 0);
  }

  #guardKretprobe(rp: Kretprobe): void {
    const at = rp.kp.symbolName ?? `0x${(rp.kp.addr ?? 0n).toString(16)}`;
    // An entry handler that fails skips the instance, so no return handler runs for it.
    this.#wrap(rp, 'entryHandler', `the entry handler of its kretprobe on ${at}`, 1);
    this.#wrap(rp, 'handler', `the return handler of its kretprobe on ${at}`, undefined);
  }

  #facade(): Kprobes {
    const real = this.real;
    const overrides: Partial<Record<keyof Kprobes, unknown>> = {
      registerKprobe: (kp: Kprobe) => {
        this.#guardKprobe(kp);
        real.registerKprobe(kp);
        this.#kprobes.add(kp);
      },
      registerKprobes: (kps: readonly Kprobe[]) => {
        for (const kp of kps) this.#guardKprobe(kp);
        real.registerKprobes(kps);
        for (const kp of kps) this.#kprobes.add(kp);
      },
      unregisterKprobe: (kp: Kprobe) => {
        real.unregisterKprobe(kp);
        this.#kprobes.delete(kp);
      },
      unregisterKprobes: (kps: readonly Kprobe[]) => {
        real.unregisterKprobes(kps);
        for (const kp of kps) this.#kprobes.delete(kp);
      },
      registerKretprobe: (rp: Kretprobe) => {
        this.#guardKretprobe(rp);
        real.registerKretprobe(rp);
        this.#kretprobes.add(rp);
      },
      unregisterKretprobe: (rp: Kretprobe) => {
        real.unregisterKretprobe(rp);
        this.#kretprobes.delete(rp);
      },
      enableKprobe: (kp: Kprobe) => {
        // A failed plugin stays disabled.
        if (this.failure === undefined) real.enableKprobe(kp);
      },
    };
    return new Proxy(real, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Kprobes];
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  }
}
