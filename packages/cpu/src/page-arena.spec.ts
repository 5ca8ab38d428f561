import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import type { Page } from './page.js';
import { PAGE_ARENA, PageArena, type PageBytes } from './page-arena.js';
import { PAGE_SIZE, PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import { TEST_LAYOUT, testMachine } from './test-machine.fixture.js';
import { WASM, type WasmApi } from './wasm-api.js';

/**
 * A WebAssembly module importing a shared memory (`m.m`, up to 4 GiB) and exporting `load(addr)`,
 * its byte at `addr` (i32.load8_u): what code compiled to WebAssembly would read of guest memory.
 */
const LOADER = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // type section: (i32) -> i32
  0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f,
  // import section: "m" "m" memory, shared, min 0, max 65536 pages
  0x02, 0x0b, 0x01, 0x01, 0x6d, 0x01, 0x6d, 0x02, 0x03, 0x00, 0x80, 0x80, 0x04,
  // function section: one function of type 0
  0x03, 0x02, 0x01, 0x00,
  // export section: "load" = function 0
  0x07, 0x08, 0x01, 0x04, 0x6c, 0x6f, 0x61, 0x64, 0x00, 0x00,
  // code section: local.get 0; i32.load8_u; end
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x2d, 0x00, 0x00, 0x0b,
]);

function loader(memory: unknown): (addr: number) => number {
  const wasm = WASM as WasmApi;
  const instance = new wasm.Instance(new wasm.Module(LOADER), { m: { m: memory } });
  return instance.exports.load as (addr: number) => number;
}

const gc = (globalThis as { gc?: () => void }).gc;

