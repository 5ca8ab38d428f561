import { type LoadedModule, ModuleState, type PtRegs } from '@int3/kernel';
import type { Jprobe } from '../core/jprobes.js';
import type { Kprobe } from '../core/kprobe.js';
import type { KprobesHost } from '../core/kprobes-host.js';
import type { Kretprobe, KretprobeInstance } from '../core/kretprobe.js';
import { Errno, KprobeError } from '../kprobe-error.js';
import { GuestHandlerCaller } from './guest-handler-caller.js';
import { GuestKprobe } from './guest-kprobe.js';
import { GuestKretprobe } from './guest-kretprobe.js';
import { JprobeLayout, KprobeLayout, KretprobeLayout } from './guest-layout.js';

/** A guest struct kprobes knows, by the struct's address. */
type Registered =
  | { readonly kind: 'k'; readonly kp: GuestKprobe; readonly code: readonly bigint[] }
  | { readonly kind: 'j'; readonly kp: GuestKprobe; readonly jp: Jprobe; readonly code: readonly bigint[] }
  | { readonly kind: 'r'; readonly kp: GuestKprobe; readonly rp: GuestKretprobe; readonly code: readonly bigint[] };

/** The gates of the C API, in `include/linux/kprobes.h` order. */
export const GUEST_KPROBES_GATES = [
  'register_kprobe',
  'unregister_kprobe',
  'register_kprobes',
  'unregister_kprobes',
  'register_jprobe',
  'unregister_jprobe',
  'register_kretprobe',
  'unregister_kretprobe',
  'enable_kprobe',
  'disable_kprobe',
] as const;

/** One gate name of {@link GUEST_KPROBES_GATES}. */
export type GuestKprobesGate = (typeof GUEST_KPROBES_GATES)[number];

const EINVAL = -Errno.EINVAL;
/** The kprobes API the C gates call: registration and enabling, as a module's calls reach them. */
export interface GuestKprobesApi {
  registerKprobe(p: Kprobe): void;
  unregisterKprobe(p: Kprobe): void;
  registerJprobe(jp: Jprobe): void;
  unregisterJprobe(jp: Jprobe): void;
  registerKretprobe(rp: Kretprobe): void;
  unregisterKretprobe(rp: Kretprobe): void;
  enableKprobe(p: Kprobe): void;
  disableKprobe(p: Kprobe): void;
}

/** The machine's part the C API uses. */
type Host = Pick<KprobesHost, 'hostCalls' | 'modules' | 'space' | 'log' | 'kallsyms' | 'guest' | 'heap' | 'pcpu'>;

const bound = new WeakMap<GuestKprobesApi, GuestKprobes>();

/**
 * The kprobes C API for guest kernel modules: host-call gates (`register_kprobe`, …) that read the
 * guest's `struct kprobe`/`jprobe`/`kretprobe`, register a TypeScript probe for it (one per struct
 * address) whose handlers call the guest's handler functions, and write `addr`, `flags`, `nmissed`
 * and `maxactive` back. Gates return 0 or the negated errno of the refusal.
 *
 * @see kernel/kprobes.c register_kprobe(), register_jprobe(), register_kretprobe() (2.6 era)
 */
export class GuestKprobes {
  /** Each gate's address (a text symbol of kallsyms that modules link against). */
  readonly gates: ReadonlyMap<GuestKprobesGate, bigint>;
  readonly handlers: GuestHandlerCaller;
  private readonly registered = new Map<bigint, Registered>();

  constructor(
    private readonly m: Host,
    private readonly k: GuestKprobesApi,
  ) {
    this.handlers = new GuestHandlerCaller(m);
    const services: Record<GuestKprobesGate, (a: (n: number) => bigint) => number | undefined> = {
      register_kprobe: (a) => this.registerKprobe(a(0)),
      unregister_kprobe: (a) => this.unregister('k', a(0)),
      register_kprobes: (a) => this.registerKprobes(a(0), Number(BigInt.asIntN(32, a(1)))),
      unregister_kprobes: (a) => this.unregisterKprobes(a(0), Number(BigInt.asIntN(32, a(1)))),
      register_jprobe: (a) => this.registerJprobe(a(0)),
      unregister_jprobe: (a) => this.unregister('j', a(0)),
      register_kretprobe: (a) => this.registerKretprobe(a(0)),
      unregister_kretprobe: (a) => this.unregister('r', a(0)),
      enable_kprobe: (a) => this.setEnabled(a(0), true),
      disable_kprobe: (a) => this.setEnabled(a(0), false),
    };
    const gates = new Map<GuestKprobesGate, bigint>();
    for (const name of GUEST_KPROBES_GATES) {
      const service = services[name];
      gates.set(
        name,
        m.hostCalls.define(name, (ctx) => service((n) => ctx.arg(n))),
      );
    }
    this.gates = gates;
    m.modules.onModule((state, mod) => {
      if (state === ModuleState.GOING) this.moduleGoing(mod);
    });
  }

