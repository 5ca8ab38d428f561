import * as node from 'node:path/posix';
import { describe, expect, it } from 'vitest';
import { basename, dirname, join, normalize } from './node-path.js';

describe(join, () => {
  it("should agree with node's POSIX path on the forms the packages use", () => {
    for (const parts of [
      ['/a/b', '..', 'image'],
      ['/x', 'user', 'bin', 'cat'],
      ['a', './b', '../c'],
      ['/', 'vmlinux'],
    ]) {
      expect(join(...parts)).toBe(node.join(...parts));
    }
    for (const p of ['/a/b/c.ts', '/a', 'a/b/', '/']) {
      expect(dirname(p)).toBe(node.dirname(p));
      expect(basename(p)).toBe(node.basename(p));
      expect(normalize(p)).toBe(node.normalize(p));
    }
    expect(basename('/m/hello.ko', '.ko')).toBe('hello');
  });
});
