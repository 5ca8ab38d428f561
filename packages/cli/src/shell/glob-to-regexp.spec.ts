import { describe, expect, it } from 'vitest';
import { globToRegExp } from './glob-to-regexp.js';

describe(globToRegExp, () => {
  it('should match * and ? and classes, anchored at both ends', () => {
    expect(globToRegExp('sys_*').test('sys_mkdir')).toBe(true);
    expect(globToRegExp('sys_*').test('do_sys_open')).toBe(false);
    expect(globToRegExp('do_sys_ope?').test('do_sys_open')).toBe(true);
    expect(globToRegExp('[dv]fs_*').test('vfs_read')).toBe(true);
  });

  it('should treat regex characters literally', () => {
    expect(globToRegExp('a.b').test('axb')).toBe(false);
    expect(globToRegExp('a.b').test('a.b')).toBe(true);
  });
});