  /** The TypeScript probe registered for the guest struct at `address`, if any. */
  lookup(address: bigint): GuestKprobe | undefined {
    return this.registered.get(address)?.kp;
  }

  /** Addresses of every guest struct currently registered. */
  addresses(): bigint[] {
    return [...this.registered.keys()];
  }

  /**
   * `int register_kprobe(struct kprobe *p)`: the struct's handlers become guest calls.
   * @see kernel/kprobes.c register_kprobe()
   */
  registerKprobe(address: bigint): number {
    const space = this.m.space;
    if (this.registered.has(address) || !GuestKprobe.readable(space, address)) return EINVAL;
    const kp = new GuestKprobe(space, address);
    const code = this.bindKprobeHandlers(kp, true);
    return this.attempt(address, { kind: 'k', kp, code }, () => this.k.registerKprobe(kp));
  }

  /**
   * `int register_kprobes(struct kprobe **kps, int num)`: all or nothing.
   * @see kernel/kprobes.c register_kprobes()
   */
  registerKprobes(array: bigint, num: number): number {
    const space = this.m.space;
    if (num <= 0 || !space.isMapped(array, num * 8)) return EINVAL;
    for (let i = 0; i < num; i++) {
      const r = this.registerKprobe(space.readU64(array + BigInt(8 * i)));
      if (r < 0) {
        for (let j = 0; j < i; j++) this.unregister('k', space.readU64(array + BigInt(8 * j)));
        return r;
      }
    }
    return 0;
  }

  /** `void unregister_kprobes(struct kprobe **kps, int num)`. @see kernel/kprobes.c unregister_kprobes() */
  unregisterKprobes(array: bigint, num: number): undefined {
    const space = this.m.space;
    if (num <= 0 || !space.isMapped(array, num * 8)) return undefined;
    for (let i = 0; i < num; i++) this.unregister('k', space.readU64(array + BigInt(8 * i)));
    return undefined;
  }

  /**
   * `int register_jprobe(struct jprobe *jp)`: the entry is guest text, used as is.
   * @see kernel/kprobes.c register_jprobe() (2.6 era)
   */
  registerJprobe(address: bigint): number {
    const space = this.m.space;
    if (
      this.registered.has(address) ||
      !space.isMapped(address, JprobeLayout.SIZE) ||
      !GuestKprobe.readable(space, address)
    ) {
      return EINVAL;
    }
    const kp = new GuestKprobe(space, address + BigInt(JprobeLayout.kp));
    // Like register_jprobe, keep the caller's post and fault handlers; pre and break are jprobes' own.
    const code = this.bindKprobeHandlers(kp, false);
    const entry = space.readU64(address + BigInt(JprobeLayout.entry));
    const jp: Jprobe = { kp, entry };
    return this.attempt(address, { kind: 'j', kp, jp, code: [...code, entry] }, () => this.k.registerJprobe(jp));
  }

  /**
   * `int register_kretprobe(struct kretprobe *rp)`: `handler` and `entry_handler` become guest calls
   * on a guest `struct kretprobe_instance`.
   * @see kernel/kprobes.c register_kretprobe()
   */
  registerKretprobe(address: bigint): number {
    const m = this.m;
    if (this.registered.has(address) || !GuestKretprobe.readable(m.space, address)) return EINVAL;
    const rp = new GuestKretprobe(m, address);
    const handler = m.space.readU64(address + BigInt(KretprobeLayout.handler));
    const entryHandler = m.space.readU64(address + BigInt(KretprobeLayout.entryHandler));
    const what = (h: string) => () => `${h} of kretprobe on ${this.where(rp.kp)}`;
    if (handler !== 0n) {
      const label = what('handler');
      rp.handler = (ri, regs) => {
        this.callInstanceHandler(rp, ri, regs, handler, ri.retAddr, label);
      };
    }
    if (entryHandler !== 0n) {
      const label = what('entry_handler');
      rp.entryHandler = (ri, regs) =>
        this.callInstanceHandler(rp, ri, regs, entryHandler, regs.cpu.addressSpace.readU64(regs.sp), label);
    }
    return this.attempt(address, { kind: 'r', kp: rp.kp, rp, code: [handler, entryHandler] }, () =>
      this.k.registerKretprobe(rp),
    );
  }

  /**
   * `unregister_kprobe`, `unregister_jprobe`, `unregister_kretprobe`: a struct that is not registered
   * (or not as that kind) is ignored, as the kernel ignores it.
   * @see kernel/kprobes.c unregister_kprobe()
   */
  unregister(kind: Registered['kind'], address: bigint): undefined {
    const r = this.registered.get(address);
    if (!r || r.kind !== kind) return undefined;
    if (r.kind === 'k') this.k.unregisterKprobe(r.kp);
    else if (r.kind === 'j') this.k.unregisterJprobe(r.jp);
    else this.k.unregisterKretprobe(r.rp);
    this.registered.delete(address);
    if (r.kind === 'r') r.rp.detach();
    else r.kp.detach();
    return undefined;
  }

