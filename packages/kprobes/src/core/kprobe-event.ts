/** Fields of every kprobes event: virtual time and CPU (-1 for events outside a hit). */
export interface KprobeEventAt {
  readonly at: number;
  readonly cpu: number;
}

/** Where a probe is, as `sym+0xoff`. */
export interface KprobeEventWhere {
  readonly addr: bigint;
  readonly symbol: string;
}

/** Every step of the mechanism, published on `events$`. */
export type KprobeEvent =
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:registered'; readonly kind: 'k' | 'r' | 'j' })
  | (KprobeEventAt &
      KprobeEventWhere & { readonly type: 'kprobe:armed'; readonly before: number; readonly after: number })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:disarmed'; readonly restored: number })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:unregistered'; readonly kind: 'k' | 'r' | 'j' })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:gone'; readonly module: string })
  | (KprobeEventAt &
      KprobeEventWhere & {
        readonly type: 'kprobe:hit';
        readonly pid: number;
        /** How the hit was taken: int3 + single-step, int3 + boosted copy, jump-optimized, or detour. */
        readonly path: 'int3' | 'boosted' | 'optimized' | 'detour';
      })
  | (KprobeEventAt &
      KprobeEventWhere & { readonly type: 'kprobe:boosted'; readonly slot: bigint; readonly jmpBack: bigint })
  | (KprobeEventAt &
      KprobeEventWhere & { readonly type: 'kprobe:optimized'; readonly detour: bigint; readonly size: number })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:unoptimized'; readonly reason: string })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:optimize-refused'; readonly reason: string })
  | (KprobeEventAt &
      KprobeEventWhere & {
        readonly type: 'kprobe:text-poke-bp';
        readonly op: 'optimize' | 'unoptimize';
        /** 1: int3 on the first byte; 2: the bytes after it; 3: the new first byte. */
        readonly step: 1 | 2 | 3;
        readonly where: bigint;
        /** The bytes written, in hex. */
        readonly bytes: string;
      })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:pre-handler-ran'; readonly result: number })
  | (KprobeEventAt &
      KprobeEventWhere & { readonly type: 'kprobe:single-step-begun'; readonly slot: bigint; readonly insn: string })
  | (KprobeEventAt &
      KprobeEventWhere & { readonly type: 'kprobe:resumed'; readonly fixup: string; readonly ip: bigint })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:post-handler-ran' })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:missed'; readonly reason: 're-entry' | 'maxactive' })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kprobe:fault'; readonly trapnr: number; readonly ip: bigint })
  | (KprobeEventAt &
      KprobeEventWhere & {
        readonly type: 'kretprobe:return-address-swapped';
        readonly pid: number;
        readonly original: bigint;
        readonly trampoline: bigint;
      })
  | (KprobeEventAt &
      KprobeEventWhere & {
        readonly type: 'kretprobe:trampoline-hit';
        readonly pid: number;
        readonly returnTo: bigint;
        readonly retval: bigint;
      })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'jprobe:entered'; readonly entry: string })
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'jprobe:returned' })
  /** A dead task's returns in flight given back (`kprobe_flush_task`); `addr` is the kretprobe's. */
  | (KprobeEventAt & KprobeEventWhere & { readonly type: 'kretprobe:flushed'; readonly pid: number });
