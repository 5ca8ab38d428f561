import type { AddressSpace } from '@int3/cpu';
import type { PtRegs } from '@int3/kernel';
import type { KprobesHost } from '../core/kprobes-host.js';
import type { Kretprobe, KretprobeInstance } from '../core/kretprobe.js';
import { GuestKprobe } from './guest-kprobe.js';
import { KretprobeInstanceLayout, KretprobeLayout, PCPU_CURRENT_TASK } from './guest-layout.js';

/**
 * A guest `struct kretprobe` seen as a TypeScript {@link Kretprobe}: `maxactive` and `nmissed` go
 * through to the guest struct as kprobes writes them. Each TypeScript instance the core hands a
 * handler gets a guest `struct kretprobe_instance` (allocated on first use, kept while the probe is
 * registered), so `ri->data` persists from the entry handler to the return handler and `ri->ret_addr`
 * and `ri->task` are real.
 *
 * @see include/linux/kprobes.h struct kretprobe, struct kretprobe_instance
 */
export class GuestKretprobe implements Kretprobe {
  readonly kp: GuestKprobe;
  handler?: NonNullable<Kretprobe['handler']>;
  entryHandler?: NonNullable<Kretprobe['entryHandler']>;
  dataSize?: number;
  private maxactiveValue: number | undefined;
  private nmissedValue = 0;
  private attached = true;
  private readonly instances = new Map<KretprobeInstance, bigint>();

  constructor(
    private readonly m: Pick<KprobesHost, 'space' | 'heap' | 'pcpu'>,
    readonly address: bigint,
  ) {
    const space = m.space;
    this.kp = new GuestKprobe(space, address + BigInt(KretprobeLayout.kp));
    const maxactive = space.readU32(address + BigInt(KretprobeLayout.maxactive)) | 0;
    this.maxactiveValue = maxactive > 0 ? maxactive : undefined;
    const dataSize = space.readU64(address + BigInt(KretprobeLayout.dataSize));
    // An absurd size stays absurd (E2BIG from the core) without losing precision.
    this.dataSize = dataSize > 0x7fffffffn ? 0x7fffffff : Number(dataSize);
  }

  /** True when the whole struct (and its `symbol_name`) can be read at `address`. */
  static readable(space: AddressSpace, address: bigint): boolean {
    return space.isMapped(address, KretprobeLayout.SIZE) && GuestKprobe.readable(space, address);
  }

  get maxactive(): number | undefined {
    return this.maxactiveValue;
  }

  set maxactive(v: number | undefined) {
    this.maxactiveValue = v;
    if (this.attached) this.m.space.writeU32(this.address + BigInt(KretprobeLayout.maxactive), (v ?? 0) >>> 0);
  }

  get nmissed(): number {
    return this.nmissedValue;
  }

  set nmissed(v: number) {
    this.nmissedValue = v;
    if (this.attached) this.m.space.writeU32(this.address + BigInt(KretprobeLayout.nmissed), v >>> 0);
  }

  /**
   * The guest `struct kretprobe_instance` for `ri`, filled in for a handler call: `rp`, `ret_addr`
   * (`retAddr`), `task` (the CPU's `current`). 0n when kernel memory is exhausted.
   */
  guestInstance(ri: KretprobeInstance, regs: PtRegs, retAddr: bigint): bigint {
    const m = this.m;
    let at = this.instances.get(ri);
    if (at === undefined) {
      at = m.heap.alloc(KretprobeInstanceLayout.data + Math.max(this.dataSize ?? 0, 1));
      if (at === 0n) return 0n;
      this.instances.set(ri, at);
    }
    const current = m.space.readU64(m.pcpu[regs.cpu.id] + PCPU_CURRENT_TASK);
    m.space.writeU64(at + BigInt(KretprobeInstanceLayout.rp), this.address);
    m.space.writeU64(at + BigInt(KretprobeInstanceLayout.retAddr), retAddr);
    m.space.writeU64(at + BigInt(KretprobeInstanceLayout.task), current);
    return at;
  }

  /** Copies the guest instance's private data into the TypeScript instance (host-side readers). */
  syncData(ri: KretprobeInstance, at: bigint): void {
    if (ri.data.length > 0) ri.data.set(this.m.space.read(at + BigInt(KretprobeInstanceLayout.data), ri.data.length));
  }

  /** Stops writing to the guest struct and frees the guest instances (after unregistration). */
  detach(): void {
    this.attached = false;
    this.kp.detach();
    for (const at of this.instances.values()) this.m.heap.free(at);
    this.instances.clear();
  }
}