  /**
   * `enable_kprobe`/`disable_kprobe` on a registered struct (a kretprobe's or jprobe's `kp` is the
   * struct's address); anything else → -EINVAL.
   * @see kernel/kprobes.c enable_kprobe(), disable_kprobe()
   */
  setEnabled(address: bigint, on: boolean): number {
    const r = this.registered.get(address);
    if (!r) return EINVAL;
    try {
      if (on) this.k.enableKprobe(r.kp);
      else this.k.disableKprobe(r.kp);
      return 0;
    } catch (e) {
      if (e instanceof KprobeError) return -e.errno;
      throw e;
    }
  }

  /** Registers, and remembers the struct on success; a refusal is the negated errno. */
  private attempt(address: bigint, entry: Registered, register: () => void): number {
    try {
      register();
    } catch (e) {
      if (!(e instanceof KprobeError)) throw e;
      if (entry.kind === 'r') entry.rp.detach();
      else entry.kp.detach();
      return -e.errno;
    }
    this.registered.set(address, entry);
    return 0;
  }

  /** Binds the struct's handler pointers as guest calls; returns the non-NULL ones. */
  private bindKprobeHandlers(kp: GuestKprobe, all: boolean): bigint[] {
    const pre = kp.handlerAt(KprobeLayout.preHandler);
    const post = kp.handlerAt(KprobeLayout.postHandler);
    const fault = kp.handlerAt(KprobeLayout.faultHandler);
    const brk = kp.handlerAt(KprobeLayout.breakHandler);
    const h = this.handlers;
    const what = (name: string) => () => `${name} of kprobe at ${this.where(kp)}`;
    if (all && pre !== 0n) {
      const label = what('pre_handler');
      kp.preHandler = (_p, regs) => h.call(regs, pre, kp.address, undefined, label);
    }
    if (post !== 0n) {
      const label = what('post_handler');
      kp.postHandler = (_p, regs, flags) => {
        h.call(regs, post, kp.address, BigInt(flags), label);
      };
    }
    if (fault !== 0n) {
      const label = what('fault_handler');
      kp.faultHandler = (_p, regs, trapnr) => h.call(regs, fault, kp.address, BigInt(trapnr), label);
    }
    if (all && brk !== 0n) {
      const label = what('break_handler');
      kp.breakHandler = (_p, regs) => h.call(regs, brk, kp.address, undefined, label);
    }
    return [pre, post, fault, brk].filter((a) => a !== 0n);
  }

  /** Runs a kretprobe handler on the guest instance standing for `ri`. */
  private callInstanceHandler(
    rp: GuestKretprobe,
    ri: KretprobeInstance,
    regs: PtRegs,
    fn: bigint,
    retAddr: bigint,
    what: () => string,
  ): number {
    const at = rp.guestInstance(ri, regs, retAddr);
    if (at === 0n) {
      this.m.log(regs.cpu.id, 4, `kprobes: no memory for a kretprobe_instance: ${what()} skipped`);
      return 0;
    }
    const r = this.handlers.call(regs, fn, at, undefined, what);
    rp.syncData(ri, at);
    return r;
  }

  /**
   * A module is going: any struct or handler still registered inside it would be used after it is
   * freed, so it is unregistered, with a warning (Linux would crash later instead).
   */
  private moduleGoing(mod: LoadedModule): void {
    const inside = (a: bigint) => mod.regions.some(([start, size]) => a >= start && a < start + BigInt(size));
    for (const [address, r] of [...this.registered]) {
      if (!inside(address) && !r.code.some(inside)) continue;
      this.m.log(
        0,
        4,
        `kprobes: module ${mod.name} is going with ${kindName[r.kind]} on ${this.where(r.kp)} still registered; unregistering it`,
      );
      this.unregister(r.kind, address);
    }
  }

  private where(kp: GuestKprobe): string {
    return kp.addr === undefined ? (kp.symbolName ?? '?') : this.m.kallsyms.format(kp.addr);
  }
}

const kindName: Record<Registered['kind'], string> = { k: 'a kprobe', j: 'a jprobe', r: 'a kretprobe' };

/**
 * Defines the kprobes C API gates on the machine (once per `kprobes`: a second call returns the same
 * binding). Called from `Kprobes.init`, so modules loaded afterwards link against them.
 *
 * @see kernel/kprobes.c init_kprobes() (the API becomes available to modules)
 * @example
 * bindGuestKprobes(host, kprobes);
 * m.modules.load(koBytes, 'kprobe_example.ko'); // its init_module calls register_kprobe
 */
export function bindGuestKprobes(host: Host, kprobes: GuestKprobesApi): GuestKprobes {
  let g = bound.get(kprobes);
  if (!g) {
    g = new GuestKprobes(host, kprobes);
    bound.set(kprobes, g);
  }
  return g;
}
