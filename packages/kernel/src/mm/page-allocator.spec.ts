import { describe, expect, it } from 'vitest';
import { PageAllocator } from './page-allocator.js';

const BASE = 0xffffc90000000000n;
const P = 4096n;

describe(PageAllocator, () => {
  it('should hand out first-fit ranges and reuse coalesced holes', () => {
    const a = new PageAllocator(BASE, BASE + 16n * P);
    const x = a.alloc(2)!;
    const y = a.alloc(3)!;
    const z = a.alloc(1)!;
    expect([x, y, z]).toEqual([BASE, BASE + 2n * P, BASE + 5n * P]);
    a.release(x);
    a.release(y);
    expect(a.alloc(5)).toBe(BASE);
    expect(a.alloc(11)).toBeUndefined();
    expect(a.alloc(10)).toBe(BASE + 6n * P);
  });

  it('should reserve fixed addresses and refuse taken ones', () => {
    const a = new PageAllocator(BASE, BASE + 8n * P);
    expect(a.allocAt(BASE + 2n * P, 2)).toBe(true);
    expect(a.allocAt(BASE + 3n * P, 1)).toBe(false);
    expect(a.alloc(3)).toBe(BASE + 4n * P);
    expect(a.alloc(2)).toBe(BASE);
    expect(a.sizeOf(BASE + 2n * P)).toBe(2);
  });

  it('should refuse to free what it did not allocate', () => {
    const a = new PageAllocator(BASE, BASE + 8n * P);
    expect(() => a.release(BASE)).toThrow(/no allocation/);
  });
});
