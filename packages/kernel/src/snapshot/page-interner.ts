import { createHash } from 'node:crypto';

/** True when two byte arrays hold the same bytes (a native memcmp). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.length === b.length && Buffer.compare(a, b) === 0);
}

/**
 * A content-addressed store of page contents: every distinct content is kept once, however many
 * snapshots and addresses hold it (zeroed pages, text that never changes). Entries are weak: a content
 * no snapshot holds any more is forgotten. The arrays it hands out are shared, so they are never written.
 *
 * @see mm/ksm.c (the idea of merging identical pages), not its algorithm
 */
export class PageInterner {
  private readonly byDigest = new Map<string, WeakRef<Uint8Array>>();
  private readonly reaper = new FinalizationRegistry<string>((digest) => {
    if (this.byDigest.get(digest)?.deref() === undefined) this.byDigest.delete(digest);
  });

  /** The shared copy of `bytes`' content (a new one when no live copy has that content). */
  intern(bytes: Uint8Array): Uint8Array {
    const digest = createHash('sha1').update(bytes).digest('base64');
    const known = this.byDigest.get(digest)?.deref();
    if (known !== undefined && sameBytes(known, bytes)) return known;
    const copy = bytes.slice();
    this.byDigest.set(digest, new WeakRef(copy));
    this.reaper.register(copy, digest);
    return copy;
  }

  /** Number of distinct contents currently known (live or not yet collected). */
  get size(): number {
    return this.byDigest.size;
  }
}