describe('PageArena', () => {
  it("keeps every page's bytes in one shared WebAssembly memory, where compiled code can read them", () => {
    expect(PAGE_ARENA.memory).not.toBeNull();
    const space = new AddressSpace();
    space.map(0x400000n, 3 * PAGE_SIZE, PageFlags.Present | PageFlags.Writable);
    space.writeU64(0x400ff8n, 0x1122334455667788n);
    space.writeU8(0x401000n, 0x99);
    space.writeU8(0x402fffn, 0x42);
    const pages = [0x400, 0x401, 0x402].map((n) => space.lookup(n << 12, 0) as Page);
    const offsets = pages.map((p) => p.offset);
    expect(new Set(offsets).size).toBe(3);
    for (const at of offsets) expect(at >= 0 && at % PAGE_SIZE === 0).toBe(true);
    const load = loader(PAGE_ARENA.memory);
    expect(load(offsets[0] + 0xff8)).toBe(0x88);
    expect(load(offsets[0] + 0xfff)).toBe(0x11);
    expect(load(offsets[1])).toBe(0x99);
    expect(load(offsets[2] + 0xfff)).toBe(0x42);
    expect(load(offsets[2])).toBe(0);
  });

  it("keeps a CPU's registers and data TLB there, with each entry's page offset, and marks the pages with decoded code", () => {
    // mov rax, [0x600008]; mov [0x600010], rax
    const { cpu, as, run } = testMachine([
      0x48, 0x8b, 0x04, 0x25, 0x08, 0x00, 0x60, 0x00, 0x48, 0x89, 0x04, 0x25, 0x10, 0x00, 0x60, 0x00,
    ]);
    as.writeU64(TEST_LAYOUT.data + 8n, 0x8877665544332211n);
    expect(run().reason).toBe('hlt');
    const load = loader(PAGE_ARENA.memory);
    const int32At = (at: number) => load(at) | (load(at + 1) << 8) | (load(at + 2) << 16) | (load(at + 3) << 24);
    expect(cpu.regsOffset).toBeGreaterThan(0);
    expect(int32At(cpu.regsOffset + Reg.RAX * 4)).toBe(0x44332211);
    expect(int32At(cpu.regsOffset + 64 + Reg.RAX * 4)).toBe(0x88776655 | 0);
    expect(int32At(cpu.regsOffset + Reg.RSP * 4)).toBe(Number(TEST_LAYOUT.stackTop));
    const data = as.lookup(Number(TEST_LAYOUT.data), 0) as Page;
    const code = as.lookup(Number(TEST_LAYOUT.code), 0) as Page;
    // The data page's entries (the slot's tag halves, then the page offset) in both TLBs.
    const slot = (Number(TEST_LAYOUT.data) >>> 12) & 255;
    for (const base of [cpu.rTlbOffset, cpu.wTlbOffset]) {
      expect(int32At(base + slot * 4)).toBe(Number(TEST_LAYOUT.data));
      expect(int32At(base + 1024 + slot * 4)).toBe(0);
      expect(int32At(base + 2048 + slot * 4)).toBe(data.offset);
    }
    const map = PAGE_ARENA.codeMap as Uint8Array;
    expect(map[code.offset / PAGE_SIZE]).toBe(1);
    expect(map[data.offset / PAGE_SIZE]).toBe(0);
    const at = code.offset;
    as.unmap(TEST_LAYOUT.code, PAGE_SIZE);
    expect(map[at / PAGE_SIZE]).toBe(0);
  });

  it("keeps a page's views valid while the memory grows (a shared memory's buffer is not detached)", () => {
    const arena = new PageArena({ growBytes: 65536 });
    const first = arena.allocate();
    first.data[7] = 0xab;
    const later = Array.from({ length: 40 }, () => arena.allocate());
    // The code map (1 MiB for 4 GiB of slots), then three growths of 16 slots.
    expect(arena.bytes).toBe((1 << 20) + 3 * 65536);
    expect(first.data[7]).toBe(0xab);
    first.view.setUint32(100, 0xdeadbeef, true);
    expect(first.data[100]).toBe(0xef);
    expect(loader(arena.memory)(first.offset + 7)).toBe(0xab);
    expect(later.map((b) => b.offset)).toEqual(later.map((_, k) => first.offset + (k + 1) * PAGE_SIZE));
  });

  it('gives a page a buffer of its own once the memory is at its maximum, and where there is no memory', () => {
    // 64 KiB of code map (a byte per slot), then 15 slots.
    const arena = new PageArena({ maxBytes: 65536 * 2, growBytes: 65536 });
    const inMemory = Array.from({ length: 16 }, () => arena.allocate());
    expect(inMemory.every((b) => b.offset >= 0)).toBe(true);
    const own = arena.allocate();
    expect(own.offset).toBe(-1);
    expect(own.data.length).toBe(PAGE_SIZE);
    own.view.setUint16(4094, 0x1234, true);
    expect(own.data[4095]).toBe(0x12);
    expect(arena.pagesInUse).toBe(16);
    expect(inMemory[0].offset).toBe(65536);

    const none = new PageArena({ memory: false });
    expect(none.memory).toBeNull();
    const b = none.allocate();
    expect(b.offset).toBe(-1);
    expect(b.data.every((x) => x === 0)).toBe(true);
  });

  // gc() is there because this package's vitest config runs its specs with --expose-gc.
  it.runIf(gc !== undefined)('reuses a slot, zeroed, once both views of its page are collected', async () => {
    const arena = new PageArena({ growBytes: 65536 });
    const kept = arena.allocate();
    kept.data.fill(0x5a);
    let dropped: { data: Uint8Array } | null = arena.allocate();
    const at = arena.allocate().offset - PAGE_SIZE; // the dropped page's slot
    dropped.data.fill(0xa5);
    dropped = null;
    for (let tries = 0; tries < 50 && arena.pagesInUse > 1; tries++) {
      gc?.();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The third page, never held, was collected too: either slot may come back first.
    expect(arena.pagesInUse).toBe(1);
    const again = [arena.allocate(), arena.allocate()];
    expect(again.map((b) => b.offset).sort((a, b) => a - b)).toEqual([at, at + PAGE_SIZE]);
    for (const b of again) expect(b.data.every((x) => x === 0)).toBe(true);
    expect(kept.data.every((x) => x === 0x5a)).toBe(true);
  });

  it("takes a page's bytes back at once and hands the same views out again, zeroed, the slot never free twice", async () => {
    const arena = new PageArena({ growBytes: 65536 });
    let a: PageBytes | null = arena.allocate();
    const b = arena.allocate();
    a.data.fill(0x77);
    b.data.fill(0x11);
    const { offset: at, data } = a;
    expect(arena.pagesInUse).toBe(2);
    arena.recycle(a);
    expect(arena.pagesInUse).toBe(1);
    const c = arena.allocate();
    expect(c.offset).toBe(at);
    expect(c.data).toBe(data);
    expect(c.data.every((x) => x === 0)).toBe(true);
    expect(b.data.every((x) => x === 0x11)).toBe(true);
    // A buffer of its own is not taken.
    const full = new PageArena({ memory: false });
    full.recycle(full.allocate());
    expect(full.allocate().offset).toBe(-1);
    // Dropping the first holder of the views frees nothing: c holds them and keeps the slot.
    a = null;
    if (gc !== undefined) {
      for (let tries = 0; tries < 5; tries++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    expect(arena.pagesInUse).toBe(2);
    expect(arena.allocate().offset).not.toBe(at);
  });

  it('gives the bytes of a page unmapped from the one space that mapped it back at once, and keeps a shared one', () => {
    const as = new AddressSpace();
    const other = new AddressSpace();
    as.map(0x400000n, 2 * PAGE_SIZE, PageFlags.Present | PageFlags.Writable | PageFlags.User);
    other.share(as, 0x401000n, PAGE_SIZE);
    const own = as.lookup(0x400000, 0) as Page;
    const shared = as.lookup(0x401000, 0) as Page;
    as.writeU8(0x400000n, 0x42);
    const inUse = PAGE_ARENA.pagesInUse;
    as.unmap(0x400000n, 2 * PAGE_SIZE);
    expect(PAGE_ARENA.pagesInUse).toBe(inUse - 1);
    // The released page has no bytes any more (a holder reads nothing, never its slot's next page).
    expect([own.offset, own.data.length]).toEqual([-1, 0]);
    own.release(); // a second release gives nothing back
    expect(PAGE_ARENA.pagesInUse).toBe(inUse - 1);
    expect(() => own.view.getUint8(0)).toThrow(RangeError);
    // The shared one is still the other space's.
    expect(shared.offset).toBeGreaterThan(0);
    expect(other.readU8(0x401000n)).toBe(0);
  });
});
