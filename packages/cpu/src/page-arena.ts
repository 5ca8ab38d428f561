import { I32, WasmFunction, writeModule } from './jit/wasm/wasm-writer.js';
import { PAGE_SIZE } from './page-flags.js';
import { WASM, type WasmMemory } from './wasm-api.js';

/** Bytes in one WebAssembly page. */
const WASM_PAGE = 65536;

/** The bytes of one guest page: views of the arena's memory at `offset`, or of a buffer of their own (-1). */
export interface PageBytes {
  readonly data: Uint8Array;
  readonly view: DataView;
  readonly offset: number;
}

/** Options of a {@link PageArena}. */
export interface PageArenaOptions {
  /** Most bytes the memory grows to (rounded down to 64 KiB); default 4 GiB, a 32-bit memory's limit. */
  readonly maxBytes?: number;
  /** Bytes the memory grows by when it is full (rounded up to 64 KiB); default 4 MiB. */
  readonly growBytes?: number;
  /** False for no memory at all (every page gets a buffer of its own, as where WebAssembly is not). */
  readonly memory?: boolean;
}

/** A slot and how many of its views are not collected yet; it is free once none is left. */
interface Slot {
  readonly at: number;
  live: number;
}

/**
 * Where guest pages keep their bytes: one shared WebAssembly memory, so that code compiled to
 * WebAssembly can load and store guest memory itself, at a page's {@link PageBytes.offset}. Every
 * page is a view of it, as a page of its own buffer was; a shared memory's buffer is never detached
 * when it grows, so a page's views stay valid. A slot is reused, zeroed, once its page gives its
 * bytes back ({@link recycle}: a page no address space maps any more) or every view of it is
 * collected (a FinalizationRegistry, whose callbacks run only once the event loop turns); nothing a
 * guest sees depends on which slot a page has. Where there is no WebAssembly, no SharedArrayBuffer
 * (a browser page that is not cross-origin isolated), or the memory is full, a page gets a buffer of
 * its own, as before: the same bytes, only not reachable from WebAssembly.
 */
export class PageArena {
  /** The memory, or null where there is none. */
  readonly memory: WasmMemory | null;
  /**
   * One byte per slot of the memory, at its start (index: a slot's offset / 4096): 1 while the
   * page in the slot has decoded code (Page.code), whose every write compiled code must leave to the
   * interpreter, which tells the page; null without a memory.
   */
  readonly codeMap: Uint8Array | null;
  private readonly maxBytes: number;
  /** Bytes of the code map (whole WebAssembly pages): the slots start after it. */
  private readonly mapBytes: number;
  private readonly growPages: number;
  /** The memory's buffer as of its last growth (it covers every slot handed out). */
  private buffer: ArrayBufferLike | null;
  /** Bytes of the memory handed out or free for reuse (slots below it), and its size. */
  private top = 0;
  private size = 0;
  private readonly free: number[] = [];
  /** Pages' bytes given back ({@link recycle}), their views still registered, to hand out again. */
  private readonly recycled: PageBytes[] = [];
  /** Zeroes the slot at an offset (WebAssembly's memory.fill: see zeroer). */
  private readonly zero: ((at: number) => void) | null;
  private readonly registry = new FinalizationRegistry<Slot>((slot) => {
    if (--slot.live === 0) this.free.push(slot.at);
  });

  constructor(options: PageArenaOptions = {}) {
    this.maxBytes = Math.floor((options.maxBytes ?? 2 ** 32) / WASM_PAGE) * WASM_PAGE;
    this.growPages = Math.max(1, Math.ceil((options.growBytes ?? 4 << 20) / WASM_PAGE));
    let memory = options.memory === false ? null : sharedMemory(this.maxBytes / WASM_PAGE);
    // The code map, a byte for each slot the memory may hold, takes the first slots.
    const mapBytes = Math.ceil(this.maxBytes / PAGE_SIZE / WASM_PAGE) * WASM_PAGE;
    this.mapBytes = mapBytes;
    if (memory !== null && mapBytes < this.maxBytes) {
      try {
        memory.grow(mapBytes / WASM_PAGE);
      } catch {
        memory = null;
      }
    } else memory = null;
    this.memory = memory;
    this.zero = memory === null ? null : zeroer(memory);
    this.buffer = memory?.buffer ?? null;
    this.codeMap = memory === null ? null : new Uint8Array(memory.buffer, 0, this.maxBytes / PAGE_SIZE);
    this.size = this.top = memory === null ? 0 : mapBytes;
  }

  /** Slots handed out and not yet reclaimed. */
  get pagesInUse(): number {
    if (this.memory === null) return 0;
    return (this.top - this.mapBytes - (this.free.length + this.recycled.length) * PAGE_SIZE) / PAGE_SIZE;
  }

  /** Bytes of the memory, its code map included (0 without one). */
  get bytes(): number {
    return this.size;
  }

  /**
   * A page's bytes: a page's given back ({@link recycle}), else a slot of the memory when it has
   * room, else a buffer of its own. Zeroed, unless `zeroed` is false: then a slot given back keeps
   * its last page's bytes, for a caller that writes every one before anything reads them (a copy).
   */
  allocate(zeroed = true): PageBytes {
    const again = this.recycled.pop();
    if (again !== undefined) {
      this.clean(again.offset, zeroed);
      return again;
    }
    const slot = this.views(
      (buffer, at) => [new Uint8Array(buffer, at, PAGE_SIZE), new DataView(buffer, at, PAGE_SIZE)] as const,
    );
    if (slot === null) {
      const data = new Uint8Array(PAGE_SIZE);
      return { data, view: new DataView(data.buffer), offset: -1 };
    }
    const [data, view] = slot.views;
    return { data, view, offset: slot.offset };
  }

