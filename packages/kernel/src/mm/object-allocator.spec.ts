import { AddressSpace } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { ObjectAllocator } from './object-allocator.js';
import { PageAllocator } from './page-allocator.js';

const BASE = 0xffffc90000000000n;

function make(pages = 64): { space: AddressSpace; heap: ObjectAllocator } {
  const space = new AddressSpace();
  return { space, heap: new ObjectAllocator(space, new PageAllocator(BASE, BASE + BigInt(pages * 4096))) };
}

describe(ObjectAllocator, () => {
  it('should round sizes up to a kmalloc class and hand out ascending addresses', () => {
    const { heap, space } = make();
    const a = heap.alloc(20);
    const b = heap.alloc(32);
    expect(b - a).toBe(32n);
    expect(heap.sizeOf(a)).toBe(32);
    expect(a % 16n).toBe(0n);
    space.writeU64(a, 0x1122334455667788n);
    expect(space.readU64(a)).toBe(0x1122334455667788n);
  });

  it('should reuse the most recently freed object of a class', () => {
    const { heap } = make();
    const a = heap.alloc(100);
    heap.alloc(100);
    expect(heap.free(a)).toBe(true);
    expect(heap.alloc(128)).toBe(a);
    expect(heap.free(a + 8n)).toBe(false);
  });

  it('should map whole pages for large objects and unmap them on free', () => {
    const { heap, space } = make();
    const big = heap.alloc(10000);
    expect(heap.sizeOf(big)).toBe(12288);
    expect(space.isMapped(big, 12288)).toBe(true);
    heap.free(big);
    expect(space.isMapped(big)).toBe(false);
  });

  it('should hand out zero-filled memory, even when reused', () => {
    const { heap, space } = make();
    const a = heap.alloc(64);
    space.writeU64(a + 8n, 0xdeadn);
    heap.free(a);
    expect(heap.alloc(64)).toBe(a);
    expect(space.readU64(a + 8n)).toBe(0n);
  });

  it('should return 0 when memory runs out', () => {
    const { heap } = make(2);
    expect(heap.alloc(8192)).not.toBe(0n);
    expect(heap.alloc(8)).toBe(0n);
  });
});
