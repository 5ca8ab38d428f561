import { hi32, lo32 } from '@int3/cpu';
import type { ArchSite } from './arch-site.js';
import { type Kprobe, KprobeFlag } from './kprobe.js';

/** What a registered probe is: a plain kprobe, a kretprobe's entry probe, or a jprobe. */
export type ProbeKind = 'k' | 'r' | 'j';

/** kprobes' record of one registered `struct kprobe`. */
export class ProbeState {
  constructor(
    readonly kp: Kprobe,
    readonly kind: ProbeKind,
    readonly site: ProbeSite,
  ) {}

  get disabled(): boolean {
    return ((this.kp.flags ?? 0) & (KprobeFlag.DISABLED | KprobeFlag.GONE)) !== 0;
  }

  get gone(): boolean {
    return ((this.kp.flags ?? 0) & KprobeFlag.GONE) !== 0;
  }

  /** `kprobes_inc_nmissed_count` for this probe. */
  missed(): void {
    this.kp.nmissed = (this.kp.nmissed ?? 0) + 1;
  }
}

/**
 * The probe at one address — what the kernel's hash table holds: the first kprobe registered there,
 * or, once a second joins, the aggregate probe (`aggrprobe`) whose children they both are. Children
 * are kept newest first, as `list_add_rcu` puts them, and handlers run in that order.
 *
 * @see kernel/kprobes.c register_aggr_kprobe(), aggr_pre_handler(), aggr_post_handler()
 */
export class ProbeSite {
  readonly children: ProbeState[] = [];
  armed = false;
  gone = false;
  /** Set while the site is jump-optimized (issue 7). */
  optimized = false;
  /** `addr` as the CPU keeps `rip`: its low and high int32 halves. */
  readonly addrLo: number;
  readonly addrHi: number;

  constructor(
    readonly addr: bigint,
    /** `sym+0xoff` at registration (kept for messages and `[GONE]` lines after a module is gone). */
    readonly symbol: string,
    /** The module the address is in, if any. */
    readonly module: string | undefined,
    readonly arch: ArchSite,
  ) {
    this.addrLo = lo32(addr);
    this.addrHi = hi32(addr);
  }

  /** The instruction slot holding the copied instruction (`ainsn.insn`). */
  get slot(): bigint {
    return this.arch.slot;
  }

  /** True when more than one probe shares the address. */
  get aggregated(): boolean {
    return this.children.length > 1;
  }

  /** `kprobe_disabled(ap)`: every child is disabled (or gone). */
  get disabled(): boolean {
    return this.children.every((c) => c.disabled);
  }

  /** True when some enabled child has a post handler (`ap->post_handler` set). */
  get hasPostHandler(): boolean {
    // A loop, not .some(): read on every hit.
    for (const c of this.children) if (!c.disabled && c.kp.postHandler !== undefined) return true;
    return false;
  }

  /** The jprobe among the children, if any (its break handler claims `jprobe_return`'s int3). */
  get breakChild(): ProbeState | undefined {
    return this.children.find((c) => c.kp.breakHandler !== undefined);
  }

  /** Increments `nmissed` of every child (`kprobes_inc_nmissed_count` on an aggregate). */
  missed(): void {
    for (const c of this.children) c.missed();
  }
}
