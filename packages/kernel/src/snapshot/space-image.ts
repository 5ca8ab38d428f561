import { type AddressSpace, PAGE_SIZE } from '@int3/cpu';
import { type PageInterner, sameBytes } from './page-interner.js';

/** One page of a snapshot: its permissions, bytes and instrumentation map (both shared, never written). */
export interface PageImage {
  readonly flags: number;
  readonly data: Uint8Array;
  /** One byte per offset, 1 where the byte is instrumentation; null when none is. */
  readonly instrumentation: Uint8Array | null;
}

/** Every page an address space owns (not the kernel half it shares), by page key (`address >> 12`). */
export interface SpaceImage {
  readonly pages: ReadonlyMap<number, PageImage>;
}

const addressOf = (key: number): bigint => BigInt(key) << 12n;

function sameInstrumentation(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a === null || b === null ? a === b : sameBytes(a, b);
}

/**
 * Copies the pages `space` owns. A page equal to the one `previous` holds at the same address is
 * shared with it (a memcmp, no hashing); other contents go through the interner. When nothing
 * changed, `previous` itself is returned.
 */
export function captureSpace(space: AddressSpace, previous: SpaceImage | undefined, store: PageInterner): SpaceImage {
  const pages = new Map<number, PageImage>();
  let unchanged = previous !== undefined && previous.pages.size === space.pageMap.size;
  for (const [key, page] of space.pageMap) {
    const old = previous?.pages.get(key);
    const data = old && sameBytes(old.data, page.data) ? old.data : store.intern(page.data);
    const inst = page.instrumentation;
    const instrumentation =
      inst === null
        ? null
        : old?.instrumentation && sameBytes(old.instrumentation, inst)
          ? old.instrumentation
          : store.intern(inst);
    if (old && old.flags === page.flags && old.data === data && old.instrumentation === instrumentation) {
      pages.set(key, old);
    } else {
      unchanged = false;
      pages.set(key, Object.freeze({ flags: page.flags, data, instrumentation }));
    }
  }
  return unchanged ? previous! : Object.freeze({ pages });
}

/**
 * Makes `space` own exactly the pages of `image`. Pages whose bytes, permissions and instrumentation
 * already match are left alone, decoded code included; every other change goes through the address
 * space (map, unmap, protect, write), so decoded code and TLBs are invalidated as for any write.
 */
export function restoreSpace(space: AddressSpace, image: SpaceImage): void {
  const gone = [...space.pageMap.keys()].filter((key) => !image.pages.has(key));
  for (const key of gone) space.unmap(addressOf(key), PAGE_SIZE);
  for (const [key, saved] of image.pages) {
    let page = space.pageMap.get(key);
    if (page === undefined) {
      space.map(addressOf(key), PAGE_SIZE, saved.flags);
      page = space.pageMap.get(key)!;
    } else if (page.flags !== saved.flags) {
      space.protect(addressOf(key), PAGE_SIZE, saved.flags);
    }
    if (!sameBytes(page.data, saved.data)) space.write(addressOf(key), saved.data);
    if (!sameInstrumentation(page.instrumentation, saved.instrumentation)) {
      page.instrumentation = saved.instrumentation === null ? null : saved.instrumentation.slice();
      // Decoding reads the instrumentation map (an instruction on it costs no virtual time).
      page.invalidateCode();
    }
  }
}
