import { describe, expect, it } from 'vitest';
import { canProbe } from './can-probe.js';
import { compileKernelC, h, haveGcc, objdumpOffsets, TEXT, textAt } from './x86-test-bytes.fixture.js';

// push %rbp; mov %rsp,%rbp; mov 0x10(%rip),%rax; ud2; pop %rbp; ret
const FUNC = h('55 48 89 e5 48 8b 05 10 00 00 00 0f 0b 5d c3');
const SIZE = BigInt(FUNC.length);

describe(canProbe, () => {
  const read = textAt(TEXT, FUNC);

  it.each([0, 1, 4, 13, 14])('should accept the instruction boundary at +%i', (offset) => {
    const result = canProbe(read, TEXT, SIZE, TEXT + BigInt(offset));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.insn.address).toBe(TEXT + BigInt(offset));
  });

  it.each([2, 3, 5, 10, 12])('should refuse +%i, inside an instruction', (offset) => {
    expect(canProbe(read, TEXT, SIZE, TEXT + BigInt(offset))).toMatchObject({ ok: false, reason: 'not-boundary' });
  });

  it('should refuse an address past the function end', () => {
    expect(canProbe(read, TEXT, SIZE, TEXT + SIZE)).toMatchObject({ ok: false, reason: 'outside-function' });
  });

  it('should refuse the ud2 at +11 with the exception reason, unless told not to', () => {
    const refused = canProbe(read, TEXT, SIZE, TEXT + 11n);
    expect(refused).toMatchObject({ ok: false, reason: 'exception-insn', at: TEXT + 11n });
    if (!refused.ok) expect(refused.message).toMatch(/^ud2 /);
    expect(canProbe(read, TEXT, SIZE, TEXT + 11n, undefined, { refuseExceptionInsn: false }).ok).toBe(true);
  });

  it("should refuse to walk past another subsystem's int3", () => {
    const patched = FUNC.slice();
    patched[1] = 0xcc;
    const result = canProbe(textAt(TEXT, patched), TEXT, SIZE, TEXT + 13n);
    expect(result).toMatchObject({ ok: false, reason: 'foreign-int3', at: TEXT + 1n });
  });

  it("should walk over a kprobe's int3 by recovering the original byte", () => {
    const patched = FUNC.slice();
    patched[1] = 0xcc;
    const recover = (a: bigint) => (a === TEXT + 1n ? 0x48 : undefined);
    expect(canProbe(textAt(TEXT, patched), TEXT, SIZE, TEXT + 13n, recover).ok).toBe(true);
    const atProbe = canProbe(textAt(TEXT, patched), TEXT, SIZE, TEXT + 1n, recover);
    expect(atProbe.ok && atProbe.insn.text).toBe('mov %rsp,%rbp');
  });

  it('should refuse when an instruction before the address cannot be decoded', () => {
    const bad = h('55 06 5d c3');
    expect(canProbe(textAt(TEXT, bad), TEXT, 4n, TEXT + 3n)).toMatchObject({
      ok: false,
      reason: 'undecodable',
      at: TEXT + 1n,
    });
  });

  it.skipIf(!haveGcc())('should accept exactly the instruction starts objdump finds in gcc output', () => {
    const { text, symbols } = compileKernelC(`
      struct node { struct node *next; long key, value; };
      long lookup(struct node *n, long key) {
        for (; n; n = n->next) if (n->key == key) return n->value * 3 + (key >> 2);
        return -22;
      }`);
    const { offset, size } = symbols.get('lookup')!;
    const body = text.subarray(offset, offset + size);
    const starts = new Set(objdumpOffsets(body));
    expect(starts.size).toBeGreaterThan(5);
    const read = textAt(TEXT, body);
    for (let i = 0; i < size; i++) {
      expect([i, canProbe(read, TEXT, BigInt(size), TEXT + BigInt(i)).ok]).toEqual([i, starts.has(i)]);
    }
  });
});
