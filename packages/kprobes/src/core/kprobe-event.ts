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
  | (At & Where & { readonly type: 'kprobe:hit'; readonly pid: number })
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