  /**
   * Takes a page's bytes back at once, before they are collected, for {@link allocate} to hand out
   * again, zeroed (unless its taker copies a whole page in): their owner promises that nothing
   * reads or writes through them any more (see Page.release). The views themselves are handed out
   * again, still registered, so that whoever gets them next owns the slot until they come back or
   * are collected: no new views, no registry work (a `fork` copies some 30 pages a child, and gets
   * them back when it exits). A buffer of its own (offset -1) is left to the garbage collector.
   */
  recycle(bytes: PageBytes): void {
    if (bytes.offset >= 0) this.recycled.push(bytes);
  }

  /**
   * The views `make` makes of a zeroed slot of the memory at `at` (a page's bytes, a CPU's
   * registers and TLB), or null when there is no room: the slot is reused once every one of them
   * is collected, so a caller must keep what it uses of the slot in these views, not in others it
   * derives from them.
   */
  views<T extends readonly object[]>(
    make: (buffer: ArrayBufferLike, at: number) => T,
  ): { views: T; offset: number } | null {
    const at = this.slot();
    if (at < 0) return null;
    const views = make(this.buffer as ArrayBufferLike, at);
    const slot: Slot = { at, live: views.length };
    for (const v of views) this.registry.register(v, slot);
    return { views, offset: at };
  }

  /** Clears the code map byte of the slot at `at` for its next page, and zeroes the slot unless told not to. */
  private clean(at: number, zeroed = true): void {
    if (zeroed) (this.zero as (at: number) => void)(at);
    (this.codeMap as Uint8Array)[at / PAGE_SIZE] = 0;
  }

  /** The offset of a free slot (a reused one zeroed), or -1. */
  private slot(): number {
    const reused = this.free.pop();
    if (reused !== undefined) {
      this.clean(reused);
      return reused;
    }
    const memory = this.memory;
    if (memory === null) return -1;
    if (this.top === this.size) {
      const pages = Math.min(this.growPages, (this.maxBytes - this.size) / WASM_PAGE);
      if (pages <= 0) return -1;
      try {
        memory.grow(pages);
      } catch {
        return -1;
      }
      this.size += pages * WASM_PAGE;
      this.buffer = memory.buffer;
    }
    const at = this.top;
    this.top += PAGE_SIZE;
    return at;
  }
}

/** A shared WebAssembly memory of no pages that may grow to `maximum`, or null where there is none. */
function sharedMemory(maximum: number): WasmMemory | null {
  if (maximum <= 0 || WASM === null || typeof SharedArrayBuffer !== 'function') return null;
  try {
    return new WASM.Memory({ initial: 0, maximum, shared: true });
  } catch {
    return null;
  }
}

/**
 * `zero(at)`: zeroes the page at `at` of `memory` with WebAssembly's memory.fill, a memset: filling a
 * view of a shared buffer from JavaScript stores byte by byte (measured on Node 20: 1.2-2.1 µs a page
 * with Uint8Array.fill, 0.17-0.24 µs copying a zero page in, 0.05-0.07 µs with memory.fill), and a
 * `fork` reuses a slot for every page it copies.
 */
function zeroer(memory: WasmMemory): (at: number) => void {
  const api = WASM as NonNullable<typeof WASM>;
  const fn = new WasmFunction([I32], []);
  fn.get(0).i32(0).i32(PAGE_SIZE).memoryFill();
  const bytes = writeModule({
    memory: { module: 'm', name: 'memory', maximum: 65536 },
    imports: [],
    functions: [{ fn, export: 'zero' }],
  });
  return new api.Instance(new api.Module(bytes), { m: { memory } }).exports.zero as (at: number) => void;
}

/** The arena every {@link Page} takes its bytes from (one per process, or per worker). */
export const PAGE_ARENA = new PageArena();

/** What the page arena holds: guest pages in its memory, and the memory's bytes. */
export interface PageArenaUsage {
  /** Slots handed out and not given back or reclaimed yet (pages, a CPU's registers and TLBs). */
  readonly pages: number;
  /** Bytes of the memory (0 without one: every page has a buffer of its own). */
  readonly bytes: number;
}

/**
 * How much of this process's (or worker's) page arena is in use: guest pages live in one shared
 * WebAssembly memory, which grows and does not shrink; a slot comes back when its page leaves the
 * last address space that maps it, or once nothing holds it and the event loop has turned.
 */
export function pageArenaUsage(): PageArenaUsage {
  return { pages: PAGE_ARENA.pagesInUse, bytes: PAGE_ARENA.bytes };
}

/**
 * Int32Arrays of the given lengths, one after another in one slot of {@link PAGE_ARENA} (where code
 * compiled to WebAssembly reads them, from `offset` on), or arrays of their own (`offset` -1) where
 * the arena has no room or no memory. At most a slot's worth (1,024 ints) in all.
 */
export function int32Slot(lengths: readonly number[]): { readonly arrays: Int32Array[]; readonly offset: number } {
  const slot = PAGE_ARENA.views((buffer, at) => {
    let o = at;
    return lengths.map((n) => {
      const a = new Int32Array(buffer, o, n);
      o += n * 4;
      return a;
    });
  });
  if (slot !== null) return { arrays: slot.views, offset: slot.offset };
  return { arrays: lengths.map((n) => new Int32Array(n)), offset: -1 };
}
