import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBoundedFile } from './read-bounded-file.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fail = (why: string) => new Error(why);

describe(readBoundedFile, () => {
  it('should read a regular file whole', () => {
    const f = join(dir, 'f');
    writeFileSync(f, 'hello');
    expect(Buffer.from(readBoundedFile(f, 100, fail)).toString()).toBe('hello');
  });

  it('should refuse a file over the limit, a device, a FIFO and a directory without reading them', () => {
    const f = join(dir, 'big');
    writeFileSync(f, 'x'.repeat(2000));
    expect(() => readBoundedFile(f, 1000, fail)).toThrow('too large (2000 bytes; the limit is 1000 bytes)');
    expect(() => readBoundedFile('/dev/zero', 1000, fail)).toThrow('not a regular file (it is a device)');
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readBoundedFile(fifo, 1000, fail)).toThrow('not a regular file (it is a FIFO)');
    expect(() => readBoundedFile(dir, 1000, fail)).toThrow('not a regular file (it is a directory)');
    expect(() => readBoundedFile(join(dir, 'none'), 1000, fail)).toThrow('no such file');
  });
});
