import { describe, expect, it } from 'vitest';
import { copyInstruction } from './copy-instruction.js';
import { decodeInsn } from './decode-insn.js';
import { h, TEXT } from './x86-test-bytes.fixture.js';

const SLOT = 0xffffffffa0001000n;

describe(copyInstruction, () => {
  it('should copy a plain instruction unchanged and save its first byte', () => {
    const copy = copyInstruction(h('48 89 e5 5d c3'), TEXT, SLOT);
    expect(copy.ok).toBe(true);
    if (copy.ok) {
      expect(Array.from(copy.insn)).toEqual([0x48, 0x89, 0xe5]);
      expect(copy).toMatchObject({ length: 3, opcode: 0x48 });
    }
  });

  it.each([
    { bytes: '48 8b 05 10 00 00 00', asm: 'mov 0x10(%rip),%rax' },
    { bytes: '48 c7 05 f0 ff ff ff 01 00 00 00', asm: 'movq $1,-0x10(%rip)' },
    { bytes: '65 48 03 05 00 01 00 00', asm: 'add %gs:0x100(%rip),%rax' },
    { bytes: 'ff 25 08 00 00 00', asm: 'jmp *0x8(%rip)' },
    { bytes: '0f b6 0d 00 00 00 70', asm: 'movzbl 0x70000000(%rip),%ecx' },
  ])('should re-aim the disp32 of $asm at the same absolute address', ({ bytes }) => {
    const original = decodeInsn(h(bytes), TEXT);
    const target =
      TEXT + BigInt(original.length) + BigInt(new DataView(h(bytes).buffer).getInt32(original.dispOffset, true));
    const copy = copyInstruction(h(bytes), TEXT, SLOT);
    expect(copy.ok).toBe(true);
    if (!copy.ok) return;
    const moved = decodeInsn(copy.insn, SLOT);
    const disp = BigInt(new DataView(copy.insn.buffer).getInt32(moved.dispOffset, true));
    expect(SLOT + BigInt(moved.length) + disp).toBe(target);
    expect(copy.opcode).toBe(h(bytes)[0]);
    expect(moved.mnemonic).toBe(original.mnemonic);
  });

  it('should refuse a displacement that no longer fits in s32, with the kernel message', () => {
    const far = 0xffff888000000000n;
    const copy = copyInstruction(h('48 8b 05 10 00 00 00'), TEXT, far);
    expect(copy).toEqual({
      ok: false,
      reason: 'displacement-overflow',
      message: `Kprobes error: new displacement does not fit into s32 (${(TEXT + 0x10n - far).toString(16)})`,
    });
  });

  it('should print a negative displacement as a 64-bit two-complement value', () => {
    const copy = copyInstruction(h('48 8b 05 00 00 00 00'), 0xffff800000000000n, 0xffffffffa0000000n);
    expect(!copy.ok && copy.message).toBe('Kprobes error: new displacement does not fit into s32 (ffff800060000000)');
  });

  it.each([
    { bytes: 'cc', asm: 'int3' },
    { bytes: '66 cc', asm: 'data16 int3' },
  ])("should refuse $asm: another subsystem's breakpoint", ({ bytes }) => {
    expect(copyInstruction(h(bytes), TEXT, SLOT)).toMatchObject({ ok: false, reason: 'breakpoint' });
  });

  it('should refuse undecodable bytes', () => {
    expect(copyInstruction(h('06'), TEXT, SLOT)).toMatchObject({ ok: false, reason: 'undecodable' });
  });
});
