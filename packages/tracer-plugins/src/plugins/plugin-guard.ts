import type { Kprobe, Kretprobe } from '@int3/kprobes';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import { describeThrown, PluginError, PluginErrorCode, type PluginErrorCodeValue } from './plugin-error.js';

/**
 * Where plugin code runs at this moment: set before a guarded handler or a tracer's `start`, `stop`
 * or `report` is called and cleared when it returns. A watchdog that had to terminate a call that
 * never returned reads it to name the plugin, the tracer and the handler (nothing clears it then).
 */
export interface PluginCallSite {
  guard: PluginGuard | undefined;
  tracer: string | undefined;
  /** E.g. `the pre-handler of its kprobe at do_sys_open`, `start()`. */
  what: string | undefined;
}

/** What one tracer of the plugin registered, and whether it failed (the whole plugin: `tracer` undefined). */
interface Owner {
  readonly tracer: string | undefined;
  readonly kprobes: Set<Kprobe>;
  readonly kretprobes: Set<Kretprobe>;
  failed: boolean;
  error?: PluginError;
}

type Handler = (a: unknown, b: unknown, c: unknown) => unknown;

/** Handler objects already guarded (their slots are accessors that cannot be redefined). */
const guarded = new WeakSet<object>();

/**
 * Contains one plugin at run time. The plugin sees a {@link TracerKprobes} facade whose registrations guard
 * every handler slot of the probe it gives: if a handler throws while the machine runs, the throw stops
 * there — the probe's caller gets the neutral result (run the instruction, skip the instance), the
 * failure becomes one {@link PluginError} naming the plugin, the tracer that registered the probe and
 * the probe (reported once per tracer), that tracer's probes are disabled, and from then on its
 * handlers no longer run. The machine and the other tracers go on.
 *
 * A slot is made an accessor when the probe is registered, not wrapped once: a handler the plugin
 * assigns later (`kp.preHandler = other`) is guarded too, and the slot cannot be redefined. The
 * wrapping happens once per registration; a hit costs the accessor and a few stores, no allocation.
 *
 * @see kernel/kprobes.c kill_kprobe() — a broken probe is taken out, the kernel keeps going
 * @example
 * const guard = new PluginGuard('my-plugin', kprobes, (e) => errors.push(e), site);
 * guard.current = 'mytracer';
 * tracer.start({ ...ctx, kprobes: guard.kprobes });
 */
export class PluginGuard {
  /** The facade to hand the plugin instead of the real kprobes. */
  readonly kprobes: TracerKprobes;
  /**
   * The tracer whose code runs now (the host sets it around `start`, `stop`, `report`): probes
   * registered meanwhile are that tracer's. Outside those calls they belong to {@link soleTracer}.
   */
  current: string | undefined;
  /** The plugin's only tracer, if it has one (owner of probes registered outside the host's calls). */
  soleTracer: string | undefined;
  readonly #owners = new Map<string | undefined, Owner>();
  readonly #ownerOf = new WeakMap<object, Owner>();

  constructor(
    readonly plugin: string,
    private readonly real: TracerKprobes,
    private readonly report: (error: PluginError) => void,
    /** Where plugin code runs now, for a watchdog to name it. */
    private readonly site: PluginCallSite = { guard: undefined, tracer: undefined, what: undefined },
  ) {
    this.kprobes = this.#facade();
  }

  /** The failure recorded for `tracer` (or the whole plugin), if any. */
  failure(tracer: string | undefined): PluginError | undefined {
    return this.#owners.get(tracer)?.error ?? this.#owners.get(undefined)?.error;
  }

  /** True once `tracer` (or the whole plugin) failed. */
  hasFailed(tracer: string | undefined): boolean {
    return this.#owners.get(tracer)?.failed === true || this.#owners.get(undefined)?.failed === true;
  }

  /**
   * Marks a tracer (undefined: the whole plugin) failed — first failure only — disables its probes and
   * reports the error. `what` says what threw, e.g. `the pre-handler of its kprobe at do_sys_open`.
   */
  fail(
    tracer: string | undefined,
    what: string,
    cause: unknown,
    code: PluginErrorCodeValue = PluginErrorCode.HANDLER_FAILED,
  ): void {
    const owner = this.#owner(tracer);
    if (owner.failed) return;
    owner.failed = true;
    const disabled = tracer === undefined ? [...this.#owners.values()] : [owner];
    for (const o of disabled) {
      for (const kp of o.kprobes) this.#disable(kp);
      for (const rp of o.kretprobes) this.#disable(rp.kp);
    }
    const whose = tracer === undefined ? '' : `tracer '${tracer}': `;
    const tail = code === PluginErrorCode.HANDLER_FAILED ? '; its probes are disabled' : '';
    const why = code === PluginErrorCode.TIMED_OUT ? '' : `: ${describeThrown(cause)}`;
    owner.error = new PluginError(code, this.plugin, `${whose}${what}${why}${tail}`, { cause, tracer });
    this.report(owner.error);
  }

  #owner(tracer: string | undefined): Owner {
    let owner = this.#owners.get(tracer);
    if (owner === undefined) {
      owner = { tracer, kprobes: new Set(), kretprobes: new Set(), failed: false };
      this.#owners.set(tracer, owner);
    }
    return owner;
  }

