import { describe, expect, it } from 'vitest';
import { suggestNames } from './suggest-names.js';

const NAMES = ['sort_quick_i64', 'sort_heap_u16', 'sort_insertion_u32', 'hash_crc32', 'hash_crc16_ccitt', 'div_s64'];

describe(suggestNames, () => {
  it('should suggest names within a small edit distance, closest first', () => {
    expect(suggestNames('div_s46', NAMES)).toEqual(['div_s64']);
    expect(suggestNames('hash_crc23', NAMES)[0]).toBe('hash_crc32');
  });

  it('should suggest names that contain what was typed', () => {
    expect(suggestNames('sort', NAMES)).toEqual(['sort_heap_u16', 'sort_quick_i64', 'sort_insertion_u32']);
  });

  it('should suggest names whose beginning is a small typo away', () => {
    expect(suggestNames('sort_quik', NAMES)).toEqual(['sort_quick_i64']);
  });

  it('should suggest nothing for an unrelated name', () => {
    expect(suggestNames('vfs_read', NAMES)).toEqual([]);
  });
});
