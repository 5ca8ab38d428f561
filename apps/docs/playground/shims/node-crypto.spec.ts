import * as node from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHash } from './node-crypto.js';

describe(createHash, () => {
  it("should give node:crypto's digests for sha256 and sha1, over strings and bytes", () => {
    for (const alg of ['sha256', 'sha1']) {
      for (const enc of ['hex', 'base64'] as const) {
        const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
        const ours = createHash(alg).update('pid:1:é').update(bytes).digest(enc);
        expect(ours).toBe(node.createHash(alg).update('pid:1:é').update(bytes).digest(enc));
      }
    }
  });

  it("should give node:crypto's bytes without an encoding, and copies that go on independently", () => {
    const ours = createHash('sha256').update('console:');
    const theirs = node.createHash('sha256').update('console:');
    const copy = ours.copy();
    ours.update('more');
    expect(copy.digest()).toEqual(theirs.copy().digest());
    expect(ours.digest('hex')).toBe(theirs.update('more').digest('hex'));
    expect(Buffer.isBuffer(createHash('sha1').digest())).toBe(true);
  });

  it('should refuse an algorithm the playground has not', () => {
    expect(() => createHash('md5')).toThrow('md5 is not available');
  });
});
