import { AddressSpace, PageFlags } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { PageInterner } from './page-interner.js';
import { captureSpace, restoreSpace } from './space-image.js';

const RW = PageFlags.Present | PageFlags.Writable;
const A = 0x400000n;
const B = 0x401000n;

function space(): AddressSpace {
  const s = new AddressSpace();
  s.map(A, 8192, RW);
  s.writeU64(A, 0x1122n);
  return s;
}

describe(captureSpace, () => {
  it('should share unchanged pages with the previous image, and reuse it whole when nothing changed', () => {
    const store = new PageInterner();
    const s = space();
    const first = captureSpace(s, undefined, store);
    expect(captureSpace(s, first, store)).toBe(first);
    s.writeU8(B + 5n, 1);
    const second = captureSpace(s, first, store);
    expect(second).not.toBe(first);
    expect(second.pages.get(Number(A >> 12n))).toBe(first.pages.get(Number(A >> 12n)));
    expect(second.pages.get(Number(B >> 12n))?.data[5]).toBe(1);
    expect(first.pages.get(Number(B >> 12n))?.data[5]).toBe(0);
  });

  it('should keep one copy of identical contents at different addresses', () => {
    const s = new AddressSpace();
    s.map(A, 8192, RW);
    const image = captureSpace(s, undefined, new PageInterner());
    expect(image.pages.get(Number(A >> 12n))?.data).toBe(image.pages.get(Number(B >> 12n))?.data);
  });
});

describe(restoreSpace, () => {
  it('should bring back bytes, permissions, instrumentation and the set of pages', () => {
    const store = new PageInterner();
    const s = space();
    s.markInstrumentation(A + 1n, 1, true);
    const image = captureSpace(s, undefined, store);
    s.writeU64(A, 0xdeadn);
    s.protect(B, 4096, PageFlags.Present);
    s.markInstrumentation(A + 1n, 1, false);
    s.unmap(A, 4096);
    s.map(A, 4096, RW);
    s.map(0x500000n, 4096, RW);
    restoreSpace(s, image);
    expect(s.readU64(A)).toBe(0x1122n);
    expect(s.flagsAt(B)).toBe(image.pages.get(Number(B >> 12n))?.flags);
    expect(s.pageMap.get(Number(A >> 12n))?.instrumentation?.[1]).toBe(1);
    expect(s.isMapped(0x500000n)).toBe(false);
    expect(captureSpace(s, image, store)).toBe(image);
  });

  it('should drop code decoded from bytes it rewrites', () => {
    const s = new AddressSpace();
    s.map(A, 4096, PageFlags.Present);
    const image = captureSpace(s, undefined, new PageInterner());
    const page = s.pageMap.get(Number(A >> 12n))!;
    page.codeArray();
    s.writeU8(A, 0x90);
    page.codeArray()[0] = { len: 1 } as never;
    restoreSpace(s, image);
    expect(page.code?.[0] ?? null).toBeNull();
  });
});
