import { constants } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Errno, type ErrnoName, errnoSubset, strerror } from './errno.js';

describe('Errno', () => {
  it.skipIf(process.platform !== 'linux')("should hold the numbers of the host's Linux errno.h", () => {
    // Node's os.constants.errno comes from the C library's <errno.h> on this (Linux) host.
    const host = constants.errno as Record<string, number>;
    for (const [name, n] of Object.entries(Errno)) expect([name, host[name]]).toEqual([name, n]);
  });
});

describe(strerror, () => {
  it("should give glibc's wording", () => {
    expect(strerror('EINVAL')).toBe('Invalid argument');
    expect(strerror('ENOENT')).toBe('No such file or directory');
    expect(strerror('EBUSY')).toBe('Device or resource busy');
    expect(strerror('EILSEQ')).toBe('Invalid or incomplete multibyte or wide character');
  });

  it('should have a message for every name', () => {
    for (const name of Object.keys(Errno) as ErrnoName[]) expect(strerror(name)).toMatch(/^[A-Z][a-z]/);
  });
});

describe(errnoSubset, () => {
  it('should keep only the names asked for, with their numbers', () => {
    const s = errnoSubset(['EINVAL', 'ENOENT']);
    expect(s).toEqual({ EINVAL: 22, ENOENT: 2 });
    expect(Object.isFrozen(s)).toBe(true);
  });
});
