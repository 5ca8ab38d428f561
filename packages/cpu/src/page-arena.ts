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

/** A slot's two views; the slot is free once both are collected. */
interface Slot {
  readonly at: number;
  live: number;
}

/**
 * Where guest pages keep their bytes: one shared WebAssembly memory, so that code compiled to
 * WebAssembly can load and store guest memory itself, at a page's {@link PageBytes.offset}. Every
 * page is a view of it, as a page of its own buffer was; a shared memory's buffer is never detached
 * when it grows, so a page's views stay valid. A slot is reused once both views of its page are
 * collected (a FinalizationRegistry; nothing a guest sees depends on which slot a page has), and is
 * zeroed when it is. Where there is no WebAssembly, no SharedArrayBuffer (a browser page that is not
 * cross-origin isolated), or the memory is full, a page gets a buffer of its own, as before: the
 * same bytes, only not reachable from WebAssembly.
 */
export class PageArena {
  /** The memory, or null where there is none. */
  readonly memory: WasmMemory | null;
  private readonly maxBytes: number;
  private readonly growPages: number;
  /** The memory's buffer as of its last growth (it covers every slot handed out). */
  private buffer: ArrayBufferLike | null;
  /** Bytes of the memory handed out or free for reuse (slots below it), and its size. */
  private top = 0;
  private size = 0;
  private readonly free: number[] = [];
  private readonly registry = new FinalizationRegistry<Slot>((slot) => {
    if (--slot.live === 0) this.free.push(slot.at);
  });

  constructor(options: PageArenaOptions = {}) {
    this.maxBytes = Math.floor((options.maxBytes ?? 2 ** 32) / WASM_PAGE) * WASM_PAGE;
    this.growPages = Math.max(1, Math.ceil((options.growBytes ?? 4 << 20) / WASM_PAGE));
    this.memory = options.memory === false ? null : sharedMemory(this.maxBytes / WASM_PAGE);
    this.buffer = this.memory?.buffer ?? null;
  }

  /** Slots handed out and not yet reclaimed. */
  get pagesInUse(): number {
    return (this.top - this.free.length * PAGE_SIZE) / PAGE_SIZE;
  }

  /** Bytes of the memory (0 without one). */
  get bytes(): number {
    return this.size;
  }

  /** A zeroed page's bytes: a slot of the memory when it has room, else a buffer of its own. */
  allocate(): PageBytes {
    const at = this.slot();
    if (at < 0) {
      const data = new Uint8Array(PAGE_SIZE);
      return { data, view: new DataView(data.buffer), offset: -1 };
    }
    const buffer = this.buffer as ArrayBufferLike;
    const data = new Uint8Array(buffer, at, PAGE_SIZE);
    const view = new DataView(buffer, at, PAGE_SIZE);
    const slot: Slot = { at, live: 2 };
    this.registry.register(data, slot);
    this.registry.register(view, slot);
    return { data, view, offset: at };
  }

  /** The offset of a free slot (a reused one zeroed), or -1. */
  private slot(): number {
    const reused = this.free.pop();
    if (reused !== undefined) {
      new Uint8Array(this.buffer as ArrayBufferLike, reused, PAGE_SIZE).fill(0);
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

/** The arena every {@link Page} takes its bytes from (one per process, or per worker). */
export const PAGE_ARENA = new PageArena();
