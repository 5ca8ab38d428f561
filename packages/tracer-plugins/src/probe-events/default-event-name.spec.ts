import { describe, expect, it } from 'vitest';
import { defaultEventName, sanitizeEventName } from './default-event-name.js';

describe(defaultEventName, () => {
  it('should build p_/r_ names with decimal offsets, sanitized', () => {
    expect(defaultEventName('p', 'foo.isra.0', 0)).toBe('p_foo_isra_0_0');
    expect(defaultEventName('r', 'mod:func', 0)).toBe('r_mod_func_0');
    expect(defaultEventName('p', 'vfs_read', 16)).toBe('p_vfs_read_16');
    expect(defaultEventName('p', undefined, 0, 0xffffffff81000010n)).toBe('p_0xffffffff81000010');
  });
  it('should cut the name to 63 characters', () => {
    expect(defaultEventName('p', 'a'.repeat(80), 0)).toBe(`p_${'a'.repeat(61)}`);
  });
});

describe(sanitizeEventName, () => {
  it('should leave the first character alone', () => {
    expect(sanitizeEventName('.a:b*c.d')).toBe('.a_b_c_d');
  });
});
