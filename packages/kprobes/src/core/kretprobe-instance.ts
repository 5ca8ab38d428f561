import { hi32, lo32, toBig } from '@int3/cpu';
import type { Kretprobe, KretprobeInstance } from './kretprobe.js';

/**
 * `struct kretprobe_instance` as kprobes keeps it: the return address and its stack slot as int32
 * halves (the CPU's form), so taking and returning through an instance makes no bigint. `retAddr` and
 * `stackSlot` are the bigint view handlers see (and may change); `owner` is the registration the
 * instance belongs to.
 */
export class Instance<Owner> implements KretprobeInstance {
  retLo = 0;
  retHi = 0;
  slotLo = 0;
  slotHi = 0;
  pid = 0;

  constructor(
    readonly rp: Kretprobe,
    readonly owner: Owner,
    readonly data: Uint8Array,
  ) {}

  get retAddr(): bigint {
    return toBig(this.retLo, this.retHi);
  }
  set retAddr(v: bigint) {
    this.retLo = lo32(v);
    this.retHi = hi32(v);
  }

  get stackSlot(): bigint {
    return toBig(this.slotLo, this.slotHi);
  }
  set stackSlot(v: bigint) {
    this.slotLo = lo32(v);
    this.slotHi = hi32(v);
  }

  /** A copy (for snapshots), its data copied too. */
  copy(): Instance<Owner> {
    const c = new Instance(this.rp, this.owner, this.data.slice());
    c.retLo = this.retLo;
    c.retHi = this.retHi;
    c.slotLo = this.slotLo;
    c.slotHi = this.slotHi;
    c.pid = this.pid;
    return c;
  }
}
