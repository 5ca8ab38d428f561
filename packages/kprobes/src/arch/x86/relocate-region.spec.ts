import { describe, expect, it } from 'vitest';
import { decodeInsn } from './decode-insn.js';
import { relocateRegion } from './relocate-region.js';
import { h, TEXT } from './x86-test-bytes.fixture.js';

const DETOUR = 0xffffffffa0002000n;
const FAR = 0xffff888000000000n;

/** Absolute address a RIP-relative operand of the instruction at `bytes[off]` reaches from `at`. */
function ripTarget(bytes: Uint8Array, off: number, at: bigint): bigint {
  const insn = decodeInsn(bytes.subarray(off), at);
  const disp = new DataView(bytes.buffer, bytes.byteOffset).getInt32(off + insn.dispOffset, true);
  return at + BigInt(insn.length) + BigInt(disp);
}

describe(relocateRegion, () => {
  it('should copy position-independent instructions byte for byte', () => {
    const region = h('55 48 89 e5 66 2e 0f 1f 84 00 00 00 00 00 40 90');
    const moved = relocateRegion(region, TEXT, DETOUR);
    expect(moved.ok && Array.from(moved.bytes)).toEqual(Array.from(region));
  });

  it('should keep the absolute target of a RIP-relative load', () => {
    const region = h('48 89 e5 48 8b 05 10 00 00 00');
    const moved = relocateRegion(region, TEXT, DETOUR);
    expect(moved.ok).toBe(true);
    if (!moved.ok) return;
    expect(moved.bytes).toHaveLength(region.length);
    expect(ripTarget(moved.bytes, 3, DETOUR + 3n)).toBe(ripTarget(region, 3, TEXT + 3n));
  });

  it('should keep the absolute target of jmp rel32 and call rel32', () => {
    const region = h('e9 00 01 00 00 e8 f0 ff ff ff');
    const moved = relocateRegion(region, TEXT, DETOUR);
    expect(moved.ok).toBe(true);
    if (!moved.ok) return;
    expect(decodeInsn(moved.bytes, DETOUR).nearBranchTarget).toBe(TEXT + 0x105n);
    expect(decodeInsn(moved.bytes.subarray(5), DETOUR + 5n).nearBranchTarget).toBe(TEXT - 6n);
  });

  it('should let a short jump inside the region follow the region', () => {
    const region = h('eb 01 90 48 89 e5');
    const moved = relocateRegion(region, TEXT, DETOUR);
    expect(moved.ok && decodeInsn(moved.bytes, DETOUR).nearBranchTarget).toBe(DETOUR + 3n);
  });

  it('should refuse a short jump that can no longer reach its target', () => {
    expect(relocateRegion(h('48 89 e5 eb 10'), TEXT, DETOUR)).toMatchObject({
      ok: false,
      reason: 'unencodable',
      offset: 3,
    });
  });

  it.each([
    { bytes: '48 8b 05 10 00 00 00', asm: 'mov 0x10(%rip),%rax' },
    { bytes: 'e8 00 00 00 00', asm: 'call rel32' },
  ])('should refuse $asm when the detour is beyond ±2 GiB', ({ bytes }) => {
    const refused = relocateRegion(h(bytes), TEXT, FAR);
    expect(refused).toMatchObject({ ok: false, reason: 'unencodable', offset: 0 });
    if (!refused.ok) expect(refused.message).toMatch(/too far/);
  });

  it('should refuse a RIP-relative instruction iced would encode shorter (a redundant REX)', () => {
    expect(relocateRegion(h('40 8b 05 10 00 00 00'), TEXT, DETOUR)).toMatchObject({ ok: false, reason: 'not-exact' });
  });

  it('should refuse bytes that do not decode into whole instructions', () => {
    expect(relocateRegion(h('48 89 e5 48 8b'), TEXT, DETOUR)).toMatchObject({
      ok: false,
      reason: 'undecodable',
      offset: 3,
    });
  });
});
