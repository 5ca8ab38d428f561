import { PageFlags } from '@int3/cpu';
import { KernelLayout } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { canOptimizeAt } from '../src/arch/x86/can-optimize-at.js';
import { relocateRegion } from '../src/arch/x86/relocate-region.js';
import { machineHost } from '../src/machine-host.js';
import { addr, bootWithKprobes } from './support/machine.js';

// The fixtures of packages/kernel/image/lib/test_kprobes.c, each refused at its entry.
describe(canOptimizeAt, () => {
  const { m, k } = bootWithKprobes();
  const host = machineHost(m);

  it('should accept optprobe_target at its entry, with push/mov/lea as the region', () => {
    const r = canOptimizeAt(host, addr(m, 'optprobe_target'));
    expect(r).toMatchObject({ ok: true, regionLength: 7 });
    if (r.ok) expect(r.insns.map((i) => i.text)).toEqual(['push %rbp', 'mov %rsp,%rbp', 'lea 1(%rdi),%eax']);
  });

  it('should give the same functions the same results as natively (fixtures callable)', () => {
    expect(m.kernel.guest.call(0, addr(m, 'optprobe_target'), [4n, 5n])).toBe(25n);
    expect(m.kernel.guest.call(0, addr(m, 'optprobe_jump_into_region'), [1n])).toBe(10n);
    expect(m.kernel.guest.call(0, addr(m, 'optprobe_indirect_jump'), [1n])).toBe(2n);
    expect(m.kernel.guest.call(0, addr(m, 'optprobe_too_short'), [1n])).toBe(2n);
    expect(m.kernel.guest.call(0, addr(m, 'optprobe_call_in_region'), [9n])).toBe(3n);
    expect(m.kernel.guest.call(0, addr(m, 'optprobe_jcc_in_region'), [0n])).toBe(0n);
    expect(m.kernel.guest.call(0, addr(m, 'kprobe_target2'), [9n])).toBe(4n);
  });

  it.each([
    ['optprobe_jump_into_region', 'jump-into-region', 'EILSEQ', /jl .* jumps into the optimized region/],
    ['optprobe_indirect_jump', 'indirect-jump', 'EILSEQ', /^indirect jump in function \(jmp \*%rdx/],
    ['optprobe_too_short', 'too-close-to-end', 'EILSEQ', /fewer than 5 bytes/],
    ['optprobe_call_in_region', 'call-in-region', 'EINVAL', /call .*must not contain a call/],
    ['optprobe_jcc_in_region', 'not-boostable', 'EINVAL', /^je .*cannot run out of line/],
    ['copy_user_generic', 'exception-table', 'EILSEQ', /is in the exception tables/],
    ['entry_SYSCALL_64', 'entry-text', 'EILSEQ', /entry text/],
  ])('should refuse %s: %s', (sym, reason, errno, message) => {
    const r = canOptimizeAt(host, addr(m, sym));
    expect(r).toMatchObject({ ok: false, reason, errno });
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('should refuse an address no symbol covers', () => {
    expect(canOptimizeAt(host, 0xffff888000000000n)).toMatchObject({ ok: false, reason: 'outside-function' });
  });

  it('should decode through an armed probe with the recovered bytes', () => {
    const at = addr(m, 'optprobe_target', 1);
    const kp = { addr: at, preHandler: () => 0 };
    k.registerKprobe(kp);
    try {
      // Without recovery the int3 at +1 is another subsystem's; with it the region is the original.
      expect(canOptimizeAt(host, addr(m, 'optprobe_target'))).toMatchObject({ ok: false, reason: 'foreign-int3' });
      const recover = (a: bigint) => {
        const site = k.get(a);
        return site?.armed ? site.arch.opcode : undefined;
      };
      expect(canOptimizeAt(host, addr(m, 'optprobe_target'), recover)).toMatchObject({ ok: true, regionLength: 7 });
    } finally {
      k.unregisterKprobe(kp);
    }
  });

  it('should accept optprobe_riprel_far but fail to relocate it into a detour buffer in module space', () => {
    const at = addr(m, 'optprobe_riprel_far');
    const r = canOptimizeAt(host, at);
    expect(r).toMatchObject({ ok: true, regionLength: 7 });
    const buffer = m.kernel.memory.moduleAlloc(4096, PageFlags.Present);
    expect(buffer >= KernelLayout.MODULES_VADDR).toBe(true);
    const bytes = m.space.read(at, 7);
    expect(relocateRegion(bytes, at, buffer)).toMatchObject({ ok: false, reason: 'unencodable' });
    // From the kernel text itself the operand stays in reach.
    expect(relocateRegion(bytes, at, at + 0x100n)).toMatchObject({ ok: true });
    m.kernel.memory.free(buffer);
  });
});
