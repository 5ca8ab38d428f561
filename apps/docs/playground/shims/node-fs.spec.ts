import { describe, expect, it } from 'vitest';
import { closeSync, constants, fstatSync, openSync, readSync } from './node-fs.js';
import { addFile } from './vfs.js';

describe('node-fs stand-in', () => {
  it('should read a playground file through a descriptor, as the CLI’s bounded reader does', () => {
    addFile('modules/t.ko', new Uint8Array([1, 2, 3, 4, 5]));
    const fd = openSync('modules/t.ko', constants.O_RDONLY | constants.O_NONBLOCK);
    expect(fstatSync(fd)).toMatchObject({ size: 5 });
    expect(fstatSync(fd).isFile()).toBe(true);
    const chunk = new Uint8Array(3);
    expect(readSync(fd, chunk, 0, 3)).toBe(3);
    expect([...chunk]).toEqual([1, 2, 3]);
    expect(readSync(fd, chunk, 0, 3)).toBe(2);
    expect(readSync(fd, chunk, 0, 3)).toBe(0);
    closeSync(fd);
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  it('should refuse to open for writing (read-only) and name a missing file (ENOENT)', () => {
    expect(() => openSync('out.txt', 'w')).toThrow(/EROFS/);
    expect(() => openSync('out.txt', constants.O_WRONLY | constants.O_CREAT)).toThrow(/EROFS/);
    expect(() => openSync('nope.ko')).toThrow(/ENOENT/);
  });
});
