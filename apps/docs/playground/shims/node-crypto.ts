import { sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Buffer } from 'buffer';

/** The part of `node:crypto`'s Hash the int3 packages use. */
export interface Hash {
  update(data: string | Uint8Array): Hash;
  digest(encoding: 'hex' | 'base64'): string;
}

const encoder = new TextEncoder();

/** `crypto.createHash` for the two algorithms the kernel uses (sha256 state hashes, sha1 page interning). */
export function createHash(algorithm: string): Hash {
  const h = algorithm === 'sha256' ? sha256.create() : algorithm === 'sha1' ? sha1.create() : undefined;
  if (h === undefined) throw new Error(`createHash: ${algorithm} is not available in the playground`);
  const hash: Hash = {
    update(data) {
      h.update(typeof data === 'string' ? encoder.encode(data) : data);
      return hash;
    },
    digest(encoding) {
      return Buffer.from(h.digest()).toString(encoding);
    },
  };
  return hash;
}

export default { createHash };