  #disable(kp: Kprobe): void {
    try {
      this.real.disableKprobe(kp);
    } catch {
      // Already unregistered: nothing left to disable.
    }
  }

  /** Makes `obj[key]` an accessor whose getter hands kprobes a guard around whatever the slot holds. */
  #guardSlot(obj: object, key: string, what: string, fallback: unknown, owner: Owner): void {
    const slots = obj as Record<string, unknown>;
    let raw = slots[key] as Handler | undefined;
    const site = this.site;
    const wholePlugin = this.#owner(undefined);
    // Called as a method of the probe by kprobes, so `this` stays the probe object.
    const wrapped: Handler = (a, b, c) => {
      if (owner.failed || wholePlugin.failed || typeof raw !== 'function') return fallback;
      site.guard = this;
      site.tracer = owner.tracer;
      site.what = what;
      try {
        const r = raw.call(obj, a, b, c);
        site.guard = undefined;
        return r;
      } catch (e) {
        site.guard = undefined;
        this.fail(owner.tracer, `${what} threw while the machine ran`, e);
        return fallback;
      }
    };
    Object.defineProperty(obj, key, {
      get: () => (typeof raw === 'function' ? wrapped : raw),
      set: (fn: Handler | undefined) => {
        raw = fn;
      },
      enumerable: true,
      configurable: false,
    });
  }

  #guardKprobe(kp: Kprobe, owner: Owner): void {
    this.#ownerOf.set(kp, owner);
    if (guarded.has(kp)) return;
    guarded.add(kp);
    const at = kp.symbolName ?? `0x${(kp.addr ?? 0n).toString(16)}`;
    this.#guardSlot(kp, 'preHandler', `the pre-handler of its kprobe at ${at}`, 0, owner);
    this.#guardSlot(kp, 'postHandler', `the post-handler of its kprobe at ${at}`, undefined, owner);
    this.#guardSlot(kp, 'faultHandler', `the fault handler of its kprobe at ${at}`, 0, owner);
  }

  #guardKretprobe(rp: Kretprobe, owner: Owner): void {
    this.#ownerOf.set(rp.kp, owner);
    if (guarded.has(rp)) return;
    guarded.add(rp);
    const at = rp.kp.symbolName ?? `0x${(rp.kp.addr ?? 0n).toString(16)}`;
    // An entry handler that fails skips the instance, so no return handler runs for it.
    this.#guardSlot(rp, 'entryHandler', `the entry handler of its kretprobe on ${at}`, 1, owner);
    this.#guardSlot(rp, 'handler', `the return handler of its kretprobe on ${at}`, undefined, owner);
  }

  /** The owner of a registration made now: the running tracer, else the plugin's only one. */
  #registering(): Owner {
    return this.#owner(this.current ?? this.soleTracer);
  }

  #facade(): TracerKprobes {
    const real = this.real;
    return Object.freeze({
      registerKprobe: (kp: Kprobe) => {
        const owner = this.#registering();
        this.#guardKprobe(kp, owner);
        real.registerKprobe(kp);
        owner.kprobes.add(kp);
      },
      unregisterKprobe: (kp: Kprobe) => {
        real.unregisterKprobe(kp);
        this.#ownerOf.get(kp)?.kprobes.delete(kp);
      },
      registerKprobes: (kps: readonly Kprobe[]) => {
        const owner = this.#registering();
        for (const kp of kps) this.#guardKprobe(kp, owner);
        real.registerKprobes(kps);
        for (const kp of kps) owner.kprobes.add(kp);
      },
      unregisterKprobes: (kps: readonly Kprobe[]) => {
        real.unregisterKprobes(kps);
        for (const kp of kps) this.#ownerOf.get(kp)?.kprobes.delete(kp);
      },
      registerKretprobe: (rp: Kretprobe) => {
        const owner = this.#registering();
        this.#guardKretprobe(rp, owner);
        real.registerKretprobe(rp);
        owner.kretprobes.add(rp);
      },
      unregisterKretprobe: (rp: Kretprobe) => {
        real.unregisterKretprobe(rp);
        this.#ownerOf.get(rp.kp)?.kretprobes.delete(rp);
      },
      enableKprobe: (kp: Kprobe) => {
        // A failed tracer's probes stay disabled.
        const owner = this.#ownerOf.get(kp);
        if (!this.hasFailed(owner?.tracer)) real.enableKprobe(kp);
      },
      disableKprobe: (kp: Kprobe) => real.disableKprobe(kp),
      events$: real.events$,
    });
  }
}
