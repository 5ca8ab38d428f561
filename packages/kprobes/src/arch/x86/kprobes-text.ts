import { PAGE_SIZE, PageFlags } from '@int3/cpu';
import type { KprobesTextLayout } from '../../core/arch.js';
import type { BlacklistEntry } from '../../core/blacklist-entry.js';
import type { KprobesHost } from '../../core/kprobes-host.js';

const PRESENT = PageFlags.Present;

/**
 * kprobes' own text, what `.kprobes.text` holds in Linux, mapped by kprobes at init so every mechanism
 * works on any kernel image:
 *
 * - `kretprobe_trampoline`: probed functions return here. With the kretprobe booster (x86 since
 *   2.6.25) its first byte is an inline host gate that runs the kretprobe handlers and goes on at the
 *   real return address; without it, it is a `ret` whose own kprobe runs the handlers and puts the
 *   real return address where the `ret` takes it from (2.6.12). At +1, `ud2`: the booster's `BUG()`
 *   when a return matches no instance.
 * - `jprobe_return`: `mov %gs:SAVED_SP,%rbx; xchg %rbx,%rsp; int3`, then `jprobe_return_end`. A jprobe
 *   entry ends by calling it; the int3 lets the break handler restore the probed function's frame.
 *
 * The page is instrumentation: its instructions cost no virtual time.
 *
 * @see arch/x86/kernel/kprobes/core.c kretprobe_trampoline, jprobe_return() (2.6 era)
 */
export class KprobesText implements KprobesTextLayout {
  readonly base: bigint;
  readonly trampoline: bigint;
  /** `kretprobe_trampoline+1`: the `ud2` the booster's handler goes to on a return without an instance. */
  readonly trampolineBug: bigint;
  readonly jprobeReturn: bigint;
  readonly jprobeReturnInt3: bigint;
  readonly jprobeReturnEnd: bigint;
  /** Offset of the per-CPU `jprobe_saved_rsp` word from the GS base. */
  readonly savedSpOffset: number;

  constructor(m: Pick<KprobesHost, 'percpuAlloc' | 'memory' | 'space' | 'kallsyms'>) {
    this.savedSpOffset = m.percpuAlloc(8);
    this.base = m.memory.moduleAlloc(PAGE_SIZE, PRESENT | PageFlags.Writable);
    const code = new Uint8Array(PAGE_SIZE).fill(0xcc);
    code[0] = 0xc3; // kretprobe_trampoline: ret
    code.set([0x0f, 0x0b], 1); // +1: ud2 (BUG())
    const off = this.savedSpOffset;
    // jprobe_return at +0x10: mov %gs:off,%rbx ; xchg %rbx,%rsp ; int3 ; jprobe_return_end: nop
    code.set([0x65, 0x48, 0x8b, 0x1c, 0x25, off & 0xff, (off >> 8) & 0xff, 0, 0, 0x48, 0x87, 0xdc, 0xcc, 0x90], 0x10);
    m.space.write(this.base, code);
    m.space.protect(this.base, PAGE_SIZE, PRESENT);
    m.space.markInstrumentation(this.base, PAGE_SIZE, true);
    this.trampoline = this.base;
    this.trampolineBug = this.base + 1n;
    this.jprobeReturn = this.base + 0x10n;
    this.jprobeReturnInt3 = this.base + 0x1cn;
    this.jprobeReturnEnd = this.base + 0x1dn;
    m.kallsyms.addRegion(
      undefined,
      [
        { name: 'kretprobe_trampoline', address: this.trampoline, size: 16, kind: 'text', global: true },
        { name: 'jprobe_return', address: this.jprobeReturn, size: 13, kind: 'text', global: true },
        { name: 'jprobe_return_end', address: this.jprobeReturnEnd, size: 3, kind: 'text', global: true },
      ],
      'kprobes-text',
    );
  }

  /** Blacklist entries for this text. */
  ranges(): BlacklistEntry[] {
    return [
      { start: this.trampoline, end: this.trampoline + 16n, name: 'kretprobe_trampoline' },
      { start: this.jprobeReturn, end: this.jprobeReturnEnd + 3n, name: 'jprobe_return' },
    ];
  }
}
