import type { InsnSlots } from '../../core/insn-slots.js';
import { MAX_INSN_SIZE } from './x86-constants.js';

interface DirtySlot {
  readonly slot: bigint;
  /** Called when the slot is really freed (e.g. to unmark a boost jump's instrumentation bytes). */
  readonly onFree: (() => void) | undefined;
}

/**
 * Deferred freeing of instruction slots a CPU may still be executing. A boosted copy runs without a
 * trap, so a CPU can be stopped with its rip inside the slot (a quantum boundary after the copy, on
 * the jump back): freeing and reusing the slot then would run someone else's bytes. A slot freed while
 * any CPU's rip is inside it is marked dirty and freed by {@link collectGarbageSlots} once no CPU is
 * there any more — the role `synchronize_sched()` plays before Linux collects its dirty slots.
 * @see kernel/kprobes.c free_insn_slot() (dirty), collect_garbage_slots()
 */
export class GarbageSlots {
  private dirty: DirtySlot[] = [];

  constructor(
    private readonly slots: InsnSlots,
    /** The rip of every CPU. */
    private readonly rips: () => Iterable<bigint>,
  ) {}

  /**
   * `free_insn_slot(slot, dirty)`: frees now unless a CPU's rip is inside the slot, else marks it
   * dirty. Collects the garbage first.
   */
  freeInsnSlot(slot: bigint, onFree?: () => void): void {
    this.collectGarbageSlots();
    if (this.occupied(slot)) this.dirty.push({ slot, onFree });
    else this.release({ slot, onFree });
  }

  /**
   * `collect_garbage_slots`: frees every dirty slot no CPU is executing any more. Returns how many.
   * @see kernel/kprobes.c collect_garbage_slots()
   */
  collectGarbageSlots(): number {
    if (this.dirty.length === 0) return 0;
    const keep = this.dirty.filter((d) => this.occupied(d.slot));
    const freed = this.dirty.filter((d) => !keep.includes(d));
    this.dirty = keep;
    for (const d of freed) this.release(d);
    return freed.length;
  }

  /** The slots waiting, for snapshots. */
  save(): readonly DirtySlot[] {
    return Object.freeze([...this.dirty]);
  }

  /** Puts back what {@link save} returned. */
  restore(s: readonly DirtySlot[]): void {
    this.dirty = [...s];
  }

  /** Slots waiting for the CPUs to leave them. */
  get nrGarbage(): number {
    return this.dirty.length;
  }

  private occupied(slot: bigint): boolean {
    const end = slot + BigInt(MAX_INSN_SIZE);
    for (const rip of this.rips()) if (rip >= slot && rip < end) return true;
    return false;
  }

  private release(d: DirtySlot): void {
    d.onFree?.();
    this.slots.freeInsnSlot(d.slot);
  }
}
