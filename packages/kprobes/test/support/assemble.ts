import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Assembles `source` into a relocatable object (a module) with the system's gcc. */
export function assemble(source: string): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'int3-asm-'));
  try {
    writeFileSync(join(dir, 'm.S'), source);
    execFileSync('gcc', ['-c', '-o', join(dir, 'm.o'), join(dir, 'm.S')]);
    return new Uint8Array(readFileSync(join(dir, 'm.o')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
