import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KERNEL_CFLAGS } from '../../src/modules/kernel-cflags.js';
import { IMAGE_DIR } from '../../src/sample-image.js';

/**
 * Compiles `source` as the module `name`.ko of the sample kernel: the kernel's flags, its headers,
 * gcc's own include directory, every warning an error. Returns the object's bytes; nothing is left
 * on disk.
 */
export function buildTestModule(name: string, source: string): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), `int3-${name}-`));
  try {
    const c = join(dir, `${name}.c`);
    const ko = join(dir, `${name}.ko`);
    writeFileSync(c, source);
    const gccInclude = execFileSync('gcc', ['-print-file-name=include'], { encoding: 'utf8' }).trim();
    execFileSync('gcc', [
      ...KERNEL_CFLAGS,
      '-nostdinc',
      '-isystem',
      gccInclude,
      '-I',
      join(IMAGE_DIR, 'include'),
      '-Wall',
      '-Werror',
      '-c',
      c,
      '-o',
      ko,
    ]);
    return new Uint8Array(readFileSync(ko));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
