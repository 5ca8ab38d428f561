import type { Kretprobe, KretprobeInstance } from './kretprobe.js';

/** A 64-bit value from int32 halves. */
function toBig(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

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
    this.retLo = Number(BigInt.asIntN(32, v));
    this.retHi = Number(BigInt.asIntN(32, v >> 32n));
  }

  get stackSlot(): bigint {
    return toBig(this.slotLo, this.slotHi);
  }
  set stackSlot(v: bigint) {
    this.slotLo = Number(BigInt.asIntN(32, v));
    this.slotHi = Number(BigInt.asIntN(32, v >> 32n));
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
