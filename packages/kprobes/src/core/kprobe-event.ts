/** Fields of every kprobes event: virtual time and CPU (-1 for events outside a hit). */
interface At {
  readonly at: number;
  readonly cpu: number;
}

/** Where a probe is, as `sym+0xoff`. */
interface Where {
  readonly addr: bigint;
  readonly symbol: string;
}

/** Every step of the mechanism, published on `events$`. */
export type KprobeEvent =
  | (At & Where & { readonly type: 'kprobe:registered'; readonly kind: 'k' | 'r' | 'j' })
  | (At & Where & { readonly type: 'kprobe:armed'; readonly before: number; readonly after: number })
  | (At & Where & { readonly type: 'kprobe:disarmed'; readonly restored: number })
  | (At & Where & { readonly type: 'kprobe:unregistered'; readonly kind: 'k' | 'r' | 'j' })
  | (At & Where & { readonly type: 'kprobe:gone'; readonly module: string })
  | (At &
      Where & {
        readonly type: 'kprobe:hit';
        readonly pid: number;
        /** How the hit was taken: int3 + single-step, int3 + boosted copy, jump-optimized, or detour. */
        readonly path: 'int3' | 'boosted' | 'optimized' | 'detour';
      })
  | (At & Where & { readonly type: 'kprobe:boosted'; readonly slot: bigint; readonly jmpBack: bigint })
  | (At & Where & { readonly type: 'kprobe:optimized'; readonly detour: bigint; readonly size: number })
  | (At & Where & { readonly type: 'kprobe:unoptimized'; readonly reason: string })
  | (At & Where & { readonly type: 'kprobe:optimize-refused'; readonly reason: string })
  | (At &
      Where & {
        readonly type: 'kprobe:text-poke-bp';
        readonly op: 'optimize' | 'unoptimize';
        /** 1: int3 on the first byte; 2: the bytes after it; 3: the new first byte. */
        readonly step: 1 | 2 | 3;
        readonly where: bigint;
        /** The bytes written, in hex. */
        readonly bytes: string;
      })
  | (At & Where & { readonly type: 'kprobe:pre-handler-ran'; readonly result: number })
  | (At & Where & { readonly type: 'kprobe:single-step-begun'; readonly slot: bigint; readonly insn: string })
  | (At & Where & { readonly type: 'kprobe:resumed'; readonly fixup: string; readonly ip: bigint })
  | (At & Where & { readonly type: 'kprobe:post-handler-ran' })
  | (At & Where & { readonly type: 'kprobe:missed'; readonly reason: 're-entry' | 'maxactive' })
  | (At & Where & { readonly type: 'kprobe:fault'; readonly trapnr: number; readonly ip: bigint })
  | (At &
      Where & {
        readonly type: 'kretprobe:return-address-swapped';
        readonly pid: number;
        readonly original: bigint;
        readonly trampoline: bigint;
      })
  | (At &
      Where & {
        readonly type: 'kretprobe:trampoline-hit';
        readonly pid: number;
        readonly returnTo: bigint;
        readonly retval: bigint;
      })
  | (At & Where & { readonly type: 'jprobe:entered'; readonly entry: string })
  | (At & Where & { readonly type: 'jprobe:returned' })
  /** A dead task's returns in flight given back (`kprobe_flush_task`); `addr` is the kretprobe's. */
  | (At & Where & { readonly type: 'kretprobe:flushed'; readonly pid: number });
