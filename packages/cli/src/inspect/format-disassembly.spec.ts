import { Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { Kprobes } from '@int3/kprobes';
import { describe, expect, it } from 'vitest';
import { formatDisassembly } from './format-disassembly.js';

describe(formatDisassembly, () => {
  const m = Machine.boot({ image: readSampleImage(), cpus: 1, programs: sampleProgram });
  const k = Kprobes.init(m);
  const fn = m.kallsyms.lookupName('do_sys_open')!;
  const range = { start: fn.address, size: fn.size };
  const plain = formatDisassembly(m.space, k, range);

  it('should show the original instructions under an int3, then under the jmp of a jump-optimized probe', () => {
    k.registerKprobe({ symbolName: 'do_sys_open', offset: 1, preHandler: () => 0 });
    const armed = formatDisassembly(m.space, k, range);
    expect(armed[1]).toMatch(
      /^ {2}[0-9a-f]+: {2}89 d0 +mov %edx,%eax {2}<- kprobe \(armed: int3 in place; copy at slot 0x[0-9a-f]+\)$/,
    );
    k.optimization.runNow();
    const site = k.get(fn.address + 1n)!;
    expect(site.optimized).toBe(true);
    expect(m.space.readU8(fn.address + 1n)).toBe(0xe9);
    const optimized = formatDisassembly(m.space, k, range);
    const buf = k.optimization.detour(site.addr)!.buf.toString(16);
    expect(optimized[1]).toMatch(
      new RegExp(
        `mov %edx,%eax {2}<- kprobe \\(jump-optimized: jmp to its detour buffer at 0x${buf}, the first 8 bytes copied there\\)$`,
      ),
    );
    // Every other line reads as before the probe: the rel32 under the jmp is not decoded as code.
    expect(optimized.filter((_, i) => i !== 1)).toEqual(plain.filter((_, i) => i !== 1));
  });
});
