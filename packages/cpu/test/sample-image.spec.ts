/**
 * The committed sample image (sample/sample.elf) must be what sample/build.sh produces from the
 * current corpus, and must run in the emulator: `int3 call` and `int3 demo` use it by default.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS_FUNCTIONS } from '../src/testing/corpus-manifest.js';
import { CPU_PACKAGE_DIR } from './support/gcc-build.js';
import { GuestImage } from './support/guest-image.js';

const SAMPLE = join(CPU_PACKAGE_DIR, 'sample', 'sample.elf');
const BUILD = join(CPU_PACKAGE_DIR, 'sample', 'build.sh');

describe('sample/build.sh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'int3-sample-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should rebuild the committed sample.elf byte for byte (else run sample/build.sh and commit)', () => {
    const rebuilt = join(dir, 'sample.elf');
    // From another working directory, to show the build does not depend on it.
    execFileSync(BUILD, [rebuilt], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(Buffer.compare(readFileSync(rebuilt), readFileSync(SAMPLE))).toBe(0);
  });
});

describe('sample.elf', () => {
  it('should define exactly the functions of the manifest (plus the libc and libgcc helpers)', () => {
    const image = GuestImage.fromFile(SAMPLE);
    const missing = CORPUS_FUNCTIONS.filter((f) => image.symbols.lookup(f.name)?.type !== 'func').map((f) => f.name);
    expect(missing).toEqual([]);
    const helpers = new Set(['memcpy', 'memset', 'memmove', 'memcmp']);
    const known = new Set(CORPUS_FUNCTIONS.map((f) => f.name));
    const untested = [...image.symbols.names()].filter((name) => {
      const s = image.symbols.lookup(name);
      return (
        s?.type === 'func' && s.bind === 'global' && !known.has(name) && !helpers.has(name) && !name.startsWith('__')
      );
    });
    expect(untested).toEqual([]);
  });

  it('should compute the CRC-32 check value in the emulator', () => {
    const image = GuestImage.fromFile(SAMPLE);
    const text = new TextEncoder().encode('123456789');
    const r = image.call('hash_crc32', [0n, 9n, 0n, 0n, 0n, 0n], [{ slot: 0, bytes: text }]);
    expect(r.rax & 0xffffffffn).toBe(0xcbf43926n);
  });
});
