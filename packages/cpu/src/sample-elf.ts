/**
 * The location of the sample image, `sample/sample.elf` in this package: an ET_EXEC x86-64 image of
 * the freestanding C corpus (hash_crc32, sort_quick_i64, div_s64, … as built by `sample/build.sh`), the
 * default image of `int3 call`. A `file:` URL when the package is loaded from disk (Node's `fs` accepts
 * it as a path); a fresh URL each call, so no caller can change another's.
 *
 * @example
 * const elf = parseElf(readFileSync(sampleElfUrl()), 'sample.elf');
 */
export function sampleElfUrl(): URL {
  // From src/ and from dist/ alike, the package root is one level up.
  return new URL('../sample/sample.elf', import.meta.url);
}
