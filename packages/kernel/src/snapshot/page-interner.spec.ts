import { describe, expect, it } from 'vitest';
import { PageInterner, sameBytes } from './page-interner.js';

describe(PageInterner, () => {
  it('should hand out one shared copy per content', () => {
    const store = new PageInterner();
    const a = new Uint8Array(4096).fill(7);
    const shared = store.intern(a);
    expect(shared).not.toBe(a);
    expect(store.intern(a.slice())).toBe(shared);
    expect(store.intern(new Uint8Array(4096))).not.toBe(shared);
    expect(store.size).toBe(2);
  });

  it('should copy, so later writes to the page do not reach the stored content', () => {
    const store = new PageInterner();
    const page = new Uint8Array(16).fill(1);
    const shared = store.intern(page);
    page[0] = 9;
    expect(shared[0]).toBe(1);
  });
});

describe(sameBytes, () => {
  it('should compare contents, not identity', () => {
    expect(sameBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(sameBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(sameBytes(Uint8Array.of(1), Uint8Array.of(1, 0))).toBe(false);
  });
});
