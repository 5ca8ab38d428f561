import type { AddressSpace } from '@int3/cpu';
import type { BreakHandler, FaultHandler, Kprobe, PostHandler, PreHandler } from '../core/kprobe.js';
import { KprobeLayout, KSYM_NAME_LEN } from './guest-layout.js';

/**
 * A guest `struct kprobe` seen as a TypeScript {@link Kprobe}. What the caller fills in is read once,
 * at registration; what kprobes writes back (`addr`, `flags`, `nmissed`) goes through to the guest
 * struct at once, as the kernel writes its own struct, until {@link detach} (after unregistration,
 * when the guest may free the memory).
 *
 * @see include/linux/kprobes.h struct kprobe
 */
export class GuestKprobe implements Kprobe {
  symbolName?: string;
  offset?: number;
  preHandler?: PreHandler;
  postHandler?: PostHandler;
  faultHandler?: FaultHandler;
  breakHandler?: BreakHandler;
  private addrValue: bigint | undefined;
  private flagsValue: number;
  private nmissedValue = 0;
  private attached = true;

  /**
   * Reads the struct at `address` (which must be mapped: {@link GuestKprobe.readable}).
   * @see kernel/kprobes.c register_kprobe() (the fields it reads)
   */
  constructor(
    private readonly space: AddressSpace,
    readonly address: bigint,
  ) {
    const namePtr = space.readU64(address + BigInt(KprobeLayout.symbolName));
    if (namePtr !== 0n) this.symbolName = space.readCString(namePtr, KSYM_NAME_LEN);
    const offset = space.readU32(address + BigInt(KprobeLayout.offset));
    if (offset !== 0) this.offset = offset;
    const addr = space.readU64(address + BigInt(KprobeLayout.addr));
    this.addrValue = addr === 0n ? undefined : addr;
    this.flagsValue = space.readU32(address + BigInt(KprobeLayout.flags));
  }

  /** True when a whole struct (and its `symbol_name`, if any) can be read at `address`. */
  static readable(space: AddressSpace, address: bigint): boolean {
    if (!space.isMapped(address, KprobeLayout.SIZE)) return false;
    const namePtr = space.readU64(address + BigInt(KprobeLayout.symbolName));
    return namePtr === 0n || space.isMapped(namePtr);
  }

  /** A handler pointer of the struct (0n when NULL). */
  handlerAt(offset: number): bigint {
    return this.space.readU64(this.address + BigInt(offset));
  }

  get addr(): bigint | undefined {
    return this.addrValue;
  }

  set addr(v: bigint | undefined) {
    this.addrValue = v;
    if (this.attached) this.space.writeU64(this.address + BigInt(KprobeLayout.addr), v ?? 0n);
  }

  get flags(): number {
    return this.flagsValue;
  }

  set flags(v: number) {
    this.flagsValue = v;
    if (this.attached) this.space.writeU32(this.address + BigInt(KprobeLayout.flags), v >>> 0);
  }

  get nmissed(): number {
    return this.nmissedValue;
  }

  set nmissed(v: number) {
    this.nmissedValue = v;
    if (this.attached) this.space.writeU64(this.address + BigInt(KprobeLayout.nmissed), BigInt(v));
  }

  /** Stops writing to the guest struct: it is no longer registered and may be freed. */
  detach(): void {
    this.attached = false;
  }
}
