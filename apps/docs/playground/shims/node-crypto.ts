import { sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Buffer } from 'buffer';

/** The part of `node:crypto`'s Hash the int3 packages use. */
export interface Hash {
  update(data: string | Uint8Array): Hash;
  /** The digest as text, or as bytes without an encoding (the state hash's page and task digests). */
  digest(): Buffer;
  digest(encoding: 'hex' | 'base64'): string;
  /** An independent hash in the same state (the console's running digest, saved in snapshots). */
  copy(): Hash;
}

const encoder = new TextEncoder();

type Noble = ReturnType<typeof sha256.create>;

function wrap(h: Noble): Hash {
  const hash = {
    update(data: string | Uint8Array) {
      h.update(typeof data === 'string' ? encoder.encode(data) : data);
      return hash;
    },
    digest(encoding?: 'hex' | 'base64') {
      const bytes = Buffer.from(h.digest());
      return encoding === undefined ? bytes : bytes.toString(encoding);
    },
    copy: () => wrap(h.clone()),
  };
  return hash as Hash;
}

/** `crypto.createHash` for the two algorithms the kernel uses (sha256 state hashes, sha1 page interning). */
export function createHash(algorithm: string): Hash {
  const h = algorithm === 'sha256' ? sha256.create() : algorithm === 'sha1' ? sha1.create() : undefined;
  if (h === undefined) throw new Error(`createHash: ${algorithm} is not available in the playground`);
  return wrap(h as Noble);
}

export default { createHash };
