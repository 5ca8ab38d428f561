import { describe, expect, it } from 'vitest';
import { canOptimize } from './can-optimize.js';
import { compileKernelC, h, haveGcc, TEXT, textAt } from './x86-test-bytes.fixture.js';

/** Runs canOptimize on `bytes` as a whole function at TEXT, probing at +offset. */
function optimize(bytes: string, offset: number, options = {}) {
  const code = h(bytes);
  return canOptimize(textAt(TEXT, code), TEXT, BigInt(code.length), TEXT + BigInt(offset), options);
}

// push %rbp; mov %rsp,%rbp; mov 0x10(%rip),%rax; add $1,%rax; pop %rbp; ret
const PLAIN = '55 48 89 e5 48 8b 05 10 00 00 00 48 83 c0 01 5d c3';

describe(canOptimize, () => {
  it.each([
    { offset: 0, regionLength: 11, count: 3 },
    { offset: 1, regionLength: 10, count: 2 },
    { offset: 4, regionLength: 7, count: 1 },
    { offset: 11, regionLength: 5, count: 2 },
  ])('should find the detoured region at +$offset', ({ offset, regionLength, count }) => {
    const result = optimize(PLAIN, offset);
    expect(result).toMatchObject({ ok: true, regionLength });
    if (result.ok) {
      expect(result.insns).toHaveLength(count);
      expect(result.insns[0].address).toBe(TEXT + BigInt(offset));
    }
  });

  it('should refuse a probe fewer than 5 bytes before the function end', () => {
    expect(optimize(PLAIN, 15)).toMatchObject({ ok: false, reason: 'too-close-to-end', errno: 'EILSEQ' });
  });

  it('should refuse an address outside the function, and entry text', () => {
    expect(optimize(PLAIN, 17)).toMatchObject({ ok: false, reason: 'outside-function' });
    expect(optimize(PLAIN, 1, { inEntryText: true })).toMatchObject({ ok: false, reason: 'entry-text' });
  });

  it('should refuse a function containing an indirect jump anywhere', () => {
    // ...; jmp *%rax at +15, far from the probe at +1.
    const result = optimize('55 48 89 e5 48 8b 05 10 00 00 00 48 83 c0 01 ff e0', 1);
    expect(result).toMatchObject({ ok: false, reason: 'indirect-jump', at: TEXT + 15n });
    if (!result.ok) expect(result.message).toMatch(/^indirect jump in function/);
  });

  // test %edi,%edi; je +7; mov %rdi,%rax; add $1,%rax; ret
  const BRANCHY = '85 ff 74 03 48 89 f8 48 83 c0 01 c3';

  it('should refuse when a jump lands in the Jump Target Prohibition Region', () => {
    // Probe at +4: JTPR is +5..+8 (+9 included); je lands on +7.
    expect(optimize(BRANCHY, 4)).toMatchObject({ ok: false, reason: 'jump-into-region', at: TEXT + 2n });
  });

  it('should count addr+5 as inside the region, as the kernel does', () => {
    // Probe at +2: JTPR is +3..+6 and the end +7 (where je lands) is included.
    expect(optimize(BRANCHY, 2)).toMatchObject({ ok: false, reason: 'jump-into-region' });
  });

  it('should accept a jump to the probe address itself', () => {
    expect(optimize(BRANCHY, 7)).toMatchObject({ ok: true, regionLength: 5 });
  });

  it('should refuse a call into the region', () => {
    // call +6 (lands on +6, in the JTPR of a probe at +4); nop; mov %rdi,%rax; add $1,%rax; ret
    expect(optimize('e8 01 00 00 00 90 48 89 f8 48 83 c0 01 c3', 5)).toMatchObject({
      ok: false,
      reason: 'jump-into-region',
      at: TEXT,
    });
  });

  it.each([
    { bytes: 'e8 10 00 00 00 48 89 f8 c3', asm: 'call rel32' },
    { bytes: 'ff d0 48 89 f8 48 89 f8 c3', asm: 'call *%rax' },
  ])('should refuse a region holding $asm', ({ bytes }) => {
    expect(optimize(bytes, 0)).toMatchObject({ ok: false, reason: 'call-in-region', errno: 'EINVAL' });
  });

  it.each([
    { bytes: '0f a2 48 89 f8 c3', asm: 'cpuid' },
    { bytes: '48 89 f8 0f 0b 90 c3', asm: 'ud2' },
    { bytes: '48 89 f8 75 02 90 c3', asm: 'jne rel8' },
  ])('should refuse a region holding $asm (not boostable)', ({ bytes }) => {
    expect(optimize(bytes, 0)).toMatchObject({ ok: false, reason: 'not-boostable', errno: 'EINVAL' });
  });

  it('should refuse a region that straddles the function end', () => {
    // mov %rsp,%rbp; add $1,%rax — but the symbol is only 5 bytes long.
    const code = h('48 89 e5 48 83 c0 01');
    expect(canOptimize(textAt(TEXT, code), TEXT, 5n, TEXT)).toMatchObject({
      ok: false,
      reason: 'straddles-function-end',
    });
  });

  it('should refuse undecodable bytes, foreign int3s and exception-table entries', () => {
    expect(optimize('55 06 48 89 e5 48 89 e5 c3', 2)).toMatchObject({
      ok: false,
      reason: 'undecodable',
      at: TEXT + 1n,
    });
    expect(optimize('55 cc 48 89 e5 48 89 e5 c3', 2)).toMatchObject({
      ok: false,
      reason: 'foreign-int3',
      at: TEXT + 1n,
    });
    const inTable = (a: bigint) => a === TEXT + 11n;
    expect(optimize(PLAIN, 1, { inExceptionTable: inTable })).toMatchObject({ ok: false, reason: 'exception-table' });
  });

  it("should see through the probe's own int3 with recover", () => {
    const code = h(PLAIN);
    code[1] = 0xcc;
    const recover = (a: bigint) => (a === TEXT + 1n ? 0x48 : undefined);
    expect(canOptimize(textAt(TEXT, code), TEXT, 17n, TEXT + 1n, { recover })).toMatchObject({
      ok: true,
      regionLength: 10,
    });
  });

  describe.skipIf(!haveGcc())('on gcc output', () => {
    const SWITCH = `
      long classify(long x, long y) {
        switch (x) {
          case 0: return y + 3; case 1: return y * 7; case 2: return y - 11; case 3: return y ^ 0x55;
          case 4: return y << 3; case 5: return y | 0x100; case 6: return y / 3; default: return -1;
        }
      }`;

    it('should refuse a function with a jump table', () => {
      const { text, symbols } = compileKernelC(SWITCH);
      const { offset, size } = symbols.get('classify')!;
      const body = text.subarray(offset, offset + size);
      const result = canOptimize(textAt(TEXT, body), TEXT, BigInt(size), TEXT);
      expect(result).toMatchObject({ ok: false, reason: 'indirect-jump' });
      if (!result.ok) expect(result.message).toMatch(/jmp.*\*.*\(,%r..?,8\)/);
    });

    it('should not report an indirect jump once gcc is told not to emit jump tables', () => {
      const { text, symbols } = compileKernelC(SWITCH, ['-fno-jump-tables']);
      const { offset, size } = symbols.get('classify')!;
      const body = text.subarray(offset, offset + size);
      const result = canOptimize(textAt(TEXT, body), TEXT, BigInt(size), TEXT);
      expect(result.ok || result.reason).not.toBe('indirect-jump');
    });
  });
});
