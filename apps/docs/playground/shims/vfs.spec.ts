import { describe, expect, it } from 'vitest';
import { addFile, lookupFile } from './vfs.js';

describe(lookupFile, () => {
  it('should find a file by its path or by any path ending with it', () => {
    const bytes = Uint8Array.of(1, 2, 3);
    addFile('modules/hello.ko', bytes);
    expect(lookupFile('modules/hello.ko')).toBe(bytes);
    expect(lookupFile('./modules/hello.ko')).toBe(bytes);
    expect(lookupFile('/int3/assets/../image/modules/hello.ko')).toBe(bytes);
    expect(lookupFile('hello.ko')).toBeUndefined();
    expect(lookupFile('modules/hello.ko.bak')).toBeUndefined();
  });
});
